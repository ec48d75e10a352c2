"""``hakam rules legal|score``, ``hakam referee`` and ``hakam demo`` (``hakam run``: ``vision``).

All JSON tools read a file or ``-`` (stdin) and print JSON; bad input is one line naming the field
(``UserError``, exit 2), never a traceback and never a partial answer.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from hakam.engine.cards import Card
from hakam.engine.play import illegal_reasons, legal_plays
from hakam.engine.projects import ProjectError, project_from_top
from hakam.engine.record import (
    InputError,
    check_sun_double,
    need_bool,
    need_card,
    need_cards,
    need_contract,
    need_list,
    need_object,
    need_pair,
    need_profile,
    need_seat,
    parse_deal_record,
    ruling_json,
)
from hakam.engine.replay import format_score_sheet, load_match, replay_match
from hakam.engine.scoring import ScoreError, check_score_input, score_deal


def _cli_error(message: str) -> Exception:
    from hakam.errors import UserError

    return UserError(message)


def read_json(path: str) -> Any:
    """Parse JSON from a file or ``-``; errors become one-line ``InputError``s."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        raise InputError(f"input: cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InputError("input: not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"input: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:
        raise InputError("input: JSON nested too deeply") from None


def legal_json(data: Any) -> dict[str, Any]:
    """``hakam rules legal``: the legal cards of a hand, and why the others are illegal."""
    data = need_object(
        data, "input", ("contract", "hand", "trick", "seat", "played", "ekka", "profile")
    )
    for key in ("contract", "hand", "seat"):
        if key not in data:
            raise InputError(f"{key}: missing")
    profile = need_profile(data.get("profile"))
    contract = need_contract(data["contract"])
    hand = need_cards(data["hand"], "hand", 8)
    played = need_cards(data.get("played", []), "played", 28)
    seat = need_seat(data["seat"], "seat")
    ekka = need_bool(data.get("ekka", False), "ekka")
    trick_raw = need_list(data.get("trick", []), "trick", 3)
    trick: list[tuple[int, Card]] = []
    for i, item in enumerate(trick_raw):
        if not isinstance(item, list) or len(item) != 2:
            raise InputError(f"trick[{i}]: must be [seat, card]")
        trick.append((need_seat(item[0], f"trick[{i}][0]"), need_card(item[1], f"trick[{i}][1]")))
    owner: dict[Card, str] = {}
    for name, cards in (("played", played), ("trick", [c for _, c in trick]), ("hand", hand)):
        for c in cards:
            if c in owner:
                raise InputError(f"{name}: card {c} twice (also in {owner[c]})")
            owner[c] = name
    if len(played) % 4:
        raise InputError(f"played: wrong count, {len(played)} is not whole tricks")
    want = 8 - len(played) // 4
    if len(hand) != want:
        raise InputError(
            f"hand: wrong count, {len(hand)} cards after {len(played) // 4} tricks (needs {want})"
        )
    for i in range(1, len(trick)):
        if trick[i][0] != (trick[i - 1][0] + 1) % 4:
            raise InputError(f"trick[{i}][0]: seat {trick[i][0]} out of turn")
    if trick and seat != (trick[-1][0] + 1) % 4:
        raise InputError(f"seat: seat {seat} is not on turn (seat {(trick[-1][0] + 1) % 4} is)")
    cards = [c for _, c in trick]
    legal = legal_plays(hand, cards, contract, played, ekka, profile)
    reasons = illegal_reasons(hand, cards, contract, played, ekka, profile)
    return {
        "legal": [str(c) for c in legal],
        "reasons": {str(c): r for c, r in sorted(reasons.items(), key=lambda kv: kv[0].index)},
    }


def score_json(data: Any) -> dict[str, Any]:
    """``hakam rules score``: the score sheet of a deal from its totals, without play."""
    data = need_object(
        data,
        "input",
        ("contract", "card_points", "tricks_won", "projects", "baloot", "match", "profile"),
    )
    for key in ("contract", "card_points", "tricks_won"):
        if key not in data:
            raise InputError(f"{key}: missing")
    profile = need_profile(data.get("profile"))
    contract = need_contract(data["contract"])
    card_points = need_pair(data["card_points"], "card_points")
    tricks_won = need_pair(data["tricks_won"], "tricks_won")
    match = need_pair(data.get("match", [0, 0]), "match")
    check_sun_double(contract, match, profile)
    try:
        check_score_input(contract, card_points, tricks_won)
    except ScoreError as exc:
        raise InputError(str(exc)) from None
    projects = []
    owner: dict[Card, int] = {}
    for i, raw in enumerate(need_list(data.get("projects", []), "projects", 16)):
        name = f"projects[{i}]"
        need_object(raw, name, ("seat", "kind", "top", "four_of", "cards"))
        seat = need_seat(raw.get("seat"), f"{name}.seat")
        kind, top, four_of = raw.get("kind"), raw.get("top"), raw.get("four_of")
        for key, value in (("kind", kind), ("top", top), ("four_of", four_of)):
            if value is not None and not isinstance(value, str):
                raise InputError(f"{name}.{key}: must be text")
        try:
            project = project_from_top(seat, kind, top, four_of, contract.is_sun)
        except ProjectError as exc:
            raise InputError(f"{name}: {exc}") from None
        for c in project.cards:
            if c in owner and (owner[c] != seat or any(c in p.cards for p in projects)):
                raise InputError(f"{name}: card {c} is already in another project")
            owner[c] = seat
        projects.append(project)
    baloot = [
        need_seat(v, f"baloot[{i}]")
        for i, v in enumerate(need_list(data.get("baloot", []), "baloot", 4))
    ]
    if baloot and contract.is_sun:
        raise InputError("baloot: there is no Baloot in Sun")
    if len(baloot) > 1:
        raise InputError("baloot: only one seat can hold K and Q of trump")
    for seat in baloot:
        for rank in ("K", "Q"):
            c = Card(rank, contract.trump or "C")
            if owner.get(c, seat) != seat:
                raise InputError(f"baloot: seat {seat} cannot hold {c}, seat {owner[c]} shows it")
    outcome = score_deal(contract, card_points, tricks_won, projects, baloot, match, profile)
    return outcome.to_json()


def referee_json(data: Any) -> dict[str, Any]:
    """``hakam referee``: the ruling of a (possibly partial) deal record."""
    return ruling_json(parse_deal_record(data))


def _run_tool(func: Any, args: argparse.Namespace) -> int:
    try:
        out = func(read_json(args.input))
    except (InputError, ValueError) as exc:
        raise _cli_error(str(exc)) from None
    print(json.dumps(out, ensure_ascii=False))
    return 0


def _cmd_legal(args: argparse.Namespace) -> int:
    return _run_tool(legal_json, args)


def _cmd_score(args: argparse.Namespace) -> int:
    return _run_tool(score_json, args)


def _cmd_referee(args: argparse.Namespace) -> int:
    return _run_tool(referee_json, args)


def _replay(path: str | None) -> list[dict[str, Any]]:
    try:
        return list(replay_match(load_match(path)))
    except ValueError as exc:
        raise _cli_error(str(exc)) from None


def _cmd_demo(args: argparse.Namespace) -> int:
    events = _replay(args.match)
    for e in events:
        if e["event"] == "deal" and e["contract"]:
            from hakam.engine.replay import describe_contract

            print(f"deal {e['deal']}: {describe_contract(e['contract'])}")
        elif e["event"] == "violation":
            print(f"  ruling: {e['text']}")
    print(format_score_sheet(events[-1]))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the engine's subcommands to ``hakam``."""
    rules = subparsers.add_parser("rules", help="rules engine tools (JSON in, JSON out)")
    rsub = rules.add_subparsers(dest="rules_command", metavar="TOOL")
    for name, func, text in (
        ("legal", _cmd_legal, "legal cards of a hand in a trick"),
        ("score", _cmd_score, "score a deal from its totals (paper score sheet)"),
    ):
        p = rsub.add_parser(name, help=text)
        p.add_argument("input", nargs="?", default="-", help="JSON file, or - for stdin")
        p.set_defaults(func=func)
    rules.set_defaults(func=lambda _args: rules.print_help() or 0)
    ref = subparsers.add_parser("referee", help="rule on a deal record (hakam-deal/1)")
    ref.add_argument("input", nargs="?", default="-", help="JSON file, or - for stdin")
    ref.set_defaults(func=_cmd_referee)
    demo = subparsers.add_parser("demo", help="replay the bundled match and print its score sheet")
    demo.add_argument("--match", default=None, help="a hakam-match/1 file instead of the demo")
    demo.set_defaults(func=_cmd_demo)
