"""8-bit OpenVINO models for the CPU: ``hakam model quantize``.

The finder is most of the time of a frame (about 30 of 35 ms at 640x480 on the 2-core CPU with
16-bit weights). Post-training quantization (NNCF) turns its convolutions to 8-bit integer
arithmetic from a few hundred calibration frames: no training, no torch. The OpenVINO folders
are rebuilt from the ONNX files (the full-precision originals), so quantizing twice gives the
same models. Calibration uses synthetic scenes of the training designs and rf100 training
photos only: never an evaluation set.

The corner reader's two networks are quantized too (``NETWORKS``). Plainly quantized, the index
network named as many cards right but less surely, and read 0.015 fewer cards of the tuning sets at
the shipped threshold (docs/experiments/2026-12-03-8-bit-corner-networks.md); so it is quantized
with accuracy control (``quantize_onnx_controlled``): the layers whose 8 bits cost most of the
probability it gives the true card on other scenes of the training designs stay in floats."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from hakam.vision.corners import OUTLINE_SIZE
from hakam.vision.reader import CROP_SIZE, card_crop, crops_tensor, softmax
from hakam.vision.yolo import model_frame, to_tensor

CALIBRATION_SEED = 21  # scenes of the training split, a seed no training set used
VALIDATION_SEED = 22  # the index network's accuracy is watched on these (training split too)
INDEX_MAX_DROP = 0.005  # the most the mean probability of the true card may fall in 8 bits
NETWORKS = ("finder", "reader", "outline", "index")  # what ``quantize_models`` rebuilds


def _ir(onnx_path: Path):
    """The ONNX model as `hakam model export` writes it: a 16-bit IR. Quantized from the ONNX
    graph directly, the finder ran 25-28 ms a frame instead of 20 (more nodes are left in it)."""
    import openvino as ov

    with tempfile.TemporaryDirectory() as tmp:
        ov.save_model(ov.convert_model(str(onnx_path)), f"{tmp}/m.xml", compress_to_fp16=True)
        return ov.Core().read_model(f"{tmp}/m.xml")


def quantize_onnx(onnx_path: Path, samples: Sequence[np.ndarray], preset: str = "mixed"):
    """The OpenVINO model of ``onnx_path`` quantized with ``samples`` (each one model input)."""
    import nncf

    return nncf.quantize(
        _ir(onnx_path),
        nncf.Dataset(list(samples)),
        preset=nncf.QuantizationPreset(preset),
        subset_size=len(samples),
    )


def mean_true_probability(model, checks) -> tuple[float, None]:
    """NNCF's validation function for a card classifier: the mean probability it gives the true
    card over ``checks`` (batches and their cards). Accuracy alone does not see a network that
    names cards right less surely, which reads fewer of them at the shipped threshold."""
    import openvino as ov

    compiled = ov.Core().compile_model(model, "CPU") if isinstance(model, ov.Model) else model
    probs = []
    for batch, cards in checks:
        p = softmax(np.asarray(compiled(batch)[0]))
        probs.append(p[np.arange(len(cards)), cards])
    return float(np.concatenate(probs).mean()), None


def quantize_onnx_controlled(
    onnx_path: Path,
    samples: Sequence[np.ndarray],
    checks: Sequence[tuple[np.ndarray, np.ndarray]],
    max_drop: float = INDEX_MAX_DROP,
):
    """``quantize_onnx`` with NNCF's accuracy control: layers go back to floats, the costliest
    first, until ``mean_true_probability`` on ``checks`` is at most ``max_drop`` below the
    16-bit model's."""
    import nncf

    return nncf.quantize_with_accuracy_control(
        _ir(onnx_path),
        nncf.Dataset(list(samples)),
        nncf.Dataset(list(checks), lambda check: check[0]),
        mean_true_probability,
        max_drop=max_drop,
        preset=nncf.QuantizationPreset.MIXED,
        subset_size=len(samples),
    )


def save_ir(model, out_xml: Path) -> Path:
    """Write ``model`` as the only model of ``out_xml``'s folder (the loader takes its one .xml):
    written beside it first, so a failed write leaves the old model in place."""
    import openvino as ov

    folder = out_xml.parent
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        ov.save_model(model, f"{tmp}/{out_xml.name}")
        for old in (*folder.glob("*.xml"), *folder.glob("*.bin")):
            old.unlink()
        for new in Path(tmp).iterdir():
            new.replace(folder / new.name)
    return out_xml


def finder_input(image: np.ndarray, imgsz: int) -> np.ndarray:
    """The finder's float input for a frame, as ``hakam.vision.detector`` feeds a dynamic model."""
    return to_tensor(model_frame(image, imgsz, dynamic=True)[0])


def calibration_scenes(
    n: int,
    real: Path | None,
    seed: int = CALIBRATION_SEED,
    progress: bool = True,
    crop_sizes: Sequence[int] = (CROP_SIZE,),
) -> tuple[list[np.ndarray], dict[int, list[np.ndarray]]]:
    """Frames and card crops to calibrate on: ``n`` synthetic scenes of the training designs
    (their true boxes, moved as a finder's are, give the crops, cut at each side of
    ``crop_sizes``: the reader's, the outline network's), plus up to ``n // 2`` photos of
    ``real``'s train split when given."""
    from hakam.datasets import art
    from hakam.datasets.generator import render_one
    from hakam.training.reader import jitter_box

    decks = art.available_decks(holdout=False)
    if not decks:
        raise RuntimeError("no training deck designs: run datasets/install_art.sh")
    art.ensure_art(decks, progress=progress)
    rng = np.random.default_rng(seed)
    frames: list[np.ndarray] = []
    crops: dict[int, list[np.ndarray]] = {size: [] for size in crop_sizes}
    t0 = time.time()
    for i in range(n):
        img, labels, _ = render_one(seed, "train", i, 640, decks)
        frames.append(img)
        for box in (jitter_box(rng, lb.box) for lb in labels[:4]):
            for size in crop_sizes:
                crops[size].append(card_crop(img, box, size))
        if progress and (i + 1) % 50 == 0:
            left = (time.time() - t0) / (i + 1) * (n - i - 1)
            print(f"[quantize] {i + 1}/{n} scenes, about {left:.0f} s left", flush=True)
    if real is not None:
        photos = sorted((real / "train" / "images").glob("*.jpg"))[: n // 2]
        frames += [im for p in photos if (im := cv2.imread(str(p))) is not None]
    return frames, crops


def index_samples(
    n: int, seed: int, outline: Path, progress: bool = True
) -> tuple[list[np.ndarray], np.ndarray]:
    """Index patches of ``n`` scenes of the training designs and their cards, cut as at run
    time: each true box moved as a finder's is, its outline drawn by the ``outline`` network
    (its ONNX file, full precision) and the four corners straightened along it."""
    from hakam.datasets import art
    from hakam.datasets.generator import render_one
    from hakam.engine.cards import CARD_NAMES
    from hakam.training.reader import jitter_box
    from hakam.vision.corners import CornerReader, corner_patches

    decks = art.available_decks(holdout=False)
    if not decks:
        raise RuntimeError("no training deck designs: run datasets/install_art.sh")
    art.ensure_art(decks, progress=progress)
    reader = CornerReader(outline, backend="onnx")
    rng = np.random.default_rng([seed, 80])
    patches, cards = [], []
    t0 = time.time()
    for i in range(n):
        img, labels, _ = render_one(seed, "train", i, 640, decks)
        if labels:
            boxes = np.array([jitter_box(rng, lb.box) for lb in labels], np.float32)
            for lb, quad in zip(labels, reader.quads(img, boxes), strict=True):
                patches.append(corner_patches(img, quad))
                cards.append(CARD_NAMES.index(lb.card))
        if progress and (i + 1) % 50 == 0:
            left = (time.time() - t0) / (i + 1) * (n - i - 1)
            print(
                f"[quantize] index patches, seed {seed}: {i + 1}/{n}, about {left:.0f} s left",
                flush=True,
            )
    return patches, np.array(cards, np.int64)


def _batches(crops: list[np.ndarray], size: int = 8) -> list[np.ndarray]:
    return [crops_tensor(crops[i : i + size]) for i in range(0, len(crops), size)]


def quantize_models(
    models_dir: Path,
    scenes: int = 200,
    real: Path | None = None,
    progress: bool = True,
    calibration: Callable[..., tuple[list[np.ndarray], dict[int, list[np.ndarray]]]] = (
        calibration_scenes
    ),
    networks: Sequence[str] | None = None,
    patches: Callable[..., tuple[list[np.ndarray], np.ndarray]] = index_samples,
) -> dict:
    """Rebuild the OpenVINO folders of ``networks`` (of ``NETWORKS``: ``hakam-cards``,
    ``hakam-reader``, ``hakam-outline``, ``hakam-index``) in 8 bits from the ONNX files in
    ``models_dir``; the finder is calibrated at the shipped two-stage input size, the index
    network on ``patches`` cut along the outline network's ONNX and with accuracy control. By
    default each of them the folder has; a network asked for that it lacks is a ValueError,
    before anything is done."""
    unknown = sorted(set(networks or NETWORKS) - set(NETWORKS))
    if unknown or (networks is not None and not networks):
        raise ValueError(
            f"networks to quantize: {', '.join(unknown) or 'none'} (of {', '.join(NETWORKS)})"
        )
    info_path = models_dir / "hakam-cards.json"
    info = json.loads(info_path.read_text())
    imgsz = int(info.get("two_stage", {}).get("imgsz") or info.get("imgsz", 640))
    jsons = {
        "reader": models_dir / "hakam-reader.json",
        "outline": models_dir / "hakam-outline.json",
        "index": models_dir / "hakam-index.json",
    }
    asked = NETWORKS if networks is None else tuple(networks)
    infos = {k: json.loads(p.read_text()) for k, p in jsons.items() if k in asked and p.exists()}
    for what in infos:
        if not (models_dir / infos[what]["onnx"]).exists():
            raise ValueError(f"{models_dir / infos[what]['onnx']}: no such ONNX model")
    if networks is not None and (missing := [k for k in jsons if k in networks and k not in infos]):
        raise ValueError(f"--models-dir {models_dir}: no {jsons[missing[0]].name}")
    outline_onnx = None
    if "index" in infos:  # its samples are cut along the outline network's outlines
        outline_json = jsons["outline"]
        outline_onnx = (
            outline_json.exists() and models_dir / json.loads(outline_json.read_text())["onnx"]
        )
        if not outline_onnx or not outline_onnx.exists():
            raise ValueError(
                f"--models-dir {models_dir}: the index network needs the outline network's ONNX"
            )
    sizes = {
        "reader": int(infos.get("reader", {}).get("crop_size", CROP_SIZE)),
        "outline": OUTLINE_SIZE,
    }
    wanted = tuple(sorted({sizes[k] for k in infos if k in sizes}, reverse=True))
    frames: list[np.ndarray] = []
    crops: dict[int, list[np.ndarray]] = {}
    if "finder" in asked or wanted:
        frames, crops = calibration(
            scenes, real, progress=progress, crop_sizes=wanted or (CROP_SIZE,)
        )
    t0 = time.time()
    todo = []
    if "finder" in asked:
        finder_xml = models_dir / info["openvino"] / f"{Path(info['onnx']).stem}.xml"
        finder_in = [finder_input(f, imgsz) for f in frames]
        todo.append((quantize_onnx(models_dir / info["onnx"], finder_in), finder_xml, "finder"))
    if "index" in infos:
        net = infos["index"]
        cal, _ = patches(scenes, CALIBRATION_SEED, outline_onnx, progress=progress)
        seen, cards = patches(scenes, VALIDATION_SEED, outline_onnx, progress=progress)
        checks = list(
            zip(_batches(seen, 64), np.array_split(cards, range(64, len(cards), 64)), strict=True)
        )
        model = quantize_onnx_controlled(models_dir / net["onnx"], _batches(cal), checks)
        todo.append(
            (model, models_dir / net["openvino"] / f"{Path(net['onnx']).stem}.xml", "index")
        )
    for what, net in infos.items():
        if what in sizes and crops.get(sizes[what]):
            xml = models_dir / net["openvino"] / f"{Path(net['onnx']).stem}.xml"
            model = quantize_onnx(models_dir / net["onnx"], _batches(crops[sizes[what]]))
            todo.append((model, xml, what))
    done = {}
    for model, xml, what in todo:  # all quantized before any is written
        done[what] = str(save_ir(model, xml))
    for what, net in infos.items():
        if what in done:
            net["openvino_precision"] = "int8"
            jsons[what].write_text(json.dumps(net, indent=1) + "\n")
    if "finder" in done:
        info["openvino_precision"] = "int8"
        info["calibration"] = {
            "scenes": scenes,
            "seed": CALIBRATION_SEED,
            "real": len(frames) - scenes,
        }
        info_path.write_text(json.dumps(info, indent=1) + "\n")
    done["seconds"] = round(time.time() - t0, 1)
    return done
