"""Baloot rules engine, scorer and referee (standard library only)."""

from hakam.engine.cards import CARD_NAMES, DECK, RANKS, SUITS, Card, CardError, parse_card

__all__ = ["CARD_NAMES", "DECK", "RANKS", "SUITS", "Card", "CardError", "parse_card"]
