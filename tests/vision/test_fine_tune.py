"""The index network's last layers trained in numpy (``hakam.vision.fine_tune``): the same
network as OpenVINO's, true gradients, and training that learns."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hakam.vision import fine_tune
from hakam.vision.backends import openvino_model
from hakam.vision.detector import corner_paths

ONNX = corner_paths("onnx")[1]


@pytest.fixture(scope="module")
def patches():
    return np.random.default_rng(0).integers(0, 256, (24, 96, 64, 3), dtype=np.uint8)


@pytest.fixture(scope="module")
def activations(patches):
    return fine_tune.stage_input(ONNX, patches)


def test_the_numpy_layers_are_the_shipped_network(patches, activations):
    shipped = np.asarray(openvino_model(ONNX, bgr_u8=True)(patches)[0])
    tail = fine_tune.IndexTail.from_model(ONNX)
    assert np.abs(tail.forward(activations)[0] - shipped).max() < 0.05
    # Put back unchanged, the weights give the shipped network exactly; changed, another.
    same = openvino_model(ONNX, bgr_u8=True, transform=tail.patch)
    assert np.array_equal(np.asarray(same(patches)[0]), shipped)
    tail.fb[3] += 1.0
    tail.w[4] *= 0.5
    other = np.asarray(openvino_model(ONNX, bgr_u8=True, transform=tail.patch)(patches)[0])
    assert np.abs(other - tail.forward(activations)[0]).max() < 0.05
    assert np.abs(other - shipped).max() > 0.5


def test_the_gradients_are_the_loss_s_slopes(activations):
    tail = fine_tune.IndexTail.from_model(ONNX)
    tail = fine_tune.IndexTail(*(
        [p.astype(np.float64) for p in part] if isinstance(part, list) else part.astype(np.float64)
        for part in (tail.w, tail.b, tail.fw, tail.fb)
    ))  # fmt: skip
    x, y = activations[:3].astype(np.float64), np.array([0, 7, 32])
    grads = tail.grads(x, y)[1]
    rng = np.random.default_rng(1)
    for k, p in enumerate(tail.params()):
        idx = tuple(int(rng.integers(0, s)) for s in p.shape)
        old, e = p[idx], 1e-5
        p[idx] = old + e
        up = tail.grads(x, y)[0]
        p[idx] = old - e
        down = tail.grads(x, y)[0]
        p[idx] = old
        assert grads[k][idx] == pytest.approx((up - down) / (2 * e), rel=1e-3, abs=1e-7), k


def test_training_learns_the_classes_it_is_shown():
    """Eight glyphs, each named a card the shipped network would never call it: learnt."""
    rng = np.random.default_rng(0)
    patches, y = [], []
    for k in range(48):
        g = k % 8
        patch = np.full((96, 64, 3), 255, np.uint8)
        at = (8 + int(rng.integers(0, 8)), 40 + int(rng.integers(0, 8)))
        ink = (0, 0, 200) if g % 2 else (0, 0, 0)
        cv2.putText(patch, "AKQJ7890"[g], at, cv2.FONT_HERSHEY_SIMPLEX, 1.2, ink, 3)
        patches.append(patch)
        y.append((g * 5 + 3) % 33)
    x, y = fine_tune.stage_input(ONNX, np.stack(patches)), np.array(y)
    tail = fine_tune.IndexTail.from_model(ONNX)
    assert np.mean(tail.forward(x)[0].argmax(1) == y) < 0.2
    steps = []
    losses = fine_tune.fit(tail, x, y, epochs=15, rate=3e-3,
                           progress=lambda k, n: steps.append((k, n)))  # fmt: skip
    assert steps[-1] == (15, 15) and losses[-1] < 0.2 * losses[0]
    assert np.mean(tail.forward(x)[0].argmax(1) == y) > 0.95
    with pytest.raises(ValueError, match="other shapes"):
        fine_tune.IndexTail.from_arrays(tail.arrays() | {"w0": np.zeros((3, 3))})
