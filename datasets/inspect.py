"""Look at a YOLO card dataset: class balance, boxes per image, occlusion, and a contact sheet."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from hakam.engine.cards import CARD_NAMES


def _splits(root: Path) -> list[Path]:
    found = [p for p in sorted(root.iterdir()) if (p / "labels").is_dir()] if root.is_dir() else []
    if (root / "labels").is_dir():
        found.append(root)
    if not found:
        raise FileNotFoundError(f"{root}: no labels/ folder (is this a YOLO dataset?)")
    return found


def read_labels(path: Path) -> list[tuple[int, float, float, float, float]]:
    rows = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 5:
            rows.append((int(parts[0]), *map(float, parts[1:])))
    return rows


def label_boxes(path: Path, width: float, height: float) -> tuple[np.ndarray, np.ndarray]:
    """A YOLO label file's classes and its boxes in pixels (x1, y1, x2, y2), rows of five
    fields only, as ``read_labels``."""
    rows = read_labels(path)
    if not rows:
        return np.zeros(0, np.int64), np.zeros((0, 4))
    a = np.array(rows, np.float64)
    cx, cy, w, h = a[:, 1] * width, a[:, 2] * height, a[:, 3] * width, a[:, 4] * height
    return a[:, 0].astype(np.int64), np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)


def scene_design(image: Path) -> str | None:
    """The deck design a synthetic scene was drawn with (its ``meta`` file), if it says."""
    meta = image.parent.parent / "meta" / (image.stem + ".json")
    return json.loads(meta.read_text()).get("deck") if meta.exists() else None


def stats(root: Path) -> dict:
    """Per split: images, boxes, class balance, boxes per image, occlusion histogram."""
    report = {}
    for split in _splits(root):
        classes: Counter[int] = Counter()
        per_image: Counter[int] = Counter()
        occl = np.zeros(10, int)
        kinds: Counter[str] = Counter()
        decks: Counter[str] = Counter()
        files = sorted((split / "labels").glob("*.txt"))
        for f in files:
            rows = read_labels(f)
            per_image[len(rows)] += 1
            classes.update(r[0] for r in rows)
            meta = split / "meta" / (f.stem + ".json")
            if meta.exists():
                m = json.loads(meta.read_text())
                kinds[m.get("kind", "?")] += 1
                decks[m.get("deck", "?")] += 1
                for b in m.get("boxes", []):
                    occl[min(int((1 - b["visible"]) * 10), 9)] += 1
        counts = [classes.get(k, 0) for k in range(len(CARD_NAMES))]
        report[split.name] = {
            "images": len(files),
            "boxes": sum(counts),
            "class_counts": dict(zip(CARD_NAMES, counts, strict=True)),
            "class_min_max": [min(counts), max(counts)],
            "boxes_per_image": dict(sorted(per_image.items())),
            "occlusion_histogram": {f"{10 * k}-{10 * k + 10}%": int(v) for k, v in enumerate(occl)},
            "scene_kinds": dict(kinds),
            "decks": dict(decks),
        }
    return report


def format_stats(report: dict) -> str:
    lines = []
    for split, r in report.items():
        lines.append(f"== {split}: {r['images']} images, {r['boxes']} boxes")
        lo, hi = r["class_min_max"]
        lines.append(f"class balance: min {lo}, max {hi} boxes per card")
        cc = r["class_counts"]
        for k in range(0, len(CARD_NAMES), 8):
            lines.append("  " + "  ".join(f"{n:>3}:{cc[n]:<5}" for n in CARD_NAMES[k : k + 8]))
        bpi = r["boxes_per_image"]
        lines.append("boxes per image: " + ", ".join(f"{k}:{v}" for k, v in bpi.items()))
        if sum(r["occlusion_histogram"].values()):
            tot = sum(r["occlusion_histogram"].values())
            lines.append("occlusion (hidden share of a labelled card):")
            for k, v in r["occlusion_histogram"].items():
                lines.append(f"  {k:>8} {v:6d} {'#' * round(40 * v / tot)}")
        if r["scene_kinds"]:
            lines.append(
                "scene kinds: " + ", ".join(f"{k}:{v}" for k, v in r["scene_kinds"].items())
            )
            lines.append("decks: " + ", ".join(f"{k}:{v}" for k, v in r["decks"].items()))
    return "\n".join(lines)


def draw_boxes(img: np.ndarray, rows, names=CARD_NAMES) -> np.ndarray:
    h, w = img.shape[:2]
    out = img.copy()
    for cls, cx, cy, bw, bh in rows:
        x1, y1 = int((cx - bw / 2) * w), int((cy - bh / 2) * h)
        x2, y2 = int((cx + bw / 2) * w), int((cy + bh / 2) * h)
        colour = (0, 230, 0)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, 2)
        name = names[cls] if 0 <= cls < len(names) else str(cls)
        org = (x1 + 3, max(y1 - 4, 12))
        for colour, thickness in (((0, 0, 0), 3), ((0, 255, 255), 1)):  # dark outline, then text
            cv2.putText(
                out, name, org, cv2.FONT_HERSHEY_SIMPLEX, 0.6, colour, thickness, cv2.LINE_AA
            )
    return out


def tile_sheet(images: list[np.ndarray], tile: int, cols: int | None = None) -> np.ndarray:
    """Images fitted into square tiles on a dark grid (``cols`` wide, else about square)."""
    tiles = []
    for img in images:
        s = tile / max(img.shape[:2])
        img = cv2.resize(
            img, (round(img.shape[1] * s), round(img.shape[0] * s)), interpolation=cv2.INTER_AREA
        )
        canvas = np.full((tile, tile, 3), 30, np.uint8)
        y0, x0 = (tile - img.shape[0]) // 2, (tile - img.shape[1]) // 2
        canvas[y0 : y0 + img.shape[0], x0 : x0 + img.shape[1]] = img
        tiles.append(canvas)
    if not tiles:
        tiles.append(np.full((tile, tile, 3), 30, np.uint8))
    cols = cols or math.ceil(math.sqrt(len(tiles)))
    while len(tiles) % cols:
        tiles.append(np.full((tile, tile, 3), 30, np.uint8))
    return np.vstack([np.hstack(tiles[r : r + cols]) for r in range(0, len(tiles), cols)])


def contact_sheet(
    root: Path, out: Path, n: int = 16, tile: int = 320, seed: int = 0, split: str | None = None
) -> Path:
    """A grid of ``n`` images of the dataset with their boxes drawn, written as PNG."""
    images = []
    for sp in _splits(root):
        if split and sp.name != split:
            continue
        images += sorted((sp / "images").glob("*.*"))
    if not images:
        raise FileNotFoundError(f"{root}: no images")
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(images), size=min(n, len(images)), replace=False)
    tiles = []
    for k in sorted(pick):
        p = images[k]
        img = cv2.imread(str(p))
        if img is None:
            continue
        lab = p.parent.parent / "labels" / (p.stem + ".txt")
        tiles.append(draw_boxes(img, read_labels(lab) if lab.exists() else []))
    sheet = tile_sheet(tiles, tile)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), sheet)
    return out
