"""``hakam run --headless --match FILE``: a whole match from one camera, deal after deal.

Each line of FILE (or of standard input, ``-``) sets up one deal: the contract (null: all four
passed), the open card, the projects; the dealer rotates from the first line's ``dealer`` (or
``--dealer``, or seat 0). The match lives in the same SQLite store as the window's score sheet
(``hakam.gui.match_store``): after every event the match state is committed, and after every
deal the sheet. Run the same command again after a crash (even ``kill -9``) and it goes on with
that match, at the deal in progress with its cards already played: a video file from the frame
after the last one stored, a camera from now. ``--new-match`` starts afresh instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hakam.cli.common import add_deck_arg, add_publish_args, publisher, with_deck
from hakam.errors import UserError


@dataclass
class TablePlan:
    """Where the match is kept and where it stands: a new match or one to go on with."""

    store: Any  # hakam.gui.match_store.MatchStore
    key: str
    match_id: int
    out: Path
    state: dict[str, Any] | None  # None: a new match
    first_dealer: int
    lines: Any  # the set-up lines (an iterator of str)

    @property
    def next_frame(self) -> int:
        return 0 if self.state is None else int(self.state["frame"]) + 1


def plan(args: argparse.Namespace) -> TablePlan:
    """Open the store and find the match to go on with (or start one); no frame read yet."""
    from hakam.gui.match_store import MatchStore

    if args.match == "-":
        lines: Any = sys.stdin
        key = f"{args.source}|stdin"
    else:
        path = Path(args.match)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise UserError(f"--match {path}: cannot read ({exc.strerror})") from None
        except UnicodeDecodeError:
            raise UserError(f"--match {path}: not UTF-8 text (one JSON set-up a line)") from None
        key = f"{args.source}|{path.resolve()}"
    store = MatchStore()
    found = None if args.new_match else store.table_run(key)
    if found is not None:
        match_id, out, state = found
        if args.out and Path(args.out).resolve() != Path(out).resolve():
            raise UserError(
                f"--out {args.out}: the match in progress writes to {out} (or add --new-match)"
            )
        print(f"[table] going on with match {match_id} after frame {state['frame']}",
              file=sys.stderr, flush=True)  # fmt: skip
        return TablePlan(store, key, match_id, Path(out), state, int(state["first_dealer"]),
                         iter(lines))  # fmt: skip
    lines = iter(lines)
    first, lines = _peek(lines)
    dealer = args.dealer if args.dealer is not None else 0
    if isinstance(first, dict) and isinstance(first.get("dealer"), int):
        dealer = first["dealer"]
    out = Path(args.out) if args.out else Path("runs") / time.strftime("match-%Y%m%d-%H%M%S")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--out {out}: cannot write there ({exc.strerror})") from None
    match_id = store.new_match(dealer)
    return TablePlan(store, key, match_id, out, None, dealer, lines)


DEMO_MATCH = {"seed": 7, "deals": 3, "size": (1280, 720)}


def demo_match() -> dict[str, str]:
    """The built-in match clip: 3 deals of a hold-out deck design, filmed on first use (a few
    minutes, with progress) into the data folder and kept there."""
    from hakam.gui.match_store import data_dir
    from hakam.vision.matchvideo import render_match, video_writer, write_match_clip

    folder = data_dir() / "demo-match"
    video = folder / "clip.mp4"
    paths = {"video": str(video), "setup": str(folder / "clip.setup.jsonl"),
             "calibration": str(folder / "clip.toml"),
             "sheet": str(folder / "clip.sheet.json")}  # fmt: skip
    if all(Path(p).is_file() for p in paths.values()):
        return paths
    t0 = time.monotonic()

    def progress(done: int, total: int) -> None:
        left = (time.monotonic() - t0) / done * (total - done)
        print(f"[demo] filming the demo match once: trick {done}/{total}, about {left:.0f} s "
              "left", file=sys.stderr, flush=True)  # fmt: skip

    tmp = folder.with_name("demo-match.tmp")
    writer = video_writer(tmp / "clip.mp4", 15.0, DEMO_MATCH["size"])
    try:
        rendered = render_match(DEMO_MATCH["seed"], DEMO_MATCH["deals"], size=DEMO_MATCH["size"],
                                progress=progress, sink=writer.write)  # fmt: skip
    finally:
        writer.release()
    written = write_match_clip(rendered, tmp / "clip.mp4")
    if folder.exists():
        import shutil

        shutil.rmtree(folder)
    tmp.rename(folder)  # whole or not at all
    assert set(paths) <= set(written)
    return paths


def _peek(lines: Iterator[str]) -> tuple[Any, Iterator[str]]:
    """The first set-up line as JSON (None if it is not), and the lines with it still first."""
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            first = json.loads(line)
        except json.JSONDecodeError:
            first = None

        def again(line: str = line) -> Iterator[str]:
            yield line
            yield from lines

        return first, again()
    return None, iter(())


def frames_after(source: Any, last: int) -> Iterator[Any]:
    """The source's frames after frame ``last`` of the run before the restart: a file or a
    folder skips what was seen; a camera's frames are numbered on from there (its
    ``SourceNotice``s pass through)."""
    from hakam.vision.sources import CameraSource, Frame, ReconnectingCamera, SourceNotice

    if isinstance(source, CameraSource | ReconnectingCamera):
        shift = last + 1
        for f in source:
            if isinstance(f, SourceNotice):
                yield f
                continue
            yield Frame(f.index + shift, f.time + shift / source.fps, f.image)
        return
    for f in source:
        if f.index > last:
            yield f


def live(args: argparse.Namespace, source: Any) -> Any:
    """A camera that comes back after being unplugged (``ReconnectingCamera``); other
    sources as they are."""
    from hakam.cli.common import parse_size
    from hakam.vision.sources import CameraSource, ReconnectingCamera, open_source

    if not isinstance(source, CameraSource):
        return source
    size = parse_size(args.camera_size, "--camera-size")
    return ReconnectingCamera(lambda: open_source(args.source, args.fps, size), source)


def run_match(
    args: argparse.Namespace, table: TablePlan, source: Any, detector: Any, calibration: Any,
    roi: Any, settings: Any,
) -> int:  # fmt: skip
    """Referee the match on ``source`` headless: one JSON line per event (also appended to
    ``events.jsonl``), the match state committed after every frame that gave events."""
    from hakam.gui.models import ScoreSheet, row_entry
    from hakam.vision.events import event
    from hakam.vision.match import MatchError, MatchPipeline, SetupLines
    from hakam.vision.sources import SourceError, SourceNotice

    skip = 0
    if table.state is not None:
        skip = len(table.state["rows"]) + (table.state.get("current") is not None)
    try:
        match = MatchPipeline(
            detector, SetupLines(table.lines, skip),
            first_dealer=table.first_dealer, calibration=calibration, roi=roi,
            settings=settings, out_dir=table.out, fps=source.fps, state=table.state,
        )  # fmt: skip
    except MatchError as exc:
        raise UserError(str(exc)) from None
    pub = publisher(args, table.match_id)
    log = (table.out / "events.jsonl").open("a", encoding="utf-8")
    scored = len(match.rows)

    def emit(ev: dict[str, Any]) -> None:
        log.write(json.dumps(ev, ensure_ascii=False) + "\n")
        print(json.dumps(ev, ensure_ascii=False), flush=True)

    def save(events: list[dict[str, Any]]) -> None:
        """The tournament's outbox (``--publish``), then the match state, then the events: a
        crash between the two makes those events again from the same frames (a file; a camera
        shows new ones), new lines with new ids that the board's view takes as repeats (a
        deal's score replaces its last, a ruling is keyed by deal, trick, seat and rule)."""
        nonlocal scored
        if pub is not None:
            pub.update(events)
        log.flush()
        sheet = None
        if len(match.rows) != scored:  # a deal went on the sheet
            scored = len(match.rows)
            sheet = ScoreSheet(match.first_dealer, [row_entry(r) for r in match.rows])
            _write_json(table.out / "sheet.json", match.sheet())
        table.store.save_table_run(table.match_id, table.key, str(table.out),
                                   match.checkpoint(), sheet)  # fmt: skip

    emit(event("source", source=args.source, text=source.description, fps=source.fps,
               detector=getattr(detector, "name", type(detector).__name__), out=str(table.out),
               match_id=table.match_id, resumed_after=table.next_frame - 1))  # fmt: skip
    total = getattr(source, "frame_count", 0)
    t0 = last = time.monotonic()
    try:
        with source:
            started = match.start_events()
            save(started)
            for ev in started:
                emit(ev)
            for frame in frames_after(live(args, source), table.next_frame - 1):
                if isinstance(frame, SourceNotice):  # the camera unplugged, or back
                    emit(event("source", source=args.source, text=frame.text, lost=frame.lost))
                    continue
                events = match.process(frame)
                if events:  # the state first: a crash after it loses no play, only log lines
                    save(events)
                for ev in events:
                    emit(ev)
                if match.over:  # nothing after the match counts: stop reading
                    break
                now = time.monotonic()
                if total and now - last > 10 and frame.index < total:
                    last = now
                    done = frame.index + 1 - table.next_frame
                    left = (now - t0) / max(done, 1) * (total - frame.index - 1)
                    print(f"[match] frame {frame.index + 1}/{total}, deal {match.next_deal - 1}, "
                          f"about {left:.0f} s left", file=sys.stderr, flush=True)  # fmt: skip
            end = match.finish()
            save(end)
            for ev in end:
                emit(ev)
    except MatchError as exc:
        save([])
        raise UserError(str(exc)) from None
    except SourceError as exc:
        save([])
        raise UserError(str(exc)) from None
    finally:
        log.close()
        if pub is not None:
            pub.close(timeout=5.0)  # what the broker has not taken waits on disk
    _write_json(table.out / "sheet.json", match.sheet())
    sheet = match.sheet()
    how = f"team {sheet['match_winner']} wins" if sheet["match_over"] else "match goes on"
    print(f"[match] {len(sheet['deals'])} deals, {sheet['match'][0]}-{sheet['match'][1]}, {how}; "
          f"sheet {table.out / 'sheet.json'}", file=sys.stderr, flush=True)  # fmt: skip
    truth = Path(args.source).with_suffix(".sheet.json")  # a rendered clip's truth, if any
    if truth.is_file():
        want = json.loads(truth.read_text(encoding="utf-8"))
        same = [r["result"] for r in sheet["deals"]] == [r["result"] for r in want["deals"]]
        print(f"[match] the clip's truth sheet ({truth.name}): "
              f"{'the same, deal for deal' if same else 'DIFFERENT'}", file=sys.stderr)  # fmt: skip
    return 0


def _write_json(path: Path, data: Any) -> None:
    """Write whole or not at all (a crash never leaves half a sheet)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


# --- hakam table: the window -----------------------------------------------------------------


def _start_screen(args: argparse.Namespace, store: Any) -> Any:
    """The start screen (no ``--source``): camera, language, match, calibration clicks; None
    where the person closed it."""
    from hakam.cli.common import decks_root, first_frame, parse_size
    from hakam.cli.deck import learn_from_frame
    from hakam.gui.start import StartController, last_source
    from hakam.gui.views.main_window import make_app
    from hakam.gui.views.start_view import StartView
    from hakam.vision.deck_store import DeckStore

    learnt = DeckStore(decks_root()).names()
    if args.deck and args.deck not in learnt:  # said before the screen, not after it
        raise UserError(f"--deck {args.deck}: not learnt here (`hakam deck list`)")
    make_app()
    language = args.lang or store.setting("language", "en") or "en"
    start = StartController(store, last_source(store), language, learnt)

    def grab(source: str) -> Any:
        return first_frame(source, parse_size(args.camera_size))

    store_of_decks = DeckStore(decks_root())
    view = StartView(start, grab, learn=learn_from_frame,
                     waiting=lambda name: name in store_of_decks.waiting())  # fmt: skip
    view.fit_screen()
    if args.deck:  # shown chosen (the view took the camera's saved one); the person may change it
        start.set_deck(args.deck)
        view.refresh()
    accepted = _exec_stoppable(view)
    if view.stopped is not None:  # Ctrl+C or SIGTERM, on the screen or in its deck window
        raise view.stopped
    if not accepted or view.choice is None:
        return None  # the person closed it: nothing started, and no error
    return view.choice


def _exec_stoppable(view: Any) -> int:
    """``view.exec()``, closed without a question by Ctrl+C or SIGTERM, the stop kept in
    ``view.stopped`` (``Terminated`` for SIGTERM)."""
    import signal

    from PySide6.QtWidgets import QDialog

    from hakam.cli.common import exec_until_signal
    from hakam.errors import Terminated

    def stop(signum: int) -> None:
        view.stopped = Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
        QDialog.reject(view)  # the dialog's own close: no "Close without starting?" asked

    return exec_until_signal(view, stop)


def _calibration(args: argparse.Namespace, store: Any) -> Any:
    """``--calibration FILE`` (it marks this match's first dealer), else the one saved for the
    source, else two clicks on its first frame (saved for next time; ``--calibrate`` clicks
    again): a ``StartChoice``-like (calibration, the seat it marks or None, saved or not)."""
    from hakam.cli.common import click_points, first_frame, parse_size
    from hakam.gui.start import StartController
    from hakam.vision.seats import Calibration, CalibrationError

    try:
        if args.calibration:
            return Calibration.load(args.calibration), None, False
    except CalibrationError as exc:
        raise UserError(str(exc)) from None
    start = StartController(store, args.source)
    if not args.calibrate and start.saved_calibration() is not None:
        choice = start.start()
        return choice.calibration, choice.calibration_seat, True
    image = first_frame(args.source, parse_size(args.camera_size))
    size = (int(image.shape[1]), int(image.shape[0]))
    for x, y in click_points(image, args.lang or store.setting("language", "en") or "en"):
        start.click(x, y, size)
    try:
        choice = start.start()
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return choice.calibration, choice.calibration_seat, True


def table_deck(store: Any, key: str, asked: str | None) -> str | None:
    """The deck a camera reads with: ``--deck`` (kept for the camera once the reader took it),
    else the one it last started with, while it is still learnt (said in a line)."""
    if asked:
        return asked
    from hakam.cli.common import decks_root
    from hakam.vision.deck_store import DeckStore

    kept = store.setting(f"deck|{key}")
    if kept and kept in DeckStore(decks_root()).names():
        print(f"table: reading with deck {kept}, as this camera last did (the start screen "
              "changes it)")  # fmt: skip
        return kept
    return None


def _cmd_table(args: argparse.Namespace) -> int:
    from hakam.cli.common import has_display, load_json, parse_size
    from hakam.gui.match_store import MatchStore
    from hakam.gui.start import table_key
    from hakam.vision import detector as det
    from hakam.vision.match import MatchError, MatchPipeline
    from hakam.vision.seats import CalibrationError
    from hakam.vision.settings import PipelineSettings
    from hakam.vision.sources import CameraSource, SourceError, open_source

    if not has_display():
        raise UserError("no display for the window: `hakam run --headless --match FILE` "
                        "referees a match without one")  # fmt: skip
    if args.detector == "oracle" and args.deck:
        raise UserError("--deck reads with the camera's reader, not --detector oracle")
    if args.detector == "oracle" and not args.labels:
        raise UserError("--detector oracle: needs --labels CLIP.labels.json (tests only)")
    store = MatchStore()
    if args.source is None:  # the start screen decides
        choice = _start_screen(args, store)
        if choice is None:
            print("table: the start screen was closed; nothing started")
            return 0
        args.source, args.lang = choice.source, choice.language
        args.new_match = args.new_match or choice.new_match
        args.deck = choice.deck  # as the screen showed it: --deck, or the person's choice
        calibration, seat, saved = choice.calibration, choice.calibration_seat, True
    else:
        calibration, seat, saved = _calibration(args, store)  # before the camera opens
    key = table_key(args.source)
    if args.detector != "oracle":
        args.deck = table_deck(store, key, args.deck)
    found = None if args.new_match else store.table_run(key)
    state = None if found is None else found[2]
    last = -1 if state is None else int(state["frame"])
    try:
        source = open_source(args.source, args.fps, parse_size(args.camera_size))
    except SourceError as exc:
        raise UserError(str(exc)) from None
    try:
        if source.frame_size is not None:
            calibration = calibration.fitted(*source.frame_size)
        if args.detector == "oracle":
            from hakam.vision.oracle import LabelDetector

            data = load_json(args.labels, "--labels")
            if not isinstance(data, dict) or not isinstance(data.get("frames"), list):
                raise UserError(f"--labels {args.labels}: not a hakam-labels/1 file")
            detector: Any = LabelDetector(data["frames"], start=last + 1)
        else:
            detector = with_deck(det.make_detector(args.detector, threads=args.threads), args.deck)
            if args.deck:  # a match resumed after a crash reads with it again
                store.set_setting(f"deck|{key}", args.deck)
    except (CalibrationError, det.DetectorError, SourceError, UserError) as exc:
        source.close()
        raise UserError(str(exc)) from None
    if found is not None:
        match_id, out = found[0], Path(found[1])
        if args.out and Path(args.out).resolve() != out.resolve():
            source.close()
            raise UserError(f"--out {args.out}: the match in progress writes to {out} "
                            "(or add --new-match)")  # fmt: skip
    else:
        out = Path(args.out) if args.out else Path("runs") / time.strftime("table-%Y%m%d-%H%M%S")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            source.close()
            raise UserError(f"--out {out}: cannot write there ({exc.strerror})") from None
        match_id = store.new_match(0)
    from hakam.gui.table_feed import SetupQueue
    from hakam.gui.views.main_window import MainWindow, make_app

    setups = SetupQueue()
    try:
        match = MatchPipeline(detector, setups, calibration=calibration, fps=source.fps,
                              out_dir=out, state=state, calibration_seat=seat,
                              settings=PipelineSettings(read_open_card=True))  # fmt: skip
    except MatchError as exc:
        source.close()
        raise UserError(str(exc)) from None
    try:
        pub = publisher(args, match_id)
    except UserError:
        source.close()
        raise
    app = make_app()
    window = MainWindow(store, args.lang)
    window.show_deck(args.deck if args.detector != "oracle" else None)
    if pub is not None:
        window.publish_to(pub)
    window.show_on_screen()
    camera = isinstance(source, CameraSource)
    watched = live(args, source)
    frames = frames_after(watched, last)
    binds = args.source if saved and seat is None else None  # a calibration not yet played
    window.start_table(match, frames, (match_id, key, str(out)), setups, hold=not camera,
                       max_fps=None if camera else source.fps, on_stop=watched.close,
                       calibration_source=binds)  # fmt: skip
    try:
        return app.exec()
    finally:
        window.stop_feed()
        source.close()
        if pub is not None:
            pub.close(timeout=5.0)  # what the broker has not taken waits on disk


def register(subparsers: argparse._SubParsersAction) -> None:
    t = subparsers.add_parser(
        "table", help="table mode: a whole match from one camera in the window, deal after deal"
    )
    t.add_argument(
        "--source",
        default=None,
        help="camera index, video or folder (default: the start screen asks)",
    )
    t.add_argument(
        "--calibration",
        default=None,
        help="table TOML (default: the saved one, "
        "else click the centre and the FIRST dealer's seat on the first frame)",
    )
    t.add_argument("--calibrate", action="store_true", help="click the calibration again")
    t.add_argument(
        "--new-match",
        action="store_true",
        help="start a new match, not the one in progress for this source",
    )
    t.add_argument("--out", default=None, help="folder for the deals' records and evidence")
    t.add_argument("--lang", choices=("en", "ar"), default=None, help="window language")
    t.add_argument(
        "--detector",
        default=None,
        choices=["oracle", "openvino", "onnx", "ultralytics"],
        help="back-end (default: OpenVINO, else ONNX Runtime); oracle: tests only",
    )
    t.add_argument("--labels", default=None, help="renderer labels for --detector oracle")
    t.add_argument("--fps", type=float, default=None, help="frame rate of a file or folder")
    t.add_argument("--camera-size", default="1280x720", help="frame size to ask a camera for")
    t.add_argument("--threads", type=int, default=0, help="detector CPU threads (0: auto)")
    add_deck_arg(t)
    add_publish_args(t)
    t.set_defaults(func=_cmd_table)
