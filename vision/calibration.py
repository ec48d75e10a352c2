"""The whole-card reader's reads calibrated to one deck (``hakam deck learn``).

The whole-card reader (``hakam-reader``) was trained on the shipped designs. On a deck it never
saw it can be sure of the wrong card: it read the tuning design's jacks of diamonds as aces
(0.73-0.84). In the product of the two reads
(``hakam.vision.reader.weighted_product``) such a read vetoes a corner read that the deck's own
index network is sure of, and the card is named unsurely or not at all.

A deck's calibration maps the whole-card reader's probabilities to the cards they are on that
deck: a softmax regression on their logarithms (starting from "as read"), fitted on the boxes of
the scenes the deck is learnt from. The whole-card reader never learnt from those scenes. But
they are drawn with faces straightened from a camera's view, and it reads them worse than the
cards themselves (a design it was trained on: 64% of the boxes right), so the calibration alone
would distrust reads that are right at the table. A calibrated read is therefore mixed with the
read as it was (``SHARE``): what the reader read is never ruled out. Only how the cards' share
is split among the 32 cards is calibrated: the "not a Baloot card" share is kept as read,
because a deck's learning scenes never show the cards of ranks 2-6 or card backs, which must
stay ruled out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

STEPS = 400  # full-batch Adam steps (a deck's ~5,000 boxes: under a second)
RATE = 0.05  # Adam's learning rate
# The pull towards "as read" (tuning design, its deck learnt from a spread, 197 scenes): from
# 0.001 to 1, 49.2-51.3% of scenes read exactly, 0.1 the most (precision 0.868); a weaker pull
# reads more cards surely but more wrongly too.
L2 = 0.1
FLOOR = 1e-6  # the least probability whose logarithm is taken
# The calibrated read's share of a read, the rest as read. Chosen on the tuning design and on a
# design the reader was trained on (ornamental, val scenes), their decks learnt from spreads:
# share 1 read ornamental 48.6% exactly (as read: 58.1%); 0.7-0.8 read it 61.0-61.9% and the
# tuning design 50.8-51.3% (as read: 50.3%); 0.3-0.5 read the tuning design 50.3%.
SHARE = 0.75


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


@dataclass
class Calibration:
    """``weights`` (K x K) and ``bias`` (K) on the logarithms of a read's K probabilities, the
    last column "not a Baloot card"."""

    weights: np.ndarray
    bias: np.ndarray

    def __call__(self, probs: np.ndarray) -> np.ndarray:
        """Rows of the reader's probabilities, calibrated: the cards' share split as on the
        deck (``SHARE`` of it; the rest as read), the last column as read. Rows sum to one."""
        probs = np.asarray(probs, np.float32)
        if not len(probs):
            return probs
        z = np.log(np.clip(probs, FLOOR, None)) @ self.weights + self.bias
        cards = _softmax(z[:, :-1]) * np.clip(1 - probs[:, -1:], 0, None)  # the split of the cards
        cards = SHARE * cards + (1 - SHARE) * probs[:, :-1]
        return np.concatenate([cards, probs[:, -1:]], axis=1).astype(np.float32)

    @classmethod
    def fit(cls, probs: np.ndarray, classes: np.ndarray, steps: int = STEPS) -> Calibration:
        """Fitted on the reader's ``probs`` of boxes whose true classes are ``classes``."""
        x = np.log(np.clip(np.asarray(probs, np.float64), FLOOR, None))
        n, k = x.shape
        target = np.eye(k)[np.asarray(classes, np.int64)]
        params = [np.eye(k), np.zeros(k)]
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        for step in range(1, steps + 1):
            d = (_softmax(x @ params[0] + params[1]) - target) / n
            grads = [x.T @ d + L2 * (params[0] - np.eye(k)), d.sum(0)]
            for p, g, mi, vi in zip(params, grads, m, v, strict=True):
                mi += 0.1 * (g - mi)
                vi += 0.001 * (g * g - vi)
                p -= RATE * (mi / (1 - 0.9**step)) / (np.sqrt(vi / (1 - 0.999**step)) + 1e-8)
        return cls(params[0].astype(np.float32), params[1].astype(np.float32))

    def arrays(self) -> dict[str, np.ndarray]:
        return {"weights": self.weights, "bias": self.bias}

    @classmethod
    def from_arrays(cls, a) -> Calibration:
        weights, bias = np.asarray(a["weights"], np.float32), np.asarray(a["bias"], np.float32)
        if bias.ndim != 1 or weights.shape != (len(bias), len(bias)):
            raise ValueError(f"calibration of shapes {weights.shape} and {bias.shape}")
        if not (np.isfinite(weights).all() and np.isfinite(bias).all()):
            raise ValueError("calibration with weights that are not numbers")
        return cls(weights, bias)
