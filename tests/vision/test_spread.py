"""Finding every card of a spread (issue 51): the closer look where the first looks pass a card
over, with a scripted finder, and on a rendered spread whose finder misses three cards."""

from __future__ import annotations

import numpy as np
import pytest

from hakam.datasets import art
from hakam.datasets.spread import labelled_names, learning_spread
from hakam.engine.cards import CARD_NAMES
from hakam.vision import decks
from hakam.vision.spread import closer_look

CARD = (100, 140)  # a card's box in the scripted frame: width, height


class Finder:
    """Finds each card of ``cards`` lying whole in the image it is given, but only where the
    card is a third of the image's width or more (a card small in its frame is passed over);
    and, in every image, a box too small to be a card. Boxes in the image's own pixels."""

    def __init__(self, cards, origin):
        self.cards = [np.float32(c) for c in cards]
        self.origin = origin  # where the next image given lies in the frame
        self.calls = 0

    def find(self, image, conf):
        self.calls += 1
        assert conf <= 0.1  # a closer look searches at a low threshold
        x0, y0 = self.origin(image)
        h, w = image.shape[:2]
        out = [np.float32([5, 5, 15, 15, 0.9])]  # a speck: not card-sized
        for c in self.cards:
            b = c - np.float32([x0, y0, x0, y0])
            whole = b[0] >= 0 and b[1] >= 0 and b[2] <= w and b[3] <= h
            if whole and (b[2] - b[0]) >= w / 3:
                out.append(np.float32([*b, 0.3]))
        return out


def _box(x, y):
    return (x, y, x + CARD[0], y + CARD[1])


def test_a_closer_look_finds_the_cards_passed_over_and_only_those():
    frame = np.zeros((720, 1280, 3), np.uint8)
    found = [np.float32(_box(200 + 130 * i, 150)) for i in range(6)]
    missed = [_box(330, 330), _box(720, 330)]
    # The scripted finder is told where each window lies: frames are views of ``frame``.
    base = frame.__array_interface__["data"][0]

    def origin(view):
        offset = view.__array_interface__["data"][0] - base
        return (offset % (1280 * 3)) // 3, offset // (1280 * 3)

    finder = Finder([*found, *missed], origin)
    more = closer_look(frame, found, finder)
    assert sorted(tuple(map(int, b)) for b in more) == sorted(missed)
    assert finder.calls > 1
    # Too few cards found to know a card's size: no closer look.
    finder.calls = 0
    assert closer_look(frame, found[:3], finder) == [] and finder.calls == 0


@pytest.fixture(scope="module")
def detector():
    from hakam.vision.detector import make_detector

    return make_detector("openvino")


@pytest.mark.skipif("kde_oxygen" not in {d.name for d in art.available_decks()},
                    reason="card art not installed (make install)")  # fmt: skip
def test_dark_faces_on_dark_cloth_are_all_found(detector):
    # kde_oxygen's dark faces, spread 8: the whole frame and its tiles find 29 of the 32.
    frame, labels = learning_spread(art.load_deck_images(art.deck_by_name("kde_oxygen")), 8)
    found = decks.find_cards([frame], detector)
    names = labelled_names([c.box for c in found], labels, decks.MATCH_IOU)
    assert sorted(n for n in names if n) == sorted(CARD_NAMES)
    assert None not in names  # nothing found on no card
