"""JSON input of the engine: field checkers and the deal record ``hakam-deal/1``.

Every error is an ``InputError`` whose message starts with the offending field, e.g.
``tricks[2][1]: unknown card 'XX'``, so the CLI can print it as one line and exit 2.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hakam.engine.bidding import Bidding, BiddingError
from hakam.engine.cards import Card, CardError, parse_card
from hakam.engine.contract import Contract, ContractError
from hakam.engine.projects import KINDS
from hakam.engine.referee import ProjectClaim, Referee
from hakam.engine.rules import SAUDI, RuleProfile, profile_from_json
from hakam.engine.scoring import sun_double_allowed

FORMAT = "hakam-deal/1"


class InputError(ValueError):
    """Bad JSON input; the message names the field and the problem."""


def need_object(data: Any, name: str, allowed: Iterable[str]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InputError(f"{name}: must be a JSON object")
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise InputError(f"{unknown[0]}: unknown field")
    return data


def need_seat(value: Any, name: str) -> int:
    if type(value) is not int or not 0 <= value <= 3:
        raise InputError(f"{name}: seat out of range (0..3), got {value!r}")
    return value


def need_int(value: Any, name: str, low: int = 0, high: int = 10**6) -> int:
    if type(value) is not int or not low <= value <= high:
        raise InputError(f"{name}: must be an integer {low}..{high}, got {value!r}")
    return value


def need_bool(value: Any, name: str) -> bool:
    if type(value) is not bool:
        raise InputError(f"{name}: must be true or false, got {value!r}")
    return value


def need_list(value: Any, name: str, max_len: int = 64) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(f"{name}: must be a list")
    if len(value) > max_len:
        raise InputError(f"{name}: wrong count, at most {max_len} items")
    return value


def need_card(value: Any, name: str) -> Card:
    try:
        return parse_card(value)
    except CardError as exc:
        raise InputError(f"{name}: {exc}") from None


def need_cards(value: Any, name: str, max_len: int = 32) -> list[Card]:
    """A list of different cards."""
    items = need_list(value, name, max_len)
    cards = [need_card(v, f"{name}[{i}]") for i, v in enumerate(items)]
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise InputError(f"{name}: card {c} twice")
        seen.add(c)
    return cards


def need_pair(value: Any, name: str) -> tuple[int, int]:
    items = need_list(value, name)
    if len(items) != 2:
        raise InputError(f"{name}: wrong count, needs [team0, team1]")
    return need_int(items[0], f"{name}[0]"), need_int(items[1], f"{name}[1]")


def need_contract(value: Any, name: str = "contract") -> Contract:
    try:
        return Contract.from_json(value, name)
    except ContractError as exc:
        raise InputError(str(exc)) from None


def need_profile(value: Any) -> RuleProfile:
    try:
        return profile_from_json(value)
    except (ValueError, TypeError) as exc:
        raise InputError(
            str(exc) if str(exc).startswith("profile") else f"profile: {exc}"
        ) from None


def check_sun_double(contract: Contract, match: tuple[int, int], profile: RuleProfile) -> None:
    if (
        contract.is_sun
        and contract.level == "double"
        and not sun_double_allowed(contract, match, profile)
    ):
        raise InputError(
            "contract.level: Sun may be doubled only when the declarer's team has more than "
            f"{profile.sun_double_limit} and the doublers less"
        )


@dataclass
class DealRecord:
    """A parsed ``hakam-deal/1`` record (``contract`` None: a void deal)."""

    dealer: int
    contract: Contract | None
    tricks: list[list[tuple[int | None, Card]]]
    open_card: Card | None = None
    bids: list[tuple[int, str]] = field(default_factory=list)
    ekka: frozenset[int] = frozenset()
    projects: list[ProjectClaim] = field(default_factory=list)
    baloot: list[int] | None = None
    match: tuple[int, int] = (0, 0)
    profile: RuleProfile = SAUDI


# How a play is known (``hakam.vision.provenance``): read by the camera, named by the pipeline
# from what the rest of the deal allows, or named or confirmed by a person.
PROVENANCE = ("seen", "named", "person")

RECORD_FIELDS = (
    "format", "dealer", "open_card", "bids", "contract", "tricks", "ekka", "projects",
    "baloot", "match", "profile", "note", "provenance",
)  # fmt: skip


def _auction(data: dict[str, Any], dealer: int, open_card: Card | None) -> Bidding:
    bids = need_list(data["bids"], "bids", 16)
    if open_card is None:
        raise InputError("open_card: needed to check the bids")
    auction = Bidding(dealer, open_card.suit)
    for i, item in enumerate(bids):
        if not isinstance(item, list) or len(item) != 2:
            raise InputError(f"bids[{i}]: must be [seat, call]")
        seat = need_seat(item[0], f"bids[{i}][0]")
        try:
            auction.push(seat, item[1])
        except BiddingError as exc:
            raise InputError(f"bids[{i}]: {exc}") from None
    if not auction.done:
        auction.pass_rest()
    if not auction.done:
        raise InputError("bids: the bidding is not finished")
    return auction


def _same_buy(a: Contract, b: Contract) -> bool:
    return (a.kind, a.trump, a.declarer, a.ashkal) == (b.kind, b.trump, b.declarer, b.ashkal)


def _check_provenance(raw: Any, lengths: list[int]) -> None:
    """``provenance`` (optional): per trick, how each of its cards is known (``PROVENANCE``)."""
    if raw is None:
        return
    known = need_list(raw, "provenance", 8)
    if len(known) != len(lengths):
        raise InputError("provenance: wrong count, one list per trick")
    for i, (row, n) in enumerate(zip(known, lengths, strict=True)):
        row = need_list(row, f"provenance[{i}]", 4)
        if len(row) != n:
            raise InputError(f"provenance[{i}]: wrong count, one per card of the trick")
        for j, how in enumerate(row):
            if how not in PROVENANCE:
                raise InputError(f"provenance[{i}][{j}]: {how!r} (seen, named or person)")


def parse_deal_record(data: Any) -> DealRecord:
    """Check and parse a deal record; raises ``InputError`` naming the field."""
    data = need_object(data, "input", RECORD_FIELDS)
    if data.get("format") != FORMAT:
        raise InputError(f"format: must be {FORMAT!r}")
    if "dealer" not in data:
        raise InputError("dealer: missing")
    dealer = need_seat(data["dealer"], "dealer")
    profile = need_profile(data.get("profile"))
    open_card = None
    if data.get("open_card") is not None:
        open_card = need_card(data["open_card"], "open_card")
    match = need_pair(data.get("match", [0, 0]), "match")
    auction = _auction(data, dealer, open_card) if data.get("bids") is not None else None
    contract: Contract | None
    if data.get("contract") is not None:
        contract = need_contract(data["contract"])
        if contract.dealer != dealer:
            raise InputError(f"contract.dealer: {contract.dealer} differs from dealer {dealer}")
        if auction is not None:
            bought = auction.contract
            if bought is None or not _same_buy(bought, contract):
                raise InputError("contract: differs from the contract bought in the bids")
        check_sun_double(contract, match, profile)
    elif auction is not None:
        contract = auction.contract
    else:
        raise InputError("contract: missing (give contract or bids)")
    raw_tricks = need_list(data.get("tricks", []), "tricks", 8)
    if contract is None and raw_tricks:
        raise InputError("tricks: the deal is void (all passed twice), no trick is played")
    tricks: list[list[tuple[int | None, Card]]] = []
    for i, raw in enumerate(raw_tricks):
        name = f"tricks[{i}]"
        seats: list[Any] | None = None
        if isinstance(raw, dict):
            need_object(raw, name, ("cards", "seats"))
            if "cards" not in raw:
                raise InputError(f"{name}.cards: missing")
            cards_raw = need_list(raw["cards"], f"{name}.cards", 4)
            seats = need_list(raw.get("seats"), f"{name}.seats", 4)
            if len(seats) != len(cards_raw):
                raise InputError(f"{name}.seats: wrong count, one seat per card")
            name = f"{name}.cards"
        else:
            cards_raw = need_list(raw, name, 4)
        if not cards_raw:
            raise InputError(f"{name}: wrong count, a trick has 1..4 cards")
        if len(cards_raw) != 4 and i != len(raw_tricks) - 1:
            raise InputError(f"{name}: wrong count, only the last trick may have fewer than 4")
        cards = [need_card(v, f"{name}[{j}]") for j, v in enumerate(cards_raw)]
        if seats is None:
            tricks.append([(None, c) for c in cards])
        else:
            sts = [need_seat(s, f"tricks[{i}].seats[{j}]") for j, s in enumerate(seats)]
            tricks.append(list(zip(sts, cards, strict=True)))
    _check_provenance(data.get("provenance"), [len(t) for t in tricks])
    ekka_raw = need_list(data.get("ekka", []), "ekka", 8)
    ekka = {need_int(v, f"ekka[{i}]", 1, 8) for i, v in enumerate(ekka_raw)}
    for n in ekka:
        if n > len(tricks):
            raise InputError(f"ekka: trick {n} was not played")
    claims = []
    for i, raw in enumerate(need_list(data.get("projects", []), "projects", 16)):
        name = f"projects[{i}]"
        need_object(raw, name, ("seat", "kind", "cards"))
        seat = need_seat(raw.get("seat"), f"{name}.seat")
        kind = raw.get("kind")
        if kind not in KINDS:
            raise InputError(f"{name}.kind: must be one of {', '.join(KINDS)}, got {kind!r}")
        cards = need_cards(raw.get("cards"), f"{name}.cards", 8)
        if not cards:
            raise InputError(f"{name}.cards: wrong count, a project has 3..8 cards")
        claims.append(ProjectClaim(seat, kind, tuple(cards)))
    baloot = None
    if data.get("baloot") is not None:
        baloot = [
            need_seat(v, f"baloot[{i}]")
            for i, v in enumerate(need_list(data["baloot"], "baloot", 4))
        ]
        if len(set(baloot)) != len(baloot):
            raise InputError("baloot: a seat twice")
        if baloot and contract is not None and contract.is_sun:
            raise InputError("baloot: there is no Baloot in Sun")
    return DealRecord(
        dealer=dealer,
        contract=contract,
        tricks=tricks,
        open_card=open_card,
        bids=list(auction.calls) if auction else [],
        ekka=frozenset(ekka),
        projects=claims,
        baloot=baloot,
        match=match,
        profile=profile,
    )


def referee_record(record: DealRecord) -> Referee | None:
    """Run the referee over a parsed record (None for a void deal)."""
    if record.contract is None:
        return None
    ref = Referee(record.contract, record.profile, record.projects, record.baloot)
    for n, trick in enumerate(record.tricks, 1):
        for i, (seat, card) in enumerate(trick):
            ref.push_index(card.index, seat, i == 0 and n in record.ekka)
    return ref


def ruling_json(record: DealRecord) -> dict[str, Any]:
    """The output of ``hakam referee`` for a parsed record."""
    ref = referee_record(record)
    if ref is None:
        return {
            "void": True,
            "dealer": record.dealer,
            "contract": None,
            "complete": True,
            "tricks": [],
            "violations": [],
            "result": [0, 0],
            "match": list(record.match),
        }
    out = {"void": False, "dealer": record.dealer, **ref.ruling(record.match)}
    return out
