"""The finds printing the same rank share their rank evidence (``hakam.vision.index_glyphs``)."""

from __future__ import annotations

import numpy as np
import pytest

from hakam.datasets import arabic_deck
from hakam.engine.cards import CARD_NAMES
from hakam.gui.deck_answers import DeckAnswers
from hakam.vision import decks, index_glyphs
from hakam.vision.reader import OTHER

from .conftest import arabic_face, needs_font


@needs_font
@pytest.mark.parametrize("style", [arabic_deck.HOLDOUT, arabic_deck.TUNING])
def test_the_faces_of_one_rank_are_found_alike_and_no_others(style):
    same = np.array([[a[:-1] == b[:-1] for b in CARD_NAMES] for a in CARD_NAMES])
    np.fill_diagonal(same, False)
    found = index_glyphs.alike([arabic_face(card, style) for card in CARD_NAMES])
    assert (found == same).all()  # 48 pairs: each rank's four suits, and nothing else


def test_a_face_without_ink_in_its_corners_is_alike_to_none():
    blank = np.full((decks.FACE_H, decks.FACE_W, 3), 230, np.uint8)
    assert index_glyphs.glyphs(blank) == []
    assert index_glyphs.similarity([], index_glyphs.glyphs(blank)) == -1.0
    assert not index_glyphs.alike([blank] * 6).any()
    assert index_glyphs.alike([blank] * 2).shape == (2, 2)  # too few to tell: none alike


def _reads(rows: list[dict[str, float]]) -> list[np.ndarray]:
    out = []
    for row in rows:
        p = np.full(OTHER + 1, 1e-4)
        for card, prob in row.items():
            p[OTHER if card == "-" else CARD_NAMES.index(card)] = prob
        out.append(p / p.sum())
    return out


# Four kings and four jacks of an index the generic read does not know: each read of the right
# suit, the king's glyph taken for a jack and the jack's for a king, but not surely.
SUITS = "SHDC"
KINGS_AS_JACKS = [{f"J{s}": 0.55, f"K{s}": 0.35, "-": 0.1} for s in SUITS]
JACKS_AS_KINGS = [{f"K{s}": 0.5, f"J{s}": 0.4, "-": 0.1} for s in SUITS]
ALIKE = np.zeros((8, 8), bool)
ALIKE[:4, :4] = ALIKE[4:, 4:] = True
np.fill_diagonal(ALIKE, False)


def test_a_rank_named_for_one_find_is_proposed_for_the_finds_alike():
    reads = _reads(KINGS_AS_JACKS + JACKS_AS_KINGS)
    before = [name for name, _ in decks.propose(reads, alike=ALIKE)]
    assert before == [f"J{s}" for s in SUITS] + [f"K{s}" for s in SUITS]
    after = [name for name, _ in decks.propose(reads, {0: "KS"}, ALIKE)]
    assert after == [f"K{s}" for s in SUITS] + [f"J{s}" for s in SUITS]  # one answer, 8 right
    alone = [name for name, _ in decks.propose(reads, {0: "KS"})]
    assert alone[1:4] == ["JH", "JD", "JC"]  # without the glyphs, each waits for its own


def test_finds_alike_share_their_rank_evidence():
    # The king of spades read surely; its three alike read as jacks less surely: all kings.
    rows = [{"KS": 0.9, "JS": 0.05, "-": 0.05}, *KINGS_AS_JACKS[1:]]
    reads = _reads(rows)
    alike = ALIKE[:4, :4]
    assert [n for n, _ in decks.propose(reads)] == ["KS", "JH", "JD", "JC"]
    assert [n for n, _ in decks.propose(reads, alike=alike)] == ["KS", "KH", "KD", "KC"]
    pooled = index_glyphs.pool_ranks(np.array(reads), alike, {})
    assert pooled.shape == (4, OTHER + 1) and np.allclose(pooled.sum(axis=1), 1.0)
    assert np.allclose(index_glyphs.pool_ranks(np.array(reads), np.zeros((4, 4), bool), {}),
                       np.array(reads))  # fmt: skip
    pair = np.zeros((4, 4), bool)
    pair[0, 1] = pair[1, 0] = True
    dropped = index_glyphs.pool_ranks(np.array(reads), pair, {0: None})  # named: on no card
    assert np.allclose(dropped[0], reads[0])  # a named find is left as read
    assert np.allclose(dropped[1], reads[1])  # and one on no card gives no rank to its alike


def test_the_window_proposes_the_finds_alike_again_as_the_person_names_one():
    reads = _reads(KINGS_AS_JACKS + JACKS_AS_KINGS)
    proposals = [name for name, _ in decks.propose(reads, alike=ALIKE)]
    answers = DeckAnswers(proposals, reads, alike=ALIKE)
    answers.set(4, "JS")
    # The finds held to their proposals (``DeckAnswers.keep``): the answer moves only the find
    # it took JS from; naming a king as well then turns the other six, which print the glyphs
    # of the two finds named.
    assert answers.answers == ["KS", "JH", "JD", "JC", "JS", "KH", "KD", "KC"]
    answers.set(1, "KH")
    assert answers.answers == [f"K{s}" for s in SUITS] + [f"J{s}" for s in SUITS]
    assert answers.named == {1, 4} and answers.changed == {0, 2, 3, 5, 6, 7}


def test_the_cards_found_and_the_deck_window_propose_with_the_glyphs(monkeypatch):
    """``find_cards`` and the deck window hand the finds' likeness to the proposals."""
    from PySide6.QtCore import QObject

    from hakam.cli import deck as deck_cli
    from hakam.gui.views import deck_view

    marker = np.zeros((2, 2), bool)
    monkeypatch.setattr(index_glyphs, "alike", lambda faces: marker)
    seen: list = []
    real = decks.propose
    monkeypatch.setattr(decks, "propose",
                        lambda reads, named=None, alike=None: seen.append(alike)
                        or real(reads, named, alike))  # fmt: skip
    boxes = np.array([[10, 10, 60, 80], [100, 10, 150, 80]], np.float32)
    monkeypatch.setattr(decks, "spread_boxes", lambda frame, detector: boxes)

    class Corners:
        def quads(self, frame, boxes):
            return np.array([[[a, b], [c, b], [c, d], [a, d]] for a, b, c, d in boxes], np.float32)

    class Detector:
        corners = Corners()

        def read_boxes(self, frame, boxes):
            return np.array(_reads([{"AS": 0.9}, {"KS": 0.9}]))

    found = decks.find_cards([np.zeros((100, 200, 3), np.uint8)], Detector())
    assert [c.proposed for c in found] == ["AS", "KS"] and seen == [marker]

    class Window(QObject):  # the deck window, closed at once: what it was given is kept
        given = None

        def __init__(self, faces, answers, language, learn=None, more=None, **_):
            super().__init__()
            Window.given, self.learnt = answers, None

        def fit_screen(self):
            pass

        def exec(self):
            return 0

    monkeypatch.setattr(deck_view, "DeckView", Window)
    deck_cli._confirm_in_window(found, "en", None, ["AS", "KS"])
    assert Window.given.alike is marker and Window.given.reads is not None


def test_a_picture_added_keeps_only_the_cards_not_found_before():
    """A card left on the table (same place, same picture there) is not found twice, even with
    another laid beside it; a card laid beside the others, or anew in a card's place, is kept."""
    rng = np.random.default_rng(5)
    first = np.full((200, 300, 3), 60, np.uint8)
    first[20:100, 25:75] = rng.integers(0, 255, (80, 50, 3))  # a card, its box wider (tilted)
    second = first.copy()
    second[20:100, 150:210] = rng.integers(0, 255, (80, 60, 3))  # the one missing, laid beside
    second[20:100, 76:100] = rng.integers(0, 255, (80, 24, 3))  # a neighbour in the first's box
    face = np.zeros((decks.FACE_H, decks.FACE_W, 3), np.uint8)

    def find(frame: int, box) -> decks.Candidate:
        return decks.Candidate(frame, np.float32(box), np.zeros((4, 2), np.float32), face, "AS",
                               0.9)  # fmt: skip

    found = [find(0, [10, 20, 90, 100])]
    seen = [find(0, [11, 20, 90, 101]), find(0, [150, 20, 210, 100])]
    kept = decks.not_found_before(found, [first], seen, second)
    assert [c.box[0] for c in kept] == [150]
    other = second.copy()
    other[20:100, 25:75] = rng.integers(0, 255, (80, 50, 3))  # another card in its place
    assert len(decks.not_found_before(found, [first], seen, other)) == 2
