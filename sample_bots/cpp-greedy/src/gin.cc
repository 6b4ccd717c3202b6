// Minimum-deadwood search over the subsets of one hand (at most 11 cards, so a subset
// is an 11-bit mask), memoised on the subset: the eleven 10-card subsets of an 11-card
// hand share most of their work, which is what a discard choice needs.
#include "gin.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <unordered_map>

namespace gin {
namespace {

const std::string kRanks = "A23456789TJQK";
const std::string kSuits = "cdhs";

int RankOf(int card) { return card % 13 + 1; }

int MaskOf(const std::vector<int>& positions) {
  int mask = 0;
  for (int at : positions) mask |= 1 << at;
  return mask;
}

class DeadwoodSolver {
 public:
  explicit DeadwoodSolver(std::vector<int> cards) : cards_(std::move(cards)) {
    std::sort(cards_.begin(), cards_.end());
    cards_.erase(std::unique(cards_.begin(), cards_.end()), cards_.end());
    if (cards_.size() > 11) throw std::invalid_argument("a hand has at most 11 cards");
    for (int card : cards_) values_.push_back(ValueOf(card));
    FindMelds();
  }

  const std::vector<int>& cards() const { return cards_; }

  int FullMask() const { return (1 << cards_.size()) - 1; }

  int MaskWithout(int card) const {
    auto found = std::find(cards_.begin(), cards_.end(), card);
    if (found == cards_.end()) throw std::invalid_argument(CardText(card) + " is not in the hand");
    return FullMask() & ~(1 << (found - cards_.begin()));
  }

  // Least deadwood of the cards in `mask`: the lowest card is either deadwood or in
  // one meld that fits in what remains.
  int Search(int mask) {
    if (mask == 0) return 0;
    auto known = memo_.find(mask);
    if (known != memo_.end()) return known->second;
    int first = __builtin_ctz(static_cast<unsigned>(mask));
    int best = values_[first] + Search(mask & ~(1 << first));
    for (int meld : melds_) {
      if ((meld >> first) & 1 && (meld & mask) == meld) best = std::min(best, Search(mask & ~meld));
    }
    memo_[mask] = best;
    return best;
  }

 private:
  // Every set (3 or 4 of a rank; a four's sets of three too, as its fourth card may
  // be better used in a run) and run (3+ in a row of one suit), as masks.
  void FindMelds() {
    std::unordered_map<int, int> position;
    for (size_t i = 0; i < cards_.size(); ++i) position[cards_[i]] = static_cast<int>(i);
    for (int rank = 1; rank <= 13; ++rank) {
      std::vector<int> same;
      for (int suit = 0; suit < 4; ++suit) {
        auto at = position.find(suit * 13 + rank - 1);
        if (at != position.end()) same.push_back(at->second);
      }
      if (same.size() >= 3) melds_.push_back(MaskOf(same));
      if (same.size() == 4) {
        for (int left_out = 0; left_out < 4; ++left_out) {
          std::vector<int> three;
          for (int i = 0; i < 4; ++i) {
            if (i != left_out) three.push_back(same[i]);
          }
          melds_.push_back(MaskOf(three));
        }
      }
    }
    for (int suit = 0; suit < 4; ++suit) {
      for (int start = 1; start <= 11; ++start) {
        std::vector<int> run;
        for (int rank = start; rank <= 13; ++rank) {
          auto at = position.find(suit * 13 + rank - 1);
          if (at == position.end()) break;
          run.push_back(at->second);
          if (run.size() >= 3) melds_.push_back(MaskOf(run));
        }
      }
    }
  }

  std::vector<int> cards_;
  std::vector<int> values_;
  std::vector<int> melds_;
  std::unordered_map<int, int> memo_;
};

}  // namespace

int ParseCard(const std::string& text) {
  if (text.size() < 2) throw std::invalid_argument("not a card: \"" + text + "\"");
  std::string rank_text = text.substr(0, text.size() - 1);
  for (char& c : rank_text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  char suit_text = static_cast<char>(std::tolower(static_cast<unsigned char>(text.back())));
  if (rank_text == "10") rank_text = "T";
  auto rank = rank_text.size() == 1 ? kRanks.find(rank_text[0]) : std::string::npos;
  auto suit = kSuits.find(suit_text);
  if (rank == std::string::npos || suit == std::string::npos) {
    throw std::invalid_argument("not a card: \"" + text + "\"");
  }
  return static_cast<int>(suit * 13 + rank);
}

std::string CardText(int card) {
  return std::string{kRanks[card % 13], kSuits[card / 13]};
}

int ValueOf(int card) { return std::min(RankOf(card), 10); }

int MinDeadwood(const std::vector<int>& cards) {
  DeadwoodSolver solver(cards);
  return solver.Search(solver.FullMask());
}

DiscardChoice BestDiscards(const std::vector<int>& cards, const std::vector<int>& allowed) {
  DeadwoodSolver solver(cards);
  std::vector<int> candidates;
  for (int card : allowed) {
    const auto& held = solver.cards();
    if (std::find(held.begin(), held.end(), card) != held.end()) candidates.push_back(card);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  if (candidates.empty()) throw std::invalid_argument("no card may be discarded");
  DiscardChoice choice{1 << 30, {}};
  for (int card : candidates) {
    int left = solver.Search(solver.MaskWithout(card));
    if (left < choice.deadwood) choice = {left, {}};
    if (left == choice.deadwood) choice.cards.push_back(card);
  }
  return choice;
}

}  // namespace gin
