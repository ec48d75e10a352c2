"""The Arabic-index deck design: 32 distinct cards whose indices are Arabic letters and digits,
held out of training and reported apart from the three standard hold-out designs."""

from __future__ import annotations

import numpy as np
import pytest

from hakam.datasets import arabic_deck, art
from hakam.datasets.scene import INDEX_REGIONS
from hakam.engine.cards import CARD_NAMES

pytestmark = pytest.mark.skipif(not arabic_deck.available(), reason="fonts-dejavu-core missing")


def index_tile(img: np.ndarray) -> np.ndarray:
    """The top-left index region's ink (dark or red on the paper)."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = INDEX_REGIONS[0]
    tile = img[int(y0 * h) : int(y1 * h), int(x0 * w) : int(x1 * w), :3].astype(int)
    return (tile.sum(axis=2) < 500).astype(np.uint8)


def test_every_card_is_drawn_whole_and_no_two_alike():
    cards = {c: arabic_deck.draw_card(c) for c in CARD_NAMES}
    for c, img in cards.items():
        assert img.shape == (arabic_deck.H, arabic_deck.W, 4), c
        assert img[0, 0, 3] == 0 and img[arabic_deck.H // 2, arabic_deck.W // 2, 3] == 255
        assert index_tile(img).sum() > 150, f"{c}: no index drawn where indices go"
    tiles = {c: index_tile(img).tobytes() for c, img in cards.items()}
    assert len(set(tiles.values())) == 32  # each card's index differs from every other's
    faces = {img.tobytes() for img in cards.values()}
    assert len(faces) == 32
    with pytest.raises(ValueError, match="not a card of this deck"):
        arabic_deck.draw_card("11X")


def test_the_indices_are_arabic_letters_and_digits():
    assert [arabic_deck.RANK_TEXT[r] for r in ("J", "Q", "K")] == ["و", "ب", "ش"]
    assert arabic_deck.RANK_TEXT["10"] == "١٠" and arabic_deck.RANK_TEXT["7"] == "٧"
    # the jack of hearts and the seven of hearts differ in the index only where the rank is
    jack, seven = (index_tile(arabic_deck.draw_card(c)) for c in ("JH", "7H"))
    top = slice(0, jack.shape[0] // 2)  # the rank sits above the suit pip
    assert (jack[top] != seven[top]).sum() > 50


def test_the_design_is_held_out_and_only_drawn_when_named():
    deck = art.deck_by_name("arabic")
    assert deck.holdout and deck.apart and deck.available()
    assert "arabic" not in [d.name for d in art.available_decks(holdout=True)]
    assert "arabic" not in [d.name for d in art.available_decks(holdout=False)]
    assert [d.name for d in art.holdout_designs(["arabic"])] == ["arabic"]
    with pytest.raises(ValueError, match="hold-out design"):
        art.training_designs(["arabic"])
    with pytest.raises(ValueError, match="training design, not a hold-out one"):
        art.holdout_designs(["anglo"])
    images = art.load_deck_images(deck)
    assert set(CARD_NAMES) <= set(images) and art.BACK in images


def test_data_synth_takes_hold_out_designs_by_name_and_refuses_a_training_one(tmp_path, capsys):
    from hakam.cli import main

    assert main(["data", "synth", "--out", str(tmp_path / "x"), "--n", "4",
                 "--holdout-designs", "anglo"]) == 2  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert err.endswith("--holdout-designs: anglo is a training design, not a hold-out one")
    assert not (tmp_path / "x").exists()
