"""The window fed by the real camera pipeline on the bundled demo clip (`hakam run` without
--headless): live reads, the injected violation's banner, and the deal on the score sheet."""

from __future__ import annotations

import json
import tomllib

import pytest

import hakam.gui.views.main_window as main_window
from hakam.cli import main
from hakam.gui.match_store import MatchStore
from hakam.gui.views.main_window import MainWindow, make_app
from hakam.vision.oracle import unsure_labels
from hakam.vision.sources import DEMO_CALIBRATION, DEMO_RECORD, demo_clip_available

pytestmark = pytest.mark.skipif(not demo_clip_available(), reason="demo clip not installed")


def test_demo_clip_through_the_pipeline_into_the_window(qtbot, data_dir, tmp_path, monkeypatch):
    make_app()
    w = MainWindow(MatchStore(), "en")
    qtbot.addWidget(w)
    w.show()
    banners: list[str] = []
    read: list[int] = []
    w.live.subscribe_alert(lambda warning: banners.append(warning.rule))

    def window(language=None, fps=None, feed=None, **_):
        for item in feed:  # the worker thread's job, done inline so the test is deterministic
            if item.frame is None and not item.events:
                break  # the deal is over: the window waits for the table (closed here)
            w.feed_item(item)
            read.append(len(w.live.detections))
        return 0

    monkeypatch.setattr(main_window, "run", window)
    out = tmp_path / "run"
    # The oracle detector reads the renderer's labels: this tests the wiring, not the model.
    assert main(["run", "--source", "demo", "--detector", "oracle", "--out", str(out)]) == 0
    truth = json.loads(DEMO_RECORD.read_text())
    ruling = json.loads((out / "ruling.json").read_text())
    assert ruling["violations"], "the demo clip holds an injected violation"
    assert banners == [v["rule"] for v in ruling["violations"]]
    assert w.live_view.banner.isVisible()
    assert w.live.frame is not None and max(read) >= 4  # a full trick outlined at once
    # The calibrated seat positions reach the live view: the dealer's seat lies towards the
    # calibration's dealer point.
    table = w.live.table
    assert table is not None and len(table["seats"]) == 4
    cx, cy = table["centre"]
    dealer = table["seats"][truth["dealer"]]
    cal = tomllib.loads(DEMO_CALIBRATION.read_text())
    ux, uy = cal["dealer"][0] - cx, cal["dealer"][1] - cy
    assert (dealer[0] - cx) * ux + (dealer[1] - cy) * uy > 0
    w.live_view.grab()  # paints the calibrated layout without error
    rows = w.sheet.rows()
    assert len(rows) == 1 and rows[0].entry.source == "camera"
    assert rows[0].entry.contract == truth["contract"]
    # Until the table decides, the proven violation's penalty scores the deal; dismissed, the
    # deal is scored as played: both figures are the engine's ruling on the written record.
    assert list(rows[0].result) == ruling["violations"][0]["penalty"]["result"]
    w.live.dismiss(w.live.warnings[0].id)
    assert list(w.sheet.rows()[0].result) == ruling["result"]


def test_alert_sound_plays_the_wav_with_the_desktop_player(qtbot, tmp_path):
    import time

    from hakam.gui.views.sound import AlertSound

    make_app()
    sound = AlertSound()
    got = tmp_path / "played.txt"
    player = tmp_path / "player"
    player.write_text(f'#!/bin/sh\necho "$1" > {got}\n')
    player.chmod(0o755)
    sound.player = str(player)
    sound.play()
    for _ in range(50):
        if got.exists():
            break
        time.sleep(0.05)
    assert got.read_text().strip() == str(sound.path) and sound.played == 1
    assert sound.path.read_bytes()[:4] == b"RIFF"


def test_the_tables_click_finishes_a_deal_the_camera_could_not(
    qtbot, data_dir, tmp_path, monkeypatch
):
    # QC (trick 1's lead) and KD are never read surely, QC's unsure reads taking it for KD: the
    # deal waits for seat 1 from trick 1 to the end of the clip (the reads and the rules
    # disagree), and nothing goes on the sheet. The table picks QC in the notice: the pipeline
    # plays it, names KD as the one card left, and the complete deal is scored.
    from hakam.vision.sources import DEMO_LABELS

    make_app()
    w = MainWindow(MatchStore(), "en")
    qtbot.addWidget(w)
    labels = json.loads(DEMO_LABELS.read_text())
    labels["frames"] = unsure_labels(labels["frames"], {"QC", "KD"}, read_as={"QC": "KD"})
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(labels))
    clicked: list[int] = []

    def window(language=None, fps=None, feed=None, on_correction=None, **_):
        w.live.subscribe_corrections(on_correction)
        for item in feed:  # the worker thread's job, done inline
            if item.frame is None and not item.events:  # the feed waits for the table
                if len(clicked) == 2:
                    break  # a click and a confirmation settled the deal (the window stays)
                if not clicked:
                    assert w.sheet.rows() == []
                    notice = next(n for n in w.live.open_notices() if n.seat == 1)
                    assert "QC" in w.live.possible_cards(notice)
                    w.live.correct(notice.id, "QC")
                else:  # KD named while trick 7's cards were held: the trick is asked
                    assert w.sheet.rows()[0].entry.provisional
                    notice = next(n for n in w.live.open_notices() if n.confirm_trick)
                    w.live_view.correct(notice.id, sure=True)
                clicked.append(notice.id)
                continue
            w.feed_item(item)
        return 0

    monkeypatch.setattr(main_window, "run", window)
    out = tmp_path / "run"
    argv = ["run", "--source", "demo", "--detector", "oracle", "--labels", str(path)]
    assert main([*argv, "--out", str(out)]) == 0
    assert len(clicked) == 2 and not w.sheet.rows()[0].entry.provisional
    truth = json.loads(DEMO_RECORD.read_text())
    record = json.loads((out / "deal.json").read_text())
    assert record["tricks"] == truth["tricks"]
    ruling = json.loads((out / "ruling.json").read_text())
    rows = w.sheet.rows()
    assert len(rows) == 1 and list(rows[0].result) == ruling["violations"][0]["penalty"]["result"]
    logged = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    fixes = [(e["card"], e["by"]) for e in logged if e["type"] == "correction"]
    assert fixes[:2] == [("QC", "table"), ("KD", "elimination")]
    assert len(fixes) == 6 and {by for _, by in fixes[2:]} == {"confirmed"}  # trick 7, as recorded
