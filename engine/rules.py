"""Rule profiles and the card tables every rule reads.

Every point where Baloot tables disagree is a named option of ``RuleProfile``; ``SAUDI`` is the
default and ``engine/RULES.md`` gives the reason for each choice. Inside the engine a card is its
``DECK`` index (suit * 8 + rank) and a hand is a 32-bit mask, so the hot paths (legal plays, the
referee) are a few integer operations; ``Card`` objects live at the API edge.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

# Rule names used in violations and in ``rules legal`` reasons.
FOLLOW_SUIT = "follow-suit"
MUST_TRUMP = "must-trump"
MUST_OVERTRUMP = "must-overtrump"
THIRD_PLAYER = "third-player"
LOCKED_LEAD = "locked-lead"
FALSE_EKKA = "false-ekka"
OUT_OF_TURN = "out-of-turn"
DUPLICATE_CARD = "duplicate-card"
FALSE_PROJECT = "false-project"
FALSE_BALOOT = "false-baloot"


@dataclass(frozen=True, slots=True)
class RuleProfile:
    """The rule choices of one table; each field is one option named in ``engine/RULES.md``."""

    name: str = "saudi"
    # Variants (not the Saudi default).
    bidder_leads_first_trick: bool = False
    baloot_stays_with_owner: bool = False
    overtrump_mandatory: bool = True
    gahwa_wins_match: bool = True
    gahwa_multiplier: int = 4
    # Ambiguities of the issue text, decided as in RULES.md.
    kaboot_projects_only_if_shown: bool = True
    penalty_keeps_non_offender_baloot: bool = True
    raise_by_declarer_only: bool = True
    longer_sequence_breaks_tie: bool = True
    undertrump_when_cannot_overtrump: bool = False
    match_target: int = 152
    sun_double_limit: int = 100

    def with_options(self, **options: Any) -> RuleProfile:
        """A copy with some options changed; unknown names raise ``ValueError``."""
        known = {f.name: f.type for f in fields(self)}
        for key, value in options.items():
            if key not in known or key == "name":
                raise ValueError(f"profile: unknown option {key!r}")
            want = int if known[key] == "int" else bool
            if type(value) is not want:
                raise ValueError(f"profile.{key}: must be {want.__name__}")
        return replace(self, **options)


SAUDI = RuleProfile()
PROFILES: dict[str, RuleProfile] = {
    "saudi": SAUDI,
    "bidder-leads": replace(SAUDI, name="bidder-leads", bidder_leads_first_trick=True),
    "baloot-stays": replace(SAUDI, name="baloot-stays", baloot_stays_with_owner=True),
    "free-overtrump": replace(SAUDI, name="free-overtrump", overtrump_mandatory=False),
    "gahwa-x4": replace(SAUDI, name="gahwa-x4", gahwa_wins_match=False),
}


def profile_from_json(value: Any) -> RuleProfile:
    """``"saudi"``, a variant name, or ``{"name": ..., option: value}``; raises ``ValueError``."""
    if value is None:
        return SAUDI
    if isinstance(value, str):
        if value not in PROFILES:
            raise ValueError(f"profile: unknown profile {value!r}")
        return PROFILES[value]
    if isinstance(value, dict):
        base = profile_from_json(value.get("name", "saudi"))
        return base.with_options(**{k: v for k, v in value.items() if k != "name"})
    raise ValueError("profile: must be a name or an object")


# --- card tables (index = suit * 8 + rank, ranks 7 8 9 10 J Q K A) -------------------------

ALL_CARDS = (1 << 32) - 1
SUIT_MASK: tuple[int, ...] = tuple(0xFF << (8 * s) for s in range(4))
ACE = 7  # rank index of the Ace
KING, QUEEN = 6, 5

# Strength inside a suit, higher wins: plain A 10 K Q J 9 8 7, trump J 9 A 10 K Q 8 7.
PLAIN_STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)
TRUMP_STRENGTH = (0, 1, 6, 4, 7, 2, 3, 5)
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)
LAST_TRICK_BONUS = 10
HOKUM_TOTAL = 162
SUN_TOTAL = 130


def _build_points() -> tuple[tuple[int, ...], ...]:
    """``POINTS[trump + 1][card]``; trump -1 is Sun."""
    rows = []
    for t in range(-1, 4):
        rows.append(
            tuple((TRUMP_POINTS if c >> 3 == t else PLAIN_POINTS)[c & 7] for c in range(32))
        )
    return tuple(rows)


def _build_higher() -> tuple[tuple[int, ...], ...]:
    """``HIGHER[trump + 1][card]``: mask of the cards of the same suit that beat ``card``."""
    rows = []
    for t in range(-1, 4):
        row = []
        for c in range(32):
            order = TRUMP_STRENGTH if c >> 3 == t else PLAIN_STRENGTH
            base = c & ~7
            row.append(sum(1 << (base + r) for r in range(8) if order[r] > order[c & 7]))
        rows.append(tuple(row))
    return tuple(rows)


def _build_keys() -> tuple[tuple[int, ...], ...]:
    """``KEY[(trump + 1) * 4 + led][card]``: trick strength; -1 for a card that cannot win."""
    rows = []
    for t in range(-1, 4):
        for led in range(4):
            row = []
            for c in range(32):
                if c >> 3 == t:
                    row.append(16 + TRUMP_STRENGTH[c & 7])
                elif c >> 3 == led:
                    row.append(PLAIN_STRENGTH[c & 7])
                else:
                    row.append(-1)
            rows.append(tuple(row))
    return tuple(rows)


POINTS = _build_points()
HIGHER = _build_higher()
KEY = _build_keys()
BIT: tuple[int, ...] = tuple(1 << c for c in range(32))


def cards_of(mask: int) -> list[int]:
    """The card indices set in ``mask``, in ``DECK`` order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
