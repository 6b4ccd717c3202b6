# frozen_string_literal: true

# The policy of ruby-highcard, on the protocol's messages alone: one of the legal
# actions of a DecideRequest, always.
module Highcard
  VALUES = { 'A' => 1, 'T' => 10, 'J' => 10, 'Q' => 10, 'K' => 10 }.freeze

  # A card's points ("Kd" -> 10, "7c" -> 7, "As" -> 1).
  def self.value(card)
    rank = card[0]
    VALUES.fetch(rank) { rank.to_i }
  end

  # Knock when allowed (the discard that leaves the least: its highest card), else
  # pass the upcard, else draw from the stock, else discard the highest card.
  def self.choose(legal)
    by_kind = legal.group_by(&:kind)
    knocks = by_kind[:ACTION_KIND_KNOCK]
    return knocks.max_by { |action| value(action.card) } if knocks

    %i[ACTION_KIND_PASS ACTION_KIND_DRAW_STOCK].each do |kind|
      return by_kind[kind].first if by_kind[kind]
    end
    discards = by_kind[:ACTION_KIND_DISCARD]
    return discards.max_by { |action| [value(action.card), action.card] } if discards

    legal.first
  end
end
