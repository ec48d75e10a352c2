"""Replay a recorded match card by card through the incremental referee, as the camera would.

``replay_match`` yields one event dict per bid, play, trick, violation and deal score; the
camera pipeline emits the same events from live trick events, so the GUI can consume either.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hakam.engine.record import InputError, need_list, need_object, parse_deal_record
from hakam.engine.referee import Referee
from hakam.engine.rules import SAUDI, RuleProfile
from hakam.engine.scoring import match_status

MATCH_FORMAT = "hakam-match/1"
DEMO_MATCH = Path(__file__).with_name("data") / "demo_match.json"


def load_match(path: str | Path | None = None) -> dict[str, Any]:
    """Read a ``hakam-match/1`` file (default: the bundled demo match)."""
    p = Path(path) if path is not None else DEMO_MATCH
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"input: cannot read {p}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"input: not valid JSON ({exc})") from None
    return data


def replay_match(
    match: dict[str, Any], profile: RuleProfile | None = None, accept_penalties: bool = True
) -> Iterator[dict[str, Any]]:
    """Events of a match replay; the last event is the ``score_sheet``.

    With ``accept_penalties`` the first violation of a deal decides its score (the default
    penalty); otherwise the played score stands and violations are only reported.
    """
    need_object(match, "input", ("format", "deals", "profile", "note"))
    if match.get("format") != MATCH_FORMAT:
        raise InputError(f"format: must be {MATCH_FORMAT!r}")
    deals = need_list(match.get("deals"), "deals", 200)
    totals = (0, 0)
    sheet: list[dict[str, Any]] = []
    winner = None
    for n, raw in enumerate(deals, 1):
        if not isinstance(raw, dict):
            raise InputError(f"deals[{n - 1}]: must be a JSON object")
        raw = {**raw, "match": list(totals)}
        if profile is not None:
            raw["profile"] = {"name": profile.name}
        try:
            record = parse_deal_record(raw)
        except InputError as exc:
            raise InputError(f"deals[{n - 1}].{exc}") from None
        contract = record.contract
        yield {
            "event": "deal",
            "deal": n,
            "dealer": record.dealer,
            "open_card": None if record.open_card is None else str(record.open_card),
            "bids": [[s, c] for s, c in record.bids],
            "contract": None if contract is None else contract.to_json(),
        }
        if contract is None:
            yield {"event": "void", "deal": n}
            sheet.append({"deal": n, "contract": None, "result": [0, 0], "match": list(totals)})
            continue
        ref = Referee(contract, record.profile, record.projects, record.baloot)
        yield from _play(ref, record, n)
        outcome = ref.outcome(totals)
        penalty = None
        if accept_penalties and ref.violations:
            first = ref.violations[0]
            result, over, winner = ref.penalty(first, totals)
            penalty = {"rule": first.rule, "seat": first.seat, "team": 1 - first.team}
        elif outcome is not None:
            result, over, winner = outcome.result, outcome.match_over, outcome.match_winner
        else:
            result, over, winner = (0, 0), False, None
        totals = (totals[0] + result[0], totals[1] + result[1])
        score = {"event": "score", "deal": n, **(outcome.to_json() if outcome else {})}
        score.update({"result": list(result), "match": list(totals), "penalty": penalty})
        score.update({"match_over": over, "match_winner": winner})
        yield score
        sheet.append(
            {
                "deal": n,
                "contract": describe_contract(contract.to_json()),
                "result": list(result),
                "match": list(totals),
                "penalty": penalty,
            }
        )
        if over:
            break
    if winner is None:
        over, winner = match_status(totals, None, profile or SAUDI)
    yield {
        "event": "score_sheet",
        "deals": sheet,
        "match": list(totals),
        "match_over": winner is not None,
        "match_winner": winner,
    }


def _play(ref: Referee, record: Any, n: int) -> Iterator[dict[str, Any]]:
    for t, trick in enumerate(record.tricks, 1):
        for i, (seat, card) in enumerate(trick):
            ekka = i == 0 and t in record.ekka
            actual = ref.turn if seat is None else seat
            new = ref.push(card, seat, ekka)
            yield {
                "event": "play",
                "deal": n,
                "trick": t,
                "seat": actual,
                "card": str(card),
                "ekka": ekka,
            }
            for v in new:
                yield {"event": "violation", "deal": n, **v.to_json()}
        if len(trick) == 4:
            done = ref.tricks[-1]
            yield {
                "event": "trick",
                "deal": n,
                "trick": t,
                "winner": done.winner,
                "points": done.points,
                "card_points": list(ref.card_points),
            }


def describe_contract(c: dict[str, Any]) -> str:
    """``Hokum H by seat 1 (double, locked)``: the score-sheet line of a contract."""
    text = f"Hokum {c['trump']}" if c["kind"] == "hokum" else "Sun"
    if c.get("ashkal"):
        text += " (Ashkal)"
    text += f" by seat {c['declarer']}"
    if c.get("level", "none") != "none":
        text += f" ({c['level']}{', locked' if c.get('locked') else ''})"
    return text


def format_score_sheet(sheet: dict[str, Any]) -> str:
    """The score sheet as text, one line per deal, in game points."""
    lines = [f"{'deal':>4}  {'contract':<34}{'team 0':>8}{'team 1':>8}   match"]
    for row in sheet["deals"]:
        contract = row["contract"] or "void (all passed)"
        r, m = row["result"], row["match"]
        note = f"  penalty: {row['penalty']['rule']}" if row.get("penalty") else ""
        lines.append(f"{row['deal']:>4}  {contract:<34}{r[0]:>8}{r[1]:>8}   {m[0]}-{m[1]}{note}")
    if sheet["match_winner"] is not None:
        lines.append(
            f"team {sheet['match_winner']} wins the match {sheet['match'][0]}-{sheet['match'][1]}"
        )
    else:
        lines.append(f"match not finished: {sheet['match'][0]}-{sheet['match'][1]}")
    return "\n".join(lines)
