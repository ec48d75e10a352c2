"""Screenshots of the main states for the README and reviewers: ``python -m gui.screenshots``.

Plays the bundled demo match into a fresh window (temporary match store) and grabs: live view,
the warning banner, the deal set-up, the score sheet, the dispute view, and the Arabic layout.
Runs offscreen or under Xvfb (``xvfb-run -a .venv/bin/python -m gui.screenshots``).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

if not os.environ.get("DISPLAY"):  # under xvfb-run the real X11 (xcb) platform is used
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from hakam.gui.feed import FeedItem, demo_feed
from hakam.gui.match_store import MatchStore
from hakam.gui.views.main_window import MainWindow, make_app

OUT = Path(__file__).resolve().parent.parent / "docs" / "screenshots"


def shoot(window: MainWindow, path: Path) -> Path:
    QApplication.processEvents()
    window.grab().save(str(path))
    print(path)
    return path


def until_trick2_card3(items: Iterator[FeedItem]) -> Iterator[FeedItem]:
    """The demo feed up to deal 1, trick 2, third card."""
    for item in items:
        yield item
        plays = [e for e in item.events if e["event"] == "play" and e["trick"] == 2]
        if plays and plays[-1]["seat"] == 1 and plays[-1]["deal"] == 1:
            return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    make_app()
    tmp = Path(tempfile.mkdtemp(prefix="hakam-shots-"))
    window = MainWindow(MatchStore(tmp / "matches.sqlite3"), "en")
    window.resize(1600, 960)
    window.show()
    items = iter(demo_feed(evidence_dir=tmp / "evidence"))
    # live: deal 1 up to the third card of trick 2, through the real worker thread so the
    # status bar shows the measured rate (the demo's "detector" is the frame drawing)
    worker = window.start_feed(until_trick2_card3(items), max_fps=8)
    worker.wait(60_000)
    QApplication.processEvents()
    window.tabs.setCurrentWidget(window.live_view)
    shoot(window, args.out / "live.png")
    # warning: run on until the proven revoke of deal 9
    for item in items:
        window.feed_item(item)
        if any(e["event"] == "violation" for e in item.events):
            break
    window.live.on_event(
        {"event": "uncertain", "seat": 2, "trick": 2, "text": "card in front of seat 2 not read"}
    )
    shoot(window, args.out / "warning.png")
    # accept, finish the match
    window.live.accept(window.live.open_warnings()[0].id)
    for item in items:
        window.feed_item(item)
    window.tabs.setCurrentWidget(window.sheet_view)
    shoot(window, args.out / "score_sheet.png")
    window.tabs.setCurrentWidget(window.dispute_view)
    window.dispute_view.select(9, 1)
    shoot(window, args.out / "dispute.png")
    # deal set-up of a new match, mid-bidding
    window.sheet.new_match(0)
    window.setup.restart()
    window.setup.set_dealer(0)
    window.setup.set_open_card("9H")
    window.setup.call("pass")
    window.tabs.setCurrentWidget(window.setup_view)
    shoot(window, args.out / "deal_setup.png")
    window.setup.call("hokum")
    for _ in range(3):
        window.setup.call("pass")
    window.setup.say_raise(window.setup.raise_options()[0])
    window.setup.set_points(0, "64")
    shoot(window, args.out / "deal_setup_points.png")
    # Arabic: the same sheet of the finished match, right to left
    window.toggle_language()
    window.sheet.open_match(window.sheet.match_id - 1)
    window.tabs.setCurrentWidget(window.sheet_view)
    shoot(window, args.out / "arabic_score_sheet.png")
    window.tabs.setCurrentWidget(window.dispute_view)
    shoot(window, args.out / "arabic_dispute.png")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
