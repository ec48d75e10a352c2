"""The fault injectors of ``benchmarks/faults.py`` change what they say, and nothing else."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # ``python -m pytest`` from the root has it; ``pytest`` may not
    sys.path.insert(0, str(ROOT))

from benchmarks import faults  # noqa: E402
from hakam.engine.cards import CARD_NAMES  # noqa: E402
from hakam.vision.dealvideo import render_deal, script_deal  # noqa: E402
from hakam.vision.seats import Calibration, SeatMap  # noqa: E402
from hakam.vision.turns import box_centre  # noqa: E402

CAL = Calibration((320.0, 240.0), (320.0, 420.0), False, (640, 480))


def toy_deal(seed: int = 3) -> faults.Deal:
    """A scripted deal whose labels are drawn by hand: each card lies 10 frames in front of its
    seat, alone, at rest from its first frame."""
    deal = script_deal(seed)
    seats = SeatMap(CAL, deal.record["dealer"])
    labels, rest = [], []
    for _, seat, card in deal.plays:
        x, y = seats.seat_point(seat, 0.5)
        rest.append(len(labels))
        for _ in range(10):
            labels.append([{"card": str(card), "box": [x - 30, y - 42, x + 30, y + 42],
                            "visible": 1.0, "index_visible": 1.0}])  # fmt: skip
    plays = [(t, s, str(c)) for t, s, c in deal.plays]
    return faults.Deal(seed, deal.record, plays, False, labels, rest, CAL, 15.0, "plain")


def many_reads(n: int = 4000) -> list[list[dict]]:
    return [[{"card": CARD_NAMES[k % 32], "box": [0, 0, 10, 10], "visible": 1.0,
              "index_visible": 1.0}] for k in range(n)]  # fmt: skip


@pytest.mark.parametrize("share", [0.10, 0.25, 0.40])
def test_dropped_reads_are_the_share_asked(share):
    frames = many_reads()
    out, info = faults.drop(frames, share, faults.fault_rng(1, f"drop-{share}"))
    n = sum(len(f) for f in out)
    assert info == {"reads": 4000, "dropped": 4000 - n}
    assert abs((4000 - n) / 4000 - share) < 0.03
    assert len(out) == len(frames) and all(len(f) == 1 for f in frames)  # input untouched


@pytest.mark.parametrize("share", [0.01, 0.05, 0.10])
def test_misreads_name_another_card_and_keep_the_confidence(share):
    frames = many_reads()
    out, info = faults.misread(frames, share, faults.fault_rng(2, "misread"))
    changed = [(a[0], b[0]) for a, b in zip(frames, out, strict=True) if a[0] != b[0]]
    assert len(changed) == info["misread"]
    assert abs(len(changed) / 4000 - share) < 0.01
    for a, b in changed:
        assert b["card"] != a["card"] and b["card"] in CARD_NAMES
        assert {k: v for k, v in a.items() if k != "card"} == {
            k: v for k, v in b.items() if k != "card"
        }
    sure = faults.FaultDetector([[b] for _, b in changed]).detect(faults.BLANK)
    assert sure.confidence.tolist() == [pytest.approx(0.9)]


def test_never_read_drops_every_read_of_one_card_only():
    deal = toy_deal()
    out, info = faults.inject_never_read(deal, faults.fault_rng(4, "never-read"))
    card = info["card"]
    assert info["dropped"] == 10
    assert all(lb["card"] != card for f in out for lb in f)
    assert sum(len(f) for f in out) == 320 - 10


def test_wrong_seat_moves_one_cards_boxes_in_front_of_another_seat():
    deal = toy_deal()
    out, info = faults.inject_wrong_seat(deal, faults.fault_rng(5, "wrong-seat"))
    card, seat, to = info["card"], info["seat"], info["to"]
    assert to != seat and card != deal.record["open_card"] and info["moved"] == 10
    seats = SeatMap(CAL, deal.record["dealer"])
    for before, after in zip(deal.labels, out, strict=True):
        for a, b in zip(before, after, strict=True):
            if a["card"] != card:
                assert a == b
                continue
            assert seats.locate(box_centre(a["box"]))[0] == seat
            located = seats.locate(box_centre(b["box"]))
            assert located[0] == to and located[2]  # clearly in front of the other seat
            assert b["box"][2] - b["box"][0] == pytest.approx(a["box"][2] - a["box"][0], abs=0.2)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_other_deck_adds_a_sure_read_of_an_ace_already_collected(seed):
    deal = toy_deal(seed)
    out, info = faults.inject_other_deck(deal, faults.fault_rng(seed, "other-deck"))
    ace, start, end = info["card"], info["start"], info["end"]
    earlier = {c for t, _, c in deal.plays if t < info["trick"]}
    assert ace in earlier and (ace.startswith("A") or not info["ace"])
    assert end - start == min(45, len(out) - start)
    assert start > deal.rest_frames[(info["trick"] - 1) * 4]
    det = faults.FaultDetector(out)
    gone = [CARD_NAMES.index(c) for c in earlier]
    for k, f in enumerate(out):
        fake = [lb for lb in f if lb.get("conf")]
        if not start <= k < end:
            assert f == deal.labels[k] and not fake
            det.detect(faults.BLANK, gone)
            continue
        assert [lb["card"] for lb in fake] == [ace]
        assert info["hides"] not in [lb["card"] for lb in f]
        read = det.detect(faults.BLANK, gone)
        assert ace not in read.names  # ruled out: the two-stage detector keeps it in sight
        assert det.in_sight.names == [ace]
        assert det.in_sight.confidence.tolist() == [pytest.approx(faults.OTHER_DECK_CONF)]


def test_the_same_seed_gives_the_same_faults():
    deal = toy_deal()
    for name, (_, inject) in faults.SETTINGS.items():
        a = inject(deal, faults.fault_rng(9, name))
        b = inject(deal, faults.fault_rng(9, name))
        assert a == b, name


def test_labels_filmed_without_pixels_are_the_rendered_deals():
    seed = 48001
    rendered = render_deal(seed, violation=True, tricks=1, size=(320, 240), deck="plain")
    film = render_deal(seed, violation=True, tricks=1, size=(320, 240), deck="plain", pixels=False)
    assert film.labels == rendered.labels
    assert film.rest_frames == rendered.rest_frames
    assert film.calibration == rendered.calibration
