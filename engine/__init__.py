"""Hollywood Gin rules engine: pure Python, standard library only."""

from engine.cards import Card, CardParseError, DuplicateCardError, Suit, format_cards, parse_cards

__all__ = ["Card", "CardParseError", "DuplicateCardError", "Suit", "format_cards", "parse_cards"]
