"""``hakam board``: a tournament's live scoreboard and director's view, served over HTTP from
the tables' broker (needs the board extra: ``pip install 'hakam[board]'``)."""

from __future__ import annotations

import argparse
import sys

from hakam.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "board", help="a tournament's live scoreboard (web page) from the tables' MQTT broker"
    )
    p.add_argument("--broker", required=True, metavar="mqtt://HOST[:PORT]",
                   help="the broker the tables publish to (mqtts:// for TLS)")  # fmt: skip
    p.add_argument("--tournament", default="main", help="the tournament's name (default: main)")
    p.add_argument("--host", default="0.0.0.0", help="address to serve on (default: all)")
    p.add_argument("--port", type=int, default=8080, help="HTTP port (default 8080)")
    p.add_argument("--mqtt-ca", default=None, help="CA certificate of a TLS broker")
    p.add_argument("--client-id", default=None,
                   help="this board's MQTT client id: each board of a tournament needs its own "
                   "(default: from this host's name and --port)")  # fmt: skip
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from hakam.board.mqtt import Broker, BrokerError, check_name
        from hakam.board.server import BoardFeed, make_app
    except ModuleNotFoundError as exc:
        raise UserError(f"hakam board: needs the board extra ({exc.name} is missing): "
                        "pip install 'hakam[board]'") from None  # fmt: skip
    if not 0 < args.port < 65536:
        raise UserError(f"--port {args.port}: not a port from 1 to 65535")
    try:
        broker = Broker.parse(args.broker, args.mqtt_ca)
        tournament = check_name(args.tournament, "--tournament")
    except BrokerError as exc:
        raise UserError(str(exc)) from None
    import socket

    client_id = args.client_id or f"hakam-{tournament}-board-{socket.gethostname()}-{args.port}"
    try:
        feed = BoardFeed(broker, tournament, client_id)
    except BrokerError as exc:
        raise UserError(str(exc)) from None
    app = make_app(feed)
    print(f"[board] tournament {tournament!r} from {broker}: http://{args.host}:{args.port}/ "
          f"(director: /director, Arabic: ?lang=ar)", file=sys.stderr, flush=True)  # fmt: skip
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning",
                timeout_graceful_shutdown=3)  # fmt: skip
    return 0
