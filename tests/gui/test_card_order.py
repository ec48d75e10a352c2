"""Issue 50, point 4: a card reads rank then suit (7♠) in both languages, in the Arabic window
too, where each card is isolated left to right (LRI…PDI) inside right-to-left text.

Checked on the pixels each widget draws, not on its string: the rank and the suit are changed
one at a time (7 to 8, ♠ to ♣: the same width, nothing else moves) and the columns that change
are where that glyph is drawn; the rank must lie left of the suit."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QLabel

from hakam.gui.match_store import MatchStore

SWAP = dict(zip("7891٧٨٩١♠♣♥♦", "8972٨٧٨٢♣♠♦♥", strict=True))
CARD = re.compile("(10|١٠|[7-9٧-٩])([♠♣♥♦])")


def pixels(widget) -> np.ndarray:
    QApplication.processEvents()  # laid out as shown
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    w, h = image.width(), image.height()
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(h, image.bytesPerLine())
    return rows[:, : w * 3].reshape(h, w, 3).copy()


def drawn_at(widget, show, text: str, i: int) -> float:
    """The mean column where ``widget`` draws ``text[i]`` (``show`` puts text in it)."""
    show(text)
    before = pixels(widget)
    show(text[:i] + SWAP[text[i]] + text[i + 1 :])
    columns = np.nonzero((pixels(widget) != before).any(axis=(0, 2)))[0]
    show(text)
    assert columns.size, f"{text[i]!r} of {text!r} is not drawn"
    return float(columns.mean())


def rank_then_suit(widget, show, text: str) -> list[bool]:
    """For each card of ``text`` (a number rank), whether its rank is drawn left of its suit."""
    found = list(CARD.finditer(text))
    assert found, text
    return [
        drawn_at(widget, show, text, m.start(1)) < drawn_at(widget, show, text, m.start(2))
        for m in found
    ]


def test_the_check_sees_a_card_drawn_suit_first(qtbot):
    """Without the isolate, right-to-left text draws 7♠ as ♠7: the check must see it."""
    label = QLabel()
    qtbot.addWidget(label)
    label.setLayoutDirection(Qt.LayoutDirection.RightToLeft)
    label.resize(500, 60)
    label.show()
    assert rank_then_suit(label, label.setText, "اللاعب 1 لعب 7♠ في الأكلة 3") == [False]
    assert rank_then_suit(label, label.setText, "اللاعب 1 لعب \u20667♠\u2069 في") == [True]
    assert rank_then_suit(label, label.setText, "اللاعب 1 لعب \u2066١٠♥\u2069 في") == [True]


@pytest.mark.parametrize("digits", ["western", "arabic"])
def test_every_card_of_the_arabic_window_reads_rank_then_suit(qtbot, data_dir, digits):
    """The banner (the ruling, its question, its proof), the trick, the notices, the dispute's
    captions and ruling, the open card's buttons: in both digit styles."""
    from hakam.gui.feed import demo_feed
    from hakam.gui.views.main_window import MainWindow, make_app

    make_app()
    w = MainWindow(MatchStore(), "ar")
    qtbot.addWidget(w)
    w.resize(1366, 768)
    w.show()
    w.lang.set_digits(digits)
    w.feed_item(next(iter(demo_feed())))
    for seat, card in enumerate(["9C", "8D"]):
        w.live.on_event({"event": "play", "deal": 1, "trick": 1, "seat": seat, "card": card})
    w.live.on_event({"event": "violation", "deal": 1, "trick": 1, "seat": 1, "card": "8D",
                     "rule": "follow-suit", "proof": {"trick": 2, "card": "10C"},
                     "text": "Seat 1 played 8D in trick 1 without following clubs, but he held "
                     "10C, which he played in trick 2.", "status": "suspected",
                     "question": "Did seat 1 play 8D in trick 1? The ruling depends on it (read "
                     "in front of a seat not on turn)"})  # fmt: skip
    w.live.on_event({"event": "uncertain", "deal": 1, "seat": 2, "trick": 1,
                     "text": "card in front of seat 2 not read (trick 1); the deal waits for it "
                     "(9S, 10H held)"})  # fmt: skip
    live = w.live_view
    checks = [(x, x.setText, x.text()) for x in (live.banner.text, live.banner.proof, live.trick)]
    item = live.notices.item(0)
    checks.append((live.notices.viewport(), item.setText, item.text()))
    for widget, show, text in checks:
        assert all(rank_then_suit(widget, show, text)), text
    assert len(CARD.findall(live.banner.text.text())) == 3  # the ruling's two, the question's
    w.tabs.setCurrentWidget(w.dispute_view)
    w.dispute_view.select(1, 1)
    captions = [x for x in w.dispute_view.findChildren(QLabel) if CARD.search(x.text())]
    assert len(captions) >= 3  # two cards of the trick and the ruling
    for x in captions:
        assert all(rank_then_suit(x, x.setText, x.text())), x.text()
    w.tabs.setCurrentWidget(w.setup_view)
    w.setup.restart()
    w.setup.set_dealer(0)
    button = w.setup_view.card_buttons["10H"]
    assert rank_then_suit(button, button.setText, button.text()) == [True]
