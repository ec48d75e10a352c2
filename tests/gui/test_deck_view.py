"""Confirming the cards found while learning a deck: the answers and the window."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from hakam.engine.cards import CARD_NAMES
from hakam.gui.deck_answers import DeckAnswers
from hakam.gui.models import EntryError
from hakam.gui.views.deck_view import DeckView
from hakam.gui.views.main_window import make_app


def test_the_answers_say_what_is_missing_and_what_is_twice():
    answers = DeckAnswers([*CARD_NAMES[:31], "7C", None])
    assert answers.missing() == ["AS"] and answers.twice() == ["7C"] and not answers.complete()
    answers.set(32, "AS")
    assert answers.missing() == [] and answers.twice() == ["7C"]
    answers.set(0, None)  # the first find is dropped: 7C once
    assert answers.complete()
    with pytest.raises(EntryError, match="card 34: no such find"):
        answers.set(33, "AS")
    with pytest.raises(EntryError, match="'5H' is not a Baloot card"):
        answers.set(0, "5H")


def test_the_window_offers_save_only_for_the_32_cards_once_each(qtbot):
    make_app()
    proposals = [*CARD_NAMES[:31], "7C"]  # the last find proposed as 7C; it is AS
    faces = [np.full((176, 126, 3), 40 + 6 * k, np.uint8) for k in range(len(proposals))]
    answers = DeckAnswers(proposals)
    view = DeckView(faces, answers)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    assert not view.save.isEnabled()
    assert view.problem.text() == "missing: A♠; twice: 7♣"
    assert view.choices[31].currentText() == "7♣"
    view.choices[31].setCurrentIndex(CARD_NAMES.index("AS") + 1)
    view.choices[31].activated.emit(CARD_NAMES.index("AS") + 1)
    assert view.save.isEnabled() and view.problem.text() == "The 32 Baloot cards, once each."
    qtbot.mouseClick(view.save, Qt.MouseButton.LeftButton)
    assert view.result() == DeckView.DialogCode.Accepted
    assert answers.answers == list(CARD_NAMES)


def test_the_window_in_arabic(qtbot):
    make_app()
    view = DeckView([np.zeros((176, 126, 3), np.uint8)], DeckAnswers(["AS"]), "ar")
    qtbot.addWidget(view)
    assert view.layoutDirection() == Qt.LayoutDirection.RightToLeft
    assert view.problem.text().startswith("ناقصة: ") and not view.save.isEnabled()
    assert view.save.text() == "تعلَّم الورق واحفظه"
