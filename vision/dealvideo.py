"""Scripted deal videos: a seeded deal played card by card on the synthetic table.

The ground truth is the deal itself (``hakam-deal/1``), so a pipeline run on the clip can be
checked card by card, seat by seat, trick winner by trick winner. The clip shows what a webcam
over a real table sees: the open card at the start, each card thrown from its seat by an arm and
coming to rest in front of it, hands passing over the trick, the winner sweeping the trick to his
side where it becomes a face-down pile, slow lighting changes, sensor noise and a slightly shaky
camera. ``violation=True`` makes one player break a duty (a revoke or a missed trump); the engine
referee run on the truth record says which, and with which proof.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hakam.datasets.scene import CARD_H_MM, Camera, CardPlacement, Occluder, Renderer
from hakam.engine.cards import CARD_NAMES, Card
from hakam.engine.play import illegal_reasons, legal_plays, trick_winner_index
from hakam.engine.record import FORMAT, parse_deal_record, referee_record
from hakam.engine.simulate import random_contract, random_hands
from hakam.vision.seats import Calibration

SEAT_RADIUS_MM = 300.0  # where the players sit (the arm starts beyond it)
PILE_RADIUS_MM = 200.0
NO_EFFECTS = {"light": False, "temperature": False, "glare": 0, "motion": False,
              "defocus": False, "noise": 0}  # fmt: skip


@dataclass
class ScriptedDeal:
    """A seeded deal: the truth record and the plays in order (trick, seat, card)."""

    record: dict[str, Any]
    plays: list[tuple[int, int, Card]]
    winners: list[int]
    violation: dict[str, Any] | None = None


def script_deal(
    seed: int, violation: bool = False, max_trick: int = 2, dealer: int | None = None
) -> ScriptedDeal:
    """Play a random legal deal; with ``violation`` one illegal card in tricks 1..max_trick;
    ``dealer``: who deals (default: drawn from the seed, as a single clip has it).

    After the illegal card its player prefers the cards that prove it, so the proof comes soon
    (the short test clips then contain it).
    """
    rng = random.Random(seed)
    drawn = rng.randrange(4)  # drawn always: the same seed gives the same hands either way
    dealer = drawn if dealer is None else dealer
    contract = random_contract(rng, dealer)
    hands = [list(h) for h in random_hands(rng)]
    open_card = rng.choice(hands[contract.declarer])
    played: list[Card] = []
    plays: list[tuple[int, int, Card]] = []
    tricks: list[dict[str, Any]] = []
    winners: list[int] = []
    leader = (dealer + 1) % 4
    injected = False
    prove: set[Card] = set()
    violator = -1
    for t in range(1, 9):
        cards: list[Card] = []
        seats: list[int] = []
        for k in range(4):
            seat = (leader + k) % 4
            hand = hands[seat]
            legal = legal_plays(hand, cards, contract, played)
            choice = None
            if violation and not injected and t <= max_trick and cards:
                bad = illegal_reasons(hand, cards, contract, played)
                if bad:
                    choice = rng.choice(sorted(bad, key=lambda c: c.index))
                    injected, violator = True, seat
                    prove = {c for c in hand if c != choice and c not in legal} | set(legal)
                    prove = {c for c in hand if c.suit == cards[0].suit} or prove
            if choice is None:
                if seat == violator and prove & set(legal):
                    legal = sorted(prove & set(legal), key=lambda c: c.index)
                choice = rng.choice(legal)
            hand.remove(choice)
            cards.append(choice)
            seats.append(seat)
            plays.append((t, seat, choice))
        w = (leader + trick_winner_index([c.index for c in cards], contract.trump_index)) % 4
        winners.append(w)
        played += cards
        tricks.append({"cards": [str(c) for c in cards], "seats": seats})
        leader = w
    record = {
        "format": FORMAT,
        "dealer": dealer,
        "open_card": str(open_card),
        "contract": contract.to_json(),
        "tricks": tricks,
        "ekka": [],
        "projects": [],
        "match": [0, 0],
    }
    truth_violation = None
    if violation:
        ref = referee_record(parse_deal_record(record))
        if ref is None or not ref.violations:
            raise ValueError(f"seed {seed}: no violation could be injected")
        truth_violation = ref.violations[0].to_json()
    return ScriptedDeal(record, plays, winners, truth_violation)


def plain_deck() -> dict[str, np.ndarray]:
    """A drawn deck (rank and suit letters) for machines without the card art packages."""
    deck = {}
    for name in [*CARD_NAMES, "BACK"]:
        img = np.zeros((280, 200, 4), np.uint8)
        cv2.rectangle(img, (4, 4), (195, 275), (255, 255, 255, 255), -1)
        if name == "BACK":
            img[10:270, 10:190, :3] = (140, 40, 30)
        else:
            colour = (0, 0, 200, 255) if name[-1] in "DH" else (0, 0, 0, 255)
            cv2.putText(img, name, (14, 52), cv2.FONT_HERSHEY_SIMPLEX, 1.3, colour, 3)
            cv2.putText(img, name, (50, 165), cv2.FONT_HERSHEY_SIMPLEX, 2.0, colour, 5)
        deck[name] = img
    return deck


def load_deck(name: str | None = None) -> tuple[str, dict[str, np.ndarray]]:
    """Card rasters of a deck design (default: the first hold-out design), else the plain deck."""
    try:
        from hakam.datasets import art

        if name == "plain":
            raise LookupError
        if name is None:
            decks = art.available_decks(holdout=True) + art.available_decks(holdout=False)
        else:  # by name, a design reported apart (arabic) too
            decks = [d for d in art.DECKS if d.name == name and d.available()]
            if not decks:
                raise LookupError
        if decks:
            return decks[0].name, art.load_deck_images(decks[0])
    except (LookupError, FileNotFoundError, OSError, RuntimeError):
        if name not in (None, "plain"):
            raise ValueError(f"deck design {name!r} is not installed") from None
    return "plain", plain_deck()


@dataclass
class _Flying:
    """One card's path: where it starts, where it rests, when it moves."""

    card: str
    seat: int
    start: tuple[float, float, float]  # x, y, angle
    rest: tuple[float, float, float]


@dataclass
class RenderedDeal:
    deal: ScriptedDeal
    frames: list[np.ndarray]
    labels: list[list[dict[str, Any]]]
    rest_frames: list[int]  # per play: the frame where the card came to rest
    calibration: Calibration
    fps: float
    deck: str
    meta: dict[str, Any] = field(default_factory=dict)


class DealFilm:
    """Builds the frames of one scripted deal; one camera, texture and renderer per clip."""

    def __init__(
        self,
        deal: ScriptedDeal,
        seed: int,
        size: tuple[int, int] = (640, 480),
        fps: float = 15.0,
        deck: str | None = None,
        noise: float = 3.0,
        pixels: bool = True,
        sink: Callable[[np.ndarray], None] | None = None,
    ) -> None:
        from hakam.datasets.textures import make_texture

        self.noise = float(noise)  # sensor noise sigma (grey levels); it dominates the file size
        # False: labels only, each frame a 1x1 black image (for the label detector); the same
        # shots, random draws and labels as with pixels, about 3 times as fast.
        self.pixels = pixels
        # Each frame goes to ``sink`` (a video writer) as it is made and only a 1x1 stand-in is
        # kept: a long clip (a match) need not fit in memory.
        self.sink = sink
        self.deal = deal
        self.fps = fps
        self.seed = seed
        self.rng = np.random.default_rng([seed, 1])
        self.deck_name, images = load_deck(deck)
        self.renderer = Renderer(images)
        w, h = size
        focal = (w / 2) / math.tan(math.radians(60) / 2)
        distance = focal * CARD_H_MM / (0.17 * h)
        self.cam = Camera(w, h, focal, float(self.rng.uniform(5, 25)),
                          float(self.rng.uniform(0, 360)), distance)  # fmt: skip
        self.texture = make_texture(seed)[1]
        self.base_angle = float(self.rng.uniform(0, 360))  # table angle of seat 0
        self.frames: list[np.ndarray] = []
        self.labels: list[list[dict[str, Any]]] = []
        self.lying: list[CardPlacement] = []  # cards at rest on the table
        self.piles: list[CardPlacement] = []
        self.light_phase = float(self.rng.uniform(0, 2 * math.pi))
        self.dim_at = float(self.rng.uniform(0.3, 0.7))  # a lamp switched down for a while

    # --- geometry ---------------------------------------------------------------------------

    def seat_angle(self, seat: int) -> float:
        """Table angle (degrees, counter-clockwise seen from above) of a seat: play goes right."""
        return self.base_angle + 90.0 * seat

    def table_point(self, seat: int, r: float, side: float = 0.0) -> tuple[float, float]:
        a = math.radians(self.seat_angle(seat))
        return (r * math.cos(a) - side * math.sin(a), r * math.sin(a) + side * math.cos(a))

    def pixel(self, xy: tuple[float, float], cam: Camera | None = None) -> tuple[float, float]:
        p = (cam or self.cam).project(np.array([xy], float))[0]
        return float(p[0]), float(p[1])

    def calibration(self, seat: int | None = None) -> Calibration:
        """The table as ``hakam calibrate`` marks it: the centre and a point towards ``seat``
        (default: this deal's dealer; a match marks its first dealer)."""
        seat = self.deal.record["dealer"] if seat is None else seat
        return Calibration(
            self.pixel((0.0, 0.0)),
            self.pixel(self.table_point(seat, SEAT_RADIUS_MM)),
            False,
            (self.cam.width, self.cam.height),
        )

    # --- frames -----------------------------------------------------------------------------

    def shot(self, moving: list[CardPlacement], arms: list[tuple[int, tuple[float, float]]]):
        """Render one frame: piles, cards at rest, moving cards, then arms reaching in."""
        n = len(self.frames)
        cam = Camera(
            self.cam.width, self.cam.height, self.cam.focal, self.cam.tilt,
            self.cam.yaw + float(self.rng.normal(0, 0.15)), self.cam.distance,
            (float(self.rng.normal(0, 0.8)), float(self.rng.normal(0, 0.8))),
        )  # fmt: skip
        occluders = []
        for seat, reach in arms:
            start = self.pixel(self.table_point(seat, SEAT_RADIUS_MM * 2.2), cam)
            end = self.pixel(reach, cam)
            occluders.append(
                Occluder("hand", {"start": start, "end": end, "width": 0.11 * cam.height,
                                  "colour": (90, 120, 170), "height": 30, "fingers": 4})
            )  # fmt: skip
        render_rng = np.random.default_rng([self.seed, 2])  # same shadows every frame
        img, labels = self.renderer.render(
            render_rng, cam, self.texture, self.piles + self.lying + moving, occluders, NO_EFFECTS,
            pixels=self.pixels,
        )  # fmt: skip
        self.labels.append(
            [
                {"card": lb.card, "box": [round(v, 1) for v in lb.box],
                 "visible": round(lb.visible, 3), "index_visible": round(lb.index_visible, 3)}
                for lb in labels
            ]
        )  # fmt: skip
        if img is None:
            self.rng.standard_normal((cam.height, cam.width), dtype=np.float32)  # as the noise
            self.frames.append(np.zeros((1, 1, 3), np.uint8))
            return
        t = n / self.fps
        gain = 1.0 + 0.12 * math.sin(2 * math.pi * t / 9.0 + self.light_phase)
        total = max(1.0, getattr(self, "total_s", 40.0))
        if self.dim_at * total < t < (self.dim_at + 0.15) * total:
            gain *= 0.78
        noise = self.rng.standard_normal(img.shape[:2], dtype=np.float32)[..., None]
        out = img.astype(np.float32) * np.float32(gain) + noise * np.float32(self.noise)
        # A webcam's own denoising softens the grain (and keeps the clips small).
        soft = cv2.GaussianBlur(np.clip(out, 0, 255).astype(np.uint8), (3, 3), 0.8)
        if self.sink is not None:
            self.sink(soft)
            soft = np.zeros((1, 1, 3), np.uint8)
        self.frames.append(soft)

    def throw(self, card: str, seat: int, motion: int = 4) -> CardPlacement:
        """The card flies from the seat to its resting place under the player's arm."""
        rng = self.rng
        r = float(rng.uniform(48, 78))
        side = float(rng.normal(0, 12))
        rx, ry = self.table_point(seat, r, side)
        ra = self.seat_angle(seat) + 90 + float(rng.normal(0, 20))
        sx, sy = self.table_point(seat, SEAT_RADIUS_MM * 0.9, side)
        sa = ra + float(rng.normal(0, 40))
        for k in range(1, motion + 1):
            f = 1 - (1 - k / motion) ** 2  # ease out
            x, y = sx + (rx - sx) * f, sy + (ry - sy) * f
            a = sa + (ra - sa) * f
            # The hand holds the card's far edge until it lets go.
            hx, hy = self.table_point(seat, r + (SEAT_RADIUS_MM * 0.9 - r) * (1 - f) + 55, side)
            self.shot([CardPlacement(card, x, y, a, lift=8 * (1 - f))], [(seat, (hx, hy))])
        placed = CardPlacement(card, rx, ry, ra)
        self.lying.append(placed)
        hx, hy = self.table_point(seat, r + 140, side)
        self.shot([], [(seat, (hx, hy))])  # the arm draws back
        return placed

    def rest(self, frames: int) -> None:
        for _ in range(frames):
            if self.rng.random() < 0.04:  # someone reaches over the trick for a moment
                self.pass_hand()
            else:
                self.shot([], [])

    def pass_hand(self) -> None:
        seat = int(self.rng.integers(4))
        tx, ty = float(self.rng.normal(0, 25)), float(self.rng.normal(0, 25))
        for f in (0.5, 0.9, 1.0, 1.0, 0.8, 0.4):
            px, py = self.table_point(seat, SEAT_RADIUS_MM, 0)
            self.shot([], [(seat, (px + (tx - px) * f, py + (ty - py) * f))])

    def sweep(self, winner: int, cards: list[CardPlacement], frames: int = 5) -> None:
        """The winner's arm pulls the trick to his side; it becomes a face-down pile."""
        px, py = self.table_point(winner, PILE_RADIUS_MM, 60 if winner % 2 else -60)
        hand_to = self.table_point(winner, 20)
        self.shot([], [(winner, hand_to)])
        for c in cards:
            self.lying.remove(c)
        for k in range(1, frames + 1):
            f = k / frames
            moving = [
                CardPlacement(c.name, c.x + (px - c.x) * f, c.y + (py - c.y) * f, c.angle)
                for c in cards
            ]
            hx = hand_to[0] + (px - hand_to[0]) * f
            hy = hand_to[1] + (py - hand_to[1]) * f
            self.shot(moving, [(winner, (hx, hy))])
        self.piles.append(
            CardPlacement("BACK", px + float(self.rng.normal(0, 3)),
                          py + float(self.rng.normal(0, 3)),
                          self.seat_angle(winner) + float(self.rng.normal(0, 8)),
                          face_up=False, label=False, tag="pile")
        )  # fmt: skip
        self.shot([], [(winner, self.table_point(winner, PILE_RADIUS_MM + 60))])

    def next_deal(self, deal: ScriptedDeal) -> None:
        """Between two deals of a match: the new dealer gathers the trick piles, shuffles and
        deals the cards face down (backs only: nothing a referee may take for a play)."""
        dealer = deal.record["dealer"]
        home = self.table_point(dealer, SEAT_RADIUS_MM * 0.8)
        piles, self.piles = self.piles, []
        for k in range(1, 6):
            f = k / 5
            moving = [
                CardPlacement("BACK", p.x + (home[0] - p.x) * f, p.y + (home[1] - p.y) * f,
                              p.angle, face_up=False, label=False, tag="pile")
                for p in piles
            ]  # fmt: skip
            self.shot(moving, [(dealer, (home[0] * (1 - f / 2), home[1] * (1 - f / 2)))])
        self.rest(int(self.fps))  # the shuffle, in the dealer's hands
        for _ in range(2):  # the cards go out face down, a few at a time to each seat
            for seat in range(4):
                to = self.table_point(seat, SEAT_RADIUS_MM * 0.9)
                for f in (0.3, 0.65, 1.0):
                    c = CardPlacement("BACK", home[0] + (to[0] - home[0]) * f,
                                      home[1] + (to[1] - home[1]) * f, self.seat_angle(seat),
                                      face_up=False, label=False, tag="pile")  # fmt: skip
                    self.shot([c], [(dealer, home)])
        self.rest(int(self.fps))  # hands picked up and sorted
        self.deal = deal

    def film(
        self,
        tricks: int = 8,
        rest_frames: int = 10,
        progress: Callable[[int, int], None] | None = None,
    ) -> RenderedDeal:
        deal = self.deal
        rec = deal.record
        self.total_s = (tricks * (4 * (rest_frames + 5) + 7) + 30) / self.fps
        self.rest(4)
        # The open card: laid face up by the dealer, then taken by the buyer (all passed: a
        # void deal, the dealer takes it back while the bidding goes round twice).
        void = rec["contract"] is None
        declarer = rec["dealer"] if void else rec["contract"]["declarer"]
        open_card = self.throw(rec["open_card"], rec["dealer"])
        self.rest(30 if void else 12)
        self.lying.remove(open_card)
        to = self.table_point(declarer, SEAT_RADIUS_MM)
        for k in range(1, 5):
            f = k / 4
            c = CardPlacement(
                open_card.name,
                open_card.x + (to[0] - open_card.x) * f,
                open_card.y + (to[1] - open_card.y) * f,
                open_card.angle,
            )
            self.shot([c], [(declarer, (c.x, c.y))])
        self.rest(4)
        rest_at: list[int] = []
        on_table: list[CardPlacement] = []
        t0 = time.monotonic()
        for t, seat, card in deal.plays:
            if t > tricks:
                break
            on_table.append(self.throw(str(card), seat))
            rest_at.append(len(self.frames) - 2)  # the frame the card lay still in
            self.rest(rest_frames)
            if len(on_table) == 4:
                self.rest(4)
                self.sweep(deal.winners[t - 1], on_table)
                on_table = []
                self.rest(3)
                if progress:
                    progress(t, tricks)
        self.rest(6)
        return RenderedDeal(
            deal,
            self.frames,
            self.labels,
            rest_at,
            self.calibration(),
            self.fps,
            self.deck_name,
            {"seconds": round(time.monotonic() - t0, 2), "frames": len(self.frames)},
        )


def render_deal(
    seed: int,
    violation: bool = False,
    tricks: int = 8,
    fps: float = 15.0,
    size: tuple[int, int] = (640, 480),
    deck: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    pixels: bool = True,
) -> RenderedDeal:
    """Script and film a seeded deal (``tricks`` first tricks of it) in memory; ``pixels``
    False films its labels only (``DealFilm``)."""
    deal = script_deal(seed, violation)
    return DealFilm(deal, seed, size, fps, deck, pixels=pixels).film(tricks, progress=progress)


def truth_record(rendered: RenderedDeal, tricks: int | None = None) -> dict[str, Any]:
    """The truth record cut to the tricks that were filmed."""
    rec = dict(rendered.deal.record)
    n = len(rendered.rest_frames)
    cut = []
    for trick in rec["tricks"]:
        if n <= 0:
            break
        k = min(4, n)
        cut.append({"cards": trick["cards"][:k], "seats": trick["seats"][:k]})
        n -= k
    rec["tricks"] = cut if tricks is None else cut[:tricks]
    return rec


def write_clip(rendered: RenderedDeal, out: str | Path) -> dict[str, str]:
    """Write ``clip.mp4`` with ``clip.deal.json``, ``clip.labels.json`` and ``clip.toml``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    h, w = rendered.frames[0].shape[:2]
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"mp4v"), rendered.fps, (w, h))
    if not writer.isOpened():
        raise OSError(f"{out}: OpenCV cannot write an mp4 video here")
    for img in rendered.frames:
        writer.write(img)
    writer.release()
    stem = out.with_suffix("")
    deal_path = Path(f"{stem}.deal.json")
    labels_path = Path(f"{stem}.labels.json")
    toml_path = Path(f"{stem}.toml")
    deal_path.write_text(json.dumps(truth_record(rendered), indent=1) + "\n")
    labels_path.write_text(
        json.dumps(
            {
                "format": "hakam-labels/1",
                "fps": rendered.fps,
                "deck": rendered.deck,
                "rest_frames": rendered.rest_frames,
                "violation": rendered.deal.violation,
                "frames": rendered.labels,
            },
            separators=(",", ":"),
        )
        + "\n"
    )
    rendered.calibration.save(toml_path)
    return {"video": str(out), "record": str(deal_path), "labels": str(labels_path),
            "calibration": str(toml_path)}  # fmt: skip
