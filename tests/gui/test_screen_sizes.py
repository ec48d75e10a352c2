"""The window fits the screen of a laptop (1366x768, 1280x720, at 100% scale), a netbook
(1024x600) and a portrait tablet (800x1280): in English and Arabic, every tab and every step of
the New deal panel keeps the window within the screen, and every button is in sight or in a panel
that scrolls to it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QRect
from PySide6.QtWidgets import QApplication, QPushButton, QScrollArea, QWidget

from hakam.engine.contract import Contract
from hakam.gui.match_store import MatchStore
from hakam.gui.models import manual_entry
from hakam.gui.screen_check import states
from hakam.gui.views.main_window import MainWindow, make_app

SIZES = [(1366, 768), (1280, 720), (1024, 600), (800, 1280)]  # laptops, a netbook, a tablet


def rect_in(widget: QWidget, window: QWidget) -> QRect:
    top_left = widget.mapTo(window, widget.rect().topLeft())
    return QRect(top_left, widget.size())


def scroller(widget: QWidget) -> QScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea):
            return parent
        parent = parent.parentWidget()
    return None


def settle() -> None:
    """Lay out, and delete the buttons of the last step (Qt deletes them later)."""
    QApplication.processEvents()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()


def unreachable(window: MainWindow, size: tuple[int, int]) -> list[str]:
    """The visible buttons that lie outside the screen and no panel scrolls into sight."""
    screen = QRect(0, 0, *size)
    out = []
    for b in window.findChildren(QPushButton):
        if not b.isVisible():
            continue
        if screen.contains(rect_in(b, window)):
            continue
        area = scroller(b)
        if area is not None and screen.contains(rect_in(area.viewport(), window)):
            # In the panel's content, and the panel's view can show it whole: scrolled to.
            content, view = area.widget(), area.viewport()
            if (
                QRect(0, 0, content.width(), content.height()).contains(rect_in(b, content))
                and b.width() <= view.width()
                and b.height() <= view.height()
            ):
                continue
        out.append(b.text() or b.objectName())
    return out


@pytest.mark.parametrize("language", ["en", "ar"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_tab_and_step_fits_the_screen(qtbot, data_dir, size, language):
    make_app()
    store = MatchStore()
    w = MainWindow(store, language)
    qtbot.addWidget(w)
    for dealer in range(3):  # a sheet with rows
        w.sheet.add(manual_entry(dealer, Contract("sun", 1, dealer), "70", 0))
    w.show()
    for state in states(w):
        w.resize(*size)
        settle()
        assert w.width() <= size[0] and w.height() <= size[1], (state, w.size())
        assert unreachable(w, size) == [], state
        if state == "banner":  # the engine's sentence under the picture, cards as 7♠
            text = w.live_view.banner.text.text()
            assert w.live_view.banner.isVisible()
            assert w.lang.code != "en" or ("7♠" in text and "7S" not in text)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_table_mode_with_the_bidding_under_the_picture_fits_the_screen(qtbot, data_dir, size):
    from hakam.gui.table_feed import SetupQueue
    from hakam.vision.match import MatchPipeline
    from hakam.vision.oracle import LabelDetector

    make_app()
    store = MatchStore()
    w = MainWindow(store, "en")
    qtbot.addWidget(w)
    setups = SetupQueue()
    match = MatchPipeline(LabelDetector([]), setups)
    w.table_feed(match, iter(()), (store.new_match(0), "sizes", str(data_dir / "out")), setups)
    w.show()
    steps = [lambda: w.setup.set_dealer(0), lambda: w.setup.set_open_card("9H"),
             lambda: w.setup.call("hokum")] + [lambda: w.setup.call("pass")] * 3  # fmt: skip
    for step in steps:
        step()
        w.resize(*size)
        settle()
        assert w.tabs.currentWidget() is w.live_view and w.setup_view.isVisible()
        assert w.width() <= size[0] and w.height() <= size[1], w.size()
        assert unreachable(w, size) == []
    assert w.setup.phase == "play" and w.setup_view.record_button.isVisible()


@pytest.mark.parametrize("language", ["en", "ar"])
def test_one_window_turned_from_a_laptop_to_a_portrait_tablet_fits_each(qtbot, data_dir,
                                                                         language):  # fmt: skip
    """The same window resized through the screens, a long ruling on its banner: the banner
    and the side panel wrap their lines rather than keep the window wider than the screen
    (it stayed 837 px wide on the tablet)."""
    make_app()
    w = MainWindow(MatchStore(), language)
    qtbot.addWidget(w)
    w.show()
    w.live.on_event({"event": "violation", "deal": 1, "trick": 1, "seat": 1, "card": "7S",
                     "rule": "follow-suit", "proof": {"trick": 2, "card": "7C"},
                     "text": "Seat 1 played 7S in trick 1 without following hearts, but he held "
                             "7C, which he played in trick 2."})  # fmt: skip
    w.tabs.setCurrentWidget(w.live_view)
    for size in SIZES:
        w.resize(*size)
        settle()
        assert w.width() <= size[0] and w.height() <= size[1], (size, w.size())
        assert unreachable(w, size) == [], size


def in_view(widget: QWidget, area: QScrollArea) -> bool:
    return QRect(0, 0, area.viewport().width(), area.viewport().height()).contains(
        rect_in(widget, area.viewport())
    )


@pytest.mark.parametrize("table", [False, True], ids=["new-deal-tab", "table-mode"])
def test_the_panel_scrolls_to_the_step_the_deal_is_at(qtbot, data_dir, table):
    """On a 1280x720 laptop (701 px under the title bar) the steps scroll; each new step is
    brought into sight, its buttons with it: table mode docked the bidding under the picture
    with its buttons below the panel's edge, the doubling out of sight after three passes."""
    from hakam.gui.table_feed import SetupQueue
    from hakam.vision.match import MatchPipeline
    from hakam.vision.oracle import LabelDetector

    make_app()
    store = MatchStore()
    w = MainWindow(store, "ar")
    qtbot.addWidget(w)
    if table:
        setups = SetupQueue()
        match = MatchPipeline(LabelDetector([]), setups)
        w.table_feed(match, iter(()), (store.new_match(0), "steps", str(data_dir / "o")), setups)
    else:
        w.tabs.setCurrentWidget(w.setup_view)
    w.resize(1280, 701)
    w.show()
    view, area = w.setup_view, w.setup_view.steps
    w.setup.set_dealer(0)
    w.setup.set_open_card("8D")
    qtbot.wait(50)
    calls = [b for b in view.findChildren(QPushButton) if b.objectName().startswith("call-")]
    assert calls and all(b.isVisible() and in_view(b, area) for b in calls)
    w.setup.call("hokum")
    for _ in range(3):
        w.setup.call("pass")
    qtbot.wait(50)
    raises = [b for b in view.raise_box.findChildren(QPushButton) if b.isVisible()]
    assert raises and in_view(view.contract_label, area) and in_view(raises[0], area)
    assert area.verticalScrollBar().value() > 0  # it did scroll: the steps did not all fit


def test_the_window_is_maximised_where_its_size_does_not_fit(qtbot, data_dir):
    """A window manager places the window at the size asked (1600x960) past a laptop's edges:
    shown as ``hakam gui`` shows it, it is maximised on a smaller screen."""
    make_app()
    w = MainWindow(MatchStore(), "en")
    qtbot.addWidget(w)
    room = w.screen().availableGeometry()
    assert room.width() < 1600 or room.height() < 960  # the offscreen screen: 800x600
    w.show_on_screen()
    assert w.isMaximized()
