"""The index network fine-tuned on one deck's own corners, in numpy (``hakam deck learn``).

The index network (``hakam-index``: a card's two straightened corners in, a card out;
``hakam.vision.corners``) is a stack of 3x3 convolutions with BatchNorm folded into them,
global average pooling and a linear layer. It reads a design it never saw far better once it
has seen that design's own corners (docs/experiments/2026-12-05-learning-a-deck.md). Its first
three layers stay as shipped: their output (``STAGE_INPUT``) is computed once by OpenVINO. The
rest, ``IndexTail``, three stages of a stride-2 convolution and a residual pair, then the
linear layer, is trained here from the shipped weights (im2col convolutions, AdamW, label
smoothing, as the network was trained). The deck's network is the shipped ONNX with those
weights replaced (``IndexTail.patch``), compiled by OpenVINO: no torch anywhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

STAGE_INPUT = "/2/Relu"  # the third layer's output: what the trained layers take
STAGES = (  # each: the stride-2 convolution, then the residual pair's two
    ("/3/3.0/Conv", "/4/body/body.0/body.0.0/Conv", "/4/body/body.1/Conv"),
    ("/5/5.0/Conv", "/6/body/body.0/body.0.0/Conv", "/6/body/body.1/Conv"),
    ("/7/7.0/Conv", "/8/body/body.0/body.0.0/Conv", "/8/body/body.1/Conv"),
)
LINEAR, OUTPUT = "/12/Gemm/WithoutBiases", "y"  # the linear layer's product, and its sum
EPOCHS = 4  # passes over a deck's samples (tuning design: as good as torch on every layer)
RATE = 1e-3  # AdamW's peak learning rate
BATCH = 128
SMOOTHING = 0.05  # label smoothing, as the index network was trained
DECAY = 5e-4  # AdamW's weight decay, as the index network was trained
WARMUP = 0.15  # share of the steps the rate rises over before it falls as a cosine


def _windows(x: np.ndarray, stride: int) -> np.ndarray:
    """The 3x3 windows of ``x`` (N, H, W, C) padded by one, side by side: (N, Ho, Wo, 9 * C),
    the window's row, then its column, then the channel."""
    n, h, w, c = x.shape
    ho, wo = (h - 1) // stride + 1, (w - 1) // stride + 1
    p = np.zeros((n, h + 2, w + 2, c), x.dtype)
    p[:, 1:-1, 1:-1] = x
    cols = np.empty((n, ho, wo, 9 * c), x.dtype)
    for k in range(9):
        i, j = divmod(k, 3)
        cols[..., k * c : (k + 1) * c] = p[:, i : i + ho * stride : stride, j::stride][:, :, :wo]
    return cols


def _matrix(w: np.ndarray) -> np.ndarray:
    """ONNX convolution weights (K, C, 3, 3) as the matrix ``_windows`` are multiplied by."""
    return np.ascontiguousarray(w.transpose(2, 3, 1, 0)).reshape(-1, len(w))


def _times(a: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``a`` (..., n) times the matrix ``m`` (n, k) as one 2-D product (a stacked one is slow)."""
    return (a.reshape(-1, a.shape[-1]) @ m).reshape(*a.shape[:-1], m.shape[1])


def conv(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int):
    """A 3x3 convolution padded by one (as the network's) of ``x`` (N, H, W, C, channels last)
    with ONNX weights ``w``: its output (N, Ho, Wo, K), and the windows it read (for
    ``conv_back``)."""
    cols = _windows(x, stride)
    return _times(cols, _matrix(w)) + b, cols


def conv_back(
    dy: np.ndarray, cols: np.ndarray, w: np.ndarray, shape, stride: int, input_grad: bool = True
):
    """The gradients of ``conv``'s input (of ``shape``; None without ``input_grad``), weights
    and bias, from its output's."""
    n, h, wd, c = shape
    ho, wo = dy.shape[1], dy.shape[2]
    flat = dy.reshape(-1, dy.shape[-1])
    dw = cols.reshape(-1, cols.shape[-1]).T @ flat
    dw = dw.reshape(3, 3, c, len(w)).transpose(3, 2, 0, 1)
    if not input_grad:
        return None, dw, flat.sum(0)
    dcols = _times(dy, _matrix(w).T)
    dp = np.zeros((n, h + 2, wd + 2, c), dy.dtype)
    for k in range(9):
        i, j = divmod(k, 3)
        dp[:, i : i + stride * ho : stride, j : j + stride * wo : stride] += dcols[
            ..., k * c : (k + 1) * c
        ]
    return dp[:, 1:-1, 1:-1], dw, flat.sum(0)


def _constant(output) -> np.ndarray:
    """The constant behind an OpenVINO node's input (through reshapes and converts)."""
    node = output.get_node()
    while node.get_type_name() != "Constant":
        node = node.input_value(0).get_node()
    return np.array(node.get_data(), np.float32)


def _ops(model) -> dict:
    return {o.get_friendly_name(): o for o in model.get_ordered_ops()}


@dataclass
class IndexTail:
    """The trained layers' weights: ``w``/``b`` of the nine convolutions, stage by stage, and
    the linear layer's ``fw`` (classes x channels) and ``fb``."""

    w: list[np.ndarray]
    b: list[np.ndarray]
    fw: np.ndarray
    fb: np.ndarray

    @classmethod
    def from_model(cls, path: str | Path) -> IndexTail:
        """The shipped weights, read by OpenVINO from the index network's ONNX file."""
        import openvino as ov

        ops = _ops(ov.Core().read_model(str(path)))  # KeyError: a network laid out otherwise
        names = [n for stage in STAGES for n in stage]
        w = [_constant(ops[f"{n}/WithoutBiases"].input_value(1)) for n in names]
        b = [_constant(ops[n].input_value(1)).reshape(-1) for n in names]
        scaled, bias = ops[OUTPUT].input_value(0).get_node(), ops[OUTPUT].input_value(1).get_node()
        alpha = _constant(scaled.input_value(1)).reshape(())  # Gemm's alpha (and beta below)
        fb = np.ones(1, np.float32)
        for factor in bias.input_values() or [bias.output(0)]:
            fb = fb * _constant(factor)
        fw = _constant(ops[LINEAR].input_value(1)) * alpha
        if fb.shape != (len(fw),) or fw.shape[1] != len(b[-1]):
            raise ValueError("a linear layer of another shape")
        return cls(w, b, fw, fb)

    def arrays(self) -> dict[str, np.ndarray]:
        weights = {f"w{k}": w for k, w in enumerate(self.w)}
        return weights | {f"b{k}": b for k, b in enumerate(self.b)} | {"fw": self.fw, "fb": self.fb}

    @classmethod
    def from_arrays(cls, a) -> IndexTail:
        """From ``arrays`` (an ``np.load`` of them); KeyError or ValueError when not whole."""
        n = sum(len(s) for s in STAGES)
        tail = cls([np.asarray(a[f"w{k}"], np.float32) for k in range(n)],
                   [np.asarray(a[f"b{k}"], np.float32) for k in range(n)],
                   np.asarray(a["fw"], np.float32), np.asarray(a["fb"], np.float32))  # fmt: skip
        if any(w.ndim != 4 or w.shape[0] != len(b) for w, b in zip(tail.w, tail.b, strict=True)):
            raise ValueError("convolution weights of other shapes")
        if tail.fw.shape != (len(tail.fb), len(tail.b[-1])):
            raise ValueError("linear layer of another shape")
        return tail

    def params(self) -> list[np.ndarray]:
        return [*self.w, *self.b, self.fw, self.fb]

    def forward(self, x: np.ndarray):
        """Logits of ``STAGE_INPUT`` activations, with what ``grads`` needs."""
        h, cache = np.ascontiguousarray(x.transpose(0, 2, 3, 1)), []  # channels last
        for k in range(0, len(self.w), 3):
            (w0, w1, w2), (b0, b1, b2) = self.w[k : k + 3], self.b[k : k + 3]
            z0, c0 = conv(h, w0, b0, 2)
            h0 = np.maximum(z0, 0)
            z1, c1 = conv(h0, w1, b1, 1)
            z2, c2 = conv(np.maximum(z1, 0), w2, b2, 1)
            out = np.maximum(h0 + z2, 0)
            cache.append((h.shape, c0, z0, h0, c1, z1, c2, out))
            h = out
        pooled = h.mean((1, 2))
        return pooled @ self.fw.T + self.fb, cache, pooled

    def grads(self, x: np.ndarray, y: np.ndarray) -> tuple[float, list[np.ndarray]]:
        """The smoothed cross-entropy of classes ``y`` and its gradients (``params`` order)."""
        logits, cache, pooled = self.forward(x)
        n, k = logits.shape
        target = np.full((n, k), SMOOTHING / k, np.float32)
        target[np.arange(n), y] += 1 - SMOOTHING
        s = logits - logits.max(1, keepdims=True)
        logp = s - np.log(np.exp(s).sum(1, keepdims=True))
        loss = float(-(target * logp).sum(1).mean())
        d = (np.exp(logp) - target) / n
        gw, gb = [None] * len(self.w), [None] * len(self.b)
        h = cache[-1][-1]
        dh = np.broadcast_to((d @ self.fw)[:, None, None, :] / (h.shape[1] * h.shape[2]), h.shape)
        for s_ in reversed(range(len(cache))):
            shape, c0, z0, h0, c1, z1, c2, out = cache[s_]
            w0, w1, w2 = self.w[3 * s_ : 3 * s_ + 3]
            ds = dh * (out > 0)
            dh1, gw[3 * s_ + 2], gb[3 * s_ + 2] = conv_back(ds, c2, w2, h0.shape, 1)
            dh0, gw[3 * s_ + 1], gb[3 * s_ + 1] = conv_back(dh1 * (z1 > 0), c1, w1, h0.shape, 1)
            first = s_ == 0  # its input is the frozen layers' output: no gradient needed
            dh, gw[3 * s_], gb[3 * s_] = conv_back(
                (dh0 + ds) * (z0 > 0), c0, w0, shape, 2, input_grad=not first
            )
        return loss, [*gw, *gb, d.T @ pooled, d.sum(0)]

    def patch(self, model) -> None:
        """Put these weights into the index network's OpenVINO ``model`` (read from its ONNX),
        in place of the shipped ones."""
        from openvino import opset13 as op

        ops = _ops(model)
        for k, name in enumerate(n for stage in STAGES for n in stage):
            ops[f"{name}/WithoutBiases"].input(1).replace_source_output(
                op.constant(self.w[k]).output(0))  # fmt: skip
            ops[name].input(1).replace_source_output(
                op.constant(self.b[k].reshape(1, -1, 1, 1)).output(0))  # fmt: skip
        ops[LINEAR].input(1).replace_source_output(op.constant(self.fw).output(0))
        ops[OUTPUT].input(0).replace_source_output(ops[LINEAR].output(0))  # alpha is in fw
        ops[OUTPUT].input(1).replace_source_output(op.constant(self.fb).output(0))


def stage_input(path: str | Path, patches: np.ndarray, threads: int = 0) -> np.ndarray:
    """The shipped index network's ``STAGE_INPUT`` activations of BGR uint8 ``patches``
    (N x H x W x 3), by OpenVINO from its ONNX file (32-bit, as the deck's network reads)."""
    from hakam.vision.backends import openvino_model

    compiled = openvino_model(path, threads, bgr_u8=True, extra_output=STAGE_INPUT)
    out = [np.asarray(compiled(np.ascontiguousarray(patches[k : k + 256]))[1])
           for k in range(0, len(patches), 256)]  # fmt: skip
    return np.concatenate(out)


def fit(
    tail: IndexTail,
    x: np.ndarray,
    y: np.ndarray,
    epochs: int = EPOCHS,
    rate: float = RATE,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> list[float]:
    """Train ``tail`` in place on activations ``x`` of classes ``y`` (AdamW, the rate warmed up
    then falling as a cosine); ``progress(step, steps)`` after each batch. The mean loss of
    each epoch."""
    rng = np.random.default_rng(seed)
    params = tail.params()
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    steps, step, losses = epochs * -(-len(y) // BATCH), 0, []
    for _ in range(epochs):
        order, total = rng.permutation(len(y)), 0.0
        for start in range(0, len(y), BATCH):
            idx = order[start : start + BATCH]
            loss, grads = tail.grads(x[idx], y[idx])
            total += loss * len(idx)
            step += 1
            t = step / steps
            lr = rate * (t / WARMUP if t < WARMUP
                         else 0.5 * (1 + np.cos(np.pi * (t - WARMUP) / (1 - WARMUP))))  # fmt: skip
            for p, g, mi, vi in zip(params, grads, m, v, strict=True):
                mi *= 0.9
                mi += 0.1 * g
                vi *= 0.999
                vi += 0.001 * g * g
                p *= 1 - lr * DECAY
                p -= lr * (mi / (1 - 0.9**step)) / (np.sqrt(vi / (1 - 0.999**step)) + 1e-8)
            if progress is not None:
                progress(step, steps)
        losses.append(total / len(y))
    return losses


def learn_tail(
    path: str | Path,
    tail: IndexTail,
    patches: np.ndarray,
    classes: np.ndarray,
    progress: Callable[[int, int], None] | None = None,
    threads: int = 0,
) -> tuple[list[float], float]:
    """``tail`` (the index network at ``path``'s, its ONNX) fine-tuned in place on a deck's
    corner ``patches``: each epoch's loss, and the seconds it took."""
    t0 = time.perf_counter()
    x = stage_input(path, patches, threads)
    losses = fit(tail, x, np.asarray(classes, np.int64), progress=progress)
    return losses, time.perf_counter() - t0
