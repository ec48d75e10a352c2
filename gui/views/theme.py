"""Dark, high-contrast style readable from two metres: big type, strong colours."""

from __future__ import annotations

BG = "#101418"
PANEL = "#1b2128"
TEXT = "#f2f2f2"
MUTED = "#a9b4c0"
ACCENT = "#ffd34d"
TEAM_COLOURS = ("#4fc3f7", "#ff8a65")  # Us, Them
DANGER = "#d32f2f"
NOTICE = "#5c6bc0"
OK = "#43a047"
SUIT_RED = "#ff6b6b"  # hearts and diamonds on black

BASE_PT = 16

STYLE = f"""
QWidget {{ background: {BG}; color: {TEXT}; font-size: {BASE_PT}pt; }}
QTabBar::tab {{ background: {PANEL}; color: {MUTED}; padding: 10px 22px; font-size: 17pt; }}
QTabBar::tab:selected {{ color: {ACCENT}; border-bottom: 3px solid {ACCENT}; }}
QPushButton {{ background: #2b3540; border: 1px solid #46525e; border-radius: 6px;
              padding: 8px 16px; min-height: 34px; }}
QPushButton:hover {{ background: #36424f; }}
QPushButton:focus {{ border: 2px solid {ACCENT}; }}
QPushButton:checked {{ background: {ACCENT}; color: #101418; font-weight: bold; }}
QPushButton:disabled {{ color: #5d6873; }}
QPushButton[role="call"] {{ font-size: 20pt; font-weight: bold; min-width: 120px;
                            min-height: 52px; }}
QPushButton[role="danger"] {{ background: {DANGER}; border-color: #ff6b6b; font-weight: bold; }}
QPushButton[role="ok"] {{ background: {OK}; font-weight: bold; }}
QLineEdit, QComboBox, QSpinBox {{ background: #0b0e11; border: 1px solid #46525e;
                                   padding: 6px; font-size: 20pt; }}
QLineEdit:disabled, QComboBox:disabled, QSpinBox:disabled {{ color: #5d6873;
                                                             border-color: #333d47; }}
QTableWidget {{ background: #0b0e11; gridline-color: #333d47; font-size: 16pt; }}
QHeaderView::section {{ background: {PANEL}; color: {TEXT}; padding: 6px; font-size: 16pt;
                        font-weight: bold; }}
QListWidget {{ background: #0b0e11; font-size: 15pt; }}
QProgressBar {{ background: #0b0e11; border: 1px solid #46525e; border-radius: 6px;
                height: 26px; text-align: center; font-size: 15pt; }}
QLabel[role="big"] {{ font-size: 40pt; font-weight: bold; }}
QLabel[role="title"] {{ font-size: 20pt; font-weight: bold; color: {ACCENT}; }}
QLabel[role="muted"] {{ color: {MUTED}; }}
QLabel[role="changed"] {{ color: {ACCENT}; font-weight: bold; }}
QLabel[role="error"] {{ color: #ff6b6b; font-weight: bold; }}
QLabel[role="status"][kind="error"] {{ color: #ff6b6b; font-weight: bold; }}
QLabel[role="status"][kind="saved"] {{ color: #7bd88f; font-weight: bold; }}
QLabel[role="status"][kind="info"] {{ color: {TEXT}; }}
QStatusBar {{ background: {PANEL}; color: {TEXT}; font-size: 16pt; }}
QGroupBox {{ border: 1px solid #333d47; border-radius: 8px; margin-top: 18px; padding: 10px; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 12px; color: {ACCENT}; }}
"""
