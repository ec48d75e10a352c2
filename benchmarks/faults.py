"""Fault injection: rulings a table can trust when the reads are wrong (issue 48).

    .venv/bin/python benchmarks/faults.py                          # 200 deals a setting
    .venv/bin/python benchmarks/faults.py --deals 20 --jobs 2
    .venv/bin/python benchmarks/faults.py --deals 5 --settings none,drop-25,wrong-seat

Each deal is a scripted deal filmed as ``hakam.vision.dealvideo.render_deal`` films it (8 tricks,
640x480, 15 fps, the hold-out designs in turn, an injected violation in every second deal), read by
the renderer's labels (``LabelDetector``: a perfect finder and reader) with the faults of each
setting on top. The label detector needs no pixels, so the frames are filmed as labels only
(``DealFilm(pixels=False)``: the same camera, throws, hands and sweeps, the same random draws, so
the same labels as the pixel film) and the pipeline gets 1x1 blank images (3.5 s a deal filmed
instead of 11 s on the 2-core VM). Every setting runs on the same deals; deal k's seed is ``--seed``
+ k, and each setting's faults are seeded by the deal's seed and the setting's name: a rerun gives
the same table.

Settings: ``none``; ``misread-N`` (N% of reads name another card, confidence kept);
``drop-N`` (N% of reads lost); ``never-read`` (every read of one card lost); ``other-deck``
(near the end of the deal a card of another deck lies on the table for 3 s, read 0.95 surely as
an ace already collected: over a card of the trick, hiding it, or where a seat's card of the
last trick lay); ``wrong-seat`` (every read of one card lies in front of another seat).

Counted per setting, against the filmed deal's truth: violations still standing at the end that are
``proven`` (a missing ``status`` counts as proven) and did not happen (no illegal play at that seat
and trick); ``final`` scores (a missing ``status`` counts as final) whose result is not the truth's;
plays in the record whose (trick, seat, card) is not the truth's, whose provenance is ``seen`` and
that the score does not list as in doubt (``in_doubt``: a card out of turn and its trick, a seat the
turn gave in a trick with a card named) (a missing ``provenance`` is taken from the play's
``source``: camera = seen, correction = person, any other = named); cards missing from incomplete
records; deals where a person is asked (a notice where the deal waits, a suspected violation or a
provisional score).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import pickle
import sys
import time
import zlib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hakam.engine.cards import CARD_NAMES
from hakam.engine.record import parse_deal_record, referee_record
from hakam.vision.dealvideo import DealFilm, script_deal
from hakam.vision.detections import Detections
from hakam.vision.events import standing_violations
from hakam.vision.oracle import LabelDetector
from hakam.vision.pipeline import Pipeline, run_frames
from hakam.vision.seats import Calibration, SeatMap
from hakam.vision.settings import DealSetup
from hakam.vision.sources import ArraySource


def _holdout() -> list[str]:
    """The deck designs never used for training (as ``benchmarks/pipeline.py``'s)."""
    try:
        from hakam.datasets import art

        return [d.name for d in art.available_decks(holdout=True)]
    except (ImportError, OSError):
        return []


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


HOLDOUT = _holdout()
BLANK = np.zeros((1, 1, 3), np.uint8)  # the label detector reads no pixels
OTHER_DECK_S = 3.0  # how long the other deck's card lies on the table
OTHER_DECK_CONF = 0.95
SURE = {"visible": 1.0, "index_visible": 1.0}


@dataclass
class Deal:
    """One filmed deal: truth and labels (what ``--cache`` keeps)."""

    seed: int
    record: dict[str, Any]  # the truth record, 8 tricks
    plays: list[tuple[int, int, str]]  # (trick, seat, card) in play order
    violation: bool  # a violation was injected
    labels: list[list[dict[str, Any]]]
    rest_frames: list[int]
    calibration: Calibration
    fps: float
    deck: str


def film_deal(seed: int, violation: bool, deck: str | None, size=(640, 480)) -> Deal:
    """The deal ``render_deal(seed, violation, deck=deck)`` films, as labels. A deal where no
    violation can be injected is filmed clean."""
    try:
        deal = script_deal(seed, violation)
    except ValueError:
        deal, violation = script_deal(seed, False), False
    r = DealFilm(deal, seed, size, 15.0, deck, pixels=False).film(8)  # labels only
    return Deal(seed, deal.record, [(t, s, str(c)) for t, s, c in deal.plays], violation,
                r.labels, r.rest_frames, r.calibration, r.fps, r.deck)  # fmt: skip


# --- the detector ------------------------------------------------------------------------------


def reads_of(labels: list[dict[str, Any]]) -> Detections:
    """``Detections.from_labels``, with a label's own ``conf`` where it has one."""
    labels = [lb for lb in labels if lb["card"] in CARD_NAMES]
    d = Detections.from_labels(labels)
    for i, lb in enumerate(labels):
        if "conf" in lb:
            d.confidence[i] = lb["conf"]
    return d


class FaultDetector(LabelDetector):
    """The label detector reading faulted labels, one box per card as every back-end gives.
    Reads of cards ruled out (collected) are dropped and kept in ``in_sight``, as the two-stage
    detector does (``hakam.vision.reader.collected_in_sight``): the pipeline weighs a collected
    card read again. (``LabelDetector`` drops them without a trace.)"""

    name = "oracle+faults"

    def __init__(self, labels_per_frame: list[list[dict[str, Any]]]) -> None:
        super().__init__(labels_per_frame)
        self.in_sight = Detections.empty()

    def detect(self, image: np.ndarray, ruled_out: Collection[int] = ()) -> Detections:
        labels = self.labels[self.frame] if self.frame < len(self.labels) else []
        self.frame += 1
        d = reads_of(labels)
        gone = np.isin(d.class_id, np.fromiter(ruled_out, np.int64, len(ruled_out)))
        self.in_sight = d[gone]
        return d[~gone].best_per_card()


# --- faults ------------------------------------------------------------------------------------
# Each takes the deal and a seeded generator and returns the faulted labels (new lists, the
# deal's own untouched) and what it did.

Frames = list[list[dict[str, Any]]]


def misread(frames: Frames, share: float, rng: np.random.Generator) -> tuple[Frames, dict]:
    """Each read names another card (any of the other 31) with probability ``share``; its
    confidence is kept (a sure read stays sure)."""
    out, n, wrong = [], 0, 0
    for f in frames:
        row = []
        for lb in f:
            n += 1
            if rng.random() < share:
                other = CARD_NAMES.index(lb["card"]) + int(rng.integers(1, len(CARD_NAMES)))
                lb = {**lb, "card": CARD_NAMES[other % len(CARD_NAMES)]}
                wrong += 1
            row.append(lb)
        out.append(row)
    return out, {"reads": n, "misread": wrong}


def drop(frames: Frames, share: float, rng: np.random.Generator) -> tuple[Frames, dict]:
    """Each read is lost with probability ``share``."""
    out = [[lb for lb in f if rng.random() >= share] for f in frames]
    n = sum(len(f) for f in frames)
    return out, {"reads": n, "dropped": n - sum(len(f) for f in out)}


def never_read(frames: Frames, card: str) -> tuple[Frames, dict]:
    """Every read of ``card`` is lost."""
    out = [[lb for lb in f if lb["card"] != card] for f in frames]
    dropped = sum(len(a) - len(b) for a, b in zip(frames, out, strict=True))
    return out, {"card": card, "dropped": dropped}


def move_box(box: list[float], centre: tuple[float, float], turn: float) -> list[float]:
    """The box turned by ``turn`` radians round ``centre`` (its size kept)."""
    x1, y1, x2, y2 = box
    bx, by = (x1 + x2) / 2 - centre[0], (y1 + y2) / 2 - centre[1]
    c, s = math.cos(turn), math.sin(turn)
    nx, ny = centre[0] + c * bx - s * by, centre[1] + s * bx + c * by
    hw, hh = (x2 - x1) / 2, (y2 - y1) / 2
    return [round(v, 1) for v in (nx - hw, ny - hh, nx + hw, ny + hh)]


def wrong_seat(
    frames: Frames, card: str, seat: int, to: int, calibration: Calibration, dealer: int
) -> tuple[Frames, dict]:
    """Every read of ``card`` (played by ``seat``) lies in front of seat ``to``: its box turned
    round the table centre by the angle between the two seats' directions (``SeatMap``)."""
    seats = SeatMap(calibration, dealer)
    turn = seats.angles[to] - seats.angles[seat]
    moved = 0
    out = []
    for f in frames:
        row = []
        for lb in f:
            if lb["card"] == card:
                lb = {**lb, "box": move_box(lb["box"], calibration.centre, turn)}
                moved += 1
            row.append(lb)
        out.append(row)
    return out, {"card": card, "seat": seat, "to": to, "moved": moved}


def other_deck(
    frames: Frames, card: str, box: list[float], start: int, frames_n: int, hides: str | None
) -> tuple[Frames, dict]:
    """A card of another deck lies at ``box`` from frame ``start`` for ``frames_n`` frames,
    read ``OTHER_DECK_CONF`` surely as ``card``; lying over the card ``hides``, it hides it."""
    out = [list(f) for f in frames]
    end = min(start + frames_n, len(out))
    for k in range(start, end):
        row = [lb for lb in out[k] if lb["card"] != hides]
        row.append({"card": card, "box": list(box), **SURE, "conf": OTHER_DECK_CONF})
        out[k] = row
    return out, {"card": card, "box": list(box), "start": start, "end": end, "hides": hides}


def label_box(frames: Frames, k: int, card: str, within: int = 15) -> list[float] | None:
    """The box of ``card``'s first label from frame ``k`` on (the arm that threw it may still
    hide it at its rest frame), within ``within`` frames."""
    return next((lb["box"] for f in frames[k : k + within] for lb in f if lb["card"] == card), None)


def inject_other_deck(deal: Deal, rng: np.random.Generator) -> tuple[Frames, dict]:
    """In trick 7 or 8, once its first or second card lies, a card read surely as an ace
    collected earlier (any collected card where no ace is) appears over the card that just
    landed (deals 0, 1, 4, 5, ... of a set: clean and violation deals alike), or where a seat's
    card of the trick before lay (the others)."""
    trick = int(rng.choice([7, 8]))
    k = (trick - 1) * 4 + int(rng.integers(0, 2))  # the play that just landed
    start = deal.rest_frames[k] + 1
    earlier = [c for t, _, c in deal.plays if t < trick]
    aces = [c for c in earlier if c.startswith("A")]
    card = str(rng.choice(aces or earlier))
    if deal.seed // 2 % 2 == 0:
        hides = deal.plays[k][2]
        box = label_box(deal.labels, deal.rest_frames[k], hides)
        where = "over a card"
    else:
        hides, where = None, "at a seat"
        seat = int(rng.integers(0, 4))
        j = next(i for i, (t, s, _) in enumerate(deal.plays) if t == trick - 1 and s == seat)
        box = label_box(deal.labels, deal.rest_frames[j], deal.plays[j][2])
    if box is None:  # not read (covered): where the first card read from then on lies
        hides, where = None, "where a card lies"
        box = next(lb["box"] for f in deal.labels[start:] for lb in f)
    frames, info = other_deck(deal.labels, card, box, start, round(OTHER_DECK_S * deal.fps), hides)
    return frames, {**info, "trick": trick, "ace": card in aces, "where": where}


def inject_wrong_seat(deal: Deal, rng: np.random.Generator) -> tuple[Frames, dict]:
    """One played card (not the open card) read in front of one of the three other seats."""
    open_card = deal.record["open_card"]
    plays = [p for p in deal.plays if p[2] != open_card]
    _, seat, card = plays[int(rng.integers(0, len(plays)))]
    to = int(rng.choice([s for s in range(4) if s != seat]))
    return wrong_seat(deal.labels, card, seat, to, deal.calibration, deal.record["dealer"])


def inject_never_read(deal: Deal, rng: np.random.Generator) -> tuple[Frames, dict]:
    return never_read(deal.labels, deal.plays[int(rng.integers(0, 32))][2])


def _share(fault: Callable, share: float) -> Callable:
    return lambda deal, rng: fault(deal.labels, share, rng)


SETTINGS: dict[str, tuple[str, Callable[[Deal, np.random.Generator], tuple[Frames, dict]]]] = {
    "none": ("none (baseline)", lambda deal, rng: (deal.labels, {})),
    "misread-1": ("wrong names on 1% of reads", _share(misread, 0.01)),
    "misread-5": ("wrong names on 5% of reads", _share(misread, 0.05)),
    "misread-10": ("wrong names on 10% of reads", _share(misread, 0.10)),
    "drop-10": ("10% of reads dropped", _share(drop, 0.10)),
    "drop-25": ("25% of reads dropped", _share(drop, 0.25)),
    "drop-40": ("40% of reads dropped", _share(drop, 0.40)),
    "never-read": ("one card never read", inject_never_read),
    "other-deck": ("another deck's card read surely as an ace played", inject_other_deck),
    "wrong-seat": ("one card read at the wrong seat", inject_wrong_seat),
}


def fault_rng(seed: int, setting: str) -> np.random.Generator:
    """Deal ``seed``'s faults of ``setting``: the same on every run and machine."""
    return np.random.default_rng([seed, zlib.crc32(setting.encode())])


# --- scoring -----------------------------------------------------------------------------------


def truth_of(deal: Deal) -> dict[str, Any]:
    """The truth's plays, violations (rule, seat, trick) and result, as the pipeline scores."""
    rec = parse_deal_record(deal.record)
    ref = referee_record(rec)
    assert ref is not None and ref.is_over
    if ref.violations:
        result = ref.penalty(ref.violations[0], rec.match)[0]
    else:
        result = ref.outcome(rec.match).result  # type: ignore[union-attr]
    return {
        "plays": set(deal.plays),
        # A ruling is on a play (seat, trick): which rule the engine names depends on which
        # proof it saw first (a void seat that held a trump played in trick 3 and a card of
        # the led suit played in trick 4 broke must-trump as seen at trick 3, follow-suit as
        # seen at trick 4), so a ruling on an illegal play is no false accusation.
        "violations": {(v.seat, v.trick) for v in ref.violations},
        "result": list(result),
    }


def provenance(play: Any, events: list[dict[str, Any]]) -> tuple[str, bool]:
    """A final play's provenance ("seen", "named", "person") and whether the pipeline said it
    (the play's ``provenance``, or the latest play or correction event of its card, trick and
    seat that has one); else from its ``source``."""
    given = getattr(play, "provenance", None)
    if given:
        return given, True
    card = CARD_NAMES[play.card]
    for e in reversed(events):
        if (
            e["type"] in ("play", "correction") and "provenance" in e and e.get("card") == card
            and e.get("trick") == play.trick and e.get("seat") == play.seat
        ):  # fmt: skip
            return e["provenance"], True
    if play.source == "camera":
        return "seen", False
    return ("person" if play.source == "correction" else "named"), False


def score_run(pipe: Pipeline, events: list[dict[str, Any]], truth: dict[str, Any]) -> dict:
    """What one faulted deal came to, against the truth (see the module's docstring)."""
    standing = standing_violations(events)
    proven_false = [
        v for v in standing
        if v.get("status", "proven") == "proven"
        and (v["seat"], v["trick"]) not in truth["violations"]
    ]  # fmt: skip
    scores = [e for e in events if e["type"] == "score"]
    score = scores[-1] if scores else {}
    status = score.get("status", "final")
    wrong_final = status == "final" and score.get("result") != truth["result"]
    unflagged = named_wrong = 0
    doubted = {tuple(x) for x in score.get("in_doubt", [])}  # asked of a person
    for p in pipe.plays:
        kind, _ = provenance(p, events)
        if (p.trick, p.seat, CARD_NAMES[p.card]) not in truth["plays"]:
            unflagged += kind == "seen" and (p.trick, p.seat) not in doubted
            named_wrong += kind != "seen"
    waits = any(e["type"] == "uncertain" and "waits" in e.get("text", "") for e in events)
    suspected = any(v.get("status") == "suspected" for v in standing)
    got = {(p.trick, p.seat, CARD_NAMES[p.card]) for p in pipe.plays}
    return {
        "proven_false": len(proven_false),
        "wrong_final": int(wrong_final),
        "unflagged": unflagged,
        "named_wrong": named_wrong,
        "missing": 32 - len(pipe.plays),
        "incomplete": int(len(pipe.plays) < 32),
        "exact": int(got == truth["plays"] and len(pipe.plays) == 32),
        "person": int(waits or suspected or status == "provisional"),
        "notices": int(any(e["type"] == "uncertain" for e in events)),
        "fields": {
            "violation.status": [("status" in v) for v in standing],
            "score.status": ["status" in score] if score else [],
            "play.provenance": ["provenance" in e for e in events if e["type"] == "play"],
        },
    }


def run_setting(deal: Deal, truth: dict[str, Any], setting: str) -> dict[str, Any]:
    """The deal read with ``setting``'s faults through the pipeline (no evidence written)."""
    frames, info = SETTINGS[setting][1](deal, fault_rng(deal.seed, setting))
    t0 = time.perf_counter()
    pipe = Pipeline(
        DealSetup.from_record(deal.record), FaultDetector(frames),
        calibration=deal.calibration, fps=deal.fps, out_dir=None,
    )  # fmt: skip
    events = run_frames(pipe, ArraySource([BLANK] * len(frames), deal.fps))
    out = score_run(pipe, events, truth)
    out.update(setting=setting, seed=deal.seed, info=info, seconds=time.perf_counter() - t0)
    return out


def load_or_film(seed: int, violation: bool, deck: str | None, cache: str) -> tuple[Deal, float]:
    t0 = time.perf_counter()
    path = Path(cache) / f"labels-{seed}-{deck}-{int(violation)}.pkl" if cache else None
    if path is not None and path.exists():
        return Deal(**pickle.loads(path.read_bytes())), time.perf_counter() - t0
    deal = film_deal(seed, violation, deck)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(vars(deal)))  # a dict: the script may be ``__main__``
    return deal, time.perf_counter() - t0


def run_deal(job: tuple[int, int, list[str], str]) -> tuple[float, list[dict[str, Any]]]:
    """Deal k (seed ``base`` + k) filmed once, then read with each setting's faults."""
    base, k, settings, cache = job
    deck = HOLDOUT[k % len(HOLDOUT)] if HOLDOUT else None
    deal, film_s = load_or_film(base + k, k % 2 == 1, deck, cache)
    truth = truth_of(deal)
    return film_s, [run_setting(deal, truth, s) for s in settings]


# --- the table ---------------------------------------------------------------------------------


def table(rows: list[dict[str, Any]], settings: list[str]) -> str:
    head = ("| setting | deals | proven, did not happen | wrong final scores | wrong cards not "
            "flagged | cards missing (deals incomplete) | deals exact | deals with a person "
            "asked | pipeline s per deal |")  # fmt: skip
    lines = [head, "|" + "---|" * 9]
    for s in settings:
        rs = [r for r in rows if r["setting"] == s]
        n = len(rs)
        if not n:
            continue

        def tot(key: str, rs: list[dict[str, Any]] = rs) -> int:
            return sum(r[key] for r in rs)

        person = tot("person")
        lines.append(
            f"| {SETTINGS[s][0]} | {n} | {tot('proven_false')} | {tot('wrong_final')} | "
            f"{tot('unflagged')} | {tot('missing')} ({tot('incomplete')}) | {tot('exact')} | "
            f"{person} ({100 * person / n:.0f}%) | {tot('seconds') / n:.2f} |"
        )
    return "\n".join(lines)


def fields_line(rows: list[dict[str, Any]]) -> str:
    """Which of the fields the benchmark reads the pipeline gave, and how often."""
    parts = []
    for name in ("violation.status", "score.status", "play.provenance"):
        seen = [x for r in rows for x in r["fields"][name]]
        if not seen:
            parts.append(f"{name}: no such events")
        elif all(seen):
            parts.append(f"{name}: present")
        else:
            parts.append(f"{name}: missing in {len(seen) - sum(seen)} of {len(seen)}")
    return "fields: " + "; ".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=200, help="deals a setting (default 200)")
    ap.add_argument("--settings", default=",".join(SETTINGS),
                    help="comma-separated subset of: " + ", ".join(SETTINGS))  # fmt: skip
    ap.add_argument("--seed", type=int, default=48000, help="deal k's seed is SEED + k")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (deals in parallel)")
    ap.add_argument("--cache", default="", help="keep each deal's filmed labels in this folder")
    ap.add_argument("--jsonl", default="", help="write one line per deal and setting here")
    args = ap.parse_args()
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        sys.exit(f"--settings: unknown {', '.join(unknown)} (known: {', '.join(SETTINGS)})")
    jobs = [(args.seed, k, settings, args.cache) for k in range(args.deals)]
    rows: list[dict[str, Any]] = []
    film_s = 0.0
    t0 = time.perf_counter()
    pool = multiprocessing.Pool(args.jobs) if args.jobs > 1 else None
    try:
        results = pool.imap(run_deal, jobs) if pool else map(run_deal, jobs)
        for i, (fs, rs) in enumerate(results, 1):
            film_s += fs
            rows += rs
            el = time.perf_counter() - t0
            worst = {k: sum(r[k] for r in rows) for k in ("proven_false", "wrong_final",
                                                          "unflagged")}  # fmt: skip
            log(f"[faults] deal {i}/{args.deals} (seed {args.seed + i - 1}): {el:.0f} s, about "
                f"{el / i * (args.deals - i):.0f} s left; so far proven false "
                f"{worst['proven_false']}, wrong final {worst['wrong_final']}, unflagged "
                f"{worst['unflagged']}")  # fmt: skip
    finally:
        if pool:
            pool.close()
            pool.join()
    wall = time.perf_counter() - t0
    if args.jsonl:
        lines = [json.dumps({k: v for k, v in r.items() if k != "fields"}) for r in rows]
        Path(args.jsonl).write_text("".join(line + "\n" for line in lines))
    print(table(rows, settings))
    print()
    n = args.deals
    print(f"{n} deals (seeds {args.seed}-{args.seed + n - 1}), {len(settings)} settings, "
          f"{wall:.0f} s in all with {args.jobs} job(s): filming the labels {film_s:.0f} s "
          f"({film_s / max(n, 1):.2f} s a deal), the pipeline "
          f"{sum(r['seconds'] for r in rows):.0f} s")  # fmt: skip
    print(f"named wrong (flagged by provenance): {sum(r['named_wrong'] for r in rows)}; deals "
          f"with any notice: {sum(r['notices'] for r in rows)} of {len(rows)}")  # fmt: skip
    print(fields_line(rows))


if __name__ == "__main__":
    main()
