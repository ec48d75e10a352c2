"""Corner indices drawn in the system's typefaces (``hakam.training.lettering``; Pillow, no
torch)."""

from __future__ import annotations

import numpy as np
import pytest

from hakam.engine.cards import CARD_NAMES
from hakam.training import lettering
from hakam.vision.corners import PATCH_H, PATCH_W
from hakam.vision.reader import OTHER

pytest.importorskip("PIL", reason="Pillow draws the letters (dev extra)")


def _faces():
    ranks, suits = lettering.lettering_fonts()
    if not ranks:
        pytest.skip("no typeface installed (datasets/install_art.sh installs Debian fonts)")
    return ranks, suits


def test_font_files_leave_out_faces_whose_letters_are_symbols(tmp_path):
    for name in ("StandardSymbolsPS.otf", "D050000L.otf", "DejaVuMathTeXGyre.ttf", "Serif.ttf",
                 "Sans.OTF", "notes.txt"):  # fmt: skip
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in lettering.font_files((tmp_path, tmp_path / "absent"))] == [
        "Sans.OTF",
        "Serif.ttf",
    ]


def test_has_glyphs_tells_a_drawn_character_from_one_the_face_lacks():
    ranks, _ = _faces()
    face = ranks[0]
    assert lettering.has_glyphs(face, "AKQJ")
    assert not lettering.has_glyphs(face, "A\ue001")  # a private-use character: the empty box
    assert not lettering.has_glyphs(face, "AA")  # two alike


@pytest.mark.parametrize("suit", list("CDHS"))
def test_suit_shape_draws_each_suit_unlike_the_others(suit):
    size = 48
    masks = {s: lettering.suit_shape(s, size, np.random.default_rng(5)) for s in "CDHS"}
    m = masks[suit]
    assert m.shape == (size, size) and 0.15 < m.mean() < 0.8
    assert np.abs(m - m[:, ::-1]).mean() < 0.05  # a pip is symmetric left to right
    for other, o in masks.items():
        if other != suit:
            assert np.abs(m - o).mean() > 0.05
    # A spade is a heart upside down on a stem: its ink is at the top where a heart's is low.
    rows = np.arange(size)[:, None]
    if suit in "HS":
        centre = float((m * rows).sum() / m.sum()) / size
        assert centre < 0.5 if suit == "H" else centre > 0.4
    with pytest.raises(ValueError, match="suit"):
        lettering.suit_shape("X", size, np.random.default_rng(0))


def test_lettering_card_names_baloot_cards_and_counts_ranks_two_to_six_as_not_a_card():
    rng = np.random.default_rng(0)
    seen = [lettering.lettering_card(rng) for _ in range(2000)]
    for card, cls in seen:
        if card[:-1] in lettering.OTHER_RANKS:
            assert cls == OTHER
        else:
            assert CARD_NAMES[cls] == card
    share = sum(cls == OTHER for _, cls in seen) / len(seen)
    assert abs(share - lettering.OTHER_SHARE) < 0.03
    assert len({cls for _, cls in seen}) == 33


def test_lettering_tile_prints_the_index_in_its_corner_mirrored_in_place_not_in_ink():
    _faces()
    W, H = PATCH_W * lettering.SCALE, PATCH_H * lettering.SCALE
    checked = mirrored_in_place = 0
    for k in range(40):
        d = {**lettering._design(np.random.default_rng(k), "KS"), "frame": False}  # plain paper
        ink = {}
        for right in (False, True):
            with_index = lettering.corner_tile(np.random.default_rng([k, 1]), d, True, right)
            without = lettering.corner_tile(np.random.default_rng([k, 1]), d, False, right)
            assert with_index.shape == (H, W, 3)
            ink[right] = np.abs(with_index - without).sum(2) > 30
        ys, xs = np.nonzero(ink[False])
        if len(xs) < 50 or xs.max() >= W - 1 or xs.min() <= 0:
            continue  # the index cut by the tile's edge (an outline far off)
        checked += 1
        x0, x1 = xs.min(), xs.max() + 1
        # left column: the card's corner at the tile's top-left; right column: at its top-right
        assert x0 < W / 2 and ys.mean() < 0.6 * H
        rx = np.nonzero(ink[True].any(0))[0]
        left_ink, right_ink = ink[False][:, x0:x1], ink[True][:, W - x1 : W - x0]
        # the same glyphs where the card's corner is, not their mirror image (ink over another
        # card lying on the corner may not show in the difference: most, not all)
        mirrored_in_place += (
            abs(rx.min() - (W - x1)) <= 2
            and abs(rx.max() + 1 - (W - x0)) <= 2
            and (left_ink == right_ink).mean() > (left_ink == right_ink[:, ::-1]).mean()
        )
    assert checked > 20 and mirrored_in_place >= 0.9 * checked
    sample = lettering.lettering_sample(np.random.default_rng(3), "10H")
    assert sample.shape == (2 * PATCH_H, 2 * PATCH_W, 3) and sample.dtype == np.uint8


def test_build_lettering_writes_an_index_only_sample_folder(tmp_path):
    import json

    _faces()
    summary = lettering.build_lettering(tmp_path, 12, seed=4, progress=False)
    x, y = np.load(tmp_path / "index.npy"), np.load(tmp_path / "card.npy")
    assert x.shape == (12, 2 * PATCH_H, 2 * PATCH_W, 3) and y.shape == (12,)
    assert (
        json.loads((tmp_path / "summary.json").read_text())["lettering"]
        == 12
        == summary["lettering"]
    )
    again = tmp_path / "again"
    lettering.build_lettering(again, 12, seed=4, progress=False)
    assert np.array_equal(np.load(again / "index.npy"), x)  # one seed, one set of samples
    with pytest.raises(ValueError, match="at least 1"):
        lettering.build_lettering(tmp_path / "none", 0)


def test_lettering_strip_is_the_index_box_cut_as_the_strip_reader_cuts_it():
    """The box of a tile's index marks bounds the ink the index adds; the strip is the strip
    reader's square crop, mostly the index's ink and paper."""
    from hakam.vision.indices import STRIP_SIZE

    _faces()
    for k in range(20):
        d = {**lettering._design(np.random.default_rng(k), "QD"), "frame": False}
        with_index, box = lettering._corner_tile(np.random.default_rng([k, 1]), d, True, False)
        without, none = lettering._corner_tile(np.random.default_rng([k, 1]), d, False, False)
        assert none is None
        ys, xs = np.nonzero(np.abs(with_index - without).sum(2) > 30)
        if len(xs) < 50:
            continue  # the index under another card lying on the corner
        x1, y1, x2, y2 = box
        assert x1 - 1 <= xs.min() and xs.max() <= x2 + 1
        assert y1 - 1 <= ys.min() and ys.max() <= y2 + 1
    strip = lettering.lettering_strip(np.random.default_rng(3), "10H")
    assert strip.shape == (STRIP_SIZE, STRIP_SIZE, 3) and strip.dtype == np.uint8


def test_build_lettering_of_strips_writes_a_strip_sample_folder(tmp_path):
    import json

    from hakam.vision.indices import STRIP_SIZE

    _faces()
    lettering.build_lettering(tmp_path, 6, seed=4, progress=False, kind="strip")
    x, y = np.load(tmp_path / "strip.npy"), np.load(tmp_path / "card.npy")
    assert x.shape == (6, STRIP_SIZE, STRIP_SIZE, 3) and y.shape == (6,)
    assert json.loads((tmp_path / "summary.json").read_text())["kind"] == "strip"
    with pytest.raises(ValueError, match="lettering kind"):
        lettering.build_lettering(tmp_path / "x", 6, kind="outline")
