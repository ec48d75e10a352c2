"""Table mode end to end: match clips refereed deal after deal with the shipped models, headless
and in the window (each deal bid through the New deal panel), against the clips' truth sheets.

Each clip is a ``hakam video render --deals N`` match (rendered here with ``--render``, or given
with ``--clip``). Headless runs ``hakam run --headless --match`` in a fresh data folder; the
window is driven offscreen in this process: the camera's open card must reach the panel, the
table's bids are the panel's calls, and the sheet the window writes is compared with the truth.

    .venv/bin/python benchmarks/table.py --render 3:kennard 4:kennard 5:paris 6:bellot
    .venv/bin/python benchmarks/table.py --clip runs/m3/clip.mp4 --no-window
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def render(spec: str, deals: int, size: str, out: Path) -> Path:
    seed, _, deck = spec.partition(":")
    clip = out / f"{deck or 'default'}{seed}" / "clip.mp4"
    if not clip.is_file():
        cmd = [sys.executable, "-m", "hakam", "video", "render", "--seed", seed, "--deals",
               str(deals), "--size", size, "--out", str(clip)]  # fmt: skip
        if deck:
            cmd += ["--deck", deck]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return clip


def truth_of(clip: Path) -> tuple[list[list[int]], list[dict]]:
    sheet = json.loads(clip.with_suffix(".sheet.json").read_text())
    match = json.loads(clip.with_suffix(".match.json").read_text())
    return [r["result"] for r in sheet["deals"]], match["deals"]


def headless(clip: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.monotonic()
        cmd = [sys.executable, "-m", "hakam", "run", "--headless", "--source", str(clip),
               "--match", str(clip.with_suffix(".setup.jsonl")),
               "--calibration", str(clip.with_suffix(".toml")), "--out", f"{tmp}/out"]  # fmt: skip
        env = {**os.environ, "HAKAM_DATA_DIR": f"{tmp}/data"}
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)  # fmt: skip
        sheet = json.loads(Path(f"{tmp}/out/sheet.json").read_text())
        events = [json.loads(x) for x in Path(f"{tmp}/out/events.jsonl").read_text().splitlines()]
    plays = [e for e in events if e["type"] == "play"]
    return {
        "results": [r["result"] for r in sheet["deals"]],
        "final": sum(r["status"] == "final" for r in sheet["deals"]),
        "seen": sum(p.get("provenance") == "seen" for p in plays),
        "plays": len(plays),
        "seconds": round(time.monotonic() - t0, 1),
    }


def window(clip: Path) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from hakam.engine.bidding import calls_for
    from hakam.engine.contract import Contract
    from hakam.gui.match_store import MatchStore
    from hakam.gui.table_feed import SetupQueue
    from hakam.gui.views.main_window import MainWindow, make_app
    from hakam.vision.detector import make_detector
    from hakam.vision.match import MatchPipeline
    from hakam.vision.seats import Calibration
    from hakam.vision.sources import open_source

    _, deals = truth_of(clip)
    with tempfile.TemporaryDirectory() as tmp:
        make_app()
        store = MatchStore(Path(tmp) / "matches.sqlite3")
        match_id = store.new_match(deals[0]["dealer"])
        w = MainWindow(store, "en")
        setups = SetupQueue()
        source = open_source(str(clip))
        match = MatchPipeline(make_detector(None), setups, fps=source.fps, out_dir=f"{tmp}/out",
                              calibration=Calibration.load(clip.with_suffix(".toml")))  # fmt: skip
        t0, bid, cards_read = time.monotonic(), 0, 0
        for item in w.table_feed(match, iter(source), (match_id, "bench", tmp), setups):
            w.feed_item(item)
            if w.setup.phase == "bidding" and not w.setup.bids and bid < len(deals):
                rec = deals[bid]
                cards_read += w.setup.open_card == rec["open_card"]
                calls = (
                    [c for _, c in rec["bids"]]
                    if rec["contract"] is None
                    else [c for _, c in calls_for(Contract.from_json(rec["contract"]),
                                                  rec["open_card"][-1])]
                )  # fmt: skip
                for call in calls:
                    w.setup.call(call)
                w.setup.start_deal()
                bid += 1
        rows = w.sheet.rows()
        out = {
            "results": [list(r.result) for r in rows],
            "final": sum(not r.entry.provisional for r in rows),
            "open_cards": cards_read,
            "seconds": round(time.monotonic() - t0, 1),
        }
        w.close()
        store.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--render", nargs="*", default=[], help="SEED[:DECK] match clips to film")
    parser.add_argument("--clip", nargs="*", default=[], help="match clips already filmed")
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--out", type=Path, default=Path("runs/table-bench"))
    parser.add_argument("--no-window", action="store_true")
    args = parser.parse_args(argv)
    clips = [Path(c) for c in args.clip]
    for n, spec in enumerate(args.render, 1):
        print(f"[table] filming {spec} ({n}/{len(args.render)})", file=sys.stderr, flush=True)
        clips.append(render(spec, args.deals, args.size, args.out))
    print(
        "| clip | deals | headless: sheet | plays seen | final | s | window: sheet | open "
        "cards read | final | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for clip in clips:
        want, deals = truth_of(clip)
        h = headless(clip)
        row = [str(clip.parent.name), str(len(want)),
               "exact" if h["results"] == want else f"{h['results']} vs {want}",
               f"{h['seen']}/{h['plays']}", f"{h['final']}/{len(want)}",
               str(h["seconds"])]  # fmt: skip
        if args.no_window:
            row += ["–"] * 4
        else:
            g = window(clip)
            row += ["exact" if g["results"] == want else f"{g['results']} vs {want}",
                    f"{g['open_cards']}/{len(deals)}", f"{g['final']}/{len(want)}",
                    str(g["seconds"])]  # fmt: skip
        print("| " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
