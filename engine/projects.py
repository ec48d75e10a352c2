"""Projects (Siri, Fifty, Hundred, Four Hundred) and Baloot: shapes, values, comparison.

Projects are game points, not card points. A sequence runs in project order A K Q J 10 9 8 7
(the ``DECK`` rank order reversed), so a sequence is consecutive rank indices of one suit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from hakam.engine.cards import DECK, RANKS, SUITS, Card, CardError, parse_card
from hakam.engine.rules import SAUDI, RuleProfile

KINDS: tuple[str, ...] = ("siri", "fifty", "hundred", "four_hundred")
HOKUM_VALUES = {"siri": 2, "fifty": 5, "hundred": 10}
SUN_VALUES = {"siri": 4, "fifty": 10, "hundred": 20, "four_hundred": 40}
FOUR_KIND_RANKS = ("10", "J", "Q", "K", "A")  # four 9s, 8s and 7s score nothing
BALOOT_POINTS = 2


class ProjectError(ValueError):
    """A project whose cards do not have the claimed shape."""


def project_kind(cards: Iterable[Card], sun: bool) -> str:
    """The kind of project the cards form; raises ``ProjectError`` when they form none."""
    given = list(cards)
    cs = sorted({c.index for c in given})
    if len(cs) != len(given):
        raise ProjectError("a card appears twice")
    ranks = [c & 7 for c in cs]
    if len(cs) == 4 and len(set(ranks)) == 1:
        rank = RANKS[ranks[0]]
        if rank not in FOUR_KIND_RANKS:
            raise ProjectError(f"four {rank}s score nothing")
        return "four_hundred" if rank == "A" and sun else "hundred"
    if len(cs) < 3:
        raise ProjectError("a project needs at least 3 cards")
    if len({c >> 3 for c in cs}) != 1 or ranks != list(range(ranks[0], ranks[0] + len(cs))):
        raise ProjectError("the cards are not a sequence of one suit")
    return {3: "siri", 4: "fifty"}.get(len(cs), "hundred")


def project_value(kind: str, sun: bool) -> int:
    """Game points: Hokum Siri 2, Fifty 5, Hundred 10; Sun Siri 4, Fifty 10, Hundred 20, 400 40."""
    table = SUN_VALUES if sun else HOKUM_VALUES
    if kind not in table:
        raise ProjectError(f"{kind} does not exist in {'Sun' if sun else 'Hokum'}")
    return table[kind]


@dataclass(frozen=True, slots=True)
class Project:
    """A project held by ``seat``: its kind and cards (``DECK`` order)."""

    seat: int
    kind: str
    cards: tuple[Card, ...]

    @property
    def is_four_of_a_kind(self) -> bool:
        return len(self.cards) == 4 and len({c.rank for c in self.cards}) == 1

    @property
    def four_of(self) -> str | None:
        return self.cards[0].rank if self.is_four_of_a_kind else None

    @property
    def top(self) -> Card | None:
        """Highest card of a sequence in project order; None for four of a kind."""
        return None if self.is_four_of_a_kind else self.cards[-1]

    def value(self, sun: bool) -> int:
        return project_value(self.kind, sun)

    def to_json(self, sun: bool) -> dict[str, Any]:
        top = self.top
        return {
            "seat": self.seat,
            "kind": self.kind,
            "top": None if top is None else str(top),
            "four_of": self.four_of,
            "cards": [str(c) for c in self.cards],
            "value": self.value(sun),
        }


def make_project(seat: int, cards: Iterable[Card], sun: bool) -> Project:
    """A checked project: the kind is derived from the cards."""
    cs = tuple(sorted(cards, key=lambda c: c.index))
    return Project(seat, project_kind(cs, sun), cs)


def project_from_top(
    seat: int, kind: str, top: str | None, four_of: str | None, sun: bool
) -> Project:
    """A project given as on a score sheet: a sequence by its top card, four of a kind by rank."""
    if kind not in KINDS:
        raise ProjectError(f"unknown kind {kind!r}")
    if four_of is not None:
        if top is not None:
            raise ProjectError("give either top or four_of, not both")
        if four_of == "T":
            four_of = "10"
        if four_of not in RANKS:
            raise ProjectError(f"unknown rank {four_of!r}")
        cards = tuple(Card(four_of, s) for s in SUITS)
    else:
        if top is None:
            raise ProjectError("a sequence needs its top card")
        try:
            high = parse_card(top)
        except CardError as exc:
            raise ProjectError(str(exc)) from None
        length = {"siri": 3, "fifty": 4}.get(kind, 5)
        low = high.index - length + 1
        if low < high.index & ~7:
            raise ProjectError(f"no {kind} has top {high}")
        cards = tuple(DECK[low : high.index + 1])
    proj = make_project(seat, cards, sun)
    if proj.kind != kind:
        raise ProjectError(f"those cards are a {proj.kind}, not a {kind}")
    return proj


def comparison_key(project: Project, dealer: int, sun: bool, profile: RuleProfile = SAUDI):
    """Project comparison: value, four of a kind over a sequence, highest rank, earlier seat."""
    high = RANKS.index(project.four_of) if project.four_of else project.cards[-1].index & 7
    length = len(project.cards) if profile.longer_sequence_breaks_tie else 0
    seat_order = (project.seat - dealer - 1) % 4
    return (project.value(sun), project.is_four_of_a_kind, high, length, -seat_order)


def best_project(
    projects: Sequence[Project], dealer: int, sun: bool, profile: RuleProfile = SAUDI
) -> Project | None:
    """The single best project of the table (it decides which team scores projects)."""
    if not projects:
        return None
    return max(projects, key=lambda p: comparison_key(p, dealer, sun, profile))


def counted_projects(
    projects: Sequence[Project], dealer: int, sun: bool, profile: RuleProfile = SAUDI
) -> tuple[int | None, list[Project]]:
    """Project comparison: the team of the best project scores all its projects, the other none."""
    best = best_project(projects, dealer, sun, profile)
    if best is None:
        return None, []
    team = best.seat % 2
    return team, [p for p in projects if p.seat % 2 == team]


def may_announce(project: Project, announced: Sequence[Project], dealer: int, sun: bool) -> bool:
    """Announcement in the first trick: only if no higher project was announced before."""
    mine = comparison_key(project, dealer, sun)
    return all(comparison_key(p, dealer, sun) <= mine for p in announced)


def candidate_projects(seat: int, hand: Iterable[Card], sun: bool) -> list[Project]:
    """Every project the hand could show: each sequence window of 3+ and each four of a kind."""
    idx = {c.index for c in hand}
    out = []
    for s in range(4):
        r = 0
        while r < 8:
            if s * 8 + r not in idx:
                r += 1
                continue
            end = r
            while end + 1 < 8 and s * 8 + end + 1 in idx:
                end += 1
            for lo in range(r, end + 1):
                for hi in range(lo + 2, end + 1):
                    out.append(make_project(seat, DECK[s * 8 + lo : s * 8 + hi + 1], sun))
            r = end + 1
    for rank in FOUR_KIND_RANKS:
        cards = [Card(rank, s) for s in SUITS]
        if all(c.index in idx for c in cards):
            out.append(make_project(seat, cards, sun))
    return out


def best_split(seat: int, hand: Iterable[Card], sun: bool) -> list[Project]:
    """The holder's best split: disjoint projects (a card counts once) of the highest total."""
    cands = candidate_projects(seat, hand, sun)
    best: tuple[int, list[Project]] = (0, [])

    def search(start: int, used: set[Card], chosen: list[Project], total: int) -> None:
        nonlocal best
        if total > best[0]:
            best = (total, list(chosen))
        for i in range(start, len(cands)):
            p = cands[i]
            if used.isdisjoint(p.cards):
                chosen.append(p)
                search(i + 1, used | set(p.cards), chosen, total + p.value(sun))
                chosen.pop()

    search(0, set(), [], 0)
    return best[1]


def holds_baloot(hand: Iterable[Card], trump: str) -> bool:
    """Baloot: K and Q of trump together in the original hand (Hokum only)."""
    cards = set(hand)
    return Card("K", trump) in cards and Card("Q", trump) in cards


def baloot_absorbed(seat: int, shown: Iterable[Project], trump: str) -> bool:
    """No separate Baloot inside a shown five-card sequence with K-Q of trump or four K / Q."""
    kq = {Card("K", trump), Card("Q", trump)}
    for p in shown:
        if p.seat != seat:
            continue
        if p.four_of in ("K", "Q"):
            return True
        if len(p.cards) >= 5 and kq <= set(p.cards):
            return True
    return False
