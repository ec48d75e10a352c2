"""What a deal is refereed with: its set-up (dealer, contract, projects, match) and the
pipeline's settings, each with why it has the value it has; settings read from JSON overrides."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol

import numpy as np

from hakam.engine.cards import Card
from hakam.engine.contract import Contract
from hakam.engine.record import InputError, parse_deal_record
from hakam.engine.referee import ProjectClaim
from hakam.engine.rules import PROFILES, SAUDI, RuleProfile
from hakam.vision.detections import Detections
from hakam.vision.tracker import TrackerSettings


class PipelineError(ValueError):
    """A deal set-up or correction the pipeline cannot use (one line)."""


class Detector(Protocol):
    """Anything that reads the cards of a frame."""

    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections: ...


@dataclass
class DealSetup:
    """What the camera cannot see: dealer, contract, announced projects, the match score."""

    dealer: int
    contract: Contract
    open_card: Card | None = None
    projects: list[ProjectClaim] = field(default_factory=list)
    baloot: list[int] | None = None
    match: tuple[int, int] = (0, 0)
    profile: RuleProfile = SAUDI
    deal: int = 1
    bids: list[tuple[int, str]] = field(default_factory=list)  # as the table said them

    @classmethod
    def from_record(cls, data: Any) -> DealSetup:
        """Take the set-up from a ``hakam-deal/1`` record (its tricks are ignored)."""
        if not isinstance(data, dict):
            raise PipelineError("deal record: must be a JSON object")
        clean = {k: v for k, v in data.items() if k not in ("tricks", "ekka")}
        try:
            rec = parse_deal_record(clean)
        except InputError as exc:
            raise PipelineError(f"deal record: {exc}") from None
        if rec.contract is None:
            raise PipelineError("deal record: a void deal has no play to referee")
        return cls(
            rec.dealer, rec.contract, rec.open_card, rec.projects, rec.baloot, rec.match,
            rec.profile, bids=list(rec.bids),
        )  # fmt: skip


@dataclass(frozen=True)
class PipelineSettings:
    tracker: TrackerSettings = field(default_factory=TrackerSettings)
    read_open_card: bool = True  # the first card accepted is the open bidding card
    clear_deg: float = 30.0  # a card within this of a seat's direction faces that seat
    crop_pad: float = 0.3  # evidence crop margin, share of the box size
    collect_gap: int = 2  # frames all trick cards must be unread for a new lead to collect it
    # A card clearly in front of a seat that is not on turn waits this long for the turn seat's
    # card (a real detector misses cards) before it counts as out of turn; if unexplained reads
    # lie in front of the seat on turn, that seat's card is there unread: the deal waits for it
    # (an ``uncertain`` event; ``correct`` resumes it) instead of ruling on a guess. 0: at once.
    hold_s: float = 1.0
    # The deal waits this long more for the camera to read the card it waits for (a hand over
    # it, a read not yet sure) before it asks a person (the ``uncertain`` event); the deal holds
    # its cards either way. At the clip's end it asks at once for a card it cannot name.
    ask_s: float = 2.0
    # True: a card at a later seat always waits for the seat on turn (a missed read is likelier
    # than a player out of turn); out of turn then needs a person's correction to be ruled.
    assume_missed: bool = False
    # Every one of the 32 cards is played in a deal: once all but one have been read, the card
    # the deal waits for can only be that one, and is played as a correction "by" "elimination"
    # (also the deal's last card when the clip ends without it being read: it is forced). At the
    # end of the clip, with two to five cards not read, each way of placing them is played out
    # and the one way that makes no violation is taken ("by" "rules"; a misread elsewhere is
    # likelier than a revoke; see ``Pipeline._clean_ways``); of several such ways, the card the
    # reads there took it for most ("reader"), or, when all give the same tricks,
    # score and rulings, the first, said so ("same-result"); else a person decides. Then a card
    # so named and a card read whose reads doubted it are exchanged if that withdraws violations
    # and rules none new ("exchange": the read one was the misread), and so are the seats of a
    # card so named and a card of its trick read between two seats (the turn gave it its seat).
    # All are in the record's note.
    name_by_elimination: bool = True
    # When no way of placing the cards left keeps every rule (and no exchange of a misread makes
    # one): the one way that breaks the fewest (no out of turn in it) is taken if the reads in
    # front of the seat favour its card too ("fewest"; ``hakam.vision.decoder``), and a
    # person is told, who may correct it. False: the deal waits for a person.
    name_by_fewest: bool = True
    # Before the deal asks a person for the card it waits for (``ask_s``): the one card still
    # possible that the reads there took surely for it twice or more, and surely for no other
    # card, is named ("reads", ``TurnHolding._name_by_reads``) and the deal goes on; its
    # likelihood leaves the score provisional unless the deal's end finds it the one card left
    # or near certain among the cards named.
    name_by_reads: bool = True
    # An unfinished trick whose every card has been unread this long when the next card is
    # accepted was swept off the table with its missing card unread (the reader never named it
    # surely): the new card belongs to a later trick, and the deal waits for the missing one
    # instead of counting the new card in the swept trick. 0: off (``lost_s`` alone finds sweeps).
    sweep_s: float = 0.5
    # Cards collected with their trick cannot be in sight: the detector is told, and a box it
    # would have read as one of them is read as the likeliest card still in play.
    rule_out_collected: bool = True
    # A card already played (collected with its trick, or lying elsewhere: ``cards_stay``) read
    # again, lying still where no card is accepted: one of the two reads is wrong (the deck
    # holds each card once). The likelier way out by both reads'
    # beliefs is taken: the earlier play becomes its next likeliest card still unplayed (a
    # correction "by" "conflict", refereed again) and the new card is read as itself; or, when
    # the new read is the likelier misread, it is read as the cards still in play (or, read so
    # unsurely, the deal keeps waiting and says which card it saw). Several collected cards in
    # sight at once are a trick shown again, not a misread: nothing is changed.
    resolve_conflicts: bool = True
    # ... once it has been read so this long: a card landing is often misread for a moment (as
    # long as the deal holds a card for its seat, ``hold_s``). 1.5 s (plus a vote window) let
    # the last card of a trick, collected soon after it lands, leave before the conflict was
    # weighed: 1.0 read 37 more cards over 13 sets of 20 hold-out deals, 14 fewer wrong plays,
    # 5 fewer spurious violations (0.8, 0.9 and 1.2 no better; tuning clips the same).
    conflict_s: float = 1.0


def profile_json(profile: RuleProfile) -> Any:
    """The profile as the record writes it: the name, plus options that differ from it."""
    base = PROFILES.get(profile.name, SAUDI)
    diff = {
        f.name: getattr(profile, f.name)
        for f in fields(profile)
        if f.name != "name" and getattr(profile, f.name) != getattr(base, f.name)
    }
    return {"name": profile.name, **diff} if diff else profile.name


def settings_json(settings: PipelineSettings) -> dict[str, Any]:
    return asdict(settings)


def settings_from_overrides(over: dict[str, Any]) -> PipelineSettings:
    """Pipeline settings from overrides by name, pipeline and tracker fields alike (the
    benchmarks' grids and ``--settings``); a name that is neither is a one-line
    ``PipelineError``."""
    pipe_keys = {f.name for f in fields(PipelineSettings)} - {"tracker"}
    track_keys = {f.name for f in fields(TrackerSettings)}
    if unknown := sorted(set(over) - pipe_keys - track_keys):
        raise PipelineError(f"settings: no such setting {', '.join(unknown)}")
    pipe = {k: v for k, v in over.items() if k in pipe_keys}
    track = {k: v for k, v in over.items() if k in track_keys}
    return PipelineSettings(tracker=TrackerSettings(**track), **pipe)


def settings_from_json(text: str) -> PipelineSettings:
    """``settings_from_overrides`` of a JSON object (``--settings``); text that is not one is a
    one-line ``PipelineError``."""
    try:
        over = json.loads(text)
    except ValueError as exc:
        raise PipelineError(f"settings: not JSON ({exc})") from None
    if not isinstance(over, dict):
        raise PipelineError(f"settings: a JSON object of settings, got {text!r}")
    return settings_from_overrides(over)
