"""The tournament board under load: many simulated tables publishing deals to one broker, the
board (``hakam board``, its own process) serving the page to a headless Chromium, and what the
page received: every event once, how late, and each table's totals.

Each table is the real ``Publisher`` (its outbox on disk, QoS 1) sent a deal's pipeline events
(``hakam.board.simulate``: deal, trick, score, a revoke in one deal of ten) every ``--every``
seconds on average, for ``--seconds``. ``--restart-at S`` stops the broker S seconds in (it
writes its store) and starts it again ``--down`` seconds later. The lag of an event is the
page's clock when it arrived less the table's when the event was made (one machine, one clock).

    .venv/bin/python benchmarks/board.py --tables 200 --seconds 60
    .venv/bin/python benchmarks/board.py --tables 200 --seconds 60 --restart-at 30
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def start_board(broker_url: str, port: int, tournament: str) -> subprocess.Popen:
    """``hakam board`` in its own process, as a hall runs it."""
    cmd = [sys.executable, "-m", "hakam", "board", "--broker", broker_url, "--port", str(port),
           "--host", "127.0.0.1", "--tournament", tournament]  # fmt: skip
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def run(tables: int = 200, seconds: float = 60.0, every: float = 3.0, restart_at: float = 0.0,
        down: float = 2.0, seed: int = 0, quiet: bool = False) -> dict[str, Any]:  # fmt: skip
    from hakam.board.browser import open_browser
    from hakam.board.localbroker import LocalBroker, free_port
    from hakam.board.mqtt import Broker
    from hakam.board.publisher import Publisher
    from hakam.board.simulate import deal_events

    say = (lambda *a: None) if quiet else (lambda *a: print(*a, file=sys.stderr, flush=True))
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="hakam-board-bench-"))
    broker = LocalBroker(work / "broker").start()
    port = free_port()
    board = start_board(broker.url, port, "bench")
    browser = open_browser(1920, 1080)
    pubs: list[Publisher] = []
    try:
        url = f"http://127.0.0.1:{port}/"
        for _ in range(100):  # the board process listening
            try:
                browser.get(url + "?bench=1")  # the page keeps every event id and its lag
                if browser.execute_script("return window.hakam !== undefined"):
                    break
            except Exception:  # the board not yet up
                pass
            time.sleep(0.2)
        address = Broker.parse(broker.url)
        names = [f"T{i:03d}" for i in range(1, tables + 1)]
        pubs = [Publisher(address, name, work / "tables" / name, "bench",
                          [f"{name} A", f"{name} B"], 1) for name in names]  # fmt: skip
        for pub in pubs:
            pub.connected.wait(10)
        say(f"[board] {tables} tables connected to {broker.url}; the page at {url}")
        # Each table's deals: at random times, on average every ``every`` s.
        plan = []
        for i in range(tables):
            t = rng.uniform(0, every)
            deal = 1
            while t < seconds:
                plan.append((t, i, deal))
                t += rng.uniform(0.5 * every, 1.5 * every)
                deal += 1
        plan.sort()
        expect = [[0, 0] for _ in range(tables)]
        outage: list[float] = []

        def restart() -> None:
            time.sleep(restart_at)
            outage.append(time.time())
            say(f"[board] broker stopped at {restart_at:.0f} s")
            broker.stop()
            time.sleep(down)
            broker.start()
            outage.append(time.time())
            say(f"[board] broker back after {down:.1f} s")

        restarter = threading.Thread(target=restart) if restart_at > 0 else None
        t0 = time.monotonic()
        if restarter is not None:
            restarter.start()
        last = t0
        for when, i, deal in plan:
            wait = t0 + when - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            result = [rng.randrange(0, 27), rng.randrange(0, 27)]
            expect[i] = [expect[i][0] + result[0], expect[i][1] + result[1]]
            ruling = "suspected" if rng.random() < 0.1 else None
            pubs[i].update(deal_events(deal, result, ruling=ruling))
            if not quiet and time.monotonic() - last > 10:
                last = time.monotonic()
                done = last - t0
                say(f"[board] {done:.0f}/{seconds:.0f} s, about {seconds - done:.0f} s left")
        if restarter is not None:
            restarter.join()
        sent_ids = {e["id"]: e["at"] for pub in pubs for e in pub.outbox.events}
        say(f"[board] {len(sent_ids)} events made; waiting for the page to have them")
        end = time.monotonic() + 60
        seen = 0
        while time.monotonic() < end:
            seen = browser.execute_script("return window.hakam.seen.size")
            if seen >= len(sent_ids):
                break
            time.sleep(0.5)
        page = browser.execute_script(
            "const h = window.hakam; return {seen: [...h.seen], lags: h.lags, twice: h.twice,"
            " totals: Object.fromEntries(Object.values(h.tables).map(v => [v.table, v.totals]))}"
        )
        acked = all(pub.wait_sent(5) for pub in pubs)
        with urllib.request.urlopen(f"{url}api/state", timeout=10) as answer:
            dropped = json.load(answer)["duplicates"]  # delivered again, dropped by id
    finally:
        for pub in pubs:
            pub.close(timeout=1)
        browser.quit()
        board.terminate()
        board.wait(10)
        broker.stop()
        shutil.rmtree(work, ignore_errors=True)  # the broker's store and the tables' outboxes
    lost = set(sent_ids) - set(page["seen"])
    lags = page["lags"]
    report: dict[str, Any] = {
        "tables": tables, "seconds": seconds, "every": every, "events": len(sent_ids),
        "seen": len(page["seen"]), "lost": len(lost), "page_counted_twice": page["twice"],
        "board_dropped_repeats": dropped,
        "totals_wrong": sum(page["totals"].get(f"T{i + 1:03d}") != expect[i]
                            for i in range(tables)),
        "acknowledged": acked, "restart_at": restart_at or None,
        "down": down if restart_at else None, "lag_p50": percentile(lags, 50),
        "lag_p99": percentile(lags, 99), "lag_max": max(lags or [0]),
    }  # fmt: skip
    if restart_at and len(outage) == 2:
        # events made while the broker was away wait for it: their lag is the outage's
        ids = page["seen"]
        lag_of = dict(zip(ids, lags, strict=False))  # the page keeps them in arrival order
        calm = [lag_of[i] for i in ids if not outage[0] - 1 <= sent_ids[i] <= outage[1] + 1]
        report["lag_p99_outside_outage"] = percentile(calm, 99)
        report["events_in_outage"] = len(ids) - len(calm)
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--every", type=float, default=3.0, help="mean seconds between a table's deals")
    ap.add_argument("--restart-at", type=float, default=0.0, help="restart the broker then (s)")
    ap.add_argument("--down", type=float, default=2.0, help="seconds the broker stays down")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="write the report here too")
    args = ap.parse_args()
    t0 = time.monotonic()
    report = run(args.tables, args.seconds, args.every, args.restart_at, args.down, args.seed)
    report["wall_s"] = round(time.monotonic() - t0, 1)
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    ok = report["lost"] == 0 and report["totals_wrong"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
