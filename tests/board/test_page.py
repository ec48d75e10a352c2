"""The board's page in a real headless browser: three simulated tables update as their deals
are scored, in English and in Arabic (right to left), and the director's disputes."""

from __future__ import annotations

import pytest

from hakam.board.browser import chromium_driver, open_browser
from hakam.board.mqtt import Broker
from hakam.board.publisher import Publisher
from hakam.board.server import BackgroundServer, BoardFeed, make_app
from hakam.board.simulate import deal_events, wait_for


@pytest.fixture
def hall(broker, tmp_path):
    """The board served on a free port, and three tables publishing to the broker."""
    pytest.importorskip("selenium")
    if chromium_driver() is None:
        pytest.skip("chromium-driver is not installed (board/install_debian.sh)")
    address = Broker.parse(broker.url)
    server = BackgroundServer(make_app(BoardFeed(address, "cup"))).start()
    tables = [Publisher(address, f"T{i}", tmp_path / f"T{i}", "cup", [f"Red {i}", f"Blue {i}"], 1)
              for i in (1, 2, 3)]  # fmt: skip
    browser = open_browser(1600, 900)
    try:
        yield server, tables, browser
    finally:
        browser.quit()
        for pub in tables:
            pub.close()
        server.stop()


def scores(browser):
    return browser.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('[data-table]')].map(s =>"
        " [s.dataset.table, [...s.querySelectorAll('.score')].map(x => +x.textContent)]))"
    )


def test_three_tables_update_on_the_page_as_their_deals_are_scored(hall):
    server, tables, browser = hall
    browser.get(server.url + "/?bench=1")
    wait_for(lambda: browser.execute_script("return window.hakam !== undefined"))
    assert "No table has published yet" in browser.find_element("id", "main").text
    for deal in (1, 2, 3):
        for i, pub in enumerate(tables):
            pub.update(deal_events(deal, [10 + i, 16], ruling="suspected" if i == 2 else None))
        want = {f"T{i + 1}": [(10 + i) * deal, 16 * deal] for i in range(3)}
        wait_for(lambda want=want: scores(browser) == want, what=f"deal {deal} on the page")
    text = browser.find_element("css selector", "[data-table=T3]").text
    assert "Red 3" in text and "Deal 3" in text and "Hokum ♠" in text
    assert "disputes waiting: 3" in text and "Revoke A♣ (suspected)" in text
    assert browser.execute_script("return window.hakam.twice") == 0
    # each deal: deal, trick, score (the play is not for the board); T3's rulings: 3 more
    assert browser.execute_script("return window.hakam.seen.size") == 3 * 3 * 3 + 3
    browser.get(server.url + "/director")  # the director: every dispute, with its question
    wait_for(lambda: "Did seat 2 play AC" in browser.find_element("id", "main").text)
    rows = browser.find_elements("css selector", "table.disputes tr")
    assert len(rows) == 1 + 3


def test_the_arabic_page_reads_right_to_left(hall):
    server, tables, browser = hall
    tables[0].update(deal_events(1, [26, 0], ruling="proven"))
    browser.get(server.url + "/?lang=ar")
    wait_for(lambda: scores(browser).get("T1") == [26, 0])
    assert browser.execute_script("return document.documentElement.dir") == "rtl"
    main = browser.find_element("id", "main").text
    assert "طاولة T1" in main and "الجولة 1" in main and "قاطع" in main and "ثابتة" in main
    card = browser.find_element("css selector", ".ruling .card")
    assert card.text == "A♣"  # the rank, then the suit
    # right to left: the first team's name lies right of its score
    name, score = browser.find_elements("css selector", "[data-table=T1] .teams > span")[:2]
    assert name.location["x"] > score.location["x"]
    left_of = ("const r = document.createRange(), t = arguments[0].firstChild;"
               " r.setStart(t, arguments[1]); r.setEnd(t, arguments[1] + 1);"
               " return r.getBoundingClientRect().left;")  # fmt: skip
    # drawn: the rank left of the suit, inside the Arabic line
    rank, suit = (browser.execute_script(left_of, card, i) for i in (0, 1))
    assert rank < suit
    tables[1].update(deal_events(1, [0, 26], ruling="suspected"))
    browser.get(server.url + "/director?lang=ar")
    wait_for(lambda: "هل لعب اللاعب 2" in browser.find_element("id", "main").text)


def test_what_a_table_sends_is_shown_as_text_never_run(broker, tmp_path):
    """Team names, questions and links come from the tables: escaped, and a link only when it
    is http(s)."""
    pytest.importorskip("selenium")
    if chromium_driver() is None:
        pytest.skip("chromium-driver is not installed (board/install_debian.sh)")
    address = Broker.parse(broker.url)
    server = BackgroundServer(make_app(BoardFeed(address, "cup"))).start()
    evil = '<img src=x onerror="window.pwned=1">'
    pub = Publisher(address, "T1", tmp_path / "T1", "cup", [evil, "B"], 1)
    browser = open_browser(1200, 800)
    try:
        pub.update(deal_events(1, [26, 0]))
        pub.add({"kind": "ruling", "deal": 1, "trick": 1, "seat": 0, "rule": "<b>x</b>",
                 "card": "AC", "status": "suspected", "text": "", "question": evil,
                 "evidence": "javascript:window.pwned=2"})  # fmt: skip
        for path in ("/", "/director"):
            browser.get(server.url + path)
            wait_for(lambda: "Table T1" in browser.find_element("id", "main").text)
            assert browser.execute_script("return window.pwned === undefined")
            assert evil in browser.find_element("id", "main").text  # shown as it was sent
            assert not browser.find_elements("css selector", "main img, main a")
    finally:
        browser.quit()
        pub.close()
        server.stop()
