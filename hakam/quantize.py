"""8-bit OpenVINO models for the CPU: ``hakam model quantize``.

The finder is most of the time of a frame (about 30 of 35 ms at 640x480 on the 2-core CPU with
16-bit weights). Post-training quantization (NNCF) turns its convolutions to 8-bit integer
arithmetic from a few hundred calibration frames: no training, no torch. The OpenVINO folders
are rebuilt from the ONNX files (the full-precision originals), so quantizing twice gives the
same models. Calibration uses synthetic scenes of the training designs and rf100 training
photos only: never an evaluation set.

The corner reader's outline network is quantized too (``NETWORKS``); its index network is not:
in 8 bits it read 0.015 fewer cards of the tuning sets at the shipped threshold (models/README,
"8-bit outlines"), where the outline network read as many.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.corners import OUTLINE_SIZE
from vision.detector import model_frame, to_tensor
from vision.reader import CROP_SIZE, card_crop, crops_tensor

CALIBRATION_SEED = 21  # scenes of the training split, a seed no training set used
NETWORKS = ("finder", "reader", "outline")  # what ``quantize_models`` rebuilds by default


def quantize_onnx(onnx_path: Path, samples: Sequence[np.ndarray], preset: str = "mixed"):
    """The OpenVINO model of ``onnx_path`` quantized with ``samples`` (each one model input)."""
    import nncf
    import openvino as ov

    # Through a 16-bit IR first, as `hakam model export` writes it: quantized from the ONNX
    # graph directly, the finder ran 25-28 ms a frame instead of 20 (more nodes are left in it).
    with tempfile.TemporaryDirectory() as tmp:
        ov.save_model(ov.convert_model(str(onnx_path)), f"{tmp}/m.xml", compress_to_fp16=True)
        model = ov.Core().read_model(f"{tmp}/m.xml")
    return nncf.quantize(
        model,
        nncf.Dataset(list(samples)),
        preset=nncf.QuantizationPreset(preset),
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
    """The finder's float input for a frame, as ``vision.detector`` feeds a dynamic model."""
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
    from datasets import art
    from datasets.generator import render_one
    from hakam.reader_training import jitter_box

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


def _batches(crops: list[np.ndarray]) -> list[np.ndarray]:
    return [crops_tensor(crops[i : i + 8]) for i in range(0, len(crops), 8)]


def quantize_models(
    models_dir: Path,
    scenes: int = 200,
    real: Path | None = None,
    progress: bool = True,
    calibration: Callable[..., tuple[list[np.ndarray], dict[int, list[np.ndarray]]]] = (
        calibration_scenes
    ),
    networks: Sequence[str] | None = None,
) -> dict:
    """Rebuild the OpenVINO folders of ``networks`` (of ``NETWORKS``: ``hakam-cards``,
    ``hakam-reader``, ``hakam-outline``) in 8 bits from the ONNX files in ``models_dir``; the
    finder is calibrated at the shipped two-stage input size. By default each of them the
    folder has; a network asked for that it lacks is a ValueError, before anything is done."""
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
    }
    asked = NETWORKS if networks is None else tuple(networks)
    infos = {k: json.loads(p.read_text()) for k, p in jsons.items() if k in asked and p.exists()}
    for what in infos:
        if not (models_dir / infos[what]["onnx"]).exists():
            raise ValueError(f"{models_dir / infos[what]['onnx']}: no such ONNX model")
    if networks is not None and (missing := [k for k in jsons if k in networks and k not in infos]):
        raise ValueError(f"--models-dir {models_dir}: no {jsons[missing[0]].name}")
    sizes = {
        "reader": int(infos.get("reader", {}).get("crop_size", CROP_SIZE)),
        "outline": OUTLINE_SIZE,
    }
    wanted = sorted({sizes[k] for k in infos}, reverse=True) or [CROP_SIZE]
    frames, crops = calibration(scenes, real, progress=progress, crop_sizes=tuple(wanted))
    t0 = time.time()
    todo = []
    if "finder" in asked:
        finder_xml = models_dir / info["openvino"] / f"{Path(info['onnx']).stem}.xml"
        finder_in = [finder_input(f, imgsz) for f in frames]
        todo.append((quantize_onnx(models_dir / info["onnx"], finder_in), finder_xml, "finder"))
    for what, net in infos.items():
        if crops.get(sizes[what]):
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
