"""`hakam run` (demo), `hakam calibrate`, `hakam video render`: output and one-line errors."""

from __future__ import annotations

import json

import pytest

from hakam.cli import main
from hakam.vision.oracle import unsure_labels
from hakam.vision.seats import Calibration
from hakam.vision.sources import DEMO_CALIBRATION, DEMO_RECORD, demo_clip_available


def run_cli(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.skipif(not demo_clip_available(), reason="demo clip not installed")
def test_demo_clip_reproduces_its_record_exactly(tmp_path, capsys):
    rc, out, _ = run_cli(["run", "--source", "demo", "--headless", "--detector", "oracle",
                          "--out", str(tmp_path)], capsys)  # fmt: skip
    assert rc == 0
    events = [json.loads(line) for line in out.splitlines()]
    truth = json.loads(DEMO_RECORD.read_text())
    record = json.loads((tmp_path / "deal.json").read_text())
    assert record["tricks"] == truth["tricks"] and record["open_card"] == truth["open_card"]
    assert [e["type"] for e in events][:3] == ["source", "deal", "open_card"]
    assert len([e for e in events if e["type"] == "violation"]) == 1
    assert len(list((tmp_path / "evidence").glob("*.jpg"))) == 32


def test_demo_without_a_model_falls_back_to_the_engine_replay(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HAKAM_MODELS_DIR", str(tmp_path))
    import hakam.vision.detector as det

    monkeypatch.setattr(det, "MODELS_DIR", tmp_path)
    rc, out, _ = run_cli(["run", "--source", "demo", "--headless"], capsys)
    events = [json.loads(line) for line in out.splitlines()]
    assert rc == 0 and events[0]["type"] == "source" and events[0]["fallback"] == "engine-replay"
    assert "engine.replay" in events[0]["text"]
    assert all("type" in e for e in events) and events[-1]["type"] == "score_sheet"


SUN = '{"kind": "sun", "declarer": 0, "dealer": 3}'
HOKUM_NO_TRUMP = '{"kind": "hokum", "declarer": 0, "dealer": 3}'
RENDER = ["video", "render", "--seed", "1", "--out"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "--source", "nowhere.mp4", "--contract", SUN],
         "--source nowhere.mp4: no such file or folder"),
        (["run", "--source", "x.mp4"], "--deal or --contract: needed"),
        (["run", "--source", "demo", "--roi", "1,2;3,4"], "--roi: a polygon needs at least 3"),
        (["run", "--source", "x.mp4", "--contract", HOKUM_NO_TRUMP], "contract.trump"),
        (["run", "--source", "x.mp4", "--deal", "x.json", "--detector", "oracle"], "--deal x.json"),
        (["run", "--source", "demo", "--calibration", "no.toml"], "calibration no.toml: cannot"),
        (["run", "--source", "demo", "--camera-size", "10x10"], "--camera-size: 10x10 out of"),
        (["calibrate", "--source", "x", "--camera-size", "big"], "--camera-size: must be WIDTH"),
        (["calibrate", "--centre", "1,2"], "give both --centre X,Y and --dealer X,Y"),
        (["calibrate", "--centre", "1,2", "--dealer", "3,a"], "--dealer: must be X,Y"),
        ([*RENDER, "x.avi"], "--out: must end in .mp4"),
        ([*RENDER, "x.mp4", "--tricks", "9"], "--tricks: must be"),
        ([*RENDER, "x.mp4", "--size", "10x10"], "--size: 10x10"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_writes_nothing(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = run_cli(argv, capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []


def _demo_calibration_at(size, folder):
    demo = Calibration.load(DEMO_CALIBRATION)
    sx, sy = size[0] / 640, size[1] / 480  # the demo clip's frames are 640x480
    cal = Calibration((demo.centre[0] * sx, demo.centre[1] * sy),
                      (demo.dealer[0] * sx, demo.dealer[1] * sy), demo.mirrored, size)  # fmt: skip
    path = folder / "table.toml"
    cal.save(path)
    return path


@pytest.mark.skipif(not demo_clip_available(), reason="demo clip not installed")
def test_a_calibration_made_at_another_camera_size_is_scaled_to_the_frames(tmp_path, capsys):
    toml = _demo_calibration_at((1280, 960), tmp_path)
    argv = ["run", "--source", "demo", "--headless", "--detector", "oracle",
            "--calibration", str(toml), "--out", str(tmp_path / "run")]  # fmt: skip
    assert run_cli(argv, capsys)[0] == 0
    record = json.loads((tmp_path / "run" / "deal.json").read_text())
    assert record["tricks"] == json.loads(DEMO_RECORD.read_text())["tricks"]


@pytest.mark.skipif(not demo_clip_available(), reason="demo clip not installed")
def test_a_calibration_of_another_shape_is_a_one_line_error(tmp_path, capsys):
    toml = _demo_calibration_at((1280, 720), tmp_path)
    argv = ["run", "--source", "demo", "--headless", "--detector", "oracle",
            "--calibration", str(toml), "--out", str(tmp_path / "run")]  # fmt: skip
    rc, out, err = run_cli(argv, capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "made on 1280x720 frames, these are 640x480 (another shape)" in err
    assert not (tmp_path / "run").exists()


def test_calibrate_from_the_command_line_writes_toml(tmp_path, capsys):
    path = tmp_path / "table.toml"
    rc, out, _ = run_cli(["calibrate", "--centre", "320,240", "--dealer", "320,460",
                          "--out", str(path)], capsys)  # fmt: skip
    assert rc == 0 and json.loads(out)["calibration"] == str(path)
    assert Calibration.load(path) == Calibration((320.0, 240.0), (320.0, 460.0))


def test_calibrate_without_points_or_display_says_how(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    import cv2
    import numpy as np

    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((48, 64, 3), np.uint8))
    argv = ["calibrate", "--source", str(tmp_path), "--out", str(tmp_path / "t.toml")]
    rc, _, err = run_cli(argv, capsys)
    assert rc == 2 and "no display: give --centre X,Y --dealer X,Y" in err


def test_video_render_writes_clip_record_labels_and_calibration(tmp_path, capsys):
    out = tmp_path / "clip.mp4"
    argv = [
        "video",
        "render",
        "--seed",
        "5",
        "--tricks",
        "1",
        "--size",
        "320x240",
        "--out",
        str(out),
    ]
    rc, stdout, _ = run_cli(argv, capsys)
    info = json.loads(stdout)
    assert rc == 0 and info["frames"] > 50 and info["fps"] == 15.0
    record = json.loads((tmp_path / "clip.deal.json").read_text())
    labels = json.loads((tmp_path / "clip.labels.json").read_text())
    assert record["format"] == "hakam-deal/1" and len(record["tricks"]) == 1
    assert len(labels["frames"]) == info["frames"] and len(labels["rest_frames"]) == 4
    assert Calibration.load(tmp_path / "clip.toml").frame_size == (320, 240)
    import cv2

    cap = cv2.VideoCapture(str(out))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == info["frames"]
    assert int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)) == 320


def test_the_runtime_path_never_imports_torch(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys; from hakam.cli import main; "
        "main(['run', '--source', 'demo', '--headless', '--detector', 'oracle', "
        "'--out', sys.argv[1]]); "
        "assert 'torch' not in sys.modules and 'ultralytics' not in sys.modules"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert (tmp_path / "deal.json").exists()


def test_run_without_headless_feeds_the_window_and_keeps_the_record(tmp_path, monkeypatch):
    """`hakam run` with no --headless opens the overlay; its feed still logs every event."""
    import hakam.gui.views.main_window as main_window
    from hakam.cli import main

    seen: list = []

    def fake_window(language=None, fps=None, feed=None, **_):
        for item in feed:  # what the window's worker thread would consume
            if item.frame is None and not item.events:
                break  # the deal is over: the window waits for the table (closed here)
            seen.append(item)
        return 0

    monkeypatch.setattr(main_window, "run", fake_window)
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    out = tmp_path / "run"
    assert main(["run", "--source", "demo", "--detector", "oracle", "--out", str(out)]) == 0
    assert seen and all(item.frame is not None for item in seen)
    events = [e for item in seen for e in item.events]
    logged = (out / "events.jsonl").read_text().splitlines()
    assert len(logged) == len(events) + 1  # + the source event written before the feed starts
    assert sum(e["type"] == "play" for e in events) == 32
    assert (out / "deal.json").exists()


def test_run_without_headless_and_without_display_is_a_one_line_error(monkeypatch, capsys):
    from hakam.cli import main

    for key in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(key, raising=False)
    assert main(["run", "--source", "demo", "--detector", "oracle"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--headless" in err


@pytest.mark.parametrize(
    "by, replaces, why",
    [
        ("elimination", None, " (not read, the only card left)"),
        ("rules", None, " (not read; of the cards left, the only one that breaks no rule)"),
        ("reader", None, " (not read surely; of the ways that keep every rule, the one its "
                         "reads named most)"),
        ("same-result", None, " (not read; one of several cards that keep every rule and give "
                              "the same result)"),
        ("exchange", "QC", " instead of QC (exchanged with a card not read: the deal breaks "
                           "fewer rules so)"),
        ("conflict", "QC", " instead of QC"),
        ("caller", None, ""),
    ],
)  # fmt: skip
def test_a_printed_correction_says_how_the_pipeline_named_the_card(by, replaces, why, capsys):
    from hakam.cli.vision import _print_event

    ev = {"type": "correction", "card": "QS", "seat": 0, "by": by, "replaces": replaces}
    _print_event(ev, headless=False)
    assert capsys.readouterr().out == f"correction: QS by seat 0{why}\n"


def test_a_printed_ruling_says_when_it_is_suspected_and_asks(capsys):
    from hakam.cli.vision import _print_event

    v = {"type": "violation", "text": "Seat 2 played AS.", "status": "suspected",
         "question": "Did seat 2 play AS in trick 1? The ruling depends on it"}  # fmt: skip
    _print_event(v, headless=False)
    _print_event({**v, "type": "violation_status", "status": "proven"}, headless=False)
    _print_event({"type": "score", "result": [0, 16], "card_points": [150, 12],
                  "status": "provisional"}, headless=False)  # fmt: skip
    _print_event({"type": "play", "trick": 1, "seat": 2, "card": "AS", "provenance": "named"},
                 headless=False)  # fmt: skip
    assert capsys.readouterr().out.splitlines() == [
        "suspected: Seat 2 played AS. Did seat 2 play AS in trick 1? The ruling depends on it",
        "VIOLATION: Seat 2 played AS.",
        "score: [0, 16] (card points [150, 12], provisional)",
        "trick 1: seat 2 plays AS (named)",
    ]


def test_a_printed_open_card_says_when_it_was_read_as_another(capsys):
    from hakam.cli.vision import _print_event

    _print_event({"type": "open_card", "card": "7S", "read_as": "7C"}, headless=False)
    _print_event({"type": "open_card", "card": "7S"}, headless=False)
    assert capsys.readouterr().out == (
        "open card 7S (read as 7C, the deal's open card)\nopen card 7S\n"
    )


@pytest.mark.parametrize(
    "line, message",
    [
        ("QC", "not JSON"),
        ('["QC"]', 'needs "card"'),
        ('{"seat": 1}', 'needs "card"'),
        ('{"card": "QX"}', "'QX' is not a Baloot card"),
        ('{"card": "2C"}', "'2C' is not a Baloot card"),
        ('{"card": "QC", "seat": 4}', '"seat": 4 (0, 1, 2 or 3)'),
        ('{"card": "QC", "seat": true}', '"seat": True'),
        ('{"card": "QC", "deal": "one"}', "\"deal\": 'one'"),
        ('{"card": "QC", "seat": 1, "trick": 9}', '"trick": 9 (1 to 8, with "seat")'),
        ('{"card": "QC", "trick": 2}', '"trick": 2 (1 to 8, with "seat")'),
        ('{"card": "QC", "seat": 1, "replaces": "8C"}', "\"replaces\": '8C' (a Baloot card"),
        ('{"confirm": 1}', '"confirm": as {"trick": 1'),
        ('{"confirm": {"trick": 9, "seat": 0}}', '"trick": 9 (1 to 8)'),
        ('{"confirm": {"trick": 1, "seat": -1}}', '"seat": -1 (0, 1, 2 or 3)'),
        ('{"confirm": {"trick": 1, "seat": 0, "rule": 3}}', '"rule": 3'),
        ('{"confirm": {"trick": 1, "seat": 0, "cards": "AS"}}', '"confirm": as'),
    ],
)
def test_correction_line_refuses_bad_input_in_one_line(line, message):
    from hakam.cli.vision import correction_line

    with pytest.raises(ValueError) as err:
        correction_line(line)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_correction_line_reads_a_callers_correction():
    from hakam.cli.vision import correction_line

    assert correction_line('{"card": "QC", "seat": 1}\n') == {
        "card": "QC", "seat": 1, "deal": None, "by": "caller", "trick": None, "replaces": None,
    }  # fmt: skip
    # A play of a trick, in a complete deal too (which of the seat's two cards there: replaces)
    line = '{"card": "9D", "seat": 1, "deal": 1, "trick": 7, "replaces": "8D"}'
    assert correction_line(line) == {
        "card": "9D", "seat": 1, "deal": 1, "by": "caller", "trick": 7, "replaces": "8D",
    }  # fmt: skip
    assert correction_line('{"card": "10H", "deal": 2}')["seat"] is None
    assert correction_line('{"confirm": {"trick": 1, "seat": 2, "rule": "follow-suit"}}') == {
        "confirm": True, "trick": 1, "seat": 2, "rule": "follow-suit", "card": None, "deal": None,
    }  # fmt: skip


def test_stdin_corrections_needs_headless(capsys):
    rc, _, err = run_cli(["run", "--source", "demo", "--stdin-corrections"], capsys)
    assert rc == 2 and err.count("\n") == 1 and "--headless" in err


def _weak_labels(tmp_path, weak: set[str], read_as: dict[str, str] | None = None) -> str:
    """The demo clip's labels with ``weak`` never read surely (the oracle), as a file;
    ``read_as``: those cards' unsure reads take them for others."""
    from hakam.vision.sources import DEMO_LABELS

    labels = json.loads(DEMO_LABELS.read_text())
    labels["frames"] = unsure_labels(labels["frames"], weak, read_as)
    path = tmp_path / "weak.json"
    path.write_text(json.dumps(labels))
    return str(path)


@pytest.mark.skipif(not demo_clip_available(), reason="demo clip not installed")
def test_headless_run_takes_the_callers_corrections_on_stdin_and_finishes_the_deal(tmp_path):
    # QC and KD are never read surely: the deal waits at trick 1 for seat 1's card. The caller
    # reads the JSON events, answers with the card on standard input (a bad line first: one
    # line on standard error, nothing changed), and the deal is finished and kept in the
    # record with the caller's correction.
    import subprocess
    import sys

    weak = _weak_labels(tmp_path, {"QC", "KD"})
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "hakam", "run", "--source", "demo", "--headless",
         "--detector", "oracle", "--labels", weak, "--out", str(out),
         "--stdin-corrections"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    events = []
    for line in proc.stdout:
        events.append(json.loads(line))
        if events[-1]["type"] == "uncertain" and "waits" in events[-1]["text"]:
            assert events[-1]["seat"] == 1
            proc.stdin.write('{"card": "QX", "seat": 1}\n{"card": "QC", "seat": 1}\n')
            proc.stdin.close()
            break
    events += [json.loads(line) for line in proc.stdout]
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert err.count("correction line 1: 'QX' is not a Baloot card") == 1
    fixes = [e for e in events if e["type"] == "correction"]
    assert (fixes[0]["card"], fixes[0]["seat"], fixes[0]["by"]) == ("QC", 1, "caller")
    truth = json.loads(DEMO_RECORD.read_text())
    record = json.loads((out / "deal.json").read_text())
    assert record["tricks"] == truth["tricks"]
    assert [e["complete"] for e in events if e["type"] == "score"][-1] is True
    logged = (out / "events.jsonl").read_text().splitlines()
    assert len(logged) == len(events)


@pytest.mark.skipif(not demo_clip_available(), reason="demo clip not installed")
def test_headless_run_with_stdin_corrections_ends_when_the_input_closes(tmp_path):
    # Nothing comes on standard input: a deal left waiting ends with the input, as it was (QC's
    # reads take it for KD: the reads and the rules disagree, the deal waits from trick 1).
    import subprocess
    import sys

    weak = _weak_labels(tmp_path, {"QC", "KD"}, read_as={"QC": "KD"})
    done = subprocess.run(
        [sys.executable, "-m", "hakam", "run", "--source", "demo", "--headless",
         "--detector", "oracle", "--labels", weak, "--out", str(tmp_path / "run"),
         "--stdin-corrections"],
        input="", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-500:]
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[-1]["type"] == "end" and not any(e["type"] == "correction" for e in events)
    assert [e["complete"] for e in events if e["type"] == "score"] == [False]


def test_run_with_an_out_folder_that_cannot_be_written_is_one_line(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    rc, _, err = run_cli(["run", "--source", "demo", "--headless", "--detector", "oracle",
                          "--out", str(blocker / "run")], capsys)  # fmt: skip
    assert rc == 2 and err.count("\n") == 1 and "cannot write there" in err


def test_a_confirmation_line_may_name_the_rulings_card():
    from hakam.cli.vision import correction_line

    line = '{"confirm": {"trick": 1, "seat": 0, "rule": "false-project", "card": "QH"}}'
    assert correction_line(line)["card"] == "QH"
    with pytest.raises(ValueError, match="is not a Baloot card"):
        correction_line('{"confirm": {"trick": 1, "seat": 0, "card": "2C"}}')
