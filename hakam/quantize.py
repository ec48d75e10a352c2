"""8-bit OpenVINO models for the CPU: ``hakam model quantize``.

The finder is most of the time of a frame (about 30 of 35 ms at 640x480 on the 2-core CPU with
16-bit weights). Post-training quantization (NNCF) turns its convolutions to 8-bit integer
arithmetic from a few hundred calibration frames: no training, no torch. The OpenVINO folders
are rebuilt from the ONNX files (the full-precision originals), so quantizing twice gives the
same models. Calibration uses synthetic scenes of the training designs and rf100 training
photos only: never an evaluation set.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.detector import model_frame, to_tensor
from vision.reader import CROP_SIZE, card_crop, crops_tensor

CALIBRATION_SEED = 21  # scenes of the training split, a seed no training set used


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
    crop_size: int = CROP_SIZE,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Frames and card crops to calibrate on: ``n`` synthetic scenes of the training designs
    (their true boxes, moved as a finder's are, give the crops, cut at the reader's side
    ``crop_size``), plus up to ``n // 2`` photos of ``real``'s train split when given."""
    from datasets import art
    from datasets.generator import render_one
    from hakam.reader_training import jitter_box

    decks = art.available_decks(holdout=False)
    if not decks:
        raise RuntimeError("no training deck designs: run datasets/install_art.sh")
    art.ensure_art(decks, progress=progress)
    rng = np.random.default_rng(seed)
    frames, crops = [], []
    t0 = time.time()
    for i in range(n):
        img, labels, _ = render_one(seed, "train", i, 640, decks)
        frames.append(img)
        crops += [card_crop(img, jitter_box(rng, lb.box), crop_size) for lb in labels[:4]]
        if progress and (i + 1) % 50 == 0:
            left = (time.time() - t0) / (i + 1) * (n - i - 1)
            print(f"[quantize] {i + 1}/{n} scenes, about {left:.0f} s left", flush=True)
    if real is not None:
        photos = sorted((real / "train" / "images").glob("*.jpg"))[: n // 2]
        frames += [im for p in photos if (im := cv2.imread(str(p))) is not None]
    return frames, crops


def quantize_models(
    models_dir: Path,
    scenes: int = 200,
    real: Path | None = None,
    progress: bool = True,
    calibration: Callable[..., tuple[list[np.ndarray], list[np.ndarray]]] = calibration_scenes,
) -> dict:
    """Rebuild ``hakam-cards_openvino`` and ``hakam-reader_openvino`` in 8 bits from the ONNX
    files in ``models_dir``; the finder is calibrated at the shipped two-stage input size."""
    info = json.loads((models_dir / "hakam-cards.json").read_text())
    imgsz = int(info.get("two_stage", {}).get("imgsz") or info.get("imgsz", 640))
    reader_json = models_dir / "hakam-reader.json"
    rinfo = json.loads(reader_json.read_text()) if reader_json.exists() else None
    crop_size = int((rinfo or {}).get("crop_size", CROP_SIZE))
    frames, crops = calibration(scenes, real, progress=progress, crop_size=crop_size)
    t0 = time.time()
    finder_xml = models_dir / info["openvino"] / f"{Path(info['onnx']).stem}.xml"
    finder_in = [finder_input(f, imgsz) for f in frames]
    todo = [(quantize_onnx(models_dir / info["onnx"], finder_in), finder_xml, "finder")]
    if rinfo is not None and crops:
        reader_xml = models_dir / rinfo["openvino"] / f"{Path(rinfo['onnx']).stem}.xml"
        batches = [crops_tensor(crops[i : i + 8]) for i in range(0, len(crops), 8)]
        todo.append((quantize_onnx(models_dir / rinfo["onnx"], batches), reader_xml, "reader"))
    done = {}
    for model, xml, what in todo:  # both quantized before either is written
        done[what] = str(save_ir(model, xml))
    if "reader" in done:
        rinfo["openvino_precision"] = "int8"
        reader_json.write_text(json.dumps(rinfo, indent=1) + "\n")
    info["openvino_precision"] = "int8"
    info["calibration"] = {"scenes": scenes, "seed": CALIBRATION_SEED, "real": len(frames) - scenes}
    (models_dir / "hakam-cards.json").write_text(json.dumps(info, indent=1) + "\n")
    done["seconds"] = round(time.time() - t0, 1)
    return done
