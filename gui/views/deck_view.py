"""The cards found while learning a deck, each with the name proposed for it: the person
confirms or corrects each (or drops a find that is no card), and *Save* is offered only when the
answers are the 32 Baloot cards once each (``hakam deck learn --window``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from hakam.engine.cards import CARD_NAMES
from hakam.gui.deck_answers import DeckAnswers
from hakam.gui.i18n import Language
from hakam.gui.views.live_view import to_qimage

COLUMNS = 6  # fits 1366x768 with the theme's 15-16 pt text
TILE_W, TILE_H = 120, 168


class DeckView(QDialog):
    """``exec()`` it; accepted: ``answers.answers`` are the person's."""

    def __init__(
        self,
        faces: Sequence[np.ndarray],
        answers: DeckAnswers,
        language: str = "en",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.answers, self.lang = answers, Language(language)
        root = QVBoxLayout(self)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        root.addWidget(self.hint)
        grid_host = QWidget()
        grid = QGridLayout(grid_host)
        self.choices: list[QComboBox] = []
        for k, face in enumerate(faces):
            tile = QVBoxLayout()
            picture = QLabel()
            image = QPixmap.fromImage(to_qimage(np.ascontiguousarray(face)))
            picture.setPixmap(image.scaled(TILE_W, TILE_H, Qt.AspectRatioMode.KeepAspectRatio,
                                           Qt.TransformationMode.SmoothTransformation))  # fmt: skip
            number = QLabel(self.lang.num(k + 1))
            number.setAlignment(Qt.AlignmentFlag.AlignCenter)
            choice = QComboBox()
            choice.addItems(["—", *(self.lang.card(c) for c in CARD_NAMES)])
            now = answers.answers[k]
            choice.setCurrentIndex(0 if now is None else CARD_NAMES.index(now) + 1)
            choice.activated.connect(lambda i, k=k: self._chosen(k, i))
            self.choices.append(choice)
            tile.addWidget(number)
            tile.addWidget(picture)
            tile.addWidget(choice)
            holder = QWidget()
            holder.setLayout(tile)
            grid.addWidget(holder, k // COLUMNS, k % COLUMNS)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(grid_host)
        root.addWidget(scroll, 1)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        root.addWidget(self.problem)
        actions = QHBoxLayout()
        self.cancel = QPushButton()
        self.cancel.clicked.connect(self.reject)
        self.save = QPushButton()
        self.save.setProperty("role", "ok")
        self.save.clicked.connect(self.accept)
        actions.addWidget(self.cancel)
        actions.addStretch(1)
        actions.addWidget(self.save)
        root.addLayout(actions)
        self.refresh()

    def _chosen(self, k: int, index: int) -> None:
        self.answers.set(k, None if index <= 0 else CARD_NAMES[index - 1])
        self.refresh()

    def refresh(self) -> None:
        lang = self.lang
        self.setLayoutDirection(
            Qt.LayoutDirection.RightToLeft if lang.rtl else Qt.LayoutDirection.LeftToRight
        )
        self.setWindowTitle(lang.tr("deck_title"))
        self.hint.setText(lang.tr("deck_hint"))
        parts = []
        if self.answers.missing():
            parts.append(
                lang.tr("deck_missing", cards=" ".join(map(lang.card, self.answers.missing())))
            )
        if self.answers.twice():
            parts.append(
                lang.tr("deck_twice", cards=" ".join(map(lang.card, self.answers.twice())))
            )
        self.problem.setText("; ".join(parts) if parts else lang.tr("deck_complete"))
        self.problem.setProperty("role", "error" if parts else "ok")
        self.save.setEnabled(not parts)
        self.save.setText(lang.tr("deck_save"))
        self.cancel.setText(lang.tr("deck_cancel"))
