"""Controllers without Qt: manual score sheet, persistence, deal set-up, live events, audit."""

from __future__ import annotations

import pytest

from hakam.engine.cards import CARD_NAMES
from hakam.engine.contract import Contract
from hakam.engine.replay import load_match, replay_match
from hakam.engine.scoring import score_deal
from hakam.gui import match_store
from hakam.gui.controllers import (
    DealSetupController,
    DeckAdvice,
    DisputeController,
    LiveController,
    RaiseOption,
    ScoreSheetController,
)
from hakam.gui.i18n import STRINGS
from hakam.gui.match_store import MatchStore
from hakam.gui.models import EntryError, ProjectEntry, manual_entry


def sheet_ctl() -> ScoreSheetController:
    return ScoreSheetController(MatchStore())


def hokum(declarer: int, dealer: int, trump: str = "S", **kw) -> Contract:
    return Contract("hokum", declarer, dealer, trump=trump, **kw)


def test_data_dir_follows_env(data_dir):
    assert match_store.data_dir() == data_dir
    assert MatchStore().path.parent == data_dir


def test_manual_entry_types_one_side_and_the_engine_scores_the_rest(data_dir):
    ctl = sheet_ctl()
    c = hokum(declarer=1, dealer=0)
    ctl.add(manual_entry(0, c, "70", points_team=0))
    row = ctl.rows()[0]
    assert row.entry.card_points == (70, 92)
    # by hand: team 1 counts 92 -> 9, team 0 gets 16 - 9 = 7; the buyers win, not raised
    assert row.result == (7, 9)
    assert row.result == score_deal(c, (70, 92), (4, 4)).result
    assert ctl.totals == (7, 9)
    assert ctl.next_dealer == 1
    assert ctl.progress(1) == pytest.approx(9 / 152)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "type the card points"),
        ("7O", "not a whole number"),
        ("163", "more than the 162"),
        ("-10", r"-10 is below 0 \(0 to 162\)"),
        ("-x", "not a whole number"),
    ],
)
def test_bad_points_give_one_line_and_change_nothing(data_dir, text, message):
    ctl = sheet_ctl()
    ctl.add(manual_entry(0, hokum(1, 0), "80", 0))
    before = MatchStore().load(ctl.match_id)
    with pytest.raises(EntryError, match=message) as err:
        ctl.add(manual_entry(1, hokum(2, 1), text, 0))
    assert "\n" not in str(err.value)
    assert MatchStore().load(ctl.match_id) == before == ctl.sheet


def test_arabic_digits_are_read(data_dir):
    entry = manual_entry(0, Contract("sun", 0, 0), "٦٥", 1)
    assert entry.card_points == (65, 65)


def test_kaboot_doubling_and_projects_are_scored_by_the_engine(data_dir):
    ctl = sheet_ctl()
    c = hokum(0, 3, trump="H", level="double", raised_by=(1,), locked=True)
    proj = ProjectEntry(2, "fifty", top="KD")
    ctl.add(manual_entry(3, c, "", 0, kaboot=0, projects=[proj], baloot=[0]))
    row = ctl.rows()[0]
    assert row.entry.card_points == (162, 0)
    assert row.outcome is not None and row.outcome.kaboot == 0
    expected = score_deal(c, (162, 0), (8, 0), [proj.to_project(False)], [0])
    assert row.result == expected.result
    with pytest.raises(EntryError, match="kaboot gives team 0 all 162"):
        manual_entry(3, c, "100", 0, kaboot=0)
    with pytest.raises(EntryError, match="no Baloot in Sun"):
        manual_entry(3, Contract("sun", 0, 3), "65", 0, baloot=[0])


def test_edit_delete_undo_and_restart_restore_the_match(data_dir):
    ctl = sheet_ctl()
    ctl.add(manual_entry(0, hokum(1, 0), "70", 0))
    ctl.add(manual_entry(1, Contract("sun", 2, 1), "40", 1))
    totals = ctl.totals
    ctl.replace(0, manual_entry(0, hokum(1, 0), "100", 0))
    assert ctl.rows()[0].entry.card_points == (100, 62)
    assert ctl.totals != totals
    assert ctl.undo() == "edit deal 1"
    assert ctl.totals == totals
    ctl.delete(0)
    assert len(ctl.rows()) == 1
    assert ctl.rows()[0].entry.dealer == 1
    # a new process: same file, same match, and undo still works
    again = sheet_ctl()
    assert again.match_id == ctl.match_id
    assert again.sheet == ctl.sheet
    assert again.undo() == "delete deal 1"
    assert again.totals == totals
    assert sheet_ctl().totals == totals


def test_match_to_152_finishes_with_a_winner(data_dir):
    ctl = sheet_ctl()
    dealer = 0
    while ctl.finished is None:
        ctl.add(manual_entry(dealer, Contract("sun", 0, dealer), "130", 0, kaboot=0))
        dealer = ctl.next_dealer
    row = ctl.finished
    assert row.match_winner == 0 and row.match[0] >= 152
    assert len(ctl.rows()) == 4  # a Sun kaboot writes 44: 44 x 4 = 176, 44 x 3 = 132


def test_no_deal_counts_after_the_match_is_decided(data_dir):
    """A deal typed after the match was won is refused in one line; one the camera saw after
    it is not counted (and said); the totals are where the match was decided."""
    ctl = sheet_ctl()
    dealer = 0
    while ctl.finished is None:
        ctl.add(manual_entry(dealer, Contract("sun", 0, dealer), "130", 0, kaboot=0))
        dealer = ctl.next_dealer
    with pytest.raises(EntryError, match=r"the match is over at deal 4 \(176-0\)"):
        ctl.add(manual_entry(dealer, Contract("sun", 1, dealer), "130", 0))
    live = LiveController(ctl)
    contract = Contract("sun", 1, dealer).to_json()
    live.on_events([{"event": "deal", "deal": 5, "dealer": dealer, "contract": contract},
                    {"event": "score", "deal": 5, "complete": True, "card_points": [0, 130],
                     "result": [0, 26]}])  # fmt: skip
    assert len(ctl.rows()) == 4 and live.not_counted == [5]
    assert ctl.totals == (176, 0) == ctl.finished.match


def test_setup_offers_only_the_engines_calls_and_records_the_deal(data_dir):
    sheet = sheet_ctl()
    setup = DealSetupController(sheet)
    assert setup.phase == "open" and setup.dealer == 0
    setup.set_dealer(3)
    assert sheet.next_dealer == 3  # the match's first deal: the header says who deals it
    setup.set_open_card("9H")
    assert setup.turn == 0
    assert setup.legal_calls() == ["pass", "hokum", "sun"]  # no Ashkal for the first speaker
    with pytest.raises(EntryError, match="not allowed"):
        setup.call("hokum:S")
    assert setup.bids == []
    setup.call("pass")
    setup.call("hokum")
    assert setup.legal_calls() == ["pass", "sun"]
    setup.call("pass")
    setup.call("pass")
    setup.call("pass")  # seat 0, earlier than the buyer, declines Sun
    assert setup.phase == "play"
    assert setup.contract() == hokum(1, 3, trump="H")
    doubles = setup.raise_options()
    assert {(o.seat, o.locked) for o in doubles} == {(0, False), (0, True), (2, False), (2, True)}
    setup.say_raise(RaiseOption(2, "double", True))
    assert {o.seat for o in setup.raise_options()} == {1}  # only the buyer triples
    assert setup.contract().locked
    setup.announce(1, ProjectEntry(0, "siri", top="AC"))
    setup.toggle_baloot(3)
    setup.set_points(1, "90")
    index = setup.record()
    row = sheet.rows()[index]
    assert row.entry.contract["level"] == "double" and row.entry.contract["locked"]
    assert row.entry.card_points == (72, 90)
    assert row.entry.bids[1] == (1, "hokum")
    assert setup.phase == "open" and setup.dealer == 0  # the next dealer


def test_setup_draft_survives_a_restart_and_void_deal_is_written(data_dir):
    setup = DealSetupController(sheet_ctl())
    setup.set_dealer(1)
    setup.set_open_card("KD")
    for _ in range(3):
        setup.call("pass")
    again = DealSetupController(sheet_ctl())
    assert again.bids == setup.bids and again.turn == 1
    for _ in range(5):
        again.call("pass")
    assert again.phase == "void"
    index = again.record()
    assert again.sheet.rows()[index].entry.void
    assert again.sheet.next_dealer == 2


def test_edit_through_setup_replaces_the_deal(data_dir):
    sheet = sheet_ctl()
    setup = DealSetupController(sheet)
    setup.set_dealer(0)
    setup.set_open_card("JS")
    setup.call("sun")
    for _ in range(3):
        setup.call("pass")
    setup.set_points(0, "60")
    setup.record()
    setup.edit(0)
    assert setup.phase == "play" and setup.points_text == "60"
    setup.set_points(0, "75")
    assert setup.record() == 0
    assert len(sheet.rows()) == 1
    assert sheet.rows()[0].entry.card_points == (75, 55)


def demo_events():
    return list(replay_match(load_match()))


def test_live_demo_match_fills_the_sheet_like_the_replay(data_dir):
    sheet = sheet_ctl()
    live = LiveController(sheet)
    alerts = []
    live.subscribe_alert(alerts.append)
    events = demo_events()
    live.on_events(events)
    scores = {e["deal"]: e for e in events if e["event"] == "score"}
    rows = sheet.rows()
    final = events[-1]
    assert len(rows) == len(final["deals"])
    assert [list(r.result) for r in rows] == [d["result"] for d in final["deals"]]
    assert list(sheet.totals) == final["match"]
    assert live.mismatches == []
    assert len(alerts) == 1 and alerts[0].rule == "follow-suit" and alerts[0].deal == 9
    assert rows[8].entry.penalty == {"rule": "follow-suit", "seat": 1, "team": 0}
    assert list(rows[8].result) == scores[9]["result"]
    # the table overrules the warning: deal 9 is scored as played, the later totals follow
    live.dismiss(alerts[0].id)
    played = {
        e["deal"]: e
        for e in replay_match(load_match(), accept_penalties=False)
        if e["event"] == "score"
    }
    assert list(sheet.rows()[8].result) == played[9]["result"]
    assert [w["status"] for w in MatchStore().warnings(sheet.match_id)] == ["dismissed"]
    live.accept(alerts[0].id)
    assert list(sheet.rows()[8].result) == scores[9]["result"]


def test_audit_reruns_the_referee_on_the_logged_plays(data_dir):
    live = LiveController(sheet_ctl())
    live.on_events(demo_events())
    dispute = DisputeController(live)
    assert 9 in dispute.deal_numbers() and 3 not in dispute.deal_numbers()
    report = dispute.audit(9)
    assert report.tricks == 8 and report.agrees
    assert [v["rule"] for v in report.violations] == ["follow-suit"]
    assert [w.rule for w in dispute.violations(9, trick=2)] == ["follow-suit"]  # the proof
    assert dispute.violations(9, trick=5) == []
    clean = dispute.audit(1)
    assert clean.violations == [] and clean.agrees and sum(clean.card_points) == 162


def test_the_deal_as_refereed_last_is_what_the_dispute_view_audits(data_dir):
    # Deal 1 with trick 1's first two cards told in the wrong order (seat 0's QS before seat
    # 3's lead, out of turn), a ruling the pipeline then withdrew: its score event gives the
    # tricks as refereed last. The dispute view shows them so, and the audit, which reran the
    # referee on the plays as told and counted the withdrawn ruling, agrees.
    events = [e for e in demo_events() if e.get("deal") in (None, 1)]
    first = [i for i, e in enumerate(events) if e["event"] == "play"][:2]
    events[first[0]], events[first[1]] = events[first[1]], events[first[0]]
    oot = {
        "deal": 1,
        "trick": 1,
        "seat": 0,
        "card": "QS",
        "rule": "out-of-turn",
        "proof": None,
        "text": "Seat 0 played QS in trick 1 out of turn; seat 3 was to play.",
    }
    score = next(i for i, e in enumerate(events) if e["event"] == "score")
    tricks, plays = [], [e for e in events if e["event"] == "play"]
    for n in range(1, 9):
        told = sorted((e for e in plays if e["trick"] == n), key=lambda e: events.index(e))
        if n == 1:
            told = [told[1], told[0], *told[2:]]  # as refereed last: seat 3 leads
        won = next(e for e in events if e["event"] == "trick" and e["trick"] == n)
        tricks.append(
            {
                "cards": [e["card"] for e in told],
                "seats": [e["seat"] for e in told],
                "winner": won["winner"],
                "points": won["points"],
            }
        )
    events[score] = {**events[score], "tricks": tricks}
    events[score:score] = [{"event": "violation", **oot, "status": "suspected"},
                           {"event": "withdrawn", **oot}]  # fmt: skip
    live = LiveController(sheet_ctl())
    live.on_events(events)
    dispute = DisputeController(live)
    assert [(p.seat, p.card) for p in dispute.tricks(1)[0].plays][:2] == [(3, "JS"), (0, "QS")]
    report = dispute.audit(1)
    assert report.violations == [] and report.agrees


def live_in_trick_one() -> LiveController:
    """The live view fed the demo match up to its first complete trick."""
    live = LiveController(sheet_ctl())
    events = demo_events()
    live.on_events(events[: events.index(next(e for e in events if e["event"] == "trick"))])
    return live


def test_the_turn_is_the_seat_the_deal_waits_for_and_none_after_the_deal(data_dir):
    live = live_in_trick_one()
    live.on_event({"event": "play", "deal": 1, "trick": 2, "seat": 0, "card": "7H", "turn": 2})
    assert live.turn == 2  # seat 1 played out of turn before: seat 2 is waited for, not 1
    live.on_event({"event": "play", "deal": 1, "trick": 2, "seat": 2, "card": "10C"})
    assert live.turn == 3  # an event that does not say: the next seat
    for n in range(2, 9):
        live.on_event({"event": "trick", "deal": 1, "trick": n, "winner": 1, "points": 10})
    assert live.turn is None


def test_uncertain_read_is_corrected_with_one_click(data_dir):
    live = live_in_trick_one()
    live.on_event({"event": "uncertain", "deal": 1, "seat": 2, "trick": 2, "text": "seat 2"})
    notice = live.open_notices()[0]
    possible = live.possible_cards(notice)
    assert len(possible) == 28 and "JS" not in possible
    sent = []
    live.subscribe_corrections(sent.append)
    with pytest.raises(EntryError, match="unknown card"):
        live.correct(notice.id, "1X")
    live.correct(notice.id, "10H")
    assert sent == [{"event": "correction", "deal": 1, "trick": 2, "seat": 2, "card": "10H",
                     "answer": notice.id}]  # fmt: skip
    assert live.open_notices() == []
    stored = MatchStore().warnings(live.sheet.match_id)
    assert stored[0]["status"] == "corrected" and stored[0]["data"]["card"] == "10H"


def test_the_deck_advice_is_said_not_asked(data_dir):
    """The cards do not read like the deck chosen: a line for the table, no notice to tap (a
    tap would send a card for the seat on turn), nothing stored to decide."""
    live = live_in_trick_one()
    text = ("these cards read better with deck majlis than with the standard readers (40 "
            "reads deck majlis was sure of and the standard readers were not, 2 the other way "
            "round): if the table plays deck majlis, read with it (the start screen's deck, or "
            "--deck majlis)")  # fmt: skip
    live.on_event({"event": "uncertain", "deal": 1, "seat": None, "trick": None, "text": text,
                   "about": "deck", "deck": None, "like": "majlis", "frame": 12})  # fmt: skip
    assert live.deck_advice == DeckAdvice(None, "majlis") and live.open_notices() == []
    assert MatchStore().warnings(live.sheet.match_id) == []
    # Hidden, it is not said again in this match: not after a restart, not by a new reader.
    advice = {"event": "uncertain", "deal": 1, "seat": None, "trick": None, "text": text,
              "about": "deck", "deck": None, "like": "majlis", "frame": 12}  # fmt: skip
    live.hide_deck_advice()
    again = LiveController(ScoreSheetController(MatchStore(), live.sheet.match_id))
    again.on_event(advice)
    assert again.deck_advice is None
    again.on_event({**advice, "like": "diwan"})  # nor other advice: the table has read it
    assert again.deck_advice is None
    assert MatchStore().setting(f"deck_advice_hidden|{live.sheet.match_id}") == "- > majlis"
    other = sheet_ctl()
    other.new_match()
    assert other.match_id != live.sheet.match_id
    fresh = LiveController(other)  # another match: said
    fresh.on_event(advice)
    assert fresh.deck_advice == DeckAdvice(None, "majlis")


@pytest.mark.parametrize(
    "by, status",
    [("elimination", "eliminated"), ("rules", "deduced"), ("reader", "read_unsurely"),
     ("same-result", "same_result"), ("exchange", "exchanged"), ("fewest", "fewest_broken"),
     ("reads", "read_sparsely")],
)  # fmt: skip
def test_a_notice_the_pipeline_closes_itself_says_how(data_dir, by, status):
    live = live_in_trick_one()
    live.on_event({"event": "uncertain", "deal": 1, "seat": 2, "trick": 2, "text": "seat 2"})
    live.on_event({"event": "correction", "deal": 1, "trick": 2, "seat": 2, "card": "10H",
                   "by": by})  # fmt: skip
    assert live.open_notices() == [] and live.notices[0].status == status
    stored = MatchStore().warnings(live.sheet.match_id)
    assert stored[0]["status"] == status and stored[0]["data"]["card"] == "10H"
    assert f"status_{status}" in STRINGS  # the live view says it in both languages


def test_the_readers_guesses_come_first_in_the_correction_short_list(data_dir):
    live = live_in_trick_one()
    seen = sorted(live.current.seen_cards())
    a, b = [c for c in CARD_NAMES if c not in seen][-2:]  # last in deck order unless guessed
    live.on_event({"event": "uncertain", "deal": 1, "seat": 2, "trick": 2, "text": "seat 2",
                   "guesses": [b, seen[0], a]})  # fmt: skip
    possible = live.possible_cards(live.open_notices()[0])
    assert possible[:2] == [b, a] and len(possible) == 28 and seen[0] not in possible


def test_a_ruling_the_pipeline_withdraws_after_a_correction_no_longer_scores(data_dir):
    live = live_in_trick_one()
    ruling = {"deal": 1, "trick": 1, "seat": 1, "card": "7S", "rule": "follow-suit",
              "proof": {"trick": 2, "card": "7C"}, "text": "no clubs"}  # fmt: skip
    live.on_event({"event": "violation", **ruling})
    assert live._penalty(1) == {"rule": "follow-suit", "seat": 1, "team": 0}
    live.on_event({"event": "correction", "deal": 1, "trick": 1, "seat": 0, "card": "QS",
                   "replaces": "QC", "by": "conflict"})  # fmt: skip
    live.on_event({"event": "withdrawn", **ruling})
    assert live.warnings[0].status == "withdrawn" and live._penalty(1) is None
    assert [w["status"] for w in MatchStore().warnings(live.sheet.match_id)] == ["withdrawn"]
    # One the table dismissed is withdrawn too (it stood as dismissed, listed as standing, in
    # a walk); the table's decision is kept beside it.
    live.on_event({"event": "violation", **ruling, "trick": 2})
    live.dismiss(live.warnings[1].id)
    live.on_event({"event": "withdrawn", **ruling, "trick": 2})
    assert live.warnings[1].status == "withdrawn"
    row = MatchStore().warnings(live.sheet.match_id)[1]
    assert (row["status"], row["data"]["decided"]) == ("withdrawn", "dismissed")


def test_a_suspected_ruling_scores_nothing_until_the_table_confirms_it(data_dir):
    sheet = sheet_ctl()
    live = LiveController(sheet)
    sent = []
    live.subscribe_corrections(sent.append)
    question = "Did seat 1 play 7S in trick 1? The ruling depends on it (not read: ...)"
    events = []
    for e in demo_events():
        if e["event"] == "violation":
            e = {**e, "status": "suspected", "question": question}
        if e["event"] == "score" and e["deal"] == 9:
            e = {**e, "status": "provisional"}
        events.append(e)
    live.on_events(events)
    played = {
        e["deal"]: e
        for e in replay_match(load_match(), accept_penalties=False)
        if e["event"] == "score"
    }
    row = sheet.rows()[8]
    (w,) = live.warnings
    assert (w.known, w.question) == ("suspected", question)
    assert row.entry.penalty is None and row.entry.provisional  # scored as played, said so
    assert list(row.result) == played[9]["result"]
    board = []
    live.subscribe_decisions(board.extend)
    live.confirm_ruling(w.id)  # the question answered yes: the pipeline is told, it counts
    assert sent == [{"event": "confirm", "confirm": True, "deal": 9, "trick": w.trick,
                     "seat": w.seat, "rule": "follow-suit", "card": w.card,
                     "answer": w.id}]  # fmt: skip
    assert sheet.rows()[8].entry.penalty == {"rule": "follow-suit", "seat": 1, "team": 0}
    # Proven now, and still the table's to accept or dismiss as any proven ruling.
    assert (w.status, w.known, w.confirmed) == ("open", "proven", True)
    assert w in live.open_warnings()
    assert [e["status"] for e in board if e["type"] == "violation_status"] == ["proven"]
    assert MatchStore().warnings(sheet.match_id)[0]["status"] == "confirmed"
    with pytest.raises(EntryError, match="not a question open"):
        live.confirm_ruling(w.id)
    live.dismiss(w.id)
    assert sheet.rows()[8].entry.penalty is None
    live.accept(w.id)
    assert sheet.rows()[8].entry.penalty == {"rule": "follow-suit", "seat": 1, "team": 0}
    score9 = next(e for e in events if e["event"] == "score" and e["deal"] == 9)
    live.on_event({**score9, "status": "final"})  # the pipeline scores the deal again
    assert not sheet.rows()[8].entry.provisional
    assert list(sheet.rows()[8].result) == score9["result"]


def test_a_ruling_told_again_as_proven_counts_at_once(data_dir):
    live = live_in_trick_one()
    ruling = {"deal": 1, "trick": 1, "seat": 1, "card": "7S", "rule": "follow-suit",
              "proof": {"trick": 2, "card": "7C"}, "text": "no clubs"}  # fmt: skip
    live.on_event({"event": "violation", **ruling, "status": "suspected", "question": "Did?"})
    assert live._penalty(1) is None
    live.on_event({"event": "violation_status", **ruling, "status": "proven", "question": None})
    assert live.warnings[0].known == "proven" and live._penalty(1) is not None


def test_a_persons_confirmation_outlives_a_restart_the_pipeline_did_not_answer(data_dir):
    """Confirmed in the window, the pipeline gone before it told the ruling proven: restored,
    the ruling is still proven and open (the person's word is not lost, nor asked again);
    restated suspected later (a correction moved what it rests on), it is asked again."""
    sheet = sheet_ctl()
    live = LiveController(sheet)
    events = [{**e, "status": "suspected", "question": "Did?"} if e["event"] == "violation"
              else e for e in demo_events()]  # fmt: skip
    live.on_events(events)
    (w,) = live.warnings
    live.confirm_ruling(w.id)
    rows = [r.result for r in sheet.rows()]
    again = LiveController(ScoreSheetController(MatchStore(), sheet.match_id))
    again.restore(events)
    (r,) = again.warnings
    assert (r.status, r.known, r.confirmed) == ("open", "proven", True)
    assert again._penalty(r.deal) is not None and [x.result for x in again.sheet.rows()] == rows
    restated = {"event": "violation_status", "deal": r.deal, "trick": r.trick, "seat": r.seat,
                "rule": r.rule, "card": r.card, "status": "suspected", "question": "?"}  # fmt: skip
    again.on_event(restated)
    assert (r.status, r.known, r.confirmed) == ("open", "suspected", False)
    assert again._penalty(r.deal) is None
    assert MatchStore().warnings(sheet.match_id)[0]["status"] == "open"


def test_a_confirmation_the_pipeline_refuses_asks_the_ruling_again(data_dir):
    """The pipeline refuses the table's confirmation (a deal refereed before a restart): the
    ruling is suspected again, as the pipeline has it, scoring nothing (it was counted as
    proven, and stored so for the next restart). A ruling the table dismissed is not a
    question: confirming it is refused and changes nothing."""
    live = live_in_trick_one()
    ruling = {"deal": 1, "trick": 1, "seat": 1, "card": "7S", "rule": "follow-suit",
              "proof": {"trick": 2, "card": "7C"}, "text": "no clubs"}  # fmt: skip
    live.on_event({"event": "violation", **ruling, "status": "suspected", "question": "Did?"})
    w = live.warnings[0]
    live.confirm_ruling(w.id)
    assert live._penalty(1) is not None
    live.on_event({"event": "uncertain", "deal": 1, "seat": 1, "answer": w.id,
                   "text": "confirmation: deal 1 was refereed before a restart"})  # fmt: skip
    assert (w.status, w.known, w.confirmed, w.question) == ("open", "suspected", False, "Did?")
    assert live._penalty(1) is None and live.refusal.startswith("confirmation:")
    assert [r["status"] for r in MatchStore().warnings(live.sheet.match_id)] == ["open"]
    live.dismiss(w.id)
    with pytest.raises(EntryError, match="not a question open"):
        live.confirm_ruling(w.id)
    assert [r["status"] for r in MatchStore().warnings(live.sheet.match_id)] == ["dismissed"]


def test_an_answer_taken_is_forgotten_and_a_later_refusal_reopens_nothing(data_dir):
    live = live_in_trick_one()
    live.on_event({"event": "uncertain", "deal": 1, "seat": 2, "trick": 2, "text": "seat 2"})
    (n,) = live.open_notices()
    live.correct(n.id, "10H")
    live.on_event({"event": "correction", "deal": 1, "trick": 2, "seat": 2, "card": "10H",
                   "by": "table", "answer": n.id})  # fmt: skip
    assert live._answered == {}
    live.on_event({"event": "uncertain", "deal": 1, "seat": 2, "answer": n.id,
                   "text": "correction: seat 2 played no 10H in trick 2"})  # fmt: skip
    assert n.status == "corrected"


def test_a_ruling_accepted_as_proven_is_asked_again_when_it_turns_suspected(data_dir):
    live = live_in_trick_one()
    ruling = {"deal": 1, "trick": 1, "seat": 1, "card": "7S", "rule": "follow-suit",
              "proof": {"trick": 2, "card": "7C"}, "text": "no clubs"}  # fmt: skip
    live.on_event({"event": "violation", **ruling, "status": "proven"})
    live.accept(live.warnings[0].id)
    assert live._penalty(1) is not None
    live.on_event({"event": "violation_status", **ruling, "status": "suspected", "question": "?"})
    w = live.warnings[0]
    assert (w.status, w.known) == ("open", "suspected") and live._penalty(1) is None


def test_a_trick_in_doubt_is_confirmed_as_recorded_with_one_answer(data_dir):
    live = live_in_trick_one()
    sent = []
    live.subscribe_corrections(sent.append)
    live.on_event({"event": "uncertain", "deal": 1, "seat": None, "trick": 1, "text": "trick 1",
                   "confirm_trick": 1})  # fmt: skip
    live.on_event({"event": "uncertain", "deal": 1, "seat": 2, "trick": 2, "text": "seat 2"})
    trick_notice, card_notice = live.open_notices()
    with pytest.raises(EntryError, match="no trick to confirm"):
        live.confirm_trick(card_notice.id)
    live.confirm_trick(trick_notice.id)
    assert sent == [{"event": "confirm", "confirm": True, "deal": 1, "trick": 1, "seat": None,
                     "rule": None, "card": None, "answer": trick_notice.id}]  # fmt: skip
    assert live.open_notices() == [card_notice]


def test_a_sheet_with_a_deal_after_the_decided_one_totals_where_it_was_decided():
    from hakam.gui.models import ScoreSheet

    entries = []
    for dealer in range(5):  # four Sun kaboots decide it (176); a fifth was written after
        entries.append(manual_entry(dealer % 4, Contract("sun", 1, dealer % 4), "130", 1,
                                    kaboot=1))  # fmt: skip
    sheet = ScoreSheet(0, entries)
    assert sheet.rows()[-1].match == (0, 220)
    assert sheet.totals == sheet.finished_at().match == (0, 176)


def test_a_restored_match_has_its_rulings_as_decided_and_writes_nothing(data_dir):
    """After a restart the window gives the logged events again (``restore``): the deals open
    in the Dispute tab with their rulings decided as before; no ruling is added or sounded, no
    row written again."""
    sheet = sheet_ctl()
    live = LiveController(sheet)
    events = list(demo_events())
    live.on_events(events)
    (w,) = live.warnings
    live.accept(w.id)
    # Restated as suspected (asked again), then the table accepted it again: the store says
    # accepted, and so must the restored ruling.
    restated = {"event": "violation_status", "deal": w.deal, "trick": w.trick, "seat": w.seat,
                "rule": w.rule, "card": w.card, "status": "suspected",
                "question": "Did?"}  # fmt: skip
    live.on_event(restated)
    events.append(restated)
    assert live.warnings[0].status == "open"
    live.accept(w.id)
    live.on_event({"event": "uncertain", "deal": 2, "seat": 1, "trick": 3, "text": "seat 1"})
    events.append({"event": "uncertain", "deal": 2, "seat": 1, "trick": 3, "text": "seat 1"})
    rows = [r.result for r in sheet.rows()]
    stored = MatchStore().warnings(sheet.match_id)
    again = LiveController(ScoreSheetController(MatchStore(), sheet.match_id))
    alerts = []
    again.subscribe_alert(alerts.append)
    again.restore(events)
    assert [r.result for r in again.sheet.rows()] == rows and not alerts
    assert MatchStore().warnings(sheet.match_id) == stored
    assert [(x.id, x.status) for x in again.warnings] == [(w.id, "accepted")]
    assert [n.status for n in again.notices] == ["open"]
    dispute = DisputeController(again)
    assert dispute.deal_numbers() == DisputeController(live).deal_numbers()
    assert again.deals[w.deal].sheet_index == live.deals[w.deal].sheet_index


def test_a_decision_tells_the_board_the_deals_score_as_the_sheet_has_it(data_dir):
    """Dismissing a proven ruling takes its penalty off the sheet: a tournament's board must
    hear the deal's new score, not only the ruling's status."""
    sheet = sheet_ctl()
    live = LiveController(sheet)
    alerts, told = [], []
    live.subscribe_alert(alerts.append)
    live.subscribe_decisions(told.append)
    live.on_events(demo_events())
    penalised = list(sheet.rows()[8].result)
    live.dismiss(alerts[0].id)
    ruling, score = told[-1]
    assert ruling["status"] == "dismissed" and ruling["deal"] == 9
    assert score == {"type": "score", "deal": 9, "result": list(sheet.rows()[8].result),
                     "status": "final"}  # fmt: skip
    assert score["result"] != penalised
    live.accept(alerts[0].id)
    assert told[-1][1]["result"] == penalised


def test_the_seats_before_play_follow_the_panel_until_a_deal_is_played():
    from hakam.gui.controllers import LiveController

    live = LiveController(sheet_ctl())
    told: list[int] = []
    live.subscribe(lambda: told.append(1))
    live.seats_before_play({"centre": [1, 2], "seats": [[0, 0]] * 4, "roi": None})
    assert live.table["centre"] == [1, 2] and told
    live.on_events([{"event": "deal", "deal": 1, "dealer": 0, "contract": None}])  # void
    assert live.table["centre"] == [1, 2]  # no geometry of its own: the panel's stays
    live.seats_before_play({"centre": [3, 4], "seats": [[0, 0]] * 4, "roi": None})
    assert live.table["centre"] == [3, 4]
    played = {"centre": [5, 6], "seats": [[1, 1]] * 4, "roi": None}
    live.on_events([{"event": "deal", "deal": 2, "dealer": 1, "contract": None, "table": played}])
    live.seats_before_play(None)  # a deal brought its own: it stays
    assert live.table == played
