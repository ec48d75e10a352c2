"""The 32-card Baloot deck: one value type and one fixed card order for the whole project.

The order of ``DECK`` (suits C D H S, ranks 7 8 9 10 J Q K A within a suit) is the class order
of the detector, the datasets and the pipeline. Never reorder it: trained models depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass

SUITS: tuple[str, ...] = ("C", "D", "H", "S")
RANKS: tuple[str, ...] = ("7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_SYMBOLS: dict[str, str] = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
SUIT_SYMBOL_OF: dict[str, str] = {v: k for k, v in SUIT_SYMBOLS.items()}


class CardError(ValueError):
    """A card text that is not one of the 32 Baloot cards."""


@dataclass(frozen=True, slots=True, order=False)
class Card:
    """One card of the Baloot deck, e.g. ``Card("10", "H")``; printed as ``10H``."""

    rank: str
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in RANKS:
            raise CardError(f"unknown rank {self.rank!r}")
        if self.suit not in SUITS:
            raise CardError(f"unknown suit {self.suit!r}")

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    @property
    def index(self) -> int:
        """Position in ``DECK``: the detector class id."""
        return SUITS.index(self.suit) * len(RANKS) + RANKS.index(self.rank)

    @classmethod
    def from_index(cls, index: int) -> Card:
        if not 0 <= index < 32:
            raise CardError(f"card index {index} out of range 0..31")
        return DECK[index]

    @classmethod
    def parse(cls, text: str) -> Card:
        return parse_card(text)


def parse_card(text: str) -> Card:
    """Parse ``10H``, ``TH``, ``th``, ``10♥``; raise ``CardError`` with a one-line reason."""
    if not isinstance(text, str):
        raise CardError(f"card must be a string, got {type(text).__name__}")
    s = text.strip()
    if len(s) < 2:
        raise CardError(f"unknown card {text!r}")
    suit_text, rank_text = s[-1], s[:-1]
    suit = SUIT_SYMBOLS.get(suit_text, suit_text.upper())
    rank = rank_text.upper()
    if rank == "T":
        rank = "10"
    if rank not in RANKS or suit not in SUITS:
        raise CardError(f"unknown card {text!r}")
    return _BY_NAME[rank + suit]


DECK: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in RANKS)
CARD_NAMES: tuple[str, ...] = tuple(str(c) for c in DECK)
_BY_NAME: dict[str, Card] = {str(c): c for c in DECK}
