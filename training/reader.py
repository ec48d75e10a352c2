"""The card reader (second stage): its crop dataset, training and export.

Crops come from synthetic scenes of the training deck designs (never the hold-out ones) and from the
real photos of rf100 train/valid (never its test split), cut by ``hakam.vision.reader.card_crop``
from true boxes moved and resized at random, as a finder's boxes are. Negatives ("not a Baloot
card"): rf100's ranks 2-6, the scenes' unlabelled objects (distractor ranks, backs, covered cards,
arms, cups) and random patches of table. A scene card less than 40% visible (a strip of a fan) gives
no crop: its box shows mostly other cards.

Training needs torch (the ``train`` extra) and runs on two CPU cores: a small residual network
at 112 px (``hakam.vision.reader.CROP_SIZE``), checkpoints every epoch, resumable; export writes
ONNX and OpenVINO files.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing as mp
import time
from pathlib import Path

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES
from hakam.vision.reader import CROP_MARGIN, CROP_SIZE, OTHER, READER_CLASSES, card_crop

STORE_SIZE = 112  # crops are stored a little larger, so training can cut and scale them
MIN_VISIBLE = 0.4  # share of a card that must show for its crop to teach the reader its name
GREY_SHARE = 0.05  # training inputs shown without colour (``photometric``)


def jitter_box(rng: np.random.Generator, box, spread: float = 0.06) -> np.ndarray:
    """A true box as a finder might return it: each side moved by ~``spread`` of the size."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    d = rng.normal(0, spread, 4) * np.array([w, h, w, h])
    return np.array([x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]])


def _iou(a, b) -> float:
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def random_patch(rng, w: int, h: int, avoid: list, tries: int = 20):
    """A card-sized patch of the frame that covers no labelled card much."""
    for _ in range(tries):
        s = rng.uniform(0.08, 0.35) * min(w, h)
        a = rng.uniform(0.6, 1.6)
        bw, bh = s * math.sqrt(a), s / math.sqrt(a)
        x, y = rng.uniform(0, max(w - bw, 1)), rng.uniform(0, max(h - bh, 1))
        box = (x, y, x + bw, y + bh)
        if all(_iou(box, b) < 0.25 for b in avoid):
            return box
    return None


def scene_crops(
    seed: int, i: int, decks, court_swap: float = 0.0, disguised: float = 0.0
) -> tuple[list[np.ndarray], list[int]]:
    """Crops and classes from synthetic scene ``i`` (training decks; ``court_swap`` and
    ``disguised`` as in ``hakam.datasets.generator.render_one``)."""
    from hakam.datasets.generator import render_one

    img, labels, meta = render_one(seed, "train", i, 640, decks, court_swap, disguised)
    rng = np.random.default_rng([seed, 77, i])
    h, w = img.shape[:2]
    crops, classes = [], []
    boxes = [lb.box for lb in labels]
    for lb in labels:
        if lb.visible < MIN_VISIBLE:  # a strip of a fanned card: its box is mostly other cards
            continue
        crops.append(card_crop(img, jitter_box(rng, lb.box), STORE_SIZE))
        classes.append(CARD_NAMES.index(lb.card))
    others = [o for o in meta["objects"] if all(_iou(o, b) < 0.6 for b in boxes)]
    for o in others[: max(1, len(labels) // 3)]:
        if (o[2] - o[0]) * (o[3] - o[1]) > 64:
            crops.append(card_crop(img, jitter_box(rng, o), STORE_SIZE))
            classes.append(OTHER)
    if rng.random() < 0.5:
        patch = random_patch(rng, w, h, boxes)
        if patch is not None:
            crops.append(card_crop(img, patch, STORE_SIZE))
            classes.append(OTHER)
    return crops, classes


_DECKS = None


def _init(leave_out: tuple[str, ...] = ()) -> None:
    global _DECKS
    from hakam.datasets import art
    from hakam.datasets.generator import _init as gen_init

    gen_init(0, 640)
    _DECKS = [d for d in art.available_decks(holdout=False) if d.name not in leave_out]


def _scene_job(item):
    job, kwargs = item
    return job(decks=_DECKS, **kwargs)


def scene_pool(
    job, jobs: list[dict], workers: int = 2, leave_out: tuple[str, ...] = (), progress=None
):
    """``job(decks=..., **kwargs)`` for each ``kwargs`` of ``jobs``, in ``workers`` spawned
    processes that each load the scene renderer and the training designs (less ``leave_out``)
    once; yields the results in order. ``job`` is a module-level function (it is pickled).
    ``progress``: (tag, what) where ``what()`` says what has been gathered so far; printed
    every 500 scenes with the time left."""
    ctx = mp.get_context("spawn")
    n, t0 = len(jobs), time.time()
    with ctx.Pool(max(1, workers), initializer=_init, initargs=(leave_out,)) as pool:
        for k, got in enumerate(pool.imap(_scene_job, [(job, kw) for kw in jobs], chunksize=8), 1):
            yield got
            if progress and (k % 500 == 0 or k == n):
                tag, what = progress
                rate = k / (time.time() - t0)
                print(
                    f"[{tag}] {k}/{n} scenes, {what()}, about {(n - k) / rate:.0f} s left",
                    flush=True,
                )


def labelled_photos(root: Path, splits: tuple[str, ...] = ("train", "valid")):
    """rf100's training photos (``splits``: train and valid) with their cards: (image,
    [(class, box)]) for each photo, the class in reader terms (ranks 2-6, backs and jokers are
    ``OTHER``), boxes in pixels."""
    import yaml

    from hakam.datasets.inspect import label_boxes
    from hakam.training.detector import check_not_eval_only

    check_not_eval_only(root)
    names = yaml.safe_load((root / "data.yaml").read_text())["names"]
    items = names.items() if isinstance(names, dict) else enumerate(names)
    cmap = {int(k): (CARD_NAMES.index(v) if v in CARD_NAMES else OTHER) for k, v in items}
    for split in splits:
        if split not in ("train", "valid"):
            raise ValueError(f"split {split!r}: rf100's test photos are evaluation-only")
        for img_path in sorted((root / split / "images").iterdir()):
            img = cv2.imread(str(img_path))
            lab = root / split / "labels" / (img_path.stem + ".txt")
            if img is None or not lab.exists():
                continue
            h, w = img.shape[:2]
            classes, boxes = label_boxes(lab, w, h)
            yield (
                img,
                [(cmap.get(int(k), OTHER), tuple(b)) for k, b in zip(classes, boxes, strict=True)],
            )


def real_crops(root: Path, repeats: int, seed: int) -> tuple[list[np.ndarray], list[int]]:
    """Crops of rf100's train and valid photos (``repeats`` jittered crops per card)."""
    rng = np.random.default_rng(seed)
    crops, classes = [], []
    for img, cards in labelled_photos(root):
        for c, box in cards:
            for _ in range(repeats):
                crops.append(card_crop(img, jitter_box(rng, box), STORE_SIZE))
                classes.append(c)
        patch = random_patch(rng, img.shape[1], img.shape[0], [b for _, b in cards])
        if patch is not None:
            crops.append(card_crop(img, patch, STORE_SIZE))
            classes.append(OTHER)
    return crops, classes


def build_crops(
    out: Path,
    scenes: int,
    real: Path | None,
    seed: int = 11,
    workers: int = 2,
    real_repeats: int = 4,
    progress: bool = True,
    court_swap: float = 0.0,
    disguised: float = 0.0,
    leave_out: tuple[str, ...] = (),
) -> dict:
    """Write ``out/crops.npy`` (N x S x S x 3 BGR uint8) and ``out/classes.npy``.

    ``court_swap``: share of scenes whose court cards wear another card's figure, so that
    only their corner indices name them; ``disguised``: share of those figures recoloured
    and turned (``hakam.datasets.art.disguise``); ``leave_out``: training designs kept out of the
    scenes and of the borrowed figures, to judge the reader on designs it never saw.
    """
    from hakam.datasets import art

    leave_out = tuple(d.name for d in art.training_designs(leave_out))
    art.ensure_art(art.available_decks(holdout=False), progress=progress)
    out.mkdir(parents=True, exist_ok=True)
    crops: list[np.ndarray] = []
    classes: list[int] = []
    t0 = time.time()
    jobs = [dict(seed=seed, i=i, court_swap=court_swap, disguised=disguised) for i in range(scenes)]
    shown = ("crops", lambda: f"{len(crops)} crops") if progress else None
    for cs, ks in scene_pool(scene_crops, jobs, workers, leave_out, shown):
        crops += cs
        classes += ks
    n_synth = len(crops)
    if real is not None:
        rc, rk = real_crops(real, real_repeats, seed)
        crops += rc
        classes += rk
        if progress:
            print(f"[crops] {len(rc)} crops from {real}", flush=True)
    np.save(out / "crops.npy", np.stack(crops))
    np.save(out / "classes.npy", np.array(classes, np.int16))
    summary = {
        "crops": len(crops),
        "synthetic": n_synth,
        "real": len(crops) - n_synth,
        "other": int(sum(c == OTHER for c in classes)),
        "scenes": scenes,
        "seed": seed,
        "court_swap": court_swap,
        "disguised": disguised,
        "left_out": sorted(leave_out),
        "store_size": STORE_SIZE,
        "seconds": round(time.time() - t0, 1),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


# --- training (torch) -------------------------------------------------------------------------


def reader_net(classes: int = READER_CLASSES, widths: tuple[int, ...] = (24, 32, 64, 128, 192)):
    """A small residual network: stride-2 stages, one residual block each, global pooling."""
    import torch
    from torch import nn

    def conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(True)
        )

    class Residual(nn.Module):
        def __init__(self, ch: int) -> None:
            super().__init__()
            self.body = nn.Sequential(
                conv(ch, ch), nn.Conv2d(ch, ch, 3, 1, 1, bias=False), nn.BatchNorm2d(ch)
            )

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x + self.body(x))

    layers: list[nn.Module] = [conv(3, widths[0], 2)]
    for cin, cout in itertools.pairwise(widths):
        layers += [conv(cin, cout, 2), Residual(cout)]
    layers += [
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(widths[-1], classes),
    ]
    return nn.Sequential(*layers)


def augment(batch, size: int = CROP_SIZE, generator=None, grey: float = GREY_SHARE):
    """Stored BGR uint8 crops (N, S, S, 3) to augmented RGB float input (N, 3, size, size).

    One affine warp per crop (quarter turns, a few degrees more, scale and shift as a finder's
    box would be off), then light, colour balance, contrast, blur, sensor noise and ``grey`` of
    them without colour (``photometric``).
    """
    import torch
    import torch.nn.functional as F

    g = generator
    x = plain_input(batch)
    n = x.shape[0]

    def u(lo: float, hi: float, *shape: int) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand(n, *shape, generator=g)

    quarter = torch.randint(0, 4, (n,), generator=g).float() * (math.pi / 2)
    angle = quarter + u(-0.15, 0.15)
    scale = u(0.88, 1.04)  # < 1 zooms in: the stored crop is a little wider than the input
    stretch = u(0.92, 1.08)
    cos, sin = torch.cos(angle), torch.sin(angle)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = cos * scale * stretch
    theta[:, 0, 1] = -sin * scale
    theta[:, 1, 0] = sin * scale * stretch
    theta[:, 1, 1] = cos * scale
    theta[:, :, 2] = u(-0.06, 0.06, 2)
    grid = F.affine_grid(theta, (n, 3, size, size), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    return photometric(x, g, grey)


def photometric(x, generator=None, grey: float = GREY_SHARE):
    """Light, colour balance, contrast, blur, sensor noise and ``grey`` of the inputs without
    colour, on RGB input in 0..1 (N, 3, H, W): what changes between tables, lamps and cameras
    (a webcam in dim light, or a photo kept in black and white, shows no suit colour)."""
    import torch
    import torch.nn.functional as F

    g = generator
    n = x.shape[0]

    def u(lo: float, hi: float, *shape: int) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand(n, *shape, generator=g)

    x = x * u(0.55, 1.35, 1, 1, 1) * u(0.85, 1.15, 3, 1, 1)
    mean = x.mean((1, 2, 3), keepdim=True)
    x = (x - mean) * u(0.7, 1.3, 1, 1, 1) + mean
    blur = torch.rand(n, generator=g) < 0.25
    if blur.any():
        x[blur] = F.avg_pool2d(x[blur], 3, 1, 1, count_include_pad=False)
    x = x + torch.randn(x.shape, generator=g) * u(0.0, 0.04, 1, 1, 1)
    gray = torch.rand(n, generator=g) < grey
    if gray.any():
        x[gray] = x[gray].mean(1, keepdim=True).expand(-1, 3, -1, -1)
    return x.clamp(0, 1)


def plain_input(batch):
    """Stored uint8 BGR (N, H, W, 3) to RGB float input in 0..1 (N, 3, H, W), as at run time."""
    return batch.permute(0, 3, 1, 2).float().flip(1) / 255.0


def center_input(batch, size: int = CROP_SIZE):
    """Stored crops to un-augmented input: the middle, as ``card_crop`` cuts it at run time."""
    import torch.nn.functional as F

    x = plain_input(batch)
    return F.interpolate(x, size=(size, size), mode="area")


def train_reader(
    data: Path,
    out: Path,
    epochs: int = 12,
    hours: float | None = None,
    batch: int = 128,
    lr: float = 3e-3,
    resume: Path | None = None,
    weights: Path | None = None,
    threads: int = 2,
    seed: int = 0,
    size: int | None = None,
    grey: float = GREY_SHARE,
) -> Path:
    """Train the reader on ``data`` (from ``build_crops``); returns the best checkpoint.

    3% of the crops are kept aside to choose the best epoch. Every epoch writes ``last.pt``
    (model, optimiser, schedule, epoch), so ``resume`` continues an interrupted run; ``weights``
    starts from a previous reader instead of from scratch. ``size``: the input side (the
    network pools globally, so weights trained at one side continue at another; a larger side
    keeps more of a small corner index through the strided stages); None keeps the starting
    checkpoint's, ``CROP_SIZE`` from scratch. ``grey``: the share of inputs shown without colour
    (a webcam in dim light, a black-and-white photo).
    """
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    crops = torch.from_numpy(np.load(data / "crops.npy"))
    classes = torch.from_numpy(np.load(data / "classes.npy").astype(np.int64))
    n = len(classes)
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    n_val = max(1, int(0.03 * n))
    val_idx, train_idx = order[:n_val], order[n_val:]
    model = reader_net()
    start_ck = None
    if resume is not None or weights is not None:
        start_ck = torch.load(resume if resume is not None else weights, weights_only=False)
    kept = checkpoint_size(start_ck) if start_ck is not None else CROP_SIZE
    if resume is not None and size is not None and size != kept:
        raise ValueError(f"size {size}: {resume} was trained at {kept}")
    size = size or kept
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    steps_per_epoch = math.ceil(len(train_idx) / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, lr, total_steps=epochs * steps_per_epoch, pct_start=0.15
    )
    start, best_acc = 0, -1.0
    out.mkdir(parents=True, exist_ok=True)
    if resume is not None:
        ck = start_ck
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        start, best_acc = ck["epoch"] + 1, ck["best_acc"]
    elif weights is not None:
        state = start_ck["model"]
        model.load_state_dict(
            {k: v.float() if v.is_floating_point() else v for k, v in state.items()}
        )
    gen = torch.Generator().manual_seed(seed + 1)
    t0 = time.time()
    deadline = t0 + hours * 3600 if hours else None
    for epoch in range(start, epochs):
        perm = train_idx[torch.randperm(len(train_idx), generator=gen)]

        def loss_of(idx):
            x = augment(crops[idx], size, generator=gen, grey=grey)
            return F.cross_entropy(model(x), classes[idx], label_smoothing=0.05)

        seen, loss_sum = run_epoch(
            model, opt, sched, perm, batch, loss_of, "reader", epoch, epochs, deadline
        )
        model.eval()
        correct = 0
        with torch.no_grad():
            for k in range(0, n_val, 512):
                idx = val_idx[k : k + 512]
                read = model(center_input(crops[idx], size)).argmax(1)
                correct += int((read == classes[idx]).sum())
        acc = correct / n_val
        state = {
            "model": model.state_dict(),
            "opt": opt.state_dict(),
            "sched": sched.state_dict(),
            "epoch": epoch,
            "best_acc": max(acc, best_acc),
            "val_acc": acc,
            "crop_size": size,
        }
        torch.save(state, out / "last.pt")
        if acc > best_acc:
            best_acc = acc
            torch.save(state, out / "best.pt")
        print(f"[reader] epoch {epoch + 1}: held-out crop accuracy {acc:.4f}", flush=True)
        with open(out / "results.csv", "a") as f:
            f.write(f"{epoch + 1},{loss_sum / max(seen, 1):.4f},{acc:.4f},{time.time() - t0:.0f}\n")
        if deadline and time.time() > deadline:
            print("[reader] time is up; continue with --resume last.pt", flush=True)
            break
    return out / "best.pt"


def run_epoch(model, opt, sched, perm, batch: int, loss_of, tag: str, epoch: int, epochs: int,
              deadline: float | None = None) -> tuple[int, float]:  # fmt: skip
    """One pass over the sample indices ``perm`` in batches (``loss_of(idx)`` gives a batch's
    loss), stepping the optimiser and schedule, with progress and the time left on stdout.
    Returns the samples seen and the sum of their losses; stops early past ``deadline``."""
    model.train()
    n, seen, loss_sum, te = len(perm), 0, 0.0, time.time()
    steps = math.ceil(n / batch)
    for k in range(steps):
        idx = perm[k * batch : (k + 1) * batch]
        loss = loss_of(idx)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        seen += len(idx)
        loss_sum += loss.item() * len(idx)
        if k % 50 == 0 or k == steps - 1:
            rate = seen / (time.time() - te)
            left = (n - seen + (epochs - epoch - 1) * n) / rate
            print(
                f"[{tag}] epoch {epoch + 1}/{epochs} {seen}/{n} loss {loss_sum / seen:.4f}, "
                f"{rate:.0f}/s, about {left / 60:.0f} min left",
                flush=True,
            )
        if deadline and time.time() > deadline:
            break
    return seen, loss_sum


def checkpoint_size(ck: dict) -> int:
    """The input side a checkpoint was trained at (those before 2026-11-30 say nothing: 112)."""
    return int(ck.get("crop_size", CROP_SIZE))


def write_exports(
    model,
    state: dict,
    shape: tuple[int, int],
    out_dir: Path,
    name: str,
    io: tuple[str, str],
    **pt_extra,
) -> tuple[Path, Path]:
    """``name.onnx`` (batch free), ``name_openvino/`` (FP16) and ``name.pt`` (the weights alone,
    FP16, with ``pt_extra``: what training continues from) of a network loaded with ``state``."""
    import openvino as ov
    import torch

    model.eval()
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_path = out_dir / f"{name}.onnx"
    torch.onnx.export(
        model,
        torch.zeros(1, 3, *shape),
        str(onnx_path),
        input_names=[io[0]],
        output_names=[io[1]],
        dynamic_axes={io[0]: {0: "n"}, io[1]: {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    ov_dir = out_dir / f"{name}_openvino"
    ov_dir.mkdir(exist_ok=True)
    ov.save_model(ov.convert_model(str(onnx_path)), str(ov_dir / f"{name}.xml"))
    half = {k: v.half() for k, v in state.items()}
    torch.save({"model": half, **pt_extra}, out_dir / f"{name}.pt")
    return onnx_path, ov_dir


def export_reader(checkpoint: Path, out_dir: Path, name: str = "hakam-reader") -> dict:
    """Write ``name.onnx`` (dynamic batch), ``name_openvino/`` (FP16), ``name.pt`` and
    ``name.json``."""
    import torch

    model = reader_net()
    ck = torch.load(checkpoint, weights_only=False)
    model.load_state_dict(ck["model"])
    size = checkpoint_size(ck)
    onnx_path, ov_dir = write_exports(
        model, ck["model"], (size, size), out_dir, name, ("crops", "logits"), crop_size=size
    )
    info = {
        "onnx": onnx_path.name,
        "weights": f"{name}.pt",
        "openvino": ov_dir.name,
        "crop_size": size,
        "crop_margin": CROP_MARGIN,
        "classes": [*CARD_NAMES, "other"],
        "val_acc": round(float(ck.get("val_acc", 0.0)), 4),
        "epoch": int(ck.get("epoch", -1)) + 1,
    }
    (out_dir / f"{name}.json").write_text(json.dumps(info, indent=1) + "\n")
    return info
