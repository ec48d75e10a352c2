"""The window under a real window manager: its frame within the screen in every tab and state.

Run in an X session with a window manager, as ``hakam gui`` opens it (``show_on_screen``)::

    xvfb-run -a -s "-screen 0 1366x768x24" sh -c \\
        "openbox & sleep 1; QT_QPA_PLATFORM=xcb python -m hakam.gui.screen_check --out DIR"

In English and Arabic it goes through every tab, a ruling's banner, every step of New deal (a
Hokum bought after three passes and raised: the state that grew the window past the screen)
and table mode (the bidding under the picture). For each it writes a screenshot of the whole
screen, the window manager's frame with it, and says in one line each what is wrong: the frame
past the screen's edges, a button out of sight that no panel scrolls to, a label cut short.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from PySide6.QtCore import QEvent, QPoint, QRect
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QScrollArea, QWidget

from hakam.engine.contract import Contract
from hakam.gui.match_store import MatchStore
from hakam.gui.models import manual_entry
from hakam.gui.views.main_window import MainWindow, make_app

SETTLE_MS = 250  # the window manager's answer to a new size or state


def settle() -> None:
    """Laid out, the last step's buttons deleted, and the window manager's moves taken."""
    QApplication.processEvents()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QTest.qWait(SETTLE_MS)


def on_screen(widget: QWidget) -> QRect:
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


def in_sight(widget: QWidget, room: QRect) -> bool:
    """On the screen, or in a panel on the screen that scrolls to it."""
    if room.contains(on_screen(widget)):
        return True
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QScrollArea):
        parent = parent.parentWidget()
    if parent is None or not room.contains(on_screen(parent.viewport())):
        return False
    view = parent.viewport()
    return widget.width() <= view.width() and widget.height() <= view.height()


def problems(window: MainWindow) -> list[str]:
    """What is wrong with the window as it stands, one line each (none: it fits)."""
    room = window.screen().availableGeometry()
    frame = window.frameGeometry()
    out = []
    if not room.contains(frame):
        out.append(f"frame {frame.width()}x{frame.height()}+{frame.x()}+{frame.y()} past the "
                   f"screen {room.width()}x{room.height()}")  # fmt: skip
    for b in window.findChildren(QPushButton):
        if b.isVisible() and not in_sight(b, room):
            out.append(f"button {b.text() or b.objectName()!r} out of sight")
    for label in window.findChildren(QLabel):
        if label.isVisible() and label.wordWrap() and label.text():
            need = label.heightForWidth(label.width())
            if need > label.height() + 2 and not isinstance(label.parentWidget(), QScrollArea):
                out.append(f"label {label.text()[:40]!r} cut short ({label.height()} of {need} px)")
    return out


def states(w: MainWindow) -> Iterator[str]:
    """Every tab, a ruling's banner, and every step of New deal (the tallest: Hokum bought,
    doubled, a refusal on the status line; a void deal), one after another. The window tests
    walk the same states (tests/gui/test_screen_sizes.py)."""
    for n in range(w.tabs.count()):
        w.tabs.setCurrentIndex(n)
        yield f"tab{n}"
    w.live.on_event({"event": "violation", "deal": 1, "trick": 1, "seat": 1, "card": "7S",
                     "rule": "follow-suit", "proof": {"trick": 2, "card": "7C"},
                     "text": "Seat 1 played 7S in trick 1 without following hearts, but he held "
                             "7C, which he played in trick 2."})  # fmt: skip
    w.tabs.setCurrentWidget(w.live_view)
    yield "banner"
    w.tabs.setCurrentWidget(w.setup_view)
    w.setup.restart()
    yield "dealer"
    w.setup.set_dealer(0)
    yield "open-card"
    w.setup.set_open_card("9H")
    yield "bidding"
    w.setup.call("hokum")
    for _ in range(3):
        w.setup.call("pass")
    yield "hokum-three-passes"
    w.setup.say_raise(w.setup.raise_options()[0])
    w.setup.set_points(0, "abc")
    w.setup_view.record_button.click()  # a refusal on the status line
    yield "doubled-refused"
    w.setup.restart()
    w.setup.set_dealer(0)
    w.setup.set_open_card("9H")
    for _ in range(8):
        w.setup.call("pass")
    yield "void"
    w.setup.restart()
    w.edit_deal(0)
    yield "editing"


def table_states(w: MainWindow, store: MatchStore, out: Path) -> Iterator[str]:
    """Table mode: the bidding docked under the picture, step by step to a Hokum bought."""
    from hakam.gui.table_feed import SetupQueue
    from hakam.vision.match import MatchPipeline
    from hakam.vision.oracle import LabelDetector

    setups = SetupQueue()
    match = MatchPipeline(LabelDetector([]), setups)
    w.table_feed(match, iter(()), (store.new_match(0), "screen-check", str(out)), setups)
    steps = [lambda: None, lambda: w.setup.set_dealer(0), lambda: w.setup.set_open_card("9H"),
             lambda: w.setup.call("hokum")] + [lambda: w.setup.call("pass")] * 3  # fmt: skip
    for n, step in enumerate(steps):
        step()
        yield f"table{n}"


def check(out: Path, language: str, table: bool = False) -> list[str]:
    """Open the window, go through its states, shoot each; the problems, with their state."""
    data = Path(tempfile.mkdtemp(prefix="hakam-screen-"))
    store = MatchStore(data / "matches.sqlite3")
    w = MainWindow(store, language)
    for dealer in range(3):  # a sheet with rows
        w.sheet.add(manual_entry(dealer, Contract("sun", 1, dealer), "70", 0))
    walk = table_states(w, store, data) if table else states(w)
    w.show_on_screen()
    room = w.screen().geometry()
    found = []
    for state in walk:
        settle()
        name = f"wm_{room.width()}x{room.height()}_{language}_{state}.png"
        w.screen().grabWindow(0).save(str(out / name))
        found += [f"{name}: {p}" for p in problems(w)]
    w.stop_feed()
    w.close()
    store.close()
    shutil.rmtree(data, ignore_errors=True)  # its match store: a check keeps only screenshots
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("screen-check"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    make_app()
    found = check(args.out, "en") + check(args.out, "ar") + check(args.out, "ar", table=True)
    for line in found:
        print(line)
    print(f"{len(found)} problem(s); screenshots in {args.out}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
