"""Helpers the command modules share: reading a JSON file, a frame size, the display, a frame
to calibrate on and the two calibration clicks. Imports nothing of the other command modules."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hakam.errors import UserError


def _cli_error(message: str) -> Exception:
    return UserError(message)


def load_json(path: str, what: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise _cli_error(f"{what} {path}: cannot read ({exc.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise _cli_error(f"{what} {path}: not valid JSON ({exc})") from None


def has_display() -> bool:
    import os

    return any(os.environ.get(k) for k in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def first_frame(spec: str, camera_size: tuple[int, int] | None = None) -> Any:
    from hakam.vision.sources import CAMERA_SIZE, SourceError, open_source

    try:
        with open_source(spec, camera_size=camera_size or CAMERA_SIZE) as src:
            for frame in src:
                return frame.image
    except SourceError as exc:
        raise _cli_error(str(exc)) from None
    raise _cli_error(f"--source {spec}: no frame")


def exec_until_signal(dialog: Any, on_signal: Callable[[int], None]) -> int:
    """``dialog.exec()``, Ctrl+C and SIGTERM handed to ``on_signal(signum)`` (which closes it)
    while it is open, the handlers before given back after. Python sees a signal only when it
    runs: a timer lets it run while Qt waits."""
    import signal

    from PySide6.QtCore import QTimer

    previous = {n: signal.signal(n, lambda signum, frame: on_signal(signum))
                for n in (signal.SIGINT, signal.SIGTERM)}  # fmt: skip
    ticker = QTimer(dialog)
    ticker.timeout.connect(lambda: None)
    ticker.start(200)
    try:
        return dialog.exec()
    finally:
        ticker.stop()
        for n, handler in previous.items():  # (None: not Python's)
            signal.signal(n, handler if handler is not None else signal.SIG_DFL)


def click_points(image: Any, language: str = "en") -> list[tuple[float, float]]:
    """Show the frame in a Qt window, fitted to the screen; the first click is the centre, the
    second the dealer (in the frame's pixels). Escape or closing it first: a one-line error."""
    import os

    if not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ) and sys.platform.startswith("linux"):
        raise _cli_error("no display: give --centre X,Y --dealer X,Y (pixels of the frame)")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    window = click_window(image, language)
    window.show()
    app.exec()
    if len(window.points) != 2:
        raise _cli_error("calibrate: closed before two clicks (centre, then dealer's seat)")
    return window.points


def click_window(image: Any, language: str = "en") -> Any:
    """The calibration's window (``click_points``): the frame scaled down to fit the screen it
    opens on (a 1920x1080 camera on a 1366x768 laptop), its clicks kept in ``points`` in the
    frame's pixels; it closes after two, or on Escape."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPixmap
    from PySide6.QtWidgets import QApplication, QLabel

    from hakam.gui.i18n import Language

    lang = Language(language)
    h, w = image.shape[:2]
    rgb = image[:, :, ::-1].copy()
    picture = QPixmap.fromImage(QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888))
    room = QApplication.primaryScreen().availableGeometry()
    # Room for the window's frame and title bar round the picture.
    scale = min(1.0, (room.width() - 40) / w, (room.height() - 90) / h)
    shown = picture.scaled(max(1, round(w * scale)), max(1, round(h * scale)),
                           Qt.AspectRatioMode.KeepAspectRatio,
                           Qt.TransformationMode.SmoothTransformation)  # fmt: skip

    class Clicks(QLabel):
        def __init__(self) -> None:
            super().__init__()
            self.points: list[tuple[float, float]] = []

        def mousePressEvent(self, ev: Any) -> None:
            pos = ev.position()
            self.points.append((float(pos.x()) / scale, float(pos.y()) / scale))
            self.setWindowTitle(f"Hakam: {lang.tr('start_click_dealer')}")
            if len(self.points) == 2:
                self.close()

        def keyPressEvent(self, ev: Any) -> None:
            if ev.key() == Qt.Key.Key_Escape:
                self.close()
                return
            super().keyPressEvent(ev)

    window = Clicks()
    window.setPixmap(shown)
    window.setFixedSize(shown.size())
    window.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    window.setWindowTitle(f"Hakam: {lang.tr('start_click_centre')}")
    return window


def parse_size(text: str, option: str = "--size") -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise _cli_error(f"{option}: must be WIDTHxHEIGHT, got {text!r}") from None
    if not (160 <= w <= 3840 and 120 <= h <= 2160):
        raise _cli_error(f"{option}: {w}x{h} out of range (160x120 .. 3840x2160)")
    return w, h


def add_deck_arg(parser: Any) -> None:
    parser.add_argument(
        "--deck", default=None, metavar="NAME",
        help="read the cards with a deck learnt here (`hakam deck learn`)",
    )  # fmt: skip


def decks_root() -> Path:
    """Where the decks learnt on this machine are kept (``hakam deck``)."""
    from hakam.gui.match_store import data_dir

    return data_dir() / "decks"


def with_deck(detector: Any, name: str | None, others: Sequence[str] | None = None) -> Any:
    """``detector`` reading with the learnt deck ``name`` (None: the standard readers), and
    telling the table when the cards read more like another reader (``hakam.vision.
    deck_check``): the standard one, and the learnt decks ``others`` (None: every deck learnt
    here that this reader can read with; one that cannot, learnt with other networks, is
    left out)."""
    from hakam.vision.deck_store import DeckStore
    from hakam.vision.decks import DeckError

    store = DeckStore(decks_root())
    try:
        deck = store.load(name) if name else None
        if not hasattr(detector, "with_deck"):
            if deck is None:
                return detector
            raise DeckError(f"--deck {name}: reads with the two-stage reader (the shipped one)")
        if others is None:
            kept = [_readable(store, other, detector) for other in store.names()]
        else:
            kept = [store.load(other) for other in others]
        kept = [d for d in kept if d is not None and d.name != name]
        if deck is None and not kept:
            return detector
        calibrated = deck is not None and deck.calibration is not None
        if calibrated and deck.for_reader(detector).calibration is None:  # another reader
            print(f"hakam: deck {name}: learnt with another whole-card reader, read without its "
                  f"calibration; it reads surer learnt again (hakam deck learn --again --name "
                  f"{name})", file=sys.stderr, flush=True)  # fmt: skip
        return detector.with_deck(deck, kept)
    except DeckError as exc:
        raise UserError(str(exc)) from None


def _readable(store: Any, name: str, detector: Any) -> Any:
    """The learnt deck ``name``, or None where ``detector`` cannot read with it."""
    from hakam.vision.decks import DeckError

    try:
        deck = store.load(name)
        deck.check_reader(detector)
    except DeckError:
        return None
    return deck


def add_publish_args(parser: Any) -> None:
    """``--publish`` and its companions: the table's match sent to a tournament's broker."""
    g = parser.add_argument_group("tournament (needs the board extra: pip install 'hakam[board]')")
    g.add_argument("--publish", default=None, metavar="mqtt://HOST[:PORT]",
                   help="publish this table's match to the broker (mqtts:// for TLS; "
                   "mqtt://USER:PASSWORD@HOST to log in)")  # fmt: skip
    g.add_argument("--table-id", default=None, help="this table's id in the tournament")
    g.add_argument("--tournament", default="main", help="the tournament's name (default: main)")
    g.add_argument("--teams", default=None, metavar="A,B", help="the two teams' names")
    g.add_argument("--mqtt-ca", default=None, help="CA certificate of a TLS broker")
    g.add_argument(
        "--evidence-url",
        default=None,
        help="where the board may link this table's deal folders (shared evidence)",
    )


def publisher(args: Any, match_id: Any) -> Any:
    """The table's ``Publisher`` for ``--publish`` (None without it); its outbox in the data
    folder, ``board/TOURNAMENT/TABLE``. A bad address or id is a one-line error."""
    if getattr(args, "publish", None) is None:
        return None
    try:
        from hakam.board.mqtt import BrokerError
        from hakam.board.outbox import OutboxError
        from hakam.board.publisher import Publisher
    except ModuleNotFoundError as exc:
        raise _cli_error(f"--publish: needs the board extra ({exc.name} is missing): "
                         "pip install 'hakam[board]'") from None  # fmt: skip
    from hakam.gui.match_store import data_dir

    broker, table, tournament, teams = publish_options(args)
    try:
        folder = data_dir() / "board" / tournament / table
        return Publisher(broker, table, folder, tournament, teams, match_id, args.evidence_url)
    except (BrokerError, OutboxError) as exc:
        raise _cli_error(str(exc)) from None


def publish_options(args: Any) -> tuple[Any, str, str, list[str] | None]:
    """``--publish``'s broker, table id, tournament and teams, checked (a one-line error)
    before a camera or a model is opened."""
    if not args.table_id:
        raise _cli_error("--publish: needs --table-id ID (this table's id in the tournament)")
    try:
        from hakam.board.mqtt import Broker, BrokerError, check_name
    except ModuleNotFoundError as exc:
        raise _cli_error(f"--publish: needs the board extra ({exc.name} is missing): "
                         "pip install 'hakam[board]'") from None  # fmt: skip
    teams = None
    if args.teams is not None:
        teams = [t.strip() for t in args.teams.split(",")]
        if len(teams) != 2 or not all(teams):
            raise _cli_error(f"--teams {args.teams!r}: two names with a comma between them")
    url = args.evidence_url
    if url is not None and not url.startswith(("http://", "https://")):
        raise _cli_error(f"--evidence-url {url!r}: an http:// or https:// address")
    try:
        broker = Broker.parse(args.publish, args.mqtt_ca)
        return (broker, check_name(args.table_id, "--table-id"),
                check_name(args.tournament, "--tournament"), teams)  # fmt: skip
    except BrokerError as exc:
        raise _cli_error(str(exc)) from None
