"""Table mode: a match clip refereed deal after deal, scored as the engine scores its truth, and
resumed after a crash (in process from a checkpoint, and across ``kill -9``)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from hakam.engine.cards import CARD_NAMES
from hakam.gui.match_store import MatchStore
from hakam.vision.match import MatchError, MatchPipeline, SetupLines, SheetRow, parse_setup
from hakam.vision.matchvideo import render_match, write_match_clip
from hakam.vision.oracle import LabelDetector
from hakam.vision.sources import Frame

HAKAM = [sys.executable, "-m", "hakam"]


@pytest.fixture(scope="module")
def match4():
    """Four deals of one match, filmed as labels only (the label detector reads them)."""
    return render_match(3, 4, pixels=False)


def referee(m, setups, state=None, first_dealer=None, start=0, stop=None, offset=0):
    """Run a ``MatchPipeline`` on the clip's frames [start, stop); returns it and its events.
    Deal n is set up with ``setups[n - 1 - offset]``."""
    first = m.deals[0].record["dealer"] if first_dealer is None else first_dealer
    match = MatchPipeline(
        LabelDetector(m.labels, start=start),
        lambda n: setups[n - 1 - offset] if 0 <= n - 1 - offset < len(setups) else None,
        first_dealer=first, calibration=m.calibration, fps=m.fps, state=state,
        calibration_seat=m.deals[0].record["dealer"],  # the clip's calibration marks it
    )  # fmt: skip
    events = match.start_events()
    for i in range(start, len(m.frames) if stop is None else stop):
        events += match.process(Frame(i, i / m.fps, m.frames[i]))
    if stop is None:
        events += match.finish()
    return match, events


def results(sheet):
    return [r["result"] for r in sheet["deals"]], sheet["match"]


def test_a_match_clip_is_scored_deal_by_deal_as_the_engine_scores_its_truth(match4):
    match, events = referee(match4, match4.setups())
    truth = match4.sheet()
    assert results(match.sheet()) == results(truth)
    dealers = [e["dealer"] for e in events if e["type"] == "deal"]
    assert dealers == [d.record["dealer"] for d in match4.deals]
    assert dealers == [(dealers[0] + k) % 4 for k in range(4)]  # the deal passes to the right
    assert [r["status"] for r in match.sheet()["deals"]] == ["final"] * 4
    # Each deal starts after the last one's 8th trick left the table, before its open card.
    starts = [e for e in events if e["type"] == "open_card"]
    assert [e["deal"] for e in starts] == [1, 2, 3, 4]
    for e, first in zip(starts, match4.deal_frames, strict=True):
        assert e["frame"] >= first
    assert not match.over and match.sheet()["in_progress"] is None


def test_the_tables_answers_reach_the_deal_they_name(match4):
    # The window's answers come through the feed's queue of corrections (``CorrectionQueue``),
    # with a trick where a notice named one: a seat not on turn is refused in one line, as a
    # single deal refuses it (until 2026-12-06 every answer in table mode raised a TypeError:
    # the match took no trick).
    import queue

    from hakam.vision.correction_queue import CorrectionQueue

    match, _ = referee(match4, match4.setups(), stop=match4.deal_frames[0] + 200)
    deal = match._deal(None)
    waited, trick = deal.seat_waited_for, deal.referee.trick_number
    seat = (waited + 1) % 4  # not yet played in the trick on now
    answers: queue.Queue = queue.Queue()
    answers.put({"card": "7S", "seat": seat, "deal": 1, "trick": trick, "by": "table"})
    answers.put({"card": "7S", "seat": seat, "deal": 1})
    said = [e["text"] for e in CorrectionQueue(match, answers).take() if e["type"] == "uncertain"]
    assert (
        said == [f"correction: seat {seat} is not on turn (the deal waits for seat {waited})"] * 2
    )


def test_the_table_corrects_a_deal_already_on_the_sheet(match4):
    # After the match, the table says seat s played, in trick 2 of deal 1, the card the record
    # has in trick 5 (the window's "No" to "confirm trick 2?", then a seat and a card): the two
    # are exchanged, the card left over in trick 5 a deduction, and the sheet's row takes the
    # deal's new score (told "provisional" where that breaks the rules or leaves a doubt).
    import queue

    from hakam.vision.correction_queue import CorrectionQueue

    match, _ = referee(match4, match4.setups())
    deal = match.deals[1]
    mine = next(p for p in deal.plays if p.trick == 2)
    other = next(p for p in deal.plays if p.trick == 5)
    card, left = deal.plays.index(mine), deal.plays.index(other)
    names = [deal.record["tricks"][t]["cards"] for t in (1, 4)]
    answers: queue.Queue = queue.Queue()
    answers.put({"card": CARD_NAMES[other.card], "seat": mine.seat, "deal": 1, "trick": 2})
    events = CorrectionQueue(match, answers).take()
    assert [(e["trick"], e["by"]) for e in events if e["type"] == "correction"] == [
        (2, "table"), (5, "displaced"),
    ]  # fmt: skip
    assert deal.plays[card].provenance == "person" and deal.plays[left].source == "displaced"
    assert [deal.record["tricks"][t]["cards"] for t in (1, 4)] != names
    score = [e for e in events if e["type"] == "score"][-1]
    row = match.sheet()["deals"][0]
    assert (row["result"], row["status"]) == (score["result"], score["status"])


def test_a_deal_restored_from_its_checkpoint_goes_on_to_the_same_sheet(match4):
    truth = results(match4.sheet())
    rng = random.Random(11)
    for kill in sorted(rng.randrange(len(match4.frames)) for _ in range(4)):
        match, _ = referee(match4, match4.setups(), stop=kill)
        state = json.loads(json.dumps(match.checkpoint()))  # as the store keeps it
        again, events = referee(match4, match4.setups(), state=state, start=state["frame"] + 1)
        assert results(again.sheet()) == truth, kill
        assert not [e for e in events if e["type"] == "uncertain"], kill


def test_an_answer_for_a_deal_refereed_before_a_restart_is_refused_in_one_line(match4):
    # Only the deal in progress is restored: an answer for an earlier deal says so (it was
    # dropped without a word, and the window took its notice for answered).
    match, _ = referee(match4, match4.setups(), stop=match4.deal_frames[1] + 200)
    state = json.loads(json.dumps(match.checkpoint()))
    again, _ = referee(match4, match4.setups(), state=state, start=state["frame"] + 1,
                       stop=state["frame"] + 2)  # fmt: skip
    rows = again.sheet()["deals"]
    said = again.table_correction("7S", seat=0, deal=1, trick=1)
    said += again.table_confirmation(1, None, deal=1)
    assert [e["text"] for e in said] == [
        f"{what}: deal 1 was refereed before a restart; correct it on the score sheet"
        for what in ("correction", "confirmation")
    ]
    assert again.sheet()["deals"] == rows


def test_the_match_ends_at_152_and_no_deal_after_it_counts(match4):
    """Deal 1 of the clip played as deal 2 of a match standing at 140-140: team 1 takes it
    18-0, reaches 158 and wins; the clip's next deals are not refereed."""
    first = match4.deals[0].record["dealer"]
    before = SheetRow(1, (first - 1) % 4, {"contract": None}, result=[140, 140])
    state = {"format": "hakam-match-state/1", "first_dealer": (first - 1) % 4,
             "rows": [before.to_json()], "over": False, "winner": None, "frame": -1,
             "current": None}  # fmt: skip
    match, events = referee(match4, match4.setups(), state=state, offset=1)
    assert match.over and match.winner == 1
    assert results(match.sheet()) == ([[140, 140], [0, 18]], [140, 158])
    assert [e["deal"] for e in events if e["type"] == "deal"] == [2]
    assert next(e for e in events if e["type"] == "match")["winner"] == 1


def test_a_void_deal_is_written_and_its_open_card_is_not_the_next_deals():
    """Deal 2 all passed: its open card lay there, then went back to the dealer; deal 3 waits
    for the table to clear, then is refereed from its own open card."""
    m = render_match(3, 3, pixels=False, voids={2})
    match, events = referee(m, m.setups())
    got, totals = results(match.sheet())
    assert (got, totals) == results(m.sheet())
    assert got[1] == [0, 0]
    assert [e["type"] for e in events if e.get("deal") == 2][:2] == ["deal", "void"]
    opened = [(e["deal"], e["card"]) for e in events if e["type"] == "open_card"]
    assert opened == [(1, m.deals[0].record["open_card"]), (3, m.deals[2].record["open_card"])]
    assert [r["status"] for r in match.sheet()["deals"]] == ["final", "final", "final"]


def test_a_restart_right_after_a_void_deal_still_waits_for_its_card_to_go():
    """Killed on the frame the void deal was set up, or while the table cleared: the state
    says what the match was waiting for, so the void deal's open card is no play of the next."""
    m = render_match(3, 3, pixels=False, voids={2})
    truth = results(m.sheet())
    _, events = referee(m, m.setups())
    void_at = next(e for e in events if e["type"] == "void")
    starts = [e["frame"] for e in events if e["type"] == "open_card" and e["deal"] == 3]
    end_of_1 = next(e["frame"] for e in events if e["type"] == "trick" and e["deal"] == 1
                    and e["trick"] == 8)  # fmt: skip
    assert void_at["deal"] == 2 and starts
    for stop in (end_of_1 + 20, m.deal_frames[1] + 10, m.deal_frames[1] + 40, starts[0] - 5):
        match, _ = referee(m, m.setups(), stop=stop)
        state = json.loads(json.dumps(match.checkpoint()))
        again, events = referee(m, m.setups(), state=state, start=state["frame"] + 1)
        assert results(again.sheet()) == truth, stop
        assert not [e for e in events if e["type"] in ("violation", "uncertain")], stop


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"dealer": 2, "contract": None}, "dealer 2 given, but seat 1 deals"),
        ({"contract": "sun"}, "contract must be a JSON object or null"),
        ({"contract": None, "bid": 1}, "unknown field 'bid'"),
        ({"contract": {"kind": "hokum", "trump": "X", "declarer": 0}}, "deal 3: "),
        ({"contract": {"kind": "sun", "declarer": 0, "dealer": 3}}, "contract's dealer is 3"),
        ([1], "a set-up must be a JSON object"),
        ({"contract": None, "bids": "x"}, "deal 3: bids: must be a list"),
        ({"contract": None, "open_card": "7H", "bids": [[2, "hokum"]]}, "not finished"),
        ({"contract": None, "projects": [{"seat": 0}]}, "a void deal .* has no projects"),
        ({"contract": None, "open_card": "1X"}, "open_card '1X' is not a Baloot card"),
    ],
)
def test_a_bad_setup_is_a_one_line_error(data, message):
    with pytest.raises(MatchError, match=message) as info:
        parse_setup(data, 3, 1, (0, 0))
    assert "\n" not in str(info.value)


def test_setup_lines_skip_blank_and_comment_lines_and_say_which_deal_is_bad():
    lines = SetupLines(["# the match\n", "\n", '{"contract": null}\n', "{oops\n"])
    assert lines(1) == {"contract": None}
    with pytest.raises(MatchError, match="deal 2: not valid JSON"):
        lines(2)
    assert lines(3) is None


# --- the command line: a match clip headless, and kill -9 ---------------------------------


@pytest.fixture(scope="module")
def match5():
    """Five deals, the third all passed (the first, second, fourth and fifth: seed 3's)."""
    return render_match(3, 5, pixels=False, voids={3})


@pytest.fixture(scope="module")
def clip(match5, tmp_path_factory):
    """The labels-only match as files: a black video (the label detector reads no pixels), its
    labels, calibration and ``--match`` lines."""
    folder = tmp_path_factory.mktemp("match")
    write_match_clip(match5, folder / "clip.mp4", black=True)
    return folder


def run_cli(clip, data, out, kill_after_plays=None, kill_on=None):
    """Run the headless match; ``kill -9`` it after that many plays, or on the first event of
    type ``kill_on``."""
    cmd = [*HAKAM, "run", "--source", str(clip / "clip.mp4"), "--headless",
           "--match", str(clip / "clip.setup.jsonl"), "--calibration", str(clip / "clip.toml"),
           "--detector", "oracle", "--labels", str(clip / "clip.labels.json"),
           "--out", str(out)]  # fmt: skip
    env = {**os.environ, "HAKAM_DATA_DIR": str(data)}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    plays = 0
    for line in proc.stdout:
        kind = json.loads(line)["type"]
        plays += kind == "play"
        if (kind == "play" and plays == kill_after_plays) or kind == kill_on:
            proc.send_signal(signal.SIGKILL)
            break
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait()
    return proc.returncode, err


def stored_sheet(data):
    store = MatchStore(Path(data) / "matches.sqlite3")
    try:
        sheet = store.load(store.latest_match())
        return [list(r.result) for r in sheet.rows()], list(sheet.totals)
    finally:
        store.close()


def test_a_headless_match_writes_the_sheet_and_the_windows_store(clip, match5, tmp_path):
    rc, err = run_cli(clip, tmp_path / "data", tmp_path / "out")
    assert rc == 0, err
    truth = results(match5.sheet())
    assert results(json.loads((tmp_path / "out" / "sheet.json").read_text())) == truth
    assert stored_sheet(tmp_path / "data") == (truth[0], truth[1])
    for n in (1, 2, 4, 5):  # one record per deal played, the engine's ruling of it
        record = json.loads((tmp_path / "out" / f"deal-{n:02d}" / "deal.json").read_text())
        assert record["dealer"] == match5.deals[n - 1].record["dealer"]
        assert sum(len(t["cards"]) for t in record["tricks"]) == 32
    assert not (tmp_path / "out" / "deal-03").exists()  # all passed: nothing played


@pytest.mark.parametrize("seed", [1, 2, 3, "void"])
def test_kill_9_at_a_random_frame_resumes_to_the_same_sheet(clip, match5, tmp_path, seed):
    """Killed after a random play of the match (or as the void deal is written), then the same
    command again: the same sheet as without the kill, in the file and in the store."""
    kill = None if seed == "void" else random.Random(seed).randrange(1, 4 * 32)
    rc, _ = run_cli(clip, tmp_path / "data", tmp_path / "out", kill_after_plays=kill,
                    kill_on="void" if kill is None else None)  # fmt: skip
    assert rc == -signal.SIGKILL
    rc, err = run_cli(clip, tmp_path / "data", tmp_path / "out")  # the same command again
    assert rc == 0, err
    assert "going on with match" in err
    truth = results(match5.sheet())
    assert results(json.loads((tmp_path / "out" / "sheet.json").read_text())) == truth, kill
    assert stored_sheet(tmp_path / "data") == (truth[0], truth[1]), kill


def test_match_needs_headless_and_no_single_deal_setup(tmp_path, capsys):
    from hakam.cli import main

    assert main(["run", "--source", str(tmp_path), "--match", "-"]) == 2
    assert "--match: with --headless" in capsys.readouterr().err
    assert main(["run", "--source", str(tmp_path), "--headless", "--match", "-",
                 "--contract", "{}"]) == 2  # fmt: skip
    assert "drop --deal, --contract" in capsys.readouterr().err


def test_the_set_up_lines_in_the_formats_doc_are_read_as_they_say():
    doc = (Path(__file__).parents[2] / "docs" / "formats.md").read_text(encoding="utf-8")
    block = doc.split("## Match set-up lines")[1].split("```json")[1].split("```")[0]
    lines = SetupLines(block.strip().splitlines())
    setups = [parse_setup(lines(n), n, n % 4, (0, 0)) for n in (1, 2, 3)]
    assert [s is None for s in setups] == [False, False, True]  # the third: all passed
    assert [s.dealer for s in setups[:2]] == [1, 2] and setups[0].bids


def test_video_render_deals_writes_a_match_clip_with_its_truth_and_set_up(tmp_path, capsys):
    from hakam.cli import main

    out = tmp_path / "m" / "clip.mp4"
    args = ["video", "render", "--seed", "5", "--deals", "2", "--size", "160x120"]
    assert main([*args, "--out", str(out)]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["deals"] == 2 and Path(said["video"]).stat().st_size > 0
    cap = cv2.VideoCapture(str(out))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == said["frames"]
    cap.release()
    labels = json.loads(Path(said["labels"]).read_text())
    assert len(labels["frames"]) == said["frames"] and len(labels["deal_frames"]) == 2
    lines = SetupLines(Path(said["setup"]).read_text().splitlines())
    first = said["first_dealer"]
    setups = [parse_setup(lines(n), n, (first + n - 1) % 4, (0, 0)) for n in (1, 2)]
    truth = json.loads(Path(said["match"]).read_text())["deals"]
    assert [s.contract.to_json() for s in setups] == [d["contract"] for d in truth]
    sheet = json.loads(Path(said["sheet"]).read_text())
    assert [d["deal"] for d in sheet["deals"]] == [1, 2]
    assert main([*args, "--tricks", "4", "--out", str(out)]) == 2  # a match films whole deals


def test_a_clip_whose_frames_went_to_the_writer_is_never_written_over(tmp_path):
    """The demo match streams its frames into clip.mp4 as it films (1x1 stand-ins stay in
    ``frames``); writing its other files must leave that video alone. Only a labels-only
    match, said so, gets a black video."""
    m = render_match(3, 1, pixels=False)
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"the frames the sink wrote")
    write_match_clip(m, video)
    assert video.read_bytes() == b"the frames the sink wrote"
    assert (tmp_path / "clip.setup.jsonl").is_file() and (tmp_path / "clip.labels.json").is_file()
    write_match_clip(m, video, black=True)
    cap = cv2.VideoCapture(str(video))
    ok, frame = cap.read()
    assert ok and frame.shape[:2][::-1] == tuple(m.calibration.frame_size) and frame.max() < 16
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == len(m.frames)


def test_before_a_deal_is_played_the_seats_are_placed_by_the_dealer_picked():
    """The calibration's point marks the first dealer: the seat the table picks, until a deal
    (or a calibration played with before) says which seat it is."""
    from hakam.vision.seats import Calibration

    calibration = Calibration((320.0, 240.0), (320.0, 440.0), False, (640, 480))
    match = MatchPipeline(object(), lambda deal: None, calibration=calibration)
    assert match.table_geometry(None) is None  # nobody picked yet: not known
    seats = match.table_geometry(2)["seats"]
    assert seats[2] == [320.0, 420.0]  # the dealer picked sits at the point clicked
    assert match.table_geometry(3)["seats"][3] == [320.0, 420.0]
    bound = MatchPipeline(object(), lambda deal: None, calibration=calibration,
                          calibration_seat=1)  # fmt: skip
    assert bound.table_geometry(3)["seats"][1] == [320.0, 420.0]  # the match's own marked seat
    assert (
        MatchPipeline(object(), lambda deal: None).table_geometry(2) is None
    )  # no camera geometry
