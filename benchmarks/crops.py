"""What a batch of crops costs each reading network, ways of feeding it side by side in one run.

    .venv/bin/python benchmarks/crops.py                         # the shipped networks
    .venv/bin/python benchmarks/crops.py --also runs/cand/hakam-index_openvino

The whole-card reader and the corner reader's two networks read small crops in batches: about a
dozen on a plain frame, forty to sixty on a busy one (every unsure box read five times with the
outline trim). Each OpenVINO model is timed fed two ways: the float tensor ``crops_tensor`` makes
in numpy (N x 3 x H x W RGB in 0..1), and the BGR uint8 crops as cut, converted inside the model
(``openvino_model(bgr_u8=True)``, what ``CardReader`` does). ``--also`` adds other builds of a
network (an 8-bit or 16-bit folder) fed as ``CardReader`` feeds them. The ways take turns call by
call, so the machine's drift falls on all alike; the crops are random (the cost does not depend
on what they show). Prints ms per batch and each way's ratio to the float tensor.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hakam.vision.backends import openvino_model  # noqa: E402
from hakam.vision.corners import OUTLINE_SIZE, PATCH_H, PATCH_W  # noqa: E402
from hakam.vision.reader import CROP_SIZE, crops_tensor  # noqa: E402

SHAPES = {
    "hakam-reader": (CROP_SIZE, CROP_SIZE),
    "hakam-outline": (OUTLINE_SIZE, OUTLINE_SIZE),
    "hakam-index": (2 * PATCH_H, 2 * PATCH_W),
}


def precision(folder: Path) -> str:
    """8-bit or 16-bit, from the IR itself (a quantized model holds FakeQuantize nodes)."""
    import openvino as ov

    xml = next(folder.glob("*.xml"))
    ops = {op.get_type_name() for op in ov.Core().read_model(str(xml)).get_ops()}
    return "8-bit" if "FakeQuantize" in ops else "16-bit"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models-dir", type=Path, default=ROOT / "models")
    ap.add_argument("--also", type=Path, action="append", default=[],
                    help="another build of a network: its *_openvino folder")  # fmt: skip
    ap.add_argument("--batches", type=int, nargs="+", default=[12, 45], help="crops a call")
    ap.add_argument("--calls", type=int, default=60, help="timed calls of each way and batch")
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print("| network | batch | way | ms a batch | x float tensor |")
    print("|---|---|---|---|---|")
    for stem, (h, w) in SHAPES.items():
        folder = args.models_dir / f"{stem}_openvino"
        if not folder.is_dir():
            print(f"[crops] {folder}: no such model, left out", file=sys.stderr)
            continue
        bits = precision(folder)
        ways = {
            f"{bits}, float tensor": (openvino_model(folder, args.threads), True),
            f"{bits}, uint8 crops": (openvino_model(folder, args.threads, bgr_u8=True), False),
        }
        for other in args.also:
            if other.name == folder.name:
                model = openvino_model(other, args.threads, bgr_u8=True)
                ways[f"{precision(other)} {other.parent.name}, uint8 crops"] = (model, False)
        for n in args.batches:
            crops = [rng.integers(0, 256, (h, w, 3), np.uint8) for _ in range(n)]
            spent = dict.fromkeys(ways, 0.0)
            for call in range(args.calls + 3):
                names = list(ways) if call % 2 == 0 else list(reversed(ways))
                for name in names:
                    model, as_float = ways[name]
                    t = time.perf_counter()
                    model(crops_tensor(crops) if as_float else np.stack(crops))
                    if call >= 3:  # the first calls warm the caches
                        spent[name] += time.perf_counter() - t
            base = next(iter(spent.values()))
            for name, sec in spent.items():
                ms = sec / args.calls * 1000
                print(f"| {stem} | {n} | {name} | {ms:.2f} | {sec / base:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
