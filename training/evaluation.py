"""Score a detector on a labelled photo set the way the referee needs it.

Box metrics (mAP50, mAP50-95, per-class AP) are only meaningful where the labels are whole-card
boxes. The per-image set metrics are what a referee lives on: which of the 32 Baloot cards were
read, which were missed, which were invented, and how many images were read exactly. Cards of
ranks 2-6 (and backs, jokers) are not Baloot cards: a detection on one is a false card (it is
not in the image's Baloot set), and missing one costs nothing.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from hakam.datasets.art import COURT_NAMES
from hakam.engine.cards import CARD_NAMES

IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)


@dataclass
class ImageResult:
    path: str
    truth: set[int]
    truth_boxes: dict[int, np.ndarray]
    pred: list[tuple[int, float, np.ndarray]]  # class, confidence, xyxy (all confidences)
    design: str | None = None  # deck design of a synthetic scene (its meta file), else None


@dataclass
class Report:
    name: str
    images: int
    images_with_cards: int
    threshold: float
    precision: float
    recall: float
    exact: float  # share of images with at least one Baloot card read exactly
    exact_all: float  # share of all images read exactly (an empty read counts when right)
    map50: float | None = None
    map5095: float | None = None
    per_class_ap50: dict[str, float] = field(default_factory=dict)
    confusions: list[tuple[str, str, int]] = field(default_factory=list)
    missed: dict[str, int] = field(default_factory=dict)
    invented: dict[str, int] = field(default_factory=dict)
    ms_per_image: float = 0.0
    court_recall: float = 0.0  # J, Q, K: the figures that differ from design to design
    pip_recall: float = 0.0  # 7-10 and aces
    per_design: dict[str, dict[str, float]] = field(default_factory=dict)
    reader_on_truth: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def dataset_images(root: Path) -> tuple[list[Path], dict[int, int]]:
    """Images of a YOLO folder (``images/`` or the test split) and its class map to Baloot ids."""
    names = None
    for cand in (root / "data.yaml", root.parent / "data.yaml"):
        if cand.exists():
            names = yaml.safe_load(cand.read_text()).get("names")
            break
    if names is None:
        names = dict(enumerate(CARD_NAMES))
    items = names.items() if isinstance(names, dict) else enumerate(names)
    cmap = {int(k): CARD_NAMES.index(v) for k, v in items if v in CARD_NAMES}
    img_dir = root / "images"
    if not img_dir.is_dir():
        raise FileNotFoundError(f"{root}: no images/ folder")
    files = sorted(p for p in img_dir.iterdir() if p.suffix.lower() in {".jpg", ".jpeg", ".png"})
    return files, cmap


def read_truth(label: Path, cmap: dict[int, int], w: int, h: int):
    from hakam.datasets.inspect import label_boxes

    truth: set[int] = set()
    boxes: dict[int, list[np.ndarray]] = {}
    if label.exists():
        for k, box in zip(*label_boxes(label, w, h), strict=True):
            if int(k) not in cmap:
                continue
            c = cmap[int(k)]
            truth.add(c)
            boxes.setdefault(c, []).append(box)
    # A card labelled twice (two corner indices) is one card; keep the union box.
    merged = {
        c: np.array(
            [
                min(b[0] for b in bs),
                min(b[1] for b in bs),
                max(b[2] for b in bs),
                max(b[3] for b in bs),
            ]
        )
        for c, bs in boxes.items()
    }
    return truth, merged


def pred_of(d) -> list[tuple[int, float, np.ndarray]]:
    """``Detections`` as an ``ImageResult``'s reads: (card class, confidence, box)."""
    return [
        (int(c), float(s), np.asarray(b, float))
        for c, s, b in zip(d.class_id, d.confidence, d.xyxy, strict=True)
    ]


def detections_of(pred: list[tuple[int, float, np.ndarray]]):
    """The inverse of ``pred_of``."""
    from hakam.vision.detections import Detections

    if not pred:
        return Detections.empty()
    return Detections(
        np.array([b for _, _, b in pred], np.float32).reshape(-1, 4),
        np.array([s for _, s, _ in pred], np.float32),
        np.array([c for c, _, _ in pred], np.int64),
    )


def run_detector(detector, root: Path, progress: bool = True) -> tuple[list[ImageResult], float]:
    import cv2

    from hakam.datasets.inspect import scene_design

    files, cmap = dataset_images(root)
    results = []
    t0 = time.time()
    spent = 0.0
    for k, p in enumerate(files, 1):
        img = cv2.imread(str(p))
        if img is None:
            continue
        h, w = img.shape[:2]
        truth, boxes = read_truth(root / "labels" / (p.stem + ".txt"), cmap, w, h)
        t = time.perf_counter()
        d = detector.detect(img)
        spent += time.perf_counter() - t
        pred = pred_of(d)
        design = scene_design(p)
        results.append(ImageResult(str(p), truth, boxes, pred, design))
        if progress and (k % 100 == 0 or k == len(files)):
            rate = k / (time.time() - t0)
            print(
                f"[eval] {root.name}: {k}/{len(files)} images, about "
                f"{(len(files) - k) / rate:.0f} s left",
                flush=True,
            )
    return results, 1000 * spent / max(len(results), 1)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / union) if union > 0 else 0.0


def _ap(recall: np.ndarray, precision: np.ndarray) -> float:
    """COCO-style AP: mean over 101 recall levels of the best precision at that recall or more."""
    envelope = np.flip(np.maximum.accumulate(np.flip(precision)))
    levels = np.linspace(0, 1, 101)
    idx = np.searchsorted(recall, levels, side="left")
    return float(
        np.where(idx < len(envelope), envelope[np.minimum(idx, len(envelope) - 1)], 0.0).mean()
    )


def box_map(results: list[ImageResult]) -> tuple[float, float, dict[str, float]]:
    """mAP50, mAP50-95 and per-class AP50 over the Baloot classes present in the truth."""
    aps = np.zeros((len(CARD_NAMES), len(IOU_THRESHOLDS)))
    present = np.zeros(len(CARD_NAMES), bool)
    for c in range(len(CARD_NAMES)):
        n_truth = sum(c in r.truth for r in results)
        if n_truth == 0:
            continue
        present[c] = True
        dets = [(s, r, b) for r in results for (cc, s, b) in r.pred if cc == c]
        dets.sort(key=lambda x: -x[0])
        for ti, thr in enumerate(IOU_THRESHOLDS):
            tp = np.array(
                [
                    1.0 if c in r.truth and _iou(b, r.truth_boxes[c]) >= thr else 0.0
                    for (_s, r, b) in dets
                ]
            )
            if len(tp) == 0:
                continue
            ctp = np.cumsum(tp)
            rec = ctp / n_truth
            prec = ctp / np.arange(1, len(tp) + 1)
            aps[c, ti] = _ap(rec, prec)
    if not present.any():
        return 0.0, 0.0, {}
    per_class = {CARD_NAMES[c]: round(float(aps[c, 0]), 4) for c in range(32) if present[c]}
    return float(aps[present, 0].mean()), float(aps[present].mean()), per_class


def set_metrics(results: list[ImageResult], threshold: float, boxes: bool) -> dict:
    tp = fp = fn = 0
    exact = exact_all = with_cards = 0
    missed: Counter[str] = Counter()
    invented: Counter[str] = Counter()
    confusions: Counter[tuple[str, str]] = Counter()
    for r in results:
        kept = [(c, s, b) for c, s, b in r.pred if s >= threshold]
        read = {c for c, _, _ in kept}
        tp += len(read & r.truth)
        fp += len(read - r.truth)
        fn += len(r.truth - read)
        ok = read == r.truth
        exact_all += ok
        if r.truth:
            with_cards += 1
            exact += ok
        for c in r.truth - read:
            missed[CARD_NAMES[c]] += 1
        for c in read - r.truth:
            invented[CARD_NAMES[c]] += 1
        # Confusions: a wrong card read where a true card lies (box overlap), else by elimination.
        wrong = [(c, b) for c, _, b in kept if c not in r.truth]
        lost = set(r.truth - read)
        for c, b in wrong:
            best = None
            if boxes:
                cands = [(t, _iou(b, r.truth_boxes[t])) for t in lost]
                cands = [x for x in cands if x[1] > 0.3]
                best = max(cands, key=lambda x: x[1])[0] if cands else None
            elif len(lost) == 1:
                best = next(iter(lost))
            if best is not None:
                confusions[(CARD_NAMES[best], CARD_NAMES[c])] += 1
                lost.discard(best)
    n = len(results)
    return {
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
        "exact": exact / with_cards if with_cards else 0.0,
        "exact_all": exact_all / n if n else 0.0,
        "images_with_cards": with_cards,
        "missed": dict(missed.most_common()),
        "invented": dict(invented.most_common()),
        "confusions": [(a, b, k) for (a, b), k in confusions.most_common(20)],
    }


COURT = frozenset(CARD_NAMES.index(n) for n in COURT_NAMES)


def court_and_pip_recall(results: list[ImageResult], threshold: float) -> tuple[float, float]:
    """Recall of the court cards (J, Q, K) and of the others, apart: a reader that has not seen
    a design misses its court figures far more than its pips."""
    hits = {True: 0, False: 0}
    total = {True: 0, False: 0}
    for r in results:
        read = {c for c, s, _ in r.pred if s >= threshold}
        for c in r.truth:
            total[c in COURT] += 1
            hits[c in COURT] += c in read
    return (
        hits[True] / total[True] if total[True] else 1.0,
        hits[False] / total[False] if total[False] else 1.0,
    )


def per_design(results: list[ImageResult], threshold: float) -> dict[str, dict[str, float]]:
    """Images, share read exactly, recall, court-card recall for each deck design (synthetic
    sets, whose meta files name the design)."""
    out: dict[str, dict[str, float]] = {}
    for design in sorted({r.design for r in results if r.design}):
        part = [r for r in results if r.design == design]
        m = set_metrics(part, threshold, False)
        court, _ = court_and_pip_recall(part, threshold)
        out[design] = {
            "images": len(part),
            "exact": round(m["exact"], 4),
            "recall": round(m["recall"], 4),
            "court_recall": round(court, 4),
        }
    return out


def evaluate(
    results: list[ImageResult], name: str, threshold: float, boxes: bool, ms: float = 0.0
) -> Report:
    s = set_metrics(results, threshold, boxes)
    court, pip = court_and_pip_recall(results, threshold)
    rep = Report(
        name,
        len(results),
        s["images_with_cards"],
        threshold,
        s["precision"],
        s["recall"],
        s["exact"],
        s["exact_all"],
        confusions=s["confusions"],
        missed=s["missed"],
        invented=s["invented"],
        ms_per_image=ms,
        court_recall=court,
        pip_recall=pip,
        per_design=per_design(results, threshold),
    )
    if boxes:
        rep.map50, rep.map5095, rep.per_class_ap50 = box_map(results)
    return rep


TRUTH_MIN_VISIBLE = 0.6  # cards more covered than this may be unreadable to anyone


def reader_on_truth(read, root: Path) -> dict[str, dict[str, float]]:
    """The second stage alone on the true box of every card at least 60% visible (synthetic
    sets, whose meta files give each card's corners): court cards and the others apart,
    overall and per design. It tells the reader's misses from the finder's. ``read(image,
    boxes)`` gives one row of ``READER_CLASSES`` probabilities per box
    (``TwoStageDetector.read_boxes``)."""
    import cv2

    from hakam.vision.reader import OTHER

    tally: dict[tuple[str, bool], list[int]] = {}
    for meta_path in sorted((root / "meta").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        image_path = next((root / "images").glob(meta_path.stem + ".*"), None)
        image = cv2.imread(str(image_path)) if image_path else None
        if image is None:
            continue
        cards, boxes = [], []
        for b in meta.get("boxes", []):
            if b["card"] not in CARD_NAMES or b["visible"] < TRUTH_MIN_VISIBLE:
                continue
            xy = np.array(b["corners"], np.float64)
            boxes.append([*xy.min(0), *xy.max(0)])
            cards.append(CARD_NAMES.index(b["card"]))
        if not boxes:
            continue
        best = read(image, np.array(boxes, np.float32)).argmax(1)
        for card, k in zip(cards, best, strict=True):
            court = card in COURT
            for key in (("all", court), (meta.get("deck", "?"), court)):
                t = tally.setdefault(key, [0, 0])
                t[0] += int(k == card and k != OTHER)
                t[1] += 1
    out: dict[str, dict[str, float]] = {}
    for (design, court), (right, n) in sorted(tally.items()):
        row = out.setdefault(design, {})
        group = "court" if court else "other"
        row[group], row[group + "_n"] = round(right / n, 4), n
    return out


THRESHOLD_GRID = tuple(round(0.1 + 0.05 * k, 2) for k in range(17))


def best_threshold(results: list[ImageResult], grid=THRESHOLD_GRID) -> float:
    """The confidence threshold with the most images read exactly (tuning sets only); on a tie,
    the one that reads more cards (the tracker's vote over frames weeds out a stray wrong read,
    but cannot vote for a card never read)."""
    scores = []
    for t in grid:
        m = set_metrics(results, float(t), False)
        scores.append((m["exact"], m["recall"], float(t)))
    return round(max(scores)[2], 2)


def format_report(rep: Report) -> str:
    lines = [
        f"== {rep.name}: {rep.images} images ({rep.images_with_cards} with Baloot cards), "
        f"threshold {rep.threshold:.2f}, {rep.ms_per_image:.1f} ms/image"
    ]
    if rep.map50 is not None:
        lines.append(f"box: mAP50 {rep.map50:.3f}  mAP50-95 {rep.map5095:.3f}")
        worst = sorted(rep.per_class_ap50.items(), key=lambda x: x[1])[:6]
        lines.append("lowest AP50: " + ", ".join(f"{k} {v:.2f}" for k, v in worst))
    lines.append(
        f"cards: precision {rep.precision:.3f}  recall {rep.recall:.3f} "
        f"(J/Q/K {rep.court_recall:.3f}, others {rep.pip_recall:.3f})"
    )
    lines.append(
        f"images read exactly: {100 * rep.exact:.1f}% of those with Baloot cards, "
        f"{100 * rep.exact_all:.1f}% of all"
    )
    if rep.per_design:
        lines.append(
            "per design: "
            + ", ".join(
                f"{d} {100 * m['exact']:.0f}% exact (J/Q/K recall {m['court_recall']:.2f})"
                for d, m in rep.per_design.items()
            )
        )
    if rep.reader_on_truth:
        lines.append(
            f"reader on the true boxes (cards >= {TRUTH_MIN_VISIBLE:.0%} visible): "
            + ", ".join(
                f"{d} J/Q/K {m.get('court', 0):.2f} of {m.get('court_n', 0)}, "
                f"others {m.get('other', 0):.2f} of {m.get('other_n', 0)}"
                for d, m in rep.reader_on_truth.items()
            )
        )
    if rep.confusions:
        lines.append(
            "confusions (true -> read): "
            + ", ".join(f"{a}->{b} x{k}" for a, b, k in rep.confusions[:10])
        )
    if rep.missed:
        lines.append(
            "most missed: " + ", ".join(f"{k} x{v}" for k, v in list(rep.missed.items())[:8])
        )
    if rep.invented:
        lines.append(
            "most invented: " + ", ".join(f"{k} x{v}" for k, v in list(rep.invented.items())[:8])
        )
    return "\n".join(lines)


def failure_sheet(results: list[ImageResult], threshold: float, out: Path, n: int = 16) -> Path:
    """A contact sheet of the worst-read images: truth in green, wrong reads in red."""
    import cv2

    from hakam.datasets.inspect import tile_sheet

    def errors(r: ImageResult) -> int:
        read = {c for c, s, _ in r.pred if s >= threshold}
        return len(read ^ r.truth)

    worst = sorted((r for r in results if errors(r)), key=errors, reverse=True)[:n]
    tiles = []
    for r in worst:
        img = cv2.imread(r.path)
        for b in r.truth_boxes.values():
            cv2.rectangle(
                img, tuple(int(v) for v in b[:2]), tuple(int(v) for v in b[2:]), (0, 200, 0), 2
            )
        for c, s, b in r.pred:
            if s < threshold:
                continue
            colour = (0, 200, 0) if c in r.truth else (0, 0, 255)
            p1 = (int(b[0]), int(b[1]))
            cv2.rectangle(img, p1, (int(b[2]), int(b[3])), colour, 2)
            cv2.putText(
                img,
                f"{CARD_NAMES[c]} {s:.2f}",
                (p1[0] + 2, p1[1] + 18),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.6,
                colour,
                2,
            )
        missed = sorted(
            CARD_NAMES[c] for c in r.truth - {c for c, s, _ in r.pred if s >= threshold}
        )
        cv2.putText(
            img,
            "missed: " + " ".join(missed),
            (8, img.shape[0] - 10),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.7,
            (0, 255, 255),
            2,
        )
        tiles.append(img)
    sheet = tile_sheet(tiles, 360, cols=4)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), sheet)
    return out


def save_json(reports: list[Report], path: Path) -> None:
    path.write_text(json.dumps([r.to_json() for r in reports], indent=1))
