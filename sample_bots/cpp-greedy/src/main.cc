// cpp-greedy: a Hollywood Gin bot in C++ that needs nothing of the arena's code, only
// the protocol (proto/hollywood/bot/v1/bot.proto, compiled by protoc with the gRPC C++
// plugin at build time; see build.sh).
//
// Environment (see bot.proto, "Transport"):
//   HOLLYWOOD_BOT_SOCKET   Unix socket path to bind (how the arena runs it)
//   HOLLYWOOD_BOT_ADDRESS  host:port to bind instead, used only when the socket is unset
//                          (a bot started by hand for `arena play ... tcp:HOST:PORT`)
//   HOLLYWOOD_BOT_SEED     accepted and ignored: greedy play is deterministic
// A first argument, if given, is the address to bind (e.g. `bin/cpp-greedy localhost:50051`).
// SIGTERM / SIGINT shut the server down and remove the socket file.
//
// The policy is the greedy one of sample_bots/greedy (Python): take the upcard / top
// discard when that lowers the deadwood (after the best discard), otherwise pass or
// draw from the stock; discard the card leaving the least deadwood (ties: the highest
// value); knock as soon as it may.
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "gin.h"
#include "hollywood/bot/v1/bot.grpc.pb.h"

namespace botv1 = hollywood::bot::v1;

namespace {

constexpr unsigned kProtocolVersion = 1;

void Log(const std::string& message) { std::cerr << "cpp-greedy: " << message << std::endl; }

struct Identity {
  std::string name = "cpp-greedy";
  std::string version = "0.0.0";
  std::string author;
};

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// name / version / author from the top level of bot.toml (plain `key = "text"` lines).
void ReadTopLevel(std::ifstream& file, Identity& identity) {
  const std::regex line_pattern(R"(^\s*(name|version|author)\s*=\s*"([^"\\]*)\")");
  std::string line;
  while (std::getline(file, line)) {
    if (std::regex_search(line, std::regex(R"(^\s*\[)"))) break;  // tables: top level over
    std::smatch match;
    if (std::regex_search(line, match, line_pattern)) {
      if (match[1] == "name") identity.name = match[2];
      if (match[1] == "version") identity.version = match[2];
      if (match[1] == "author") identity.author = match[2];
    }
  }
}

// The identity from bot.toml, found in the working directory (the arena starts a bot
// in its folder) or next to the binary's bin/ folder; the name and version the arena
// runs the bot as (HOLLYWOOD_BOT_NAME, HOLLYWOOD_BOT_VERSION, set by every sandbox)
// come first.
Identity ReadIdentity(const std::string& executable) {
  Identity identity;
  std::string folder = executable.substr(0, executable.find_last_of('/') + 1) + "../";
  std::ifstream file("bot.toml");
  if (!file) file.open(folder + "bot.toml");
  if (file) {
    ReadTopLevel(file, identity);
  } else if (Env("HOLLYWOOD_BOT_NAME").empty()) {
    Log("cannot read bot.toml; answering the handshake with defaults");
  }
  if (!Env("HOLLYWOOD_BOT_NAME").empty()) identity.name = Env("HOLLYWOOD_BOT_NAME");
  if (!Env("HOLLYWOOD_BOT_VERSION").empty()) identity.version = Env("HOLLYWOOD_BOT_VERSION");
  return identity;
}

std::vector<int> Cards(const google::protobuf::RepeatedPtrField<std::string>& texts) {
  std::vector<int> cards;
  for (const auto& text : texts) cards.push_back(gin::ParseCard(text));
  return cards;
}

// Least deadwood after taking `card` and making the best discard the profile allows.
int DeadwoodWith(const std::vector<int>& hand, int card, const botv1::RuleProfile& profile) {
  std::vector<int> eleven = hand;
  eleven.push_back(card);
  return gin::BestDiscards(eleven, profile.no_discard_of_taken_card() ? hand : eleven).deadwood;
}

const botv1::Action* FirstOfKind(const botv1::DecideRequest& request, botv1::ActionKind kind) {
  for (const auto& action : request.legal_actions()) {
    if (action.kind() == kind) return &action;
  }
  return nullptr;
}

const botv1::Action& DrawAction(const botv1::DecideRequest& request, const std::vector<int>& hand) {
  const auto& pile = request.observation().discard_pile();
  const botv1::Action* take = FirstOfKind(request, botv1::ACTION_KIND_DRAW_DISCARD);
  if (take != nullptr && !pile.empty()) {
    int top = gin::ParseCard(pile[pile.size() - 1]);
    if (DeadwoodWith(hand, top, request.profile()) < gin::MinDeadwood(hand)) return *take;
  }
  if (const auto* pass = FirstOfKind(request, botv1::ACTION_KIND_PASS)) return *pass;
  if (const auto* draw = FirstOfKind(request, botv1::ACTION_KIND_DRAW_STOCK)) return *draw;
  return request.legal_actions(0);
}

const botv1::Action& DiscardAction(const botv1::DecideRequest& request,
                                   const std::vector<int>& hand) {
  // Knock as soon as we may: least deadwood left; on a tie, throw away the higher card.
  const botv1::Action* best_knock = nullptr;
  int best_left = 0, best_value = 0;
  for (const auto& action : request.legal_actions()) {
    if (action.kind() != botv1::ACTION_KIND_KNOCK) continue;
    int card = gin::ParseCard(action.card());
    std::vector<int> rest;
    for (int held : hand) {
      if (held != card) rest.push_back(held);
    }
    int left = gin::MinDeadwood(rest), value = gin::ValueOf(card);
    if (best_knock == nullptr || left < best_left || (left == best_left && value > best_value)) {
      best_knock = &action;
      best_left = left;
      best_value = value;
    }
  }
  if (best_knock != nullptr) return *best_knock;
  std::vector<int> allowed;
  for (const auto& action : request.legal_actions()) {
    if (action.kind() == botv1::ACTION_KIND_DISCARD) allowed.push_back(gin::ParseCard(action.card()));
  }
  if (allowed.empty()) return request.legal_actions(0);
  // Among equally good discards the highest value goes (then the highest index).
  std::vector<int> best = gin::BestDiscards(hand, allowed).cards;
  int chosen = *std::max_element(best.begin(), best.end(), [](int a, int b) {
    return gin::ValueOf(a) < gin::ValueOf(b) || (gin::ValueOf(a) == gin::ValueOf(b) && a < b);
  });
  for (const auto& action : request.legal_actions()) {
    if (action.kind() == botv1::ACTION_KIND_DISCARD && gin::ParseCard(action.card()) == chosen) {
      return action;
    }
  }
  return request.legal_actions(0);
}

class GreedyBot final : public botv1::BotService::Service {
 public:
  explicit GreedyBot(Identity identity) : identity_(std::move(identity)) {}

  // Every Handshake starts a series: the arena may reuse this process for several
  // (docs/bot-guide.md, "Between series"). This bot decides from each request alone
  // and keeps nothing about an opponent, so it has nothing to forget here.
  grpc::Status Handshake(grpc::ServerContext*, const botv1::HandshakeRequest* request,
                         botv1::HandshakeResponse* response) override {
    if (request->protocol_version() != kProtocolVersion) {
      Log("the arena speaks protocol " + std::to_string(request->protocol_version()) +
          ", this bot speaks " + std::to_string(kProtocolVersion));
    }
    response->set_name(identity_.name);
    response->set_version(identity_.version);
    response->set_author(identity_.author);
    response->set_protocol_version(kProtocolVersion);
    return grpc::Status::OK;
  }

  grpc::Status Decide(grpc::ServerContext*, const botv1::DecideRequest* request,
                      botv1::DecideResponse* response) override {
    try {
      if (request->legal_actions().empty()) throw std::invalid_argument("no legal actions");
      std::vector<int> hand = Cards(request->observation().hand());
      const botv1::Action& chosen = request->observation().phase() == botv1::PHASE_DISCARD
                                        ? DiscardAction(*request, hand)
                                        : DrawAction(*request, hand);
      response->mutable_action()->set_kind(chosen.kind());
      response->mutable_action()->set_card(chosen.card());
      // A debug note: shown to this bot's owner alone, beside the move (at most 256
      // bytes are kept; docs/bot-guide.md, "Debug notes").
      response->set_debug(std::string("greedy: ") + botv1::ActionKind_Name(chosen.kind()) +
                          (chosen.card().empty() ? "" : " " + chosen.card()));
      return grpc::Status::OK;
    } catch (const std::exception& error) {
      // A failed call forfeits the series; say why on stderr, whose tail the arena keeps.
      Log("decide failed at hand " + std::to_string(request->hand_number()) + ", decision " +
          std::to_string(request->decision_number()) + ": " + error.what());
      return grpc::Status(grpc::StatusCode::UNKNOWN, std::string("bot error: ") + error.what());
    }
  }

  grpc::Status HandEnded(grpc::ServerContext*, const botv1::HandEndedRequest*,
                         botv1::HandEndedResponse*) override {
    return grpc::Status::OK;
  }

  grpc::Status SeriesEnded(grpc::ServerContext*, const botv1::SeriesEndedRequest*,
                           botv1::SeriesEndedResponse*) override {
    return grpc::Status::OK;
  }

 private:
  Identity identity_;
};

std::atomic<bool> stop_requested{false};

void RequestStop(int) { stop_requested = true; }

}  // namespace

int main(int argc, char** argv) {
  std::string socket_path = Env("HOLLYWOOD_BOT_SOCKET");
  std::string target;
  if (argc > 1) {
    target = argv[1];
    socket_path.clear();
  } else if (!socket_path.empty()) {
    target = "unix:" + socket_path;
    unlink(socket_path.c_str());  // a stale socket file would make the bind fail
  } else {
    target = Env("HOLLYWOOD_BOT_ADDRESS");
  }
  if (target.empty()) {
    Log("set HOLLYWOOD_BOT_SOCKET (a Unix socket path) or HOLLYWOOD_BOT_ADDRESS (host:port), "
        "or give the address as the first argument");
    return 2;
  }
  GreedyBot bot(ReadIdentity(argv[0]));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(target, grpc::InsecureServerCredentials());
  builder.RegisterService(&bot);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    Log("cannot listen on " + target);
    return 1;
  }
  Log("serving on " + target);
  std::signal(SIGTERM, RequestStop);
  std::signal(SIGINT, RequestStop);
  // Signal handlers may not call into gRPC: the main thread polls the flag instead.
  while (!stop_requested) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Log("shutting down");
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  if (!socket_path.empty()) unlink(socket_path.c_str());
  return 0;
}
