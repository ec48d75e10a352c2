"""Screenshots of the board for the docs: a hall of eight simulated tables part way through
their matches (one decided, disputes waiting at two), in English and Arabic, and the director's
view. Needs mosquitto, chromium and chromium-driver (``board/install_debian.sh``).

    .venv/bin/python -m hakam.board.screenshots [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from hakam.board.browser import open_browser
from hakam.board.localbroker import LocalBroker
from hakam.board.mqtt import Broker
from hakam.board.publisher import Publisher
from hakam.board.server import BackgroundServer, BoardFeed, make_app
from hakam.board.simulate import deal_events

TEAMS = [("Al-Nasr", "Al-Fajr"), ("Diwaniya 7", "Abu Fahad"), ("Riyadh A", "Riyadh B"),
         ("Najd", "Hijaz"), ("Salwa", "Khobar"), ("Qassim", "Jazan"), ("Tabuk", "Hail"),
         ("Al-Ahsa", "Jeddah")]  # fmt: skip


def play_hall(tables: list[Publisher], rng: random.Random) -> None:
    for i, pub in enumerate(tables):
        totals, deal = [0, 0], 1
        while deal <= 3 + i % 4 and max(totals) < 152:
            result = [rng.randrange(0, 27), rng.randrange(0, 27)] if i != 0 else [52, 0]
            ruling = "suspected" if (i, deal) in ((2, 3), (5, 2)) else None
            ruling = "proven" if (i, deal) == (4, 1) else ruling
            pub.update(deal_events(deal, result, ruling=ruling))
            totals = [totals[0] + result[0], totals[1] + result[1]]
            deal += 1
        if i == 0:  # decided: three Kaboots
            pub.update([{"type": "match", "match": totals, "winner": 0}])
        else:  # the next deal under way
            pub.update(deal_events(deal, [0, 0])[:3])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="docs/screenshots")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="hakam-board-shots-"))
    with LocalBroker(work / "broker") as broker:
        address = Broker.parse(broker.url)
        server = BackgroundServer(make_app(BoardFeed(address, "cup"))).start()
        tables = [Publisher(address, f"{i + 1}", work / f"t{i}", "cup", list(TEAMS[i]), 1)
                  for i in range(len(TEAMS))]  # fmt: skip
        browser = open_browser(1600, 900)
        try:
            for pub in tables:
                pub.connected.wait(10)
            play_hall(tables, random.Random(5))
            for pub in tables:
                pub.wait_sent(10)
            for name, path in (("board_hall_en", "/"), ("board_hall_ar", "/?lang=ar"),
                               ("board_director", "/director")):  # fmt: skip
                browser.get(server.url + path)
                time.sleep(1.5)
                browser.save_screenshot(str(out / f"{name}.png"))
                print(out / f"{name}.png")
        finally:
            browser.quit()
            for pub in tables:
                pub.close()
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
