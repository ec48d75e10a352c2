"""Tuning the shipped detector on the tuning sets (``hakam model tune``).

Each choice (confidence threshold, one stage or two, finder floor and input size, reader views,
corner reader weight, outline passes and trim, the finder of corner indices) is measured by the
share of tuning-set images read exactly, and a costlier setting is taken only where it reads more
than one standard error better. The choices are written into the model card (``hakam-cards.json``).
Evaluation-only sets (the hold-out designs, the real sets' evaluation splits) are refused.
"""

from __future__ import annotations

import json
import sys

from hakam.vision import detector

FIND_CONF_GRID = (0.02, 0.05, 0.1)
FIND_SIZE_GRID = (640, 512, 416)  # the finder's input long side (models exported dynamic)
CORNERS_GRID = (0.5, 1.0)  # corner reader weights tried after none (``TwoStageDetector.mix``)
TURNS_GRID = (2, 4)  # reader views per crop tried after one (``CardReader.read``)
PASSES_GRID = (2, 3)  # outline passes tried after one (``CornerReader.passes``)
TRIM_GRID = (0.08, 0.15, 0.25)  # outline trims tried after none (``CornerReader.trim``)


def trim_or_none(rows: list[dict], n_images: int) -> dict:
    """No outline trim (the first row), or the trim that reads the most images exactly where
    it reads more than one standard error more: every trim costs the same five reads a box, so
    among them the best is taken, not the smallest."""
    best = max(rows[1:], key=lambda r: (r["exact"], r["recall"]), default=rows[0])
    return smallest_within_one_se([rows[0], best], n_images, cost="outline_trim")


def smallest_within_one_se(rows: list[dict], n_images: int, cost: str = "imgsz") -> dict:
    """The cheapest row (smallest ``cost``: finder size, reader turns) whose exact-read rate is
    within one standard error of the best row's: a difference smaller than the tuning set can
    tell apart buys speed."""
    best = max(rows, key=lambda r: (r["exact"], r["recall"]))
    p = best["exact"]
    se = (p * (1 - p) / max(n_images, 1)) ** 0.5
    return min((r for r in rows if r["exact"] >= p - se), key=lambda r: (r[cost], -r["exact"]))


def _row_json(row: dict) -> str:
    return json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()})


def _rank(row: dict) -> tuple[float, float]:
    return row["exact"], row["recall"]


def _rank_two(row: dict) -> tuple[float, float, float]:
    """Two-stage rows: on a tie the higher finder floor (fewer boxes for the reader)."""
    return *_rank(row), row["find_conf"]


def _corner_reader(two, args) -> bool:
    """Give ``two`` the corner reader when its files are in the models folder (tuning tries
    it even where the model card does not ask for it yet)."""
    from hakam.vision.corners import CornerReader
    from hakam.vision.detector import corner_paths

    backend = two.reader.backend
    outline, index = corner_paths(backend, args.models_dir)
    if not (outline.exists() and index.exists()):
        return False
    two.corners = CornerReader(outline, index, backend)
    return True


def tune(args) -> int:
    """Thresholds by the most images read exactly; two stages only where they read more."""
    from hakam.errors import UserError
    from hakam.training import evaluation as ev
    from hakam.training.detector import EvalOnlyDataError, check_not_eval_only
    from hakam.vision.detector import (
        MODEL_CARD,
        MODELS_DIR,
        DetectorError,
        make_detector,
        shipped_settings,
    )

    for root in args.data:
        try:
            check_not_eval_only(root)
        except EvalOnlyDataError as exc:
            raise UserError(str(exc)) from exc
        if root.name == "holdout":
            raise UserError(f"{root}: the hold-out deck designs are evaluation-only")

    def results_of(det) -> list:
        out = []
        for root in args.data:
            try:
                out += ev.run_detector(det, root, progress=False)[0]
            except FileNotFoundError as exc:
                raise UserError(str(exc)) from exc
        return out

    def measure(det, **row) -> tuple[dict, list]:
        """``det`` on the tuning sets at its best threshold: the row of figures, the results."""
        res = results_of(det)
        thr = ev.best_threshold(res)
        m = ev.set_metrics(res, thr, False)
        return {**row, "threshold": thr, "exact": m["exact"], "recall": m["recall"]}, res

    if args.indices_only and args.outline_only:
        raise UserError("--indices-only and --outline-only: one at a time")
    if args.indices_only:
        return _tune_indices(args, results_of)
    if args.outline_only:
        return _tune_outline(args, results_of)
    try:
        first, one = measure(make_detector(args.backend, args.models_dir, conf=0.05, stages=1),
                             stages=1)  # fmt: skip
    except DetectorError as exc:
        raise UserError(str(exc)) from exc
    thr1 = first["threshold"]
    rows = [first]
    try:
        two = make_detector(args.backend, args.models_dir, conf=0.05, stages=2)
    except DetectorError as exc:
        print(f"[tune] two stages skipped: {exc}", file=sys.stderr)
        two = None
    if two is not None:
        two.mix = 0.0  # the grid is measured without the corner reader, which is tried last
        if two.corners is not None:
            two.corners.trim = 0.0  # ... and its outline trim after that
        if two.finder.dynamic:  # the grid starts at the exported size, not a previous choice
            two.finder.imgsz = int(shipped_settings(args.models_dir).get("imgsz", 640))
        base = two.finder.imgsz
        for fc in FIND_CONF_GRID:
            two.find_conf = fc
            rows.append(measure(two, stages=2, find_conf=fc, imgsz=base)[0])
        if two.finder.dynamic:
            two.find_conf = max((r for r in rows if r["stages"] == 2), key=_rank_two)["find_conf"]
            for size in (s for s in FIND_SIZE_GRID if s != base):
                two.finder.imgsz = size
                rows.append(measure(two, stages=2, find_conf=two.find_conf, imgsz=size)[0])
    for r in rows:
        print(_row_json(r))
    n_images = sum(1 for r in one if r.truth)  # "exact" counts images with Baloot cards
    twos = [r for r in rows if r["stages"] == 2]
    if twos:
        b2 = max(twos, key=_rank_two)
        b2 = smallest_within_one_se([r for r in twos if r["find_conf"] == b2["find_conf"]],
                                    n_images)  # fmt: skip
        two.find_conf, two.finder.imgsz = b2["find_conf"], b2["imgsz"]
        views = [{**b2, "turns": 1}]
        for turns in TURNS_GRID:
            two.turns = turns
            row = measure(two, stages=2, find_conf=b2["find_conf"], imgsz=b2["imgsz"],
                          turns=turns)[0]  # fmt: skip
            print(_row_json(row))
            views.append(row)
        b2 = smallest_within_one_se(views, n_images, cost="turns")  # more views cost time
        two.turns = b2["turns"]
        b2 = {**b2, "corners": 0.0}
        if two.corners is not None or _corner_reader(two, args):
            mixes = [b2]
            for mix in CORNERS_GRID:
                two.mix = mix
                row = measure(two, stages=2, find_conf=b2["find_conf"], imgsz=b2["imgsz"],
                              turns=b2["turns"], corners=mix)[0]  # fmt: skip
                print(_row_json(row))
                mixes.append(row)
            b2 = smallest_within_one_se(mixes, n_images, cost="corners")
        b2 = {**b2, "outline_passes": 1}
        if b2["corners"] > 0:
            two.mix = b2["corners"]
            tries = [b2]
            for passes in PASSES_GRID:
                two.corners.passes = passes
                row = measure(two, stages=2, find_conf=b2["find_conf"], imgsz=b2["imgsz"],
                              turns=b2["turns"], corners=b2["corners"],
                              outline_passes=passes)[0]  # fmt: skip
                print(_row_json(row))
                tries.append(row)
            b2 = smallest_within_one_se(tries, n_images, cost="outline_passes")
            two.corners.passes = b2["outline_passes"]
            tries = [{**b2, "outline_trim": 0.0}]
            for trim in TRIM_GRID:
                two.corners.trim = trim
                row = measure(two, stages=2, find_conf=b2["find_conf"], imgsz=b2["imgsz"],
                              turns=b2["turns"], corners=b2["corners"],
                              outline_passes=b2["outline_passes"],
                              outline_trim=trim)[0]  # fmt: skip
                print(_row_json(row))
                tries.append(row)
            b2 = trim_or_none(tries, n_images)
        b2 = {"outline_trim": 0.0, **b2}
        print(f"[tune] two stages: finder floor {b2['find_conf']}, size {b2['imgsz']}, "
              f"reader threshold {b2['threshold']}, turns {b2['turns']}, "
              f"corner reader weight {b2['corners']}, outline passes {b2['outline_passes']}, "
              f"outline trim {b2['outline_trim']}", file=sys.stderr)  # fmt: skip
    best = max([rows[0], *([b2] if twos else [])], key=_rank)
    if args.write:
        card = (args.models_dir or MODELS_DIR) / MODEL_CARD
        settings = json.loads(card.read_text()) if card.exists() else {}
        settings["threshold"] = thr1
        if twos:
            settings["two_stage"] = {
                "find_conf": b2["find_conf"],
                "threshold": b2["threshold"],
                "imgsz": b2["imgsz"],
                "turns": b2["turns"],
                "corners": b2["corners"],
                "outline_passes": b2["outline_passes"],
                "outline_trim": b2["outline_trim"],
            }
        settings["stages"] = best["stages"]
        settings["tuned_on"] = [str(p) for p in args.data]
        card.write_text(json.dumps(settings, indent=1) + "\n")
        print(f"[tune] wrote {card}: stages {best['stages']}", file=sys.stderr)
    return 0


def _tune_outline(args, results_of) -> int:
    """How many times the corner reader draws each outline (``CornerReader.passes``), then
    from which boxes (``CornerReader.trim``), beside the shipped two-stage settings at their
    shipped threshold: more passes, or a trim, only where they read more than one standard
    error better than fewer, or none."""
    from hakam.errors import UserError
    from hakam.training import evaluation as ev
    from hakam.vision.detector import MODEL_CARD, MODELS_DIR, DetectorError, make_detector

    try:
        two = make_detector(args.backend, args.models_dir, conf=0.05, stages=2, indices=False)
    except DetectorError as exc:
        raise UserError(str(exc)) from exc
    if getattr(two, "corners", None) is None or two.mix <= 0:
        raise UserError("the shipped two stages do not use the corner reader: nothing to choose")
    thr = detector.shipped_threshold(args.models_dir, stages=2)
    n_images = 0

    def measured(**row) -> dict:
        """The corner reader as it is set now on the tuning sets, at the shipped threshold."""
        nonlocal n_images
        res = results_of(two)
        n_images = sum(1 for r in res if r.truth)
        m = ev.set_metrics(res, thr, False)
        row = {**row, "threshold": thr, "exact": m["exact"], "recall": m["recall"],
               "precision": m["precision"]}  # fmt: skip
        print(_row_json(row), flush=True)
        return row

    rows = []
    two.corners.trim = 0.0  # passes first without a trim, whatever the model card says
    for passes in (1, *PASSES_GRID):
        two.corners.passes = passes
        rows.append(measured(outline_passes=passes))
    best = smallest_within_one_se(rows, n_images, cost="outline_passes")
    two.corners.passes = best["outline_passes"]
    rows = [{**best, "outline_trim": 0.0}]
    for trim in TRIM_GRID:
        two.corners.trim = trim
        rows.append(measured(outline_passes=best["outline_passes"], outline_trim=trim))
    best = trim_or_none(rows, n_images)
    print(f"[tune] outline passes: {best['outline_passes']}, trim: {best['outline_trim']}",
          file=sys.stderr)  # fmt: skip
    if args.write:
        card = (args.models_dir or MODELS_DIR) / MODEL_CARD
        settings = json.loads(card.read_text())
        two_stage = settings.setdefault("two_stage", {})
        two_stage["outline_passes"] = best["outline_passes"]
        two_stage["outline_trim"] = best["outline_trim"]
        settings["outline_tuned_on"] = [str(p) for p in args.data]
        card.write_text(json.dumps(settings, indent=1) + "\n")
        print(f"[tune] wrote {card}", file=sys.stderr)
    return 0


INDEX_CONF_GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)  # at or above every reader threshold
INDEX_SIZE_GRID = (512, 640)  # the finder of corner indices' input long side


def _tune_indices(args, results_of) -> int:
    """The finder of corner indices (``hakam.vision.indices``) beside the shipped whole-card reads
    at their shipped threshold: its threshold and input size, and whether its own classes or the
    strip reader (where its files are in the models folder) name its boxes, taken only where
    the pair reads more than one standard error better than the whole-card reads alone."""
    from dataclasses import replace

    from hakam.errors import UserError
    from hakam.training import evaluation as ev
    from hakam.vision.detector import (
        MODEL_CARD,
        MODELS_DIR,
        DetectorError,
        index_finder,
        make_detector,
        strip_detector,
    )
    from hakam.vision.indices import add_index_reads, strip_path

    models = args.models_dir or MODELS_DIR
    low = min(INDEX_CONF_GRID)
    strips = strip_path("onnx" if args.backend == "onnx" else "openvino", models).exists()
    try:
        finders = {
            (size, strip): (strip_detector if strip else index_finder)(
                args.backend, models, low, size
            )
            for size in INDEX_SIZE_GRID
            for strip in ((False, True) if strips else (False,))
        }
        cards = make_detector(args.backend, args.models_dir, conf=0.05, indices=False)
    except DetectorError as exc:
        raise UserError(str(exc)) from exc
    thr = detector.shipped_threshold(args.models_dir)
    base = results_of(cards)
    n_images = sum(1 for r in base if r.truth)

    def row_of(res, **row) -> dict:
        m = ev.set_metrics(res, thr, False)
        return {**row, "threshold": thr, "exact": m["exact"], "recall": m["recall"],
                "precision": m["precision"]}  # fmt: skip

    rows = [row_of(base, indices=0, index_conf=None, index_imgsz=None, strip=False)]
    print(_row_json(rows[0]))
    for (size, strip), finder in finders.items():
        found = results_of(finder)
        for t in INDEX_CONF_GRID:
            res = [
                replace(b, pred=ev.pred_of(add_index_reads(ev.detections_of(b.pred),
                                                           ev.detections_of(f.pred), t)))
                for b, f in zip(base, found, strict=True)
            ]  # fmt: skip
            rows.append(row_of(res, indices=1, index_conf=t, index_imgsz=size, strip=strip))
            print(_row_json(rows[-1]))
    best = smallest_within_one_se(rows, n_images, cost="indices")
    named = ", named by the strip reader" if best["strip"] else ""
    print("[tune] corner indices: "
          + (f"threshold {best['index_conf']}, size {best['index_imgsz']}{named}"
             if best["indices"] else "not taken (no more than one standard error better)"),
          file=sys.stderr)  # fmt: skip
    if args.write:
        card = models / MODEL_CARD
        settings = json.loads(card.read_text()) if card.exists() else {}
        settings.pop("indices", None)
        if best["indices"]:
            settings["indices"] = {"threshold": best["index_conf"], "imgsz": best["index_imgsz"],
                                   "strip": best["strip"]}  # fmt: skip
        settings["indices_tuned_on"] = [str(p) for p in args.data]
        card.write_text(json.dumps(settings, indent=1) + "\n")
        print(f"[tune] wrote {card}", file=sys.stderr)
    return 0
