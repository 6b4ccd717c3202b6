// Cards, melds and deadwood for Hollywood Gin (docs/rules.md#melds), from scratch: a bot
// in another language gets nothing from the arena but the protocol, so it brings its own.
//
// A card is the protocol's two-character string ("As", "Td", "7c"). Internally a card is
// an index 0..51, clubs first: suit*13 + rank - 1 (rank 1 = ace, always low).
package main

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"
)

const ranks = "A23456789TJQK"
const suits = "cdhs"

// ParseCard reads "As" / "Td" (also "10d", any letter case).
func ParseCard(text string) (int, error) {
	if len(text) < 2 {
		return 0, fmt.Errorf("not a card: %q", text)
	}
	rankText := strings.ToUpper(text[:len(text)-1])
	if rankText == "10" {
		rankText = "T"
	}
	suit := strings.IndexByte(suits, strings.ToLower(text[len(text)-1:])[0])
	rank := -1
	if len(rankText) == 1 {
		rank = strings.IndexByte(ranks, rankText[0])
	}
	if rank < 0 || suit < 0 {
		return 0, fmt.Errorf("not a card: %q", text)
	}
	return suit*13 + rank, nil
}

// ParseCards reads every card of a list, or fails on the first that is not one.
func ParseCards(texts []string) ([]int, error) {
	cards := make([]int, 0, len(texts))
	for _, text := range texts {
		card, err := ParseCard(text)
		if err != nil {
			return nil, err
		}
		cards = append(cards, card)
	}
	return cards, nil
}

// ValueOf is a card's deadwood value: ace 1, two to ten face value, J Q K 10.
func ValueOf(card int) int {
	if rank := card%13 + 1; rank < 10 {
		return rank
	}
	return 10
}

// solver finds the least deadwood of the subsets of one hand (at most 11 cards, so a
// subset is an 11-bit mask), memoised on the subset: the eleven 10-card subsets of an
// 11-card hand share most of their work, which is what a discard choice needs.
type solver struct {
	cards  []int
	values []int
	melds  []int
	memo   map[int]int
}

func newSolver(hand []int) (*solver, error) {
	cards := append([]int(nil), hand...)
	sort.Ints(cards)
	unique := cards[:0]
	for i, card := range cards {
		if i == 0 || card != cards[i-1] {
			unique = append(unique, card)
		}
	}
	if len(unique) > 11 {
		return nil, fmt.Errorf("a hand has at most 11 cards, got %d", len(unique))
	}
	s := &solver{cards: unique, memo: map[int]int{}}
	for _, card := range unique {
		s.values = append(s.values, ValueOf(card))
	}
	s.findMelds()
	return s, nil
}

func (s *solver) fullMask() int { return 1<<len(s.cards) - 1 }

func (s *solver) maskWithout(card int) int {
	for at, held := range s.cards {
		if held == card {
			return s.fullMask() &^ (1 << at)
		}
	}
	return -1
}

// search: the lowest card of `mask` is either deadwood or in one meld that fits.
func (s *solver) search(mask int) int {
	if mask == 0 {
		return 0
	}
	if known, ok := s.memo[mask]; ok {
		return known
	}
	first := bits.TrailingZeros(uint(mask))
	best := s.values[first] + s.search(mask&^(1<<first))
	for _, meld := range s.melds {
		if meld>>first&1 == 1 && meld&mask == meld {
			if left := s.search(mask &^ meld); left < best {
				best = left
			}
		}
	}
	s.memo[mask] = best
	return best
}

// findMelds lists every set (3 or 4 of a rank; a four's sets of three too, as its fourth
// card may be better used in a run) and run (3+ in a row of one suit, ace low, no
// wrap), as masks of positions in s.cards.
func (s *solver) findMelds() {
	position := map[int]int{}
	for at, card := range s.cards {
		position[card] = at
	}
	for rank := 0; rank < 13; rank++ {
		var same []int
		for suit := 0; suit < 4; suit++ {
			if at, ok := position[suit*13+rank]; ok {
				same = append(same, at)
			}
		}
		if len(same) >= 3 {
			s.melds = append(s.melds, maskOf(same))
		}
		if len(same) == 4 {
			for leftOut := 0; leftOut < 4; leftOut++ {
				var three []int
				for i, at := range same {
					if i != leftOut {
						three = append(three, at)
					}
				}
				s.melds = append(s.melds, maskOf(three))
			}
		}
	}
	for suit := 0; suit < 4; suit++ {
		for start := 0; start < 11; start++ {
			var run []int
			for rank := start; rank < 13; rank++ {
				at, ok := position[suit*13+rank]
				if !ok {
					break
				}
				run = append(run, at)
				if len(run) >= 3 {
					s.melds = append(s.melds, maskOf(run))
				}
			}
		}
	}
}

func maskOf(positions []int) int {
	mask := 0
	for _, at := range positions {
		mask |= 1 << at
	}
	return mask
}

// MinDeadwood is the smallest deadwood total of `cards` under any arrangement of melds.
func MinDeadwood(cards []int) (int, error) {
	s, err := newSolver(cards)
	if err != nil {
		return 0, err
	}
	return s.search(s.fullMask()), nil
}

// BestDiscards: for an 11-card hand, the least deadwood left after discarding one of
// `allowed`, and every card that reaches it (sorted by index).
func BestDiscards(cards, allowed []int) (int, []int, error) {
	s, err := newSolver(cards)
	if err != nil {
		return 0, nil, err
	}
	candidates := append([]int(nil), allowed...)
	sort.Ints(candidates)
	best, chosen := -1, []int(nil)
	for i, card := range candidates {
		if i > 0 && card == candidates[i-1] {
			continue
		}
		mask := s.maskWithout(card)
		if mask < 0 {
			continue
		}
		left := s.search(mask)
		if best < 0 || left < best {
			best, chosen = left, nil
		}
		if left == best {
			chosen = append(chosen, card)
		}
	}
	if best < 0 {
		return 0, nil, fmt.Errorf("no card of the hand may be discarded")
	}
	return best, chosen, nil
}
