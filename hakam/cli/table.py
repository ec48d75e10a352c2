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
    folder skips what was seen; a camera's frames are numbered on from there."""
    from hakam.vision.sources import CameraSource, Frame

    if isinstance(source, CameraSource):
        shift = last + 1
        for f in source:
            yield Frame(f.index + shift, f.time + shift / source.fps, f.image)
        return
    for f in source:
        if f.index > last:
            yield f


def run_match(
    args: argparse.Namespace, table: TablePlan, source: Any, detector: Any, calibration: Any,
    roi: Any, settings: Any,
) -> int:  # fmt: skip
    """Referee the match on ``source`` headless: one JSON line per event (also appended to
    ``events.jsonl``), the match state committed after every frame that gave events."""
    from hakam.gui.models import ScoreSheet, camera_entry
    from hakam.vision.events import event
    from hakam.vision.match import MatchError, MatchPipeline, SetupLines
    from hakam.vision.sources import SourceError

    skip = 0
    if table.state is not None:
        skip = len(table.state["rows"]) + (table.state.get("current") is not None)
    try:
        match = MatchPipeline(
            detector, SetupLines(table.lines, skip if args.match != "-" else 0),
            first_dealer=table.first_dealer, calibration=calibration, roi=roi,
            settings=settings, out_dir=table.out, fps=source.fps, state=table.state,
        )  # fmt: skip
    except MatchError as exc:
        raise UserError(str(exc)) from None
    log = (table.out / "events.jsonl").open("a", encoding="utf-8")
    scored = len(match.rows)

    def emit(ev: dict[str, Any]) -> None:
        log.write(json.dumps(ev, ensure_ascii=False) + "\n")
        print(json.dumps(ev, ensure_ascii=False), flush=True)

    def save() -> None:
        nonlocal scored
        log.flush()
        sheet = None
        if len(match.rows) != scored:  # a deal went on the sheet
            scored = len(match.rows)
            sheet = ScoreSheet(match.first_dealer, [_entry(r, camera_entry) for r in match.rows])
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
            for ev in match.start_events():
                emit(ev)
            save()
            for frame in frames_after(source, table.next_frame - 1):
                events = match.process(frame)
                for ev in events:
                    emit(ev)
                if events:
                    save()
                now = time.monotonic()
                if total and now - last > 10 and frame.index < total:
                    last = now
                    done = frame.index + 1 - table.next_frame
                    left = (now - t0) / max(done, 1) * (total - frame.index - 1)
                    print(f"[match] frame {frame.index + 1}/{total}, deal {match.next_deal - 1}, "
                          f"about {left:.0f} s left", file=sys.stderr, flush=True)  # fmt: skip
            for ev in match.finish():
                emit(ev)
            save()
    except MatchError as exc:
        save()
        raise UserError(str(exc)) from None
    except SourceError as exc:
        save()
        raise UserError(str(exc)) from None
    finally:
        log.close()
    _write_json(table.out / "sheet.json", match.sheet())
    sheet = match.sheet()
    how = f"team {sheet['match_winner']} wins" if sheet["match_over"] else "match goes on"
    print(f"[match] {len(sheet['deals'])} deals, {sheet['match'][0]}-{sheet['match'][1]}, {how}; "
          f"sheet {table.out / 'sheet.json'}", file=sys.stderr, flush=True)  # fmt: skip
    return 0


def _entry(row: Any, camera_entry: Any) -> Any:
    open_card = (row.setup or {}).get("open_card")
    return camera_entry(row.dealer, row.contract, row.score, row.penalty, open_card)


def _write_json(path: Path, data: Any) -> None:
    """Write whole or not at all (a crash never leaves half a sheet)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
