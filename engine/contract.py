"""The contract of a deal: Hokum or Sun, who declared, and how far it was raised."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hakam.engine.cards import SUITS
from hakam.engine.rules import SAUDI, RuleProfile

LEVELS: tuple[str, ...] = ("none", "double", "triple", "quadruple", "gahwa")
KINDS: tuple[str, ...] = ("hokum", "sun")


class ContractError(ValueError):
    """A contract that cannot exist (message starts with the offending field)."""


def _seat(value: Any, field: str) -> int:
    if type(value) is not int or not 0 <= value <= 3:
        raise ContractError(f"{field}: seat must be an integer 0..3, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Contract:
    """Hokum in ``trump`` or Sun, bought by ``declarer``'s team; ``level`` is the doubling chain.

    ``raised_by`` lists who said Double, Triple, ... in order; ``locked`` only exists at Double
    and Quadruple in Hokum; ``ashkal`` marks a Sun whose open card went to the buyer's partner
    (the ``declarer``).
    """

    kind: str
    declarer: int
    dealer: int
    trump: str | None = None
    level: str = "none"
    raised_by: tuple[int, ...] = ()
    locked: bool = False
    ashkal: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ContractError(f"contract.kind: must be 'hokum' or 'sun', got {self.kind!r}")
        _seat(self.declarer, "contract.declarer")
        _seat(self.dealer, "contract.dealer")
        if self.kind == "hokum":
            if self.trump not in SUITS:
                raise ContractError(
                    f"contract.trump: Hokum needs a suit C D H S, got {self.trump!r}"
                )
            if self.ashkal:
                raise ContractError("contract.ashkal: Ashkal is always a Sun")
        elif self.trump is not None:
            raise ContractError("contract.trump: Sun has no trump")
        if self.level not in LEVELS:
            raise ContractError(f"contract.level: must be one of {', '.join(LEVELS)}")
        if self.kind == "sun" and self.level not in ("none", "double"):
            raise ContractError("contract.level: Sun may only be doubled")
        if type(self.locked) is not bool or type(self.ashkal) is not bool:
            raise ContractError("contract.locked/ashkal: must be true or false")
        if self.locked and (self.kind == "sun" or self.level not in ("double", "quadruple")):
            raise ContractError("contract.locked: only a Hokum Double or Quadruple can be locked")
        depth = LEVELS.index(self.level)
        if self.raised_by:
            if len(self.raised_by) != depth:
                raise ContractError(
                    f"contract.raised_by: level {self.level} needs {depth} seats, "
                    f"got {len(self.raised_by)}"
                )
            for i, seat in enumerate(self.raised_by):
                _seat(seat, f"contract.raised_by[{i}]")
                by_declarer_team = seat % 2 == self.declarer % 2
                if by_declarer_team != (i % 2 == 1):
                    side = "the declarer's team" if i % 2 else "an opponent of the declarer"
                    raise ContractError(f"contract.raised_by[{i}]: must be {side}")

    @property
    def is_sun(self) -> bool:
        return self.kind == "sun"

    @property
    def trump_index(self) -> int:
        """Suit index of trump, -1 in Sun."""
        return -1 if self.trump is None else SUITS.index(self.trump)

    @property
    def declarer_team(self) -> int:
        return self.declarer % 2

    @property
    def buyer(self) -> int:
        """The seat that bought the contract (in Ashkal the declarer's partner bid it)."""
        return (self.declarer + 2) % 4 if self.ashkal else self.declarer

    @property
    def counting_team(self) -> int:
        """The team that counts its card points: opponents of the last raiser (rule: counting)."""
        depth = LEVELS.index(self.level)
        last_raiser_is_declarer_team = depth % 2 == 0  # none: treat declarer as last "raiser"
        return self.declarer_team if not last_raiser_is_declarer_team else 1 - self.declarer_team

    def multiplier(self, profile: RuleProfile = SAUDI) -> int:
        """Points multiplier of the doubling chain: Sun Double x2, Hokum x2/x3/x4."""
        if self.level == "gahwa":
            return profile.gahwa_multiplier
        return LEVELS.index(self.level) + 1

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "trump": self.trump,
            "declarer": self.declarer,
            "dealer": self.dealer,
            "level": self.level,
            "raised_by": list(self.raised_by),
            "locked": self.locked,
            "ashkal": self.ashkal,
        }

    @classmethod
    def from_json(cls, data: Any, field: str = "contract") -> Contract:
        """Parse the contract object C of ``docs/formats.md``; raises ``ContractError``."""
        if not isinstance(data, dict):
            raise ContractError(f"{field}: must be an object")
        unknown = set(data) - {
            "kind", "trump", "declarer", "dealer", "level", "raised_by", "locked", "ashkal"
        }  # fmt: skip
        if unknown:
            raise ContractError(f"{field}.{sorted(unknown)[0]}: unknown field")
        for key in ("kind", "declarer", "dealer"):
            if key not in data:
                raise ContractError(f"{field}.{key}: missing")
        trump = data.get("trump")
        if isinstance(trump, str):
            from hakam.engine.cards import SUIT_SYMBOLS

            trump = SUIT_SYMBOLS.get(trump, trump.upper())
        raised = data.get("raised_by", [])
        if not isinstance(raised, list):
            raise ContractError(f"{field}.raised_by: must be a list of seats")
        try:
            return cls(
                kind=data["kind"],
                declarer=data["declarer"],
                dealer=data["dealer"],
                trump=trump if data["kind"] == "hokum" else data.get("trump"),
                level=data.get("level", "none"),
                raised_by=tuple(raised),
                locked=data.get("locked", False),
                ashkal=data.get("ashkal", False),
            )
        except ContractError as exc:
            raise ContractError(str(exc).replace("contract", field, 1)) from None
        except TypeError as exc:  # unhashable values in a field
            raise ContractError(f"{field}: {exc}") from None
