// Cards, melds and deadwood for Hollywood Gin (docs/rules.md#melds, docs/rules.md#layoffs), from scratch: a bot in
// another language gets nothing from the arena but the protocol, so it brings its own.
//
// A card is the protocol's two-character string ("As", "Td", "7c"). Internally a card
// is an index 0..51, clubs first: suit * 13 + rank - 1 (rank 1 = ace, always low).
#pragma once

#include <string>
#include <vector>

namespace gin {

// Parses "As" / "Td" (also "10d", any letter case); throws std::invalid_argument.
int ParseCard(const std::string& text);
std::string CardText(int card);
// Deadwood value: ace 1, two to ten face value, J Q K 10.
int ValueOf(int card);
// The smallest deadwood total of `cards` under any arrangement of melds.
int MinDeadwood(const std::vector<int>& cards);

// For an 11-card hand: the least deadwood left after discarding one of `allowed`,
// and every card that reaches it (sorted by index).
struct DiscardChoice {
  int deadwood;
  std::vector<int> cards;
};
DiscardChoice BestDiscards(const std::vector<int>& cards, const std::vector<int>& allowed);

}  // namespace gin
