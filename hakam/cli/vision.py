"""``hakam run``, ``hakam calibrate`` and ``hakam video render``: the camera pipeline's CLI.

Every failure a user can cause (a camera that does not open, a missing model, a bad polygon, a
bad deal record) is one ``UserError`` line, exit 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from hakam.cli.common import (
    add_deck_arg,
    add_publish_args,
    click_points,
    first_frame,
    has_display,
    load_json,
    parse_size,
    publish_options,
    with_deck,
)


def _cli_error(message: str) -> Exception:
    from hakam.errors import UserError

    return UserError(message)


def _print_event(ev: dict[str, Any], headless: bool) -> None:
    if headless:
        print(json.dumps(ev, ensure_ascii=False), flush=True)
        return
    kind = ev.get("type")
    if kind == "play":
        how = "" if ev.get("provenance", "seen") == "seen" else f" ({ev['provenance']})"
        print(f"trick {ev['trick']}: seat {ev['seat']} plays {ev['card']}{how}", flush=True)
    elif kind == "trick":
        print(f"trick {ev['trick']} won by seat {ev['winner']} ({ev['points']} points)")
    elif kind in ("violation", "violation_status"):
        if ev.get("status") == "suspected":  # asked, not asserted
            print(f"suspected: {ev['text']} {ev.get('question') or ''}".rstrip(), flush=True)
        else:
            print(f"VIOLATION: {ev['text']}", flush=True)
    elif kind in ("uncertain", "source"):
        print(ev.get("text", kind), flush=True)
    elif kind == "open_card":
        was = f" (read as {ev['read_as']}, the deal's open card)" if ev.get("read_as") else ""
        print(f"open card {ev['card']}{was}", flush=True)
    elif kind == "correction":
        from hakam.vision.provenance import NAMED_BY

        was = f" instead of {ev['replaces']}" if ev.get("replaces") else ""
        why = f" ({NAMED_BY[ev['by']]})" if ev.get("by") in NAMED_BY else ""
        why += " (read, held for a later turn)" if ev.get("held") else ""
        why += " (confirmed by a person)" if ev.get("by") == "confirmed" else ""
        print(f"correction: {ev['card']} by seat {ev['seat']}{was}{why}", flush=True)
    elif kind == "score":
        status = f", {ev['status']}" if ev.get("status") else ""
        print(f"score: {ev.get('result')} (card points {ev.get('card_points')}{status})",
              flush=True)  # fmt: skip


# --- hakam run ----------------------------------------------------------------------------


def _setup(args: argparse.Namespace, default_record: Path | None = None) -> Any:
    from hakam.engine.contract import Contract, ContractError
    from hakam.vision.settings import DealSetup, PipelineError

    try:
        if args.deal:
            return DealSetup.from_record(load_json(args.deal, "--deal"))
        if args.contract:
            text = args.contract
            raw = (
                json.loads(text) if text.lstrip().startswith("{") else load_json(text, "--contract")
            )
            if args.dealer is not None:
                raw = {**raw, "dealer": args.dealer}
            contract = Contract.from_json(raw)
            return DealSetup(contract.dealer, contract)
        if default_record is not None:
            return DealSetup.from_record(load_json(str(default_record), "demo record"))
    except (PipelineError, ContractError) as exc:
        raise _cli_error(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise _cli_error(f"--contract: not valid JSON ({exc.msg})") from None
    raise _cli_error(
        "--deal or --contract: needed (the camera cannot see the bidding: give the dealer and "
        "the contract as a hakam-deal/1 record or a contract JSON)"
    )


def _demo_fallback(args: argparse.Namespace, why: str) -> int:
    from hakam.engine.record import InputError
    from hakam.engine.replay import format_score_sheet, load_match, replay_match
    from hakam.vision.events import event, with_type

    first = event(
        "source",
        source="demo",
        fallback="engine-replay",
        text=f"demo: {why}; replaying the engine's bundled demo match instead (engine.replay)",
    )
    _print_event(first, True)
    try:
        events = list(replay_match(load_match()))
    except (InputError, ValueError) as exc:
        raise _cli_error(str(exc)) from None
    for e in events:
        print(json.dumps(with_type(e), ensure_ascii=False))
    if not args.headless:
        print(format_score_sheet(events[-1]), file=sys.stderr)
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from hakam.vision import detector as det
    from hakam.vision.events import event
    from hakam.vision.pipeline import Pipeline, iter_feed
    from hakam.vision.seats import Calibration, CalibrationError
    from hakam.vision.settings import PipelineSettings
    from hakam.vision.sources import (
        DEMO_CALIBRATION,
        DEMO_LABELS,
        DEMO_RECORD,
        SourceError,
        demo_clip_available,
        open_source,
    )
    from hakam.vision.zones import PolygonZone, ZoneError

    if args.match == "demo":  # the built-in match clip (filmed once, kept in the data folder)
        from hakam.cli.table import demo_match

        clip = demo_match()
        args.match, args.source = clip["setup"], clip["video"]
        args.calibration = args.calibration or clip["calibration"]
    demo = args.source.strip() == "demo"
    camera_size = parse_size(args.camera_size, "--camera-size")
    if args.stdin_corrections and not args.headless:
        raise _cli_error("--stdin-corrections: with --headless (the window takes a click)")
    if args.publish and args.match is None:
        raise _cli_error("--publish: with --match (a whole match) or `hakam table`")
    if args.publish:
        publish_options(args)  # a bad --publish said before the camera or a model opens
    if args.match is not None:
        if not args.headless:
            raise _cli_error("--match: with --headless (in the window the table bids on screen)")
        if demo:
            raise _cli_error("--match: the demo clip is one deal; give a match clip as --source")
        if args.stdin_corrections or args.deal or args.contract:
            raise _cli_error("--match: the set-up lines give every deal; drop --deal, "
                             "--contract and --stdin-corrections")  # fmt: skip
    roi = None
    if args.roi:
        try:
            roi = PolygonZone(args.roi)
        except ZoneError as exc:
            raise _cli_error(f"--roi: {exc}") from None
    calibration = None
    if args.calibration:
        try:
            calibration = Calibration.load(args.calibration)
        except CalibrationError as exc:
            raise _cli_error(str(exc)) from None
    if demo and args.detector != "oracle":
        if not demo_clip_available():
            return _demo_fallback(args, "the demo clip is not installed yet")
        if args.detector is None and not [
            b for b in det.available_backends() if b != "ultralytics"
        ]:
            return _demo_fallback(args, "no trained detector model in models/ yet")
    if demo and calibration is None:
        calibration = Calibration.load(DEMO_CALIBRATION)
    if demo and args.detector == "oracle" and not args.labels:
        args.labels = str(DEMO_LABELS)
    table = None
    if args.match is not None:
        from hakam.cli.table import plan

        table, setup = plan(args), None
    else:
        setup = _setup(args, DEMO_RECORD if demo else None)
    if args.detector == "oracle" and args.deck:
        raise _cli_error("--deck reads with the camera's reader, not --detector oracle")
    if args.detector == "oracle" and not args.labels:
        raise _cli_error("--detector oracle: needs --labels CLIP.labels.json (tests only)")
    try:
        source = open_source(args.source, args.fps, camera_size)
    except SourceError as exc:
        raise _cli_error(str(exc)) from None
    try:
        if calibration is not None and source.frame_size is not None:
            try:
                calibration = calibration.fitted(*source.frame_size)
            except CalibrationError as exc:
                where = args.calibration or DEMO_CALIBRATION
                raise _cli_error(f"--calibration {where}: {exc}") from None
        if args.detector == "oracle":
            data = load_json(args.labels, "--labels")
            if not isinstance(data, dict) or not isinstance(data.get("frames"), list):
                raise _cli_error(f"--labels {args.labels}: not a hakam-labels/1 file")
            from hakam.vision.oracle import LabelDetector

            start = 0 if table is None else table.next_frame
            detector: Any = LabelDetector(data["frames"], start=start)
        else:
            try:
                detector = det.make_detector(
                    args.detector, threads=args.threads, stages=args.stages
                )
                detector = with_deck(detector, args.deck)
            except det.DetectorError as exc:
                raise _cli_error(str(exc)) from None
    except Exception:
        source.close()
        raise
    if not args.headless and not has_display():  # checked last: input errors come first
        source.close()
        raise _cli_error("no display for the window: add --headless (or run it under a desktop)")
    if table is not None:
        from hakam.cli.table import run_match

        settings = PipelineSettings(read_open_card=not args.no_open_card)
        return run_match(args, table, source, detector, calibration, roi, settings)
    out_dir = (
        Path(args.out) if args.out else Path("runs") / datetime.now().strftime("run-%Y%m%d-%H%M%S")
    )
    try:
        pipeline = Pipeline(
            setup,
            detector,
            calibration=calibration,
            roi=roi,
            settings=PipelineSettings(read_open_card=not args.no_open_card),
            out_dir=out_dir,
            fps=source.fps,
        )
        log = (out_dir / "events.jsonl").open("w", encoding="utf-8")
    except OSError as exc:
        source.close()
        raise _cli_error(f"--out {out_dir}: cannot write there ({exc.strerror})") from None

    def emit(ev: dict[str, Any]) -> None:
        log.write(json.dumps(ev, ensure_ascii=False) + "\n")
        log.flush()  # on disk as it comes: a crash loses nothing the camera saw
        _print_event(ev, args.headless)

    emit(
        event(
            "source",
            source=args.source,
            text=source.description,
            fps=source.fps,
            detector=getattr(detector, "name", type(detector).__name__),
            out=str(out_dir),
        )
    )
    if not args.headless:  # the feed emits the deal's start events itself
        return _run_window(args, source, pipeline, emit, log)
    corrections = _stdin_corrections(sys.stdin) if args.stdin_corrections else None
    total = getattr(source, "frame_count", 0)
    t0 = last = time.monotonic()
    done, ended = 0, False
    try:
        with source:
            for image, _, events, _ in iter_feed(pipeline, source, corrections):
                for ev in events:
                    emit(ev)
                    ended = ended or ev["type"] == "end"
                done += image is not None
                now = time.monotonic()
                if total and now - last > 10 and done < total:
                    last = now
                    left = (now - t0) / done * (total - done)
                    print(
                        f"[run] frame {done}/{total}, about {left:.0f} s left",
                        file=sys.stderr,
                        flush=True,
                    )
    except SourceError as exc:
        for ev in [] if ended else pipeline.finish():
            emit(ev)
        log.close()
        raise _cli_error(str(exc)) from None
    except KeyboardInterrupt:  # the record of what was seen is still written
        for ev in [] if ended else pipeline.finish():
            emit(ev)
    log.close()
    return 0


def correction_line(line: str) -> dict[str, Any]:
    """One line of ``--stdin-corrections``: a JSON object ``{"card": "QH"}``, with ``seat``
    (0-3: the seat the caller means, refused if another is on turn) and ``deal`` optional;
    with ``trick`` (1-8), the card that seat played in that trick (``replaces``: which of its
    cards there, where it has two). Raises ValueError with a one-line reason."""
    from hakam.engine.cards import CARD_NAMES

    try:
        item = json.loads(line)
    except json.JSONDecodeError:
        raise ValueError('not JSON (one object a line, as {"card": "QH", "seat": 2})') from None
    if isinstance(item, dict) and "confirm" in item:
        return confirmation_line(item)
    if not isinstance(item, dict) or not isinstance(item.get("card"), str):
        raise ValueError('needs "card", as {"card": "QH", "seat": 2}')
    if item["card"] not in CARD_NAMES:
        raise ValueError(f"{item['card']!r} is not a Baloot card (7 to A of C, D, H, S)")
    seat, deal = item.get("seat"), item.get("deal")
    if seat is not None and (type(seat) is not int or not 0 <= seat <= 3):
        raise ValueError(f'"seat": {seat!r} (0, 1, 2 or 3)')
    if deal is not None and type(deal) is not int:
        raise ValueError(f'"deal": {deal!r} (a whole number)')
    trick, replaces = item.get("trick"), item.get("replaces")
    if trick is not None and (type(trick) is not int or not 1 <= trick <= 8 or seat is None):
        raise ValueError(f'"trick": {trick!r} (1 to 8, with "seat")')
    if replaces is not None and (replaces not in CARD_NAMES or trick is None):
        raise ValueError(f'"replaces": {replaces!r} (a Baloot card, with "trick")')
    return {"card": item["card"], "seat": seat, "deal": deal, "by": "caller", "trick": trick,
            "replaces": replaces}  # fmt: skip


def confirmation_line(item: dict[str, Any]) -> dict[str, Any]:
    """``{"confirm": {"trick": 1, "seat": 2, "rule": "follow-suit"}}``: a person confirms what a
    suspected ruling rests on (``rule`` optional: without it, the play of that seat in that
    trick, or with no ``seat`` every play of the trick; ``card`` optional: the ruling's card).
    Raises ValueError with a one-line reason."""
    from hakam.engine.cards import CARD_NAMES

    what = item["confirm"]
    if not isinstance(what, dict) or set(what) - {"trick", "seat", "rule", "card"}:
        raise ValueError('"confirm": as {"trick": 1, "seat": 2, "rule": "follow-suit"}')
    trick, seat, rule = what.get("trick"), what.get("seat"), what.get("rule")
    if type(trick) is not int or not 1 <= trick <= 8:
        raise ValueError(f'"confirm": "trick": {trick!r} (1 to 8)')
    if (seat is not None or rule is not None) and (type(seat) is not int or not 0 <= seat <= 3):
        raise ValueError(f'"confirm": "seat": {seat!r} (0, 1, 2 or 3)')
    if rule is not None and not isinstance(rule, str):
        raise ValueError(f'"confirm": "rule": {rule!r} (a rule name, as "follow-suit")')
    card = what.get("card")
    if card is not None and card not in CARD_NAMES:
        raise ValueError(f'"confirm": "card": {card!r} is not a Baloot card')
    deal = item.get("deal")
    if deal is not None and type(deal) is not int:
        raise ValueError(f'"deal": {deal!r} (a whole number)')
    return {"confirm": True, "trick": trick, "seat": seat, "rule": rule, "card": card,
            "deal": deal}  # fmt: skip


def _stdin_corrections(stream: Any) -> Any:
    """A queue fed by a thread reading ``stream`` line by line (``correction_line``); a bad
    line is a one-line error on standard error and changes nothing; at the end of the stream
    ``NO_MORE_CORRECTIONS``, so a deal left waiting ends the run."""
    import queue
    import threading

    from hakam.vision.correction_queue import NO_MORE_CORRECTIONS

    out: queue.Queue = queue.Queue()

    def read() -> None:
        for n, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                out.put(correction_line(line))
            except ValueError as exc:
                print(f"hakam run: correction line {n}: {exc}; nothing changed", file=sys.stderr,
                      flush=True)  # fmt: skip
        out.put(NO_MORE_CORRECTIONS)

    threading.Thread(target=read, name="stdin-corrections", daemon=True).start()
    return out


def _run_window(args: argparse.Namespace, source: Any, pipeline: Any, emit: Any, log: Any) -> int:
    """Without ``--headless``: the table overlay window, fed by the pipeline off the GUI thread.

    Every event still goes to ``events.jsonl``, and the record and evidence are written as in a
    headless run. The card a person picks for a card not read goes to the pipeline, which plays
    it (and, after the clip, finishes the deal with it).
    """
    import queue

    from hakam.gui.feed import FeedItem
    from hakam.gui.views.main_window import run as run_window
    from hakam.vision.pipeline import iter_feed

    corrections: queue.Queue = queue.Queue()  # the table's clicks, from the GUI thread

    def feed():
        try:
            with source:
                # open while the window is: a dispute may correct the deal once it is over
                fed = iter_feed(pipeline, source, corrections, keep_open=True)
                for frame, detections, events, ms in fed:
                    for ev in events:
                        emit(ev)
                    yield FeedItem(frame, detections, events, ms)
        finally:
            log.close()

    return run_window(
        language=args.lang, fps=source.fps, feed=feed(), on_correction=corrections.put
    )


# --- hakam calibrate ----------------------------------------------------------------------


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from hakam.vision.seats import Calibration, CalibrationError, parse_point

    if (args.centre is None) != (args.dealer is None):
        raise _cli_error("give both --centre X,Y and --dealer X,Y, or neither (click them)")
    size = None
    camera_size = parse_size(args.camera_size, "--camera-size")
    try:
        if args.centre is not None:
            centre = parse_point(args.centre, "--centre")
            dealer = parse_point(args.dealer, "--dealer")
            if args.source:
                img = first_frame(args.source, camera_size)
                size = (int(img.shape[1]), int(img.shape[0]))
        else:
            img = first_frame(args.source or "0", camera_size)
            size = (int(img.shape[1]), int(img.shape[0]))
            centre, dealer = click_points(img, getattr(args, "lang", None) or "en")
        cal = Calibration(centre, dealer, args.mirrored, size)
    except CalibrationError as exc:
        raise _cli_error(str(exc)) from None
    out = Path(args.out)
    try:
        cal.save(out)
    except OSError as exc:
        raise _cli_error(f"--out {out}: cannot write ({exc.strerror})") from None
    print(json.dumps({"calibration": str(out), "centre": list(cal.centre),
                      "dealer": list(cal.dealer), "mirrored": cal.mirrored}))  # fmt: skip
    return 0


# --- hakam video render -------------------------------------------------------------------


def _cmd_video_render(args: argparse.Namespace) -> int:
    from hakam.vision.dealvideo import DealFilm, script_deal, write_clip

    if not 1 <= args.tricks <= 8:
        raise _cli_error(f"--tricks: must be 1..8, got {args.tricks}")
    if not 0 <= args.noise <= 30:
        raise _cli_error(f"--noise: must be 0..30, got {args.noise}")
    if not 5 <= args.fps <= 60:
        raise _cli_error(f"--fps: must be 5..60, got {args.fps}")
    if not str(args.out).endswith(".mp4"):
        raise _cli_error(f"--out: must end in .mp4, got {args.out}")
    size = parse_size(args.size)
    if args.deals is not None:
        return _render_match(args, size)
    try:
        deal = script_deal(args.seed, args.violation)
        film = DealFilm(deal, args.seed, size, args.fps, args.deck, args.noise)
    except ValueError as exc:
        raise _cli_error(str(exc)) from None
    t0 = time.monotonic()

    def progress(done: int, total: int) -> None:
        el = time.monotonic() - t0
        left = el / done * (total - done)
        msg = f"[video] trick {done}/{total}, {len(film.frames)} frames, about {left:.0f} s left"
        print(msg, file=sys.stderr, flush=True)

    rendered = film.film(args.tricks, progress=progress)
    try:
        paths = write_clip(rendered, args.out)
    except OSError as exc:
        raise _cli_error(str(exc)) from None
    print(json.dumps({**paths, "frames": len(rendered.frames), "fps": rendered.fps,
                      "deck": rendered.deck, "seconds": round(time.monotonic() - t0, 1),
                      "violation": rendered.deal.violation}))  # fmt: skip
    return 0


def _render_match(args: argparse.Namespace, size: tuple[int, int]) -> int:
    """``--deals N``: N deals of one match in one clip, with the match's truth and set-up."""
    from hakam.vision.matchvideo import render_match, video_writer, write_match_clip

    if not 1 <= args.deals <= 40:
        raise _cli_error(f"--deals: must be 1..40, got {args.deals}")
    if args.tricks != 8:
        raise _cli_error("--tricks: a match clip films whole deals (drop --tricks)")
    t0 = time.monotonic()

    def progress(done: int, total: int) -> None:
        left = (time.monotonic() - t0) / done * (total - done)
        print(f"[video] deal {(done - 1) // 8 + 1}/{args.deals}, trick {done}/{total}, "
              f"about {left:.0f} s left", file=sys.stderr, flush=True)  # fmt: skip

    try:
        writer = video_writer(args.out, args.fps, size)
        try:
            rendered = render_match(args.seed, args.deals, args.fps, size, args.deck,
                                    violations=[1] if args.violation else (),
                                    progress=progress, noise=args.noise,
                                    sink=writer.write)  # fmt: skip
        finally:
            writer.release()
        paths = write_match_clip(rendered, args.out)
    except (ValueError, OSError) as exc:
        raise _cli_error(str(exc)) from None
    print(json.dumps({**paths, "frames": len(rendered.frames), "fps": rendered.fps,
                      "deck": rendered.deck, "deals": args.deals,
                      "first_dealer": rendered.deals[0].record["dealer"],
                      "seconds": round(time.monotonic() - t0, 1)}))  # fmt: skip
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``run``, ``calibrate`` and ``video`` to ``hakam``."""
    run = subparsers.add_parser("run", help="referee a deal live from a camera, video or folder")
    run.add_argument("--source", default="demo",
                     help="camera index (0), video file, folder of images, or 'demo'")  # fmt: skip
    run.add_argument("--headless", action="store_true", help="one JSON line per event, no window")
    run.add_argument(
        "--stdin-corrections",
        action="store_true",
        help="with --headless: the caller names cards not read, one JSON line each on standard "
        'input ({"card": "QH", "seat": 2}), and confirms what a suspected ruling rests on '
        '({"confirm": {"trick": 1, "seat": 2, "rule": "follow-suit"}}); a deal left provisional '
        "after the clip waits for them until standard input closes",
    )
    run.add_argument("--lang", choices=("en", "ar"), default=None, help="window language")
    run.add_argument("--roi", default=None, help="play area polygon 'x,y;x,y;x,y' (pixels)")
    run.add_argument("--calibration", default=None, help="table TOML from `hakam calibrate`")
    run.add_argument("--out", default=None, help="folder for deal.json, events, evidence")
    run.add_argument(
        "--detector",
        default=None,
        choices=["oracle", "openvino", "onnx", "ultralytics"],
        help="back-end (default: OpenVINO, else ONNX Runtime); oracle: tests only",
    )
    run.add_argument(
        "--stages",
        type=int,
        choices=[1, 2],
        default=None,
        help="1: detector alone; 2: finder + card reader (default: the shipped choice)",
    )
    run.add_argument("--labels", default=None, help="renderer labels for --detector oracle")
    run.add_argument("--deal", default=None, help="hakam-deal/1 record giving dealer and contract")
    run.add_argument("--contract", default=None, help="contract JSON (text or file) instead")
    run.add_argument(
        "--dealer",
        type=int,
        default=None,
        choices=range(4),
        help="with --contract; with --match, the first dealer",
    )
    run.add_argument("--fps", type=float, default=None, help="frame rate of a file or folder")
    run.add_argument("--camera-size", default="1280x720",
                     help="frame size to ask a camera for, WxH (it may give another)")  # fmt: skip
    run.add_argument("--threads", type=int, default=0, help="detector CPU threads (0: auto)")
    run.add_argument("--no-open-card", action="store_true",
                     help="the deal starts with play (no open bidding card shown)")  # fmt: skip
    run.add_argument(
        "--match",
        default=None,
        help="table mode: a whole match, one deal set-up a line (FILE or -)",
    )
    run.add_argument(
        "--new-match",
        action="store_true",
        help="with --match: start a new match, not the one in progress",
    )
    add_deck_arg(run)
    add_publish_args(run)
    run.set_defaults(func=_cmd_run)

    cal = subparsers.add_parser("calibrate", help="mark the table centre and the dealer's seat")
    cal.add_argument("--source", default=None, help="camera index, video or folder (a frame)")
    cal.add_argument("--centre", default=None, help="X,Y of the table centre (no display)")
    cal.add_argument("--dealer", default=None, help="X,Y towards the dealer's seat (no display)")
    cal.add_argument("--mirrored", action="store_true", help="the camera image is mirrored")
    cal.add_argument("--camera-size", default="1280x720",
                     help="frame size to ask a camera for, WxH (as `hakam run` asks)")  # fmt: skip
    cal.add_argument("--out", default="table.toml", help="TOML file to write")
    cal.set_defaults(func=_cmd_calibrate)

    video = subparsers.add_parser("video", help="scripted deal videos for tests and demos")
    vsub = video.add_subparsers(dest="video_command", metavar="ACTION")
    r = vsub.add_parser("render", help="film a seeded deal: clip, truth record, labels")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--out", required=True, help="clip path ending in .mp4")
    r.add_argument("--violation", action="store_true", help="inject one illegal play")
    r.add_argument("--tricks", type=int, default=8, help="film the first N tricks")
    r.add_argument("--deals", type=int, default=None,
                   help="a match clip: N deals in a row, the dealer rotating (with its truth "
                   "sheet and the --match set-up lines)")  # fmt: skip
    r.add_argument("--fps", type=float, default=15.0)
    r.add_argument("--size", default="640x480")
    r.add_argument("--deck", default=None, help="deck design (default: a hold-out design)")
    r.add_argument("--noise", type=float, default=3.0, help="sensor noise sigma (grey levels)")
    r.set_defaults(func=_cmd_video_render)
    video.set_defaults(func=lambda _a: video.print_help() or 0)
