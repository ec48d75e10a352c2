"""The events as types: every event of a real stream reads as its type and writes back whole."""

from __future__ import annotations

import pytest

from hakam.engine.replay import load_match, replay_match
from hakam.vision.event_types import (
    TYPES,
    CardPlayed,
    DealScored,
    OtherEvent,
    ViolationRestated,
    ViolationRuled,
    parse_event,
)
from hakam.vision.events import EVENT_TYPES, with_type


def test_every_typed_event_is_one_the_pipeline_emits():
    assert set(TYPES) - {"void"} <= set(EVENT_TYPES)


def test_a_replayed_match_reads_as_types_and_writes_back_the_same():
    events = [with_type(e) for e in replay_match(load_match())]
    typed = [parse_event(e) for e in events]
    assert {type(t) for t in typed} >= {CardPlayed, ViolationRuled, DealScored, OtherEvent}
    for e, t in zip(events, typed, strict=True):
        back = t.to_json()
        assert {k: back[k] for k in e} == e  # nothing lost; defaults may be added


def test_the_camera_stream_reads_as_types_and_writes_back_the_same(tmp_path):
    from hakam.vision.sources import demo_clip_available

    if not demo_clip_available():
        pytest.skip("demo clip not installed")
    import json
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "hakam", "run", "--source", "demo", "--headless",
         "--detector", "oracle", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    lines = [json.loads(x) for x in run.stdout.splitlines() if x.startswith("{")]
    assert lines, run.stderr
    for e in lines:
        back = parse_event(e).to_json()
        assert {k: back[k] for k in e} == e  # nothing lost


def test_a_ruling_told_again_keeps_its_key_and_its_new_status():
    told = parse_event({"type": "violation", "deal": 1, "trick": 2, "seat": 3, "card": "7S",
                        "rule": "follow-suit", "status": "suspected"})  # fmt: skip
    again = parse_event({**told.to_json(), "type": "violation_status", "event": "violation_status",
                         "status": "proven", "question": None})  # fmt: skip
    assert isinstance(again, ViolationRestated) and again.key == told.key
    assert (again.status, again.question) == ("proven", None)


def test_an_event_of_no_type_keeps_its_fields():
    e = {"type": "trick_collected", "event": "trick_collected", "deal": 1, "trick": 3}
    t = parse_event(e)
    assert isinstance(t, OtherEvent) and t.to_json() == e
