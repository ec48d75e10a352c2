"""The JSON tools: contracts of input and output, and a fuzz test of bad input."""

import io
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hakam.cli import main
from hakam.engine.cards import CARD_NAMES
from hakam.engine.simulate import bot_deal

HOKUM = {"kind": "hokum", "trump": "H", "declarer": 0, "dealer": 3}
COMMANDS = (["rules", "legal"], ["rules", "score"], ["referee"])


def run(argv, payload, monkeypatch, capsys):
    text = payload if isinstance(payload, str) else json.dumps(payload)
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    rc = main([*argv, "-"])
    out, err = capsys.readouterr()
    return rc, out, err


def test_rules_legal_output(monkeypatch, capsys):
    payload = {"contract": HOKUM, "hand": ["7h", "AD", "QS", "J♦", "9D", "10S", "KD", "8S"],
               "trick": [[0, "KC"], [1, "7C"]], "seat": 2, "played": [], "ekka": False}  # fmt: skip
    rc, out, _ = run(["rules", "legal"], payload, monkeypatch, capsys)
    assert rc == 0
    assert json.loads(out) == {
        "legal": ["7H"],
        "reasons": {c: "third-player" for c in ("9D", "JD", "KD", "AD", "8S", "10S", "QS")},
    }


def test_rules_score_output_worked_example_b(monkeypatch, capsys):
    payload = {"contract": HOKUM, "card_points": [84, 78], "tricks_won": [4, 4]}
    rc, out, _ = run(["rules", "score"], payload, monkeypatch, capsys)
    got = json.loads(out)
    assert rc == 0 and got["result"] == [8, 8] and got["declarer_won"] is True
    for key in ("game_points", "projects", "baloot", "winner_team", "kaboot", "match_over",
                "match_winner"):  # fmt: skip
        assert key in got


def test_rules_score_with_projects_and_baloot(monkeypatch, capsys):
    payload = {
        "contract": HOKUM, "card_points": [100, 62], "tricks_won": [5, 3],
        "projects": [{"seat": 0, "kind": "fifty", "top": "KS", "four_of": None},
                     {"seat": 1, "kind": "siri", "top": "AD", "four_of": None}],
        "baloot": [2], "match": [140, 20],
    }  # fmt: skip
    rc, out, _ = run(["rules", "score"], payload, monkeypatch, capsys)
    got = json.loads(out)
    assert rc == 0
    assert got["result"] == [10 + 5 + 2, 6] and got["match_over"] and got["match_winner"] == 0


def test_referee_full_bot_deal_has_no_violations(monkeypatch, capsys):
    record = bot_deal(random.Random(7), dealer=1)
    rc, out, _ = run(["referee"], record, monkeypatch, capsys)
    got = json.loads(out)
    assert rc == 0 and got["violations"] == []
    if not got["void"]:
        assert got["complete"] and len(got["tricks"]) == 8 and got["result"] is not None


@pytest.mark.parametrize(
    "argv,payload,field",
    [
        (["rules", "legal"], {"contract": HOKUM, "hand": ["ZZ"], "seat": 0}, "hand[0]"),
        (["rules", "legal"], {"contract": HOKUM, "hand": ["7H", "7H"], "seat": 0}, "hand"),
        (["rules", "legal"], {"contract": HOKUM, "hand": ["7H"], "seat": 0}, "hand: wrong count"),
        (["rules", "legal"], {"contract": HOKUM, "hand": ["7H"], "seat": 5}, "seat"),
        (["rules", "score"], {"contract": HOKUM, "card_points": [80, 80], "tricks_won": [4, 4]},
         "card_points"),
        (["referee"], {"format": "hakam-deal/1", "dealer": 0, "contract": HOKUM},
         "contract.dealer"),
        (["referee"], {"format": "hakam-deal/1", "dealer": 3, "contract": HOKUM,
                       "tricks": [["7H", "8H"], ["9H"]]}, "tricks[0]: wrong count"),
        (["referee"], "{", "input: not valid JSON"),
    ],
)  # fmt: skip
def test_bad_input_one_line_naming_the_field(argv, payload, field, monkeypatch, capsys):
    rc, out, err = run(argv, payload, monkeypatch, capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"hakam: error: {field}"), err


def test_demo_and_run_replay_the_bundled_match(capsys, monkeypatch, tmp_path):
    import hakam.vision.detector

    monkeypatch.setattr(hakam.vision.detector, "MODELS_DIR", tmp_path)  # as on a fresh install
    assert main(["run", "--source", "demo", "--headless"]) == 0
    lines = capsys.readouterr().out.splitlines()
    events = [json.loads(line) for line in lines]
    # Until the demo clip and model exist, `run` says it falls back to the engine replay.
    assert events[0]["event"] == "source" and events[0]["fallback"] == "engine-replay"
    assert events[1]["event"] == "deal" and events[-1]["event"] == "score_sheet"
    assert events[-1]["match_over"] is True
    assert main(["demo"]) == 0
    assert "wins the match" in capsys.readouterr().out


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 40) | st.sampled_from(CARD_NAMES)
    | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)  # fmt: skip
CARD_LISTS = st.lists(st.sampled_from([*CARD_NAMES, "XX", "1H", 7, None]), max_size=9)


def _fields(draw_value, cards):
    return {
        "legal": {"contract": HOKUM, "hand": cards, "trick": [[0, c] for c in cards[:3]],
                  "seat": draw_value, "played": cards[3:], "ekka": draw_value},
        "score": {"contract": draw_value, "card_points": cards[:2], "tricks_won": [4, 4],
                  "projects": [{"seat": 0, "kind": "siri", "top": c} for c in cards[:2]]},
        "referee": {"format": "hakam-deal/1", "dealer": 3, "contract": HOKUM,
                    "tricks": [cards[i:i + 4] for i in range(0, len(cards), 4)],
                    "projects": draw_value, "ekka": [1]},
    }  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(JSONISH, CARD_LISTS, st.sampled_from(range(3)), st.booleans())
def test_fuzz_bad_input_never_crashes(value, cards, which, raw):
    argv = COMMANDS[which]
    payload = value if raw else _fields(value, cards)[("legal", "score", "referee")[which]]
    text = json.dumps(payload)
    if raw and isinstance(value, str):
        text = value  # not JSON at all
    import contextlib
    import sys

    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main([*argv, "-"])
    finally:
        sys.stdin = old
    assert rc in (0, 2)
    if rc == 2:
        assert out.getvalue() == ""
        assert err.getvalue().count("\n") == 1 and err.getvalue().startswith("hakam: error: ")
    else:
        json.loads(out.getvalue())
        assert err.getvalue() == ""
