"""Screenshots of the main states for the README and reviewers: ``python -m gui.screenshots``.

Plays the bundled demo match into a fresh window (temporary match store) and grabs: live view,
the warning banner, the deal set-up, the score sheet, the dispute view, and the Arabic layout;
and table mode on a rendered match clip: the bidding panel, the live view, the sheet.
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


def table_mode(out: Path, tmp: Path, deals: int = 2) -> None:
    """Table mode on a rendered match clip (read by the label detector: these are pictures of
    the window, not of the model): the panel with the open card the camera read, the live view
    in deal 1, the sheet after the match."""
    from hakam.engine.bidding import calls_for
    from hakam.engine.contract import Contract
    from hakam.gui.table_feed import SetupQueue
    from hakam.vision.match import MatchPipeline
    from hakam.vision.matchvideo import render_match
    from hakam.vision.oracle import LabelDetector
    from hakam.vision.sources import Frame

    clip = render_match(3, deals, size=(960, 540))
    store = MatchStore(tmp / "table.sqlite3")
    # the start screen: the camera's frame, the calibration clicked (centre, first dealer)
    from hakam.gui.start import StartController
    from hakam.gui.views.start_view import StartView

    for code in ("en", "ar"):
        start = StartController(store, "0", code, decks=["majlis"])  # a deck learnt here
        view = StartView(start, lambda _source: clip.frames[clip.deal_frames[0] + 30],
                         learn=lambda *_: None)  # *Learn a deck* shown  # fmt: skip
        view.resize(1000, 720)
        view.show()
        for point in (clip.calibration.centre, clip.calibration.dealer):
            start.click(*point, clip.calibration.frame_size)
        view.refresh()
        QApplication.processEvents()
        view.grab().save(str(out / f"table_start{'_arabic' if code == 'ar' else ''}.png"))
        view.close()
    window = MainWindow(store, "en")
    window.resize(1600, 960)
    window.show()
    setups = SetupQueue()
    match = MatchPipeline(LabelDetector(clip.labels), setups, calibration=clip.calibration)
    frames = (Frame(i, i / clip.fps, im) for i, im in enumerate(clip.frames))
    match_id = store.new_match(clip.deals[0].record["dealer"])
    bid, live_at = 0, clip.deal_frames[0] + 200
    for n, item in enumerate(window.table_feed(match, frames, (match_id, "shots", str(tmp)),
                                               setups)):  # fmt: skip
        window.feed_item(item)
        if window.setup.phase == "bidding" and not window.setup.bids and bid < deals:
            deal = clip.deals[bid].record
            if bid == 0:
                shoot(window, out / "table_bidding.png")
            for _, call in calls_for(Contract.from_json(deal["contract"]), deal["open_card"][-1]):
                window.setup.call(call)
            window.setup.start_deal()
            bid += 1
        if n == live_at:
            shoot(window, out / "table_live.png")
    window.tabs.setCurrentWidget(window.sheet_view)
    shoot(window, out / "table_sheet.png")
    window.close()


SCREENS = ((1366, 768), (1280, 720), (800, 1280))  # laptops at 100% scale, a portrait tablet


def screen_sizes(out: Path, tmp: Path) -> None:
    """The window at each screen size, in both languages: the live view with a violation's
    banner, New deal with a Hokum deal bought (its tallest step), the score sheet and the
    dispute view."""
    from hakam.engine.contract import Contract
    from hakam.gui.models import manual_entry

    for code in ("en", "ar"):
        window = MainWindow(MatchStore(tmp / f"sizes-{code}.sqlite3"), code)
        for dealer in range(3):
            window.sheet.add(manual_entry(dealer, Contract("sun", 1, dealer), "70", 0))
        window.show()
        window.setup.set_dealer(3)
        window.setup.set_open_card("9H")
        window.setup.call("hokum")
        for _ in range(3):
            window.setup.call("pass")
        window.live.on_event({"event": "violation", "deal": 1, "trick": 1, "seat": 1,
                              "card": "7S", "rule": "follow-suit",
                              "proof": {"trick": 2, "card": "7C"},
                              "text": "Seat 1 played 7S in trick 1 without following hearts, "
                                      "but he held 7C, which he played in trick 2."})  # fmt: skip
        views = ((window.live_view, "live"), (window.setup_view, "setup"),
                 (window.sheet_view, "sheet"), (window.dispute_view, "dispute"))  # fmt: skip
        for w, h in SCREENS:
            window.resize(w, h)
            for view, name in views:
                window.tabs.setCurrentWidget(view)
                shoot(window, out / f"screen_{w}x{h}_{code}_{name}.png")
        window.close()


def pdf_pages(out: Path, tmp: Path) -> None:
    """The PDF sheet in both languages as images (pypdfium2, a dev package, reads it back)."""
    import pypdfium2 as pdfium

    from hakam.engine.contract import Contract
    from hakam.gui.export import to_html
    from hakam.gui.i18n import Language
    from hakam.gui.models import ProjectEntry, ScoreSheet, manual_entry
    from hakam.gui.views.score_sheet_view import print_pdf

    entries = [
        manual_entry(0, Contract("sun", 1, 0), "70", 0),
        manual_entry(1, Contract("hokum", 2, 1, trump="H"), "90", 0,
                     projects=[ProjectEntry(2, "siri", "9H")]),
        manual_entry(2, Contract("sun", 3, 2), "130", 1, kaboot=1),
    ]  # fmt: skip
    for code in ("en", "ar"):
        pdf = print_pdf(to_html(ScoreSheet(0, entries).rows(), Language(code), "Hakam", True),
                        tmp / f"sheet-{code}.pdf")  # fmt: skip
        image = pdfium.PdfDocument(str(pdf))[0].render(scale=1.2).to_pil()
        path = out / f"sheet_pdf_{code}.png"
        image.crop((0, 0, image.width, image.height // 2)).save(path)
        print(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--only-table", action="store_true", help="table mode's shots only")
    parser.add_argument("--only-sizes", action="store_true", help="the screen sizes only")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    make_app()
    pdf_pages(args.out, Path(tempfile.mkdtemp(prefix="hakam-pdf-")))
    screen_sizes(args.out, Path(tempfile.mkdtemp(prefix="hakam-sizes-")))
    if args.only_sizes:
        return 0
    table_mode(args.out, Path(tempfile.mkdtemp(prefix="hakam-table-")))
    if args.only_table:
        return 0
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
