// go-greedy: the greedy strategy of sample_bots/greedy in Go, from bot.proto alone.
//
// It takes the discard when that lowers its deadwood, discards to the least deadwood
// (the highest card on a tie) and knocks as soon as it may. Its name and version are the
// ones the arena runs it as (HOLLYWOOD_BOT_NAME, HOLLYWOOD_BOT_VERSION, set from bot.toml
// by every sandbox), so nothing here repeats bot.toml.
//
// Where it listens: the first argument (host:port), else unix:$HOLLYWOOD_BOT_SOCKET (how
// the arena runs it), else $HOLLYWOOD_BOT_ADDRESS (host:port).
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	botv1 "github.com/hollywood-gin-arena/proto/hollywood/bot/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const protocolVersion = 1

// identity: what the handshake says. Run by hand, outside the arena, the variables may
// be unset: the bot then says so and answers with placeholders.
func identity() (string, string) {
	name := strings.TrimSpace(os.Getenv("HOLLYWOOD_BOT_NAME"))
	version := strings.TrimSpace(os.Getenv("HOLLYWOOD_BOT_VERSION"))
	if name == "" || version == "" {
		log.Print("HOLLYWOOD_BOT_NAME or HOLLYWOOD_BOT_VERSION unset (not run by the arena?); " +
			"answering the handshake with go-greedy 0.0.0")
		name, version = "go-greedy", "0.0.0"
	}
	return name, version
}

type greedyBot struct {
	botv1.UnimplementedBotServiceServer
	name, version string
}

// Handshake starts a series: the arena may reuse this process for several
// (docs/bot-guide.md, "Between series"). This bot decides from each request alone
// and keeps nothing about an opponent, so it has nothing to forget here.
func (b *greedyBot) Handshake(_ context.Context, request *botv1.HandshakeRequest) (*botv1.HandshakeResponse, error) {
	if request.GetProtocolVersion() != protocolVersion {
		log.Printf("the arena speaks protocol %d, this bot speaks %d", request.GetProtocolVersion(), protocolVersion)
	}
	return &botv1.HandshakeResponse{Name: b.name, Version: b.version,
		ProtocolVersion: protocolVersion, Author: "Hollywood Gin Arena"}, nil
}

func (b *greedyBot) Decide(_ context.Context, request *botv1.DecideRequest) (*botv1.DecideResponse, error) {
	action, err := decide(request)
	if err != nil {
		// A failed call forfeits the series; say why on stderr, whose tail the arena keeps.
		log.Printf("decide failed at hand %d, decision %d: %v", request.GetHandNumber(), request.GetDecisionNumber(), err)
		return nil, status.Errorf(codes.Unknown, "bot error: %v", err)
	}
	// A debug note: shown to this bot's owner alone, beside the move (at most 256
	// bytes are kept; docs/bot-guide.md, "Debug notes").
	note := "greedy: " + action.GetKind().String() + " " + action.GetCard()
	return &botv1.DecideResponse{Action: &botv1.Action{Kind: action.GetKind(), Card: action.GetCard()},
		Debug: note}, nil
}

func (b *greedyBot) HandEnded(context.Context, *botv1.HandEndedRequest) (*botv1.HandEndedResponse, error) {
	return &botv1.HandEndedResponse{}, nil
}

func (b *greedyBot) SeriesEnded(context.Context, *botv1.SeriesEndedRequest) (*botv1.SeriesEndedResponse, error) {
	return &botv1.SeriesEndedResponse{}, nil
}

func decide(request *botv1.DecideRequest) (*botv1.Action, error) {
	legal := request.GetLegalActions()
	if len(legal) == 0 {
		return nil, errors.New("no legal actions")
	}
	hand, err := ParseCards(request.GetObservation().GetHand())
	if err != nil {
		return nil, err
	}
	if request.GetObservation().GetPhase() == botv1.Phase_PHASE_DISCARD {
		return discardAction(legal, hand)
	}
	return drawAction(request, hand)
}

func firstOfKind(legal []*botv1.Action, kind botv1.ActionKind) *botv1.Action {
	for _, action := range legal {
		if action.GetKind() == kind {
			return action
		}
	}
	return nil
}

// drawAction takes the discard when that lowers the deadwood, else passes or draws.
func drawAction(request *botv1.DecideRequest, hand []int) (*botv1.Action, error) {
	legal := request.GetLegalActions()
	pile := request.GetObservation().GetDiscardPile()
	if take := firstOfKind(legal, botv1.ActionKind_ACTION_KIND_DRAW_DISCARD); take != nil && len(pile) > 0 {
		top, err := ParseCard(pile[len(pile)-1])
		if err != nil {
			return nil, err
		}
		now, err := MinDeadwood(hand)
		if err != nil {
			return nil, err
		}
		eleven := append(append([]int(nil), hand...), top)
		allowed := eleven
		if request.GetProfile().GetNoDiscardOfTakenCard() {
			allowed = hand
		}
		with, _, err := BestDiscards(eleven, allowed)
		if err != nil {
			return nil, err
		}
		if with < now {
			return take, nil
		}
	}
	for _, kind := range []botv1.ActionKind{botv1.ActionKind_ACTION_KIND_PASS, botv1.ActionKind_ACTION_KIND_DRAW_STOCK} {
		if action := firstOfKind(legal, kind); action != nil {
			return action, nil
		}
	}
	return legal[0], nil
}

// discardAction knocks as soon as it may (least deadwood left; on a tie the higher card
// goes), else discards to the least deadwood, the highest value (then index) on a tie.
func discardAction(legal []*botv1.Action, hand []int) (*botv1.Action, error) {
	var bestKnock *botv1.Action
	bestLeft, bestValue := 0, 0
	var allowed []int
	for _, action := range legal {
		kind := action.GetKind()
		if kind != botv1.ActionKind_ACTION_KIND_KNOCK && kind != botv1.ActionKind_ACTION_KIND_DISCARD {
			continue
		}
		card, err := ParseCard(action.GetCard())
		if err != nil {
			return nil, err
		}
		if kind == botv1.ActionKind_ACTION_KIND_DISCARD {
			allowed = append(allowed, card)
			continue
		}
		var rest []int
		for _, held := range hand {
			if held != card {
				rest = append(rest, held)
			}
		}
		left, err := MinDeadwood(rest)
		if err != nil {
			return nil, err
		}
		if bestKnock == nil || left < bestLeft || (left == bestLeft && ValueOf(card) > bestValue) {
			bestKnock, bestLeft, bestValue = action, left, ValueOf(card)
		}
	}
	if bestKnock != nil {
		return bestKnock, nil
	}
	if len(allowed) == 0 {
		return legal[0], nil
	}
	_, best, err := BestDiscards(hand, allowed)
	if err != nil {
		return nil, err
	}
	chosen := best[0]
	for _, card := range best[1:] {
		if ValueOf(card) > ValueOf(chosen) || (ValueOf(card) == ValueOf(chosen) && card > chosen) {
			chosen = card
		}
	}
	for _, action := range legal {
		if card, err := ParseCard(action.GetCard()); err == nil && card == chosen &&
			action.GetKind() == botv1.ActionKind_ACTION_KIND_DISCARD {
			return action, nil
		}
	}
	return legal[0], nil
}

// listen: the first argument (host:port), else the arena's Unix socket, else TCP.
func listen() (net.Listener, string, error) {
	if len(os.Args) > 1 {
		listener, err := net.Listen("tcp", os.Args[1])
		return listener, os.Args[1], err
	}
	if socket := strings.TrimSpace(os.Getenv("HOLLYWOOD_BOT_SOCKET")); socket != "" {
		_ = os.Remove(socket) // a stale socket file would make the bind fail
		listener, err := net.Listen("unix", socket)
		return listener, "unix:" + socket, err
	}
	if address := strings.TrimSpace(os.Getenv("HOLLYWOOD_BOT_ADDRESS")); address != "" {
		listener, err := net.Listen("tcp", address)
		return listener, address, err
	}
	return nil, "", errors.New("set HOLLYWOOD_BOT_SOCKET (a Unix socket path) or " +
		"HOLLYWOOD_BOT_ADDRESS (host:port), or give the address as the first argument")
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("go-greedy: ")
	listener, target, err := listen()
	if err != nil {
		log.Print(err)
		os.Exit(2)
	}
	name, version := identity()
	server := grpc.NewServer()
	botv1.RegisterBotServiceServer(server, &greedyBot{name: name, version: version})
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		log.Print("shutting down")
		done := make(chan struct{})
		go func() { server.GracefulStop(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Second):
			server.Stop()
		}
	}()
	log.Print(fmt.Sprintf("serving %s %s on %s", name, version, target))
	if err := server.Serve(listener); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}
