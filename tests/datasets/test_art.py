"""Court-figure swapping: the reader's lesson that a court card is named by its corners."""

from __future__ import annotations

import numpy as np
import pytest

from hakam.datasets import art
from hakam.datasets.generator import render_one
from hakam.engine.cards import CARD_NAMES


def _card(h: int, w: int, value: int) -> np.ndarray:
    img = np.full((h, w, 4), value, np.uint8)
    img[:, :, 3] = 255
    img[:3, :3, 3] = 0  # a rounded corner the composite must keep
    return img


def test_swap_figure_keeps_the_corner_indices_and_outline():
    face, donor = _card(100, 70, 10), _card(200, 150, 200)
    donor[:, :, 3] = 255
    out = art.swap_figure(face, donor, corner=(0.2, 0.25))
    assert out.shape == face.shape
    np.testing.assert_array_equal(out[:, :, 3], face[:, :, 3])
    for ys, xs in ((slice(0, 25), slice(0, 14)), (slice(75, 100), slice(56, 70))):
        np.testing.assert_array_equal(out[ys, xs, :3], face[ys, xs, :3])
    assert (out[30:70, 20:50, :3] == 200).all()  # the figure is the donor's


def test_swapped_deck_changes_only_court_cards():
    rng = np.random.default_rng(0)
    images = {c: _card(60, 40, i) for i, c in enumerate(CARD_NAMES)}
    donor = {c: _card(60, 40, 250) for c in CARD_NAMES}
    out = art.swapped_deck(images, [donor], rng)
    assert set(art.COURT_NAMES) == {f"{r}{s}" for r in "JQK" for s in "CDHS"}
    for c in CARD_NAMES:
        if c in art.COURT_NAMES:
            assert (out[c][30, 20, :3] == 250).all()
        else:
            assert out[c] is images[c]


def test_disguise_recolours_and_turns_a_figure_but_keeps_its_outline():
    rng = np.random.default_rng(3)
    fig = np.zeros((40, 30, 4), np.uint8)
    fig[..., 0], fig[..., 1], fig[..., 2], fig[..., 3] = 10, 120, 240, 255
    fig[:5, :5, 3] = 0
    seen = set()
    for _ in range(12):
        out = art.disguise(fig, rng)
        assert out.shape == fig.shape
        assert sorted(out[20, 15, :3]) == [10, 120, 240]  # the same colours, shuffled
        assert (out[..., 3] == 0).sum() == 25  # the outline moves with the figure, not lost
        seen.add((tuple(out[20, 15, :3]), int(out[0, 0, 3]), int(out[39, 29, 3])))
    assert len(seen) > 3  # channel orders and poses vary


def test_swapped_deck_disguises_the_share_it_is_given():
    rng = np.random.default_rng(0)
    images = {c: _card(60, 40, i) for i, c in enumerate(CARD_NAMES)}
    donor = _card(60, 40, 0)
    donor[..., 0], donor[..., 1], donor[..., 2] = 200, 50, 0  # B, G, R
    plain = art.swapped_deck(images, [dict.fromkeys(CARD_NAMES, donor)], rng, disguised=0.0)
    mixed = art.swapped_deck(images, [dict.fromkeys(CARD_NAMES, donor)], rng, disguised=1.0)
    assert all(tuple(plain[c][30, 20, :3]) == (200, 50, 0) for c in art.COURT_NAMES)
    recoloured = sum(tuple(mixed[c][30, 20, :3]) != (200, 50, 0) for c in art.COURT_NAMES)
    assert recoloured >= 6  # 5 of 6 channel orders differ from the donor's own


@pytest.mark.skipif(not art.available_decks(holdout=False), reason="card art not installed")
def test_court_swap_draws_the_same_scene_with_other_figures():
    decks = art.available_decks(holdout=False)
    plain_img, plain_labels, plain_meta = render_one(5, "train", 3, 320, decks)
    img, labels, meta = render_one(5, "train", 3, 320, decks, court_swap=1.0)
    again, *_ = render_one(5, "train", 3, 320, decks, court_swap=0.0)
    np.testing.assert_array_equal(again, plain_img)  # no swap: the scene as it always was
    assert meta["court_swap"] and not plain_meta["court_swap"]
    assert [lb.box for lb in labels] == [lb.box for lb in plain_labels]
    assert [lb.card for lb in labels] == [lb.card for lb in plain_labels]
    court = next(lb for lb in labels if lb.card in art.COURT_NAMES and lb.visible > 0.5)
    x1, y1, x2, y2 = (round(v) for v in court.box)
    diff = np.abs(img[y1:y2, x1:x2].astype(int) - plain_img[y1:y2, x1:x2].astype(int))
    assert diff.mean() > 5  # its figure is another card's


def test_training_designs_refuse_hold_out_and_unknown_names():
    with pytest.raises(ValueError, match="kennard is a hold-out design"):
        art.training_designs(["kennard"])
    with pytest.raises(ValueError, match="unknown deck design 'nope'"):
        art.training_designs(["nope"])
    names = [d.name for d in art.available_decks(holdout=False)][:2]
    assert [d.name for d in art.training_designs([*names, *names])] == names


@pytest.mark.skipif(
    "kde_oxygen" not in {d.name for d in art.available_decks(holdout=False)},
    reason="KDE card art not installed",
)
def test_index_box_choice_refuses_decks_printing_indices_in_other_corners(tmp_path, capsys):
    from hakam.cli import main

    every = art.index_box_choice()
    assert "kde_oxygen" not in every and "kde_standard" in every
    assert art.index_box_choice(["kde_standard"]) == ("kde_standard",)
    with pytest.raises(ValueError, match="kde_oxygen: its corner indices are not where"):
        art.index_box_choice(["kde_standard", "kde_oxygen"])
    out = tmp_path / "scenes"
    args = ["data", "synth", "--out", str(out), "--n", "2", "--boxes", "indices"]
    assert main([*args, "--designs", "kde_oxygen"]) == 2
    assert "--designs: kde_oxygen: its corner indices" in capsys.readouterr().err
    assert not out.exists()
    from hakam.datasets.generator import SynthConfig, generate

    cfg = SynthConfig(out, 1, workers=1, val_fraction=0, holdout_fraction=0, boxes="indices")
    assert tuple(generate(cfg, progress=False)["train_decks"]) == every


@pytest.mark.skipif(not art.available_decks(holdout=False), reason="card art not installed")
def test_synth_designs_draws_train_and_val_from_those_designs_only(tmp_path):
    import json

    from hakam.datasets.generator import SynthConfig, generate

    name = art.available_decks(holdout=False)[-1].name
    cfg = SynthConfig(tmp_path, 6, seed=3, workers=1, val_fraction=0.5, holdout_fraction=0,
                      designs=(name,))  # fmt: skip
    summary = generate(cfg, progress=False)
    assert summary["train_decks"] == [name]
    metas = sorted(tmp_path.glob("*/meta/*.json"))
    assert len(metas) == 6 and {json.loads(p.read_text())["deck"] for p in metas} == {name}


def test_court_swap_deals_other_figures_in_each_scene():
    """Fixed swapped variants would let the reader learn each variant's figures."""
    from hakam.datasets.generator import _Worker
    from hakam.datasets.scene import Renderer

    state = _Worker(5, 320)
    decks = [art.DeckSource(f"d{k}", "files", "/nonexistent", "test") for k in range(3)]
    for k, deck in enumerate(decks):
        state.decks[deck.name] = Renderer(
            {c: _card(40, 30, 10 * k + 3 * i) for i, c in enumerate(CARD_NAMES)}
        )
    one = state.swapped_renderer(decks[0], decks, (0, 1))
    again = state.swapped_renderer(decks[0], decks, (0, 1)).deck  # the same scene, same figures
    assert all(np.array_equal(again[c], one.deck[c]) for c in CARD_NAMES)
    others = [state.swapped_renderer(decks[0], decks, (0, i)).deck for i in range(2, 6)]
    figure = (20, 15, 0)  # the middle of the card: the borrowed figure
    assert any(other[c][figure] != one.deck[c][figure] for other in others for c in art.COURT_NAMES)
