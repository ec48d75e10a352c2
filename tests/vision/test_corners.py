"""The corner reader's geometry: crop units and back, the four straightened corners."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from hakam.vision.corners import (
    MAX_TRIM,
    MIN_BOX,
    PATCH_H,
    PATCH_W,
    TRIMS,
    UNIT,
    CornerReader,
    check_passes,
    check_trim,
    check_trim_below,
    corner_patches,
    crop_to_quad,
    quad_boxes,
    quad_to_crop,
    surest_reads,
    trimmed_boxes,
)
from hakam.vision.reader import READER_CLASSES, TwoStageDetector, check_mix, weighted_product


def card_quad(cx: float, cy: float, w: float, h: float, angle: float) -> np.ndarray:
    """A card's printed corners (tl tr br bl) turned by ``angle`` radians about its centre."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array(
        [[cx + c * x - s * y, cy + s * x + c * y] for x, y in (UNIT - 0.5) * [w, h]], np.float32
    )


def test_crop_units_go_back_to_the_same_frame_pixels():
    quad = card_quad(200, 150, 60, 84, 0.4)
    box = [*quad.min(0) - 3, *quad.max(0) + 2]
    unit = quad_to_crop(quad, box)
    assert np.all((unit > 0) & (unit < 1))  # inside the widened crop
    assert np.allclose(crop_to_quad(unit, box), quad, atol=1e-3)


def drawn_card(angle: float) -> tuple[np.ndarray, np.ndarray]:
    """A white card on black, its printed top-left index a red square, bottom-right a blue one."""
    img = np.zeros((300, 300, 3), np.uint8)
    quad = card_quad(150, 150, 100, 140, angle)
    cv2.fillConvexPoly(img, quad.astype(np.int32), (255, 255, 255))
    to_frame = cv2.getPerspectiveTransform(UNIT, quad)
    for (x, y), colour in (((0.1, 0.1), (0, 0, 255)), ((0.9, 0.9), (255, 0, 0))):
        mark = (UNIT - 0.5) * 0.1 + [x, y]
        pts = cv2.perspectiveTransform(mark[None].astype(np.float32), to_frame)[0]
        cv2.fillConvexPoly(img, pts.astype(np.int32), colour)
    return img, quad


@pytest.mark.parametrize("angle", [0.0, 0.7, 2.0, -2.6])
def test_corner_patches_turn_each_index_upright_in_the_left_column(angle):
    img, quad = drawn_card(angle)
    grid = corner_patches(img, quad)
    assert grid.shape == (2 * PATCH_H, 2 * PATCH_W, 3)
    g = grid.astype(int)
    red, blue = g[..., 2] - g[..., 0] > 100, g[..., 0] - g[..., 2] > 100
    for mark, other, rows in ((red, blue, slice(0, PATCH_H)), (blue, red, slice(PATCH_H, None))):
        ys, xs = np.nonzero(mark[rows, :PATCH_W])  # this tile's index mark...
        assert len(ys) > 20 and not other[rows].any()
        assert ys.mean() < PATCH_H / 2 and xs.mean() < PATCH_W / 2  # ...at its top-left
    # The right column (the corners without an index here) is card white.
    assert not (red | blue)[:, PATCH_W:].any()


def test_a_quad_started_from_the_bottom_right_swaps_the_rows():
    img, quad = drawn_card(0.3)
    grid = corner_patches(img, quad)
    turned = corner_patches(img, np.roll(quad, 2, 0))
    assert np.abs(turned[:PATCH_H].astype(int) - grid[PATCH_H:]).mean() < 3
    assert np.abs(turned[PATCH_H:].astype(int) - grid[:PATCH_H]).mean() < 3


def test_quad_boxes_are_clipped_to_the_frame_and_keep_a_box_too_small_to_draw_from():
    quads = np.array(
        [
            card_quad(30, 40, 60, 84, 0.3),  # reaches past the frame's left and top
            [[10, 10], [11, 10], [11, 11], [10, 11]],  # a pixel wide
        ],
        np.float32,
    )
    before = np.array([[0, 0, 50, 70], [5, 5, 25, 35]], np.float32)
    got = quad_boxes(quads, (100, 200, 3), before)
    assert np.allclose(got[0], [0, 0, quads[0, :, 0].max(), quads[0, :, 1].max()])
    assert np.allclose(got[1], before[1]) and MIN_BOX > 1


ROOT = Path(__file__).resolve().parents[2]


def test_a_second_outline_pass_draws_a_card_from_a_box_of_half_of_it_nearer_the_truth():
    # The finder's box of a card half under another holds half the card; the first outline
    # from it reaches out, and the second, from that outline's box, is nearer the card.
    outline = ROOT / "models" / "hakam-outline.onnx"
    readers = {p: CornerReader(outline, None, "onnx", passes=p) for p in (1, 2)}
    err = dict.fromkeys(readers, 0.0)
    for angle in (0.0, 0.7, 2.0):
        img, quad = drawn_card(angle)
        lo, hi = quad.min(0), quad.max(0)
        half = np.array([[lo[0], lo[1], hi[0], (lo[1] + hi[1]) / 2]], np.float32)
        for p, reader in readers.items():
            got = reader.quads(img, half)[0]
            err[p] += min(np.abs(got - quad).mean(), np.abs(got[[2, 3, 0, 1]] - quad).mean())
    assert err[2] < 0.7 * err[1]


def test_check_passes_refuses_no_pass_and_more_than_three():
    check_passes(1)
    check_passes(3)
    for bad in (0, 4):
        with pytest.raises(ValueError, match="1 to 3"):
            check_passes(bad)


def leaning(first: int, n: int) -> np.ndarray:
    """``n`` rows of probabilities: 0.9 on card ``first``, 0.05 on the next card, the rest
    spread thinly."""
    out = np.full((n, READER_CLASSES), 0.05 / (READER_CLASSES - 2), np.float32)
    out[:, first], out[:, 1 - first] = 0.9, 0.05
    return out


class FixedReader:
    """A whole-card reader that leans to card 0."""

    size = 16

    def read(self, crops, turns=1):
        return leaning(0, len(crops))


class FixedCorners:
    """A corner reader that leans to card 1."""

    def read(self, image, boxes):
        return leaning(1, len(boxes))


def test_two_stage_read_boxes_weighs_the_corner_read_by_mix():
    img = np.zeros((50, 50, 3), np.uint8)
    boxes = np.array([[5, 5, 20, 30]], np.float32)
    got = {}
    for mix in (0.0, 0.25, 0.5, 1.0):
        det = TwoStageDetector(None, FixedReader(), corners=FixedCorners(), mix=mix)
        got[mix] = det.read_boxes(img, boxes)[0]
        assert got[mix].sum() == pytest.approx(1)
    assert np.allclose(got[0.0][:2], (0.9, 0.05)) and np.allclose(got[1.0][:2], (0.05, 0.9))
    assert got[0.25][0] > got[0.25][1] and got[0.5][0] == pytest.approx(got[0.5][1])


def test_weighted_product_rules_out_what_either_reader_doubts():
    a = np.array([[0.5, 0.5, 0.0]])
    b = np.array([[0.0, 0.5, 0.5]])
    assert np.allclose(weighted_product(a, b, 0.5), [[0, 1, 0]], atol=1e-4)
    assert np.allclose(weighted_product(a, b, 0.0), a, atol=1e-6)


def test_check_mix_refuses_a_weight_out_of_range_or_without_a_corner_reader():
    check_mix(0.5, True)
    check_mix(0.0, False)
    with pytest.raises(ValueError, match="0 to 1"):
        check_mix(1.5, True)
    with pytest.raises(ValueError, match="no corner reader"):
        check_mix(0.5, False)


def test_trimmed_boxes_move_each_side_in_turn_by_the_trim():
    got = trimmed_boxes([10, 20, 110, 220], 0.1)
    assert got.shape == (TRIMS, 4)
    assert np.allclose(
        got, [[10, 20, 110, 220], [20, 20, 110, 220], [10, 40, 110, 220],
              [10, 20, 100, 220], [10, 20, 110, 200]],
    )  # fmt: skip


def test_surest_reads_keeps_the_read_surest_of_a_baloot_card_not_of_none():
    reads = np.full((1, 3, READER_CLASSES), 0.01, np.float32)
    reads[0, 0, 4] = 0.4  # the box as found: unsure
    reads[0, 1, -1] = 0.95  # a trim that cut the index away: "not a Baloot card"
    reads[0, 2, 7] = 0.8  # a trim whose outline straightened the index
    got = surest_reads(reads)
    assert got.shape == (1, READER_CLASSES) and got[0].argmax() == 7


def test_check_trim_refuses_a_negative_trim_and_more_than_the_most():
    check_trim(0.0)
    check_trim(MAX_TRIM)
    for bad in (-0.1, MAX_TRIM + 0.1):
        with pytest.raises(ValueError, match=f"0 to {MAX_TRIM}"):
            check_trim(bad)


def test_check_trim_below_refuses_a_gate_no_read_is_under_or_over_certain():
    check_trim_below(0.5)
    check_trim_below(1.0)
    for bad in (0.0, -0.2, 1.1):
        with pytest.raises(ValueError, match="above 0, at most 1"):
            check_trim_below(bad)


class RedIndex:
    """An index network sure of card 3 where the top-left tile shows the red index mark of
    ``drawn_card``, unsure of every card elsewhere."""

    def logits(self, patches) -> np.ndarray:
        out = np.zeros((len(patches), READER_CLASSES), np.float32)
        for k, patch in enumerate(patches):  # H x W x 3 BGR uint8, as cut
            tile = patch[:PATCH_H, :PATCH_W].astype(float)
            if ((tile[..., 2] - tile[..., 0]) > 0.4 * max(tile.max(), 1)).mean() > 0.02:
                out[k, 3] = 8.0
        return out


def test_an_outline_drawn_from_the_box_without_the_hand_reads_the_card():
    img, quad = drawn_card(0.5)
    lo, hi = quad.min(0), quad.max(0)
    box = np.array([[lo[0], lo[1], hi[0] + 30, hi[1]]], np.float32)  # a hand on the right
    wrong = np.array([[lo[0], lo[1]], [hi[0] + 30, lo[1]], [hi[0] + 30, hi[1]], [lo[0], hi[1]]])
    wrong = np.roll(wrong, 1, 0).astype(np.float32)  # the card taken for one turned a quarter

    class Reader(CornerReader):
        def __init__(self, trim: float) -> None:
            self.index, self.passes, self.trim, self.trim_below = RedIndex(), 1, trim, 0.9

        def quads(self, image, boxes):
            near = np.asarray(boxes)[:, 2] < hi[0] + 10  # the box's right side left the hand
            return np.where(near[:, None, None], quad, wrong).astype(np.float32)

    as_found = Reader(0.0).read(img, box)[0]
    trimmed = Reader(0.25).read(img, box)[0]
    assert as_found.max() < 0.1  # the outline taken from the box as found straightens no index
    assert trimmed.argmax() == 3 and trimmed[3] > 0.9


def test_a_card_read_surely_from_its_box_as_found_is_not_drawn_again():
    img, quad = drawn_card(0.5)
    lo, hi = quad.min(0), quad.max(0)
    boxes = np.array([[*lo, *hi], [*lo, hi[0] + 30, hi[1]]], np.float32)  # sure, then unsure
    drawn = []

    class Reader(CornerReader):
        def __init__(self) -> None:
            self.index, self.passes, self.trim, self.trim_below = RedIndex(), 1, 0.25, 0.9

        def quads(self, image, b):
            drawn.append(len(b))
            near = np.asarray(b)[:, 2] < hi[0] + 10
            return np.where(near[:, None, None], quad, np.roll(quad, 1, 0) * 1.3).astype(np.float32)

    got = Reader().read(img, boxes)
    assert got[:, 3].min() > 0.9  # both read: the second from a trimmed box
    assert drawn == [2, TRIMS - 1]  # only the unsure card's four trims were drawn again
    # A second index network reading the same boxes: the trimmed outlines drawn once, shared.
    shared: dict = {}
    first = Reader().read(img, boxes, trimmed=shared)
    again = Reader().read(img, boxes, trimmed=shared)
    assert np.array_equal(first, got) and np.array_equal(again, got)
    assert drawn == [2, TRIMS - 1, 2, TRIMS - 1, 2] and list(shared) == [1]

    class Never:  # an index network sure of nothing: every box drawn again
        def logits(self, patches) -> np.ndarray:
            return np.zeros((len(patches), READER_CLASSES), np.float32)

    class Unsure(Reader):
        def __init__(self) -> None:
            super().__init__()
            self.index = Never()

    Unsure().read(img, boxes, trimmed=shared)
    assert drawn[-2:] == [2, TRIMS - 1] and sorted(shared) == [0, 1]  # only box 0's added
