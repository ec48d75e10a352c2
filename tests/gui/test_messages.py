"""The window's one-line errors in Arabic: every message a table can cause in the panels is
in the catalogue (read from the controllers, not written out here), and one it does not know
keeps its English detail after its field's Arabic name."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from hakam.engine.contract import Contract
from hakam.gui.controllers import DealSetupController, ScoreSheetController
from hakam.gui.i18n import Language
from hakam.gui.match_store import MatchStore
from hakam.gui.messages import arabic, known, say
from hakam.gui.models import EntryError, manual_entry


def refusal(fn, *args) -> str:
    with pytest.raises(EntryError) as info:
        fn(*args)
    return str(info.value)


def setup_in_play(setup: DealSetupController, kind: str = "hokum") -> None:
    setup.set_dealer(0)
    setup.set_open_card("9H")
    setup.call(kind)
    for _ in range(3):
        setup.call("pass")


def table_messages(data_dir) -> list[str]:
    sheet = ScoreSheetController(MatchStore())
    setup = DealSetupController(sheet)
    out = [refusal(setup.set_open_card, "9H") if setup.dealer is None else ""]
    setup.set_dealer(0)
    out.append(refusal(setup.call, "pass"))  # no open card yet: the bidding is not open
    setup.set_open_card("9H")
    out.append(refusal(setup.record))  # the bidding is not finished
    out.append(refusal(setup.call, "ashkal"))  # the first speaker may not say Ashkal
    setup.restart()
    setup_in_play(setup, "sun")
    out.append(refusal(setup.toggle_baloot, 1))
    for text in ("", "abc", "-10", "700"):
        setup.set_points(0, text)
        out.append(refusal(setup.record))
    setup.restart()
    setup.play_on_camera(lambda line: None, 2)
    out.append(refusal(setup.set_dealer, 0))
    dealer = 0
    while sheet.finished is None:
        sheet.add(manual_entry(dealer, Contract("sun", 0, dealer), "130", 0, kaboot=0))
        dealer = sheet.next_dealer
    out.append(refusal(sheet.add, manual_entry(dealer, Contract("sun", 1, dealer), "70", 0)))
    return [m for m in out if m]


def test_every_message_a_table_can_cause_is_in_the_catalogue(data_dir):
    messages = table_messages(data_dir)
    assert len(messages) >= 9
    for message in messages:
        said = arabic(message)
        assert known(message), f"not in the catalogue: {message!r}"
        assert any("\u0600" <= ch <= "\u06ff" for ch in said), message
        assert not any(w in said for w in ("card", "bidding", "seat", "deal", "points")), said


def test_a_message_not_in_the_catalogue_keeps_its_detail():
    said = arabic("project: siri of 9S needs 7S, 8S, 9S")
    assert said.startswith("المشروع: ") and "siri of 9S needs 7S, 8S, 9S" in said


def test_an_english_message_is_said_as_a_sentence_unless_within_another():
    en = Language("en")
    assert say(en, "card 3: 'KS' is not a Baloot card") == "Card 3: 'K♠' is not a Baloot card"
    assert say(en, "correction: seat 0 played no QS", within=True) == (
        "correction: seat 0 played no Q♠")  # fmt: skip
    # A name written as it is stays so; a message that starts with a card or a digit too.
    for said in ("hakam-match/1: not a match file", "deck.json: unreadable", "3 cards left",
                 "AS seat 1 (not read)"):  # fmt: skip
        assert say(en, said) == said.replace("AS", "A♠")
    # Arabic the person typed stays whole inside an English line ("مجلس: 1", not "1 :مجلس").
    assert say(en, "deck name مجلس: 1 to 40") == "Deck name \u2067مجلس\u2069: 1 to 40"
    ar = say(Language("ar"), "no card found in the new picture: lay the cards face up before "
             "the camera, not touching")  # fmt: skip
    assert ar == arabic("no card found in the new picture: lay the cards face up before the "
                        "camera, not touching") and ar[0] not in "Nn"  # fmt: skip


def test_the_panel_says_a_refusal_in_arabic(qtbot, data_dir):
    from hakam.gui.views.main_window import MainWindow, make_app

    make_app()
    w = MainWindow(MatchStore(), "ar")
    qtbot.addWidget(w)
    w.show()
    w.tabs.setCurrentWidget(w.setup_view)
    setup_in_play(w.setup)
    view = w.setup_view
    qtbot.keyClicks(view.points_edit, "abc")
    qtbot.keyClick(view.points_edit, Qt.Key.Key_Return)
    assert view.message.kind == "error"
    assert view.message.text() == "الأبناط: «\u2066abc\u2069» ليس عددًا صحيحًا"
    assert view.preview.text() == view.message.text()  # the preview says why, in Arabic too


def test_the_questions_of_a_suspected_ruling_are_asked_in_arabic():
    """The banner's question (``hakam.vision.provenance.question``) for each way a play can be
    in doubt, with every reason a card is named."""
    from hakam.vision.provenance import NAMED_BY, RENAMED

    hows = ["read, but not lying clearly in front of a seat", "read in front of a seat not on turn",
            "confirmed"] + [f"not read: {r}" for r in [*NAMED_BY.values(), RENAMED]]  # fmt: skip
    for how in hows:
        said = arabic(f"Did seat 2 play AS in trick 1? The ruling depends on it ({how})")
        assert said.startswith("هل لعب اللاعب 2 الورقة \u2066A♠\u2069 في الأكلة 1؟"), how
        assert not any(w in said for w in ("read", "seat", "rule", "card")), said
    said = arabic("Did seat 3 break the rule in trick 2? The ruling depends on it")
    assert said == "هل خالف اللاعب 3 القاعدة في الأكلة 2؟ الحكم يتوقف على ذلك"
    # The card ruled out of turn (asked whether it went out of turn), and the other plays a yes
    # confirms with it.
    for how in hows[:2] + hows[3:]:
        said = arabic(f"Did seat 2 play AS in trick 1 out of turn? The ruling depends on it ({how})"
                      "; a yes confirms too: 8D seat 1, 9C seat 3")  # fmt: skip
        assert "بغير دوره" in said and "يؤكّد معها" in said, said
        assert not any(w in said for w in ("read", "seat", "rule", "card", "yes")), said


def test_the_pipelines_notices_are_said_in_arabic(data_dir):
    """The live view's notices come from the pipeline in English: the usual ones are in the
    catalogue (a card not read, a card read twice, a trick in doubt)."""
    from hakam.vision.matchvideo import render_match
    from hakam.vision.oracle import LabelDetector, ReadNoise
    from hakam.vision.pipeline import Pipeline
    from hakam.vision.settings import DealSetup
    from hakam.vision.sources import Frame

    m = render_match(3, 1, pixels=False)
    setup = DealSetup.from_record(m.deals[0].record)
    texts = set()
    for seed in range(3):  # reads dropped and misread: the pipeline asks about some cards
        p = Pipeline(setup, LabelDetector(m.labels, ReadNoise(drop=0.4, misread=0.05), seed),
                     calibration=m.calibration)  # fmt: skip
        events = [e for i, im in enumerate(m.frames) for e in p.process(Frame(i, i / 15, im))]
        texts |= {e["text"] for e in events + p.finish() if e["type"] == "uncertain"}
    waits = [t for t in texts if t.startswith("card in front of seat")]
    assert waits, texts
    for text in waits + [t for t in texts if t.startswith("a card reads as")]:
        assert known(text), text
