"""The PDF score sheet, read back: English headers whole (they broke inside words: "Deale r"),
and the Arabic sheet mirrored (the deal number on the right) with nothing broken either."""

from __future__ import annotations

import pytest

from hakam.engine.contract import Contract
from hakam.gui.export import to_html
from hakam.gui.i18n import Language
from hakam.gui.models import ProjectEntry, ScoreSheet, manual_entry
from hakam.gui.views.main_window import make_app
from hakam.gui.views.score_sheet_view import print_pdf

pdfium = pytest.importorskip("pypdfium2")


def sheet_pdf(tmp_path, code):
    make_app()
    entries = [
        manual_entry(0, Contract("sun", 1, 0), "70", 0),
        manual_entry(
            1, Contract("hokum", 2, 1, trump="H"), "90", 0, projects=[ProjectEntry(2, "siri", "9H")]
        ),
        manual_entry(2, Contract("sun", 3, 2), "130", 1, kaboot=1),
    ]
    path = print_pdf(to_html(ScoreSheet(0, entries).rows(), Language(code), "Hakam", True),
                     tmp_path / f"sheet-{code}.pdf")  # fmt: skip
    page = pdfium.PdfDocument(str(path))[0]
    return page, page.get_textpage()


def where(textpage, needle):
    """The left x of the first occurrence of ``needle`` in the page's text (None: absent)."""
    found = textpage.search(needle, match_case=True, match_whole_word=False).get_next()
    if found is None:
        return None
    index, _ = found
    return textpage.get_charbox(index)[0]


def test_the_english_sheet_has_its_headers_whole(tmp_path):
    page, text = sheet_pdf(tmp_path, "en")
    width = page.get_width()
    for header in ("Dealer", "Contract", "Projects", "Baloot", "Kaboot", "Them", "points"):
        assert where(text, header) is not None, header  # not broken inside the word
    assert where(text, "#") < 0.2 * width  # the deal number on the left


def test_the_arabic_sheet_is_mirrored(tmp_path):
    page, text = sheet_pdf(tmp_path, "ar")
    width = page.get_width()
    assert where(text, "#") > 0.8 * width  # the deal number on the right
    assert where(text, "152") is not None


def test_the_arabic_html_is_mirrored_by_the_browser_not_twice():
    """In HTML the page's ``dir="rtl"`` mirrors the table; only for Qt's printing (which does
    not) are the columns given in mirrored order."""
    rows = ScoreSheet(0, [manual_entry(0, Contract("sun", 1, 0), "70", 0)]).rows()
    page = to_html(rows, Language("ar"))
    printed = to_html(rows, Language("ar"), for_pdf=True)
    assert 'dir="rtl"' in page
    heads = page.split("<th ")[1:]
    assert ">#<" in heads[0] and ">#<" in printed.split("<th ")[-1]
