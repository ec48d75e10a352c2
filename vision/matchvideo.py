"""Scripted match videos: several deals of one match filmed as one clip, for table mode.

Each deal is a scripted deal (``hakam.vision.dealvideo``) dealt by the seat after the last one's
dealer; between two deals the new dealer gathers the trick piles, shuffles and deals face down.
One camera, table and deck for the whole clip. The truth is the ``hakam-match/1`` match (each
deal's record with the match score before it) and its score sheet as the engine scores it; the
calibration marks the match's first dealer, as ``hakam calibrate`` is told at the start of a
match, so later deals find their seats from it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hakam.engine.bidding import calls_for
from hakam.engine.contract import Contract
from hakam.engine.replay import MATCH_FORMAT, replay_match
from hakam.vision.dealvideo import DealFilm, ScriptedDeal, script_deal
from hakam.vision.seats import Calibration


@dataclass
class RenderedMatch:
    deals: list[ScriptedDeal]
    frames: list[np.ndarray]
    labels: list[list[dict[str, Any]]]
    deal_frames: list[int]  # per deal: its first frame
    rest_frames: list[list[int]]  # per deal, per play: the frame where the card came to rest
    calibration: Calibration  # centre and the first dealer's seat
    fps: float
    deck: str

    def match(self) -> dict[str, Any]:
        """The ``hakam-match/1`` truth: each deal's record, with the match before it."""
        return {"format": MATCH_FORMAT, "deals": [d.record for d in self.deals]}

    def sheet(self) -> dict[str, Any]:
        """The engine's score sheet of the truth (``replay_match``'s ``score_sheet``)."""
        return list(replay_match(self.match()))[-1]

    def setups(self) -> list[dict[str, Any]]:
        """What the table says before each deal, one ``--match`` line each: the contract, the
        open card and a bidding that buys it; the first dealer on the first line (then the
        dealer rotates)."""
        out = []
        for n, d in enumerate(self.deals):
            rec = d.record
            line: dict[str, Any] = {"dealer": rec["dealer"]} if n == 0 else {}
            if rec["contract"] is None:  # all passed, twice round
                out.append({**line, "contract": None, "open_card": rec["open_card"],
                            "bids": rec["bids"]})  # fmt: skip
                continue
            contract = Contract.from_json(rec["contract"])
            bids = calls_for(contract, rec["open_card"][-1])
            out.append(
                {**line,
                 "contract": {k: v for k, v in rec["contract"].items() if k != "dealer"},
                 "open_card": rec["open_card"], "bids": [list(b) for b in bids]}
            )  # fmt: skip
        return out


def script_match(
    seed: int,
    deals: int,
    first_dealer: int | None = None,
    violations: Collection[int] = (),
    voids: Collection[int] = (),
) -> list[ScriptedDeal]:
    """``deals`` seeded deals, the dealer rotating from ``first_dealer`` (default: drawn);
    ``violations``: the numbers (from 1) of the deals in which one player breaks a duty;
    ``voids``: those all four passed (the open card shown, then taken back)."""
    if deals < 1:
        raise ValueError("deals: at least 1")
    rng = random.Random(seed)
    dealer = rng.randrange(4) if first_dealer is None else first_dealer
    out = []
    for n in range(1, deals + 1):
        deal = script_deal(rng.randrange(1 << 30), n in violations, dealer=dealer)
        if n in voids:
            seats = [(dealer + 1 + k) % 4 for k in range(4)] * 2  # all pass, twice round
            rec = {**deal.record, "contract": None, "tricks": [],
                   "bids": [[s, "pass"] for s in seats]}  # fmt: skip
            deal = ScriptedDeal(rec, [], [], None)
        out.append(deal)
        dealer = (dealer + 1) % 4
    totals = [0, 0]
    for deal, score in zip(out, _scores(out), strict=True):  # the match before each deal
        deal.record["match"] = list(totals)
        totals = score
    return out


def _scores(deals: list[ScriptedDeal]) -> list[list[int]]:
    sheet = list(replay_match({"format": MATCH_FORMAT, "deals": [d.record for d in deals]}))[-1]
    out = [row["match"] for row in sheet["deals"]]
    return out + [out[-1]] * (len(deals) - len(out))  # deals after the match was over


def render_match(
    seed: int,
    deals: int,
    fps: float = 15.0,
    size: tuple[int, int] = (640, 480),
    deck: str | None = None,
    first_dealer: int | None = None,
    violations: Collection[int] = (),
    voids: Collection[int] = (),
    progress: Callable[[int, int], None] | None = None,
    pixels: bool = True,
    noise: float = 3.0,
    sink: Callable[[np.ndarray], None] | None = None,
) -> RenderedMatch:
    """Script and film a match of ``deals`` deals (``pixels`` False: labels only; ``sink``: each
    frame goes there as it is made, a video writer, and is not kept)."""
    scripted = script_match(seed, deals, first_dealer, violations, voids)
    film = DealFilm(scripted[0], seed, size, fps, deck, noise, pixels, sink)
    starts: list[int] = []
    rests: list[list[int]] = []
    for n, deal in enumerate(scripted):
        if n:
            film.next_deal(deal)
        starts.append(len(film.frames))
        done = film.film(progress=None if progress is None else lambda t, _t, n=n: progress(
            8 * n + t, 8 * deals))  # fmt: skip
        rests.append(done.rest_frames)
    calibration = film.calibration(scripted[0].record["dealer"])
    return RenderedMatch(scripted, film.frames, film.labels, starts, rests, calibration, fps,
                         film.deck_name)  # fmt: skip


def video_writer(out: str | Path, fps: float, size: tuple[int, int]) -> cv2.VideoWriter:
    """An mp4 writer for ``render_match``'s ``sink`` (``writer.write``; ``release`` it)."""
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    if not writer.isOpened():
        raise OSError(f"{out}: OpenCV cannot write an mp4 video here")
    return writer


def write_match_clip(
    rendered: RenderedMatch, out: str | Path, black: bool = False
) -> dict[str, str]:
    """Write ``clip.mp4`` (unless its frames went to a ``sink``: then it is written already)
    with ``clip.match.json`` (the truth), ``clip.sheet.json``, ``clip.setup.jsonl`` (the
    ``--match`` lines), ``clip.labels.json`` and ``clip.toml``. ``black``: the match was filmed
    as labels only (``pixels=False``): the video is black, of its frame size, for the label
    detector (``--detector oracle --labels``). Both leave 1x1 stand-ins in ``frames``: which
    one it was is the caller's to say, never guessed (a guess once blacked out the demo)."""
    out = Path(out)
    if rendered.frames and rendered.frames[0].shape[0] > 1:
        writer = video_writer(out, rendered.fps, rendered.frames[0].shape[1::-1])
        for img in rendered.frames:
            writer.write(img)
        writer.release()
    elif black and rendered.frames:
        w, h = rendered.calibration.frame_size
        writer = video_writer(out, rendered.fps, (w, h))
        black = np.zeros((h, w, 3), np.uint8)
        for _ in rendered.frames:
            writer.write(black)
        writer.release()
    stem = out.with_suffix("")
    paths = {name: f"{stem}.{suffix}" for name, suffix in (
        ("labels", "labels.json"), ("calibration", "toml"), ("match", "match.json"),
        ("sheet", "sheet.json"), ("setup", "setup.jsonl"))}  # fmt: skip
    labels = {"format": "hakam-labels/1", "fps": rendered.fps, "deck": rendered.deck,
              "rest_frames": [r for rests in rendered.rest_frames for r in rests],
              "deal_frames": rendered.deal_frames,
              "violation": [d.violation for d in rendered.deals],
              "frames": rendered.labels}  # fmt: skip
    Path(paths["labels"]).write_text(json.dumps(labels, separators=(",", ":")) + "\n")
    rendered.calibration.save(paths["calibration"])
    Path(paths["match"]).write_text(json.dumps(rendered.match(), indent=1) + "\n")
    Path(paths["sheet"]).write_text(json.dumps(rendered.sheet(), indent=1) + "\n")
    Path(paths["setup"]).write_text("".join(json.dumps(s) + "\n" for s in rendered.setups()))
    return {"video": str(out), **paths}
