"""Seat attribution: the rules say who is on turn, the card's position says who threw it.

The first leader is the dealer's right (``(dealer + 1) % 4``), the winner of a trick leads the
next, and play goes to the right (``seat + 1``): the referee always knows the seat on turn. The
calibration (table centre and the dealer's direction in the image) gives each seat a direction;
a card that lies clearly in front of another seat than the one on turn was played out of turn,
and the referee is told so. A card near the centre or between two seats is left to the rules.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


class CalibrationError(ValueError):
    """A calibration file or value that cannot be used (one line)."""


@dataclass(frozen=True)
class Calibration:
    """Table centre and a point towards the dealer's seat, in frame pixels.

    ``mirrored``: the image is a mirror view (some webcams), so the turn goes the other way
    round on screen.
    """

    centre: tuple[float, float]
    dealer: tuple[float, float]
    mirrored: bool = False
    frame_size: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if math.dist(self.centre, self.dealer) < 5:
            raise CalibrationError("dealer: must be at least 5 px away from the centre")

    def to_toml(self) -> str:
        """A tiny TOML writer: the file has only numbers, pairs and a boolean."""
        lines = [
            "# Hakam table calibration (frame pixels): `hakam calibrate` writes it.",
            f"centre = [{self.centre[0]:.1f}, {self.centre[1]:.1f}]",
            f"dealer = [{self.dealer[0]:.1f}, {self.dealer[1]:.1f}]",
            f"mirrored = {'true' if self.mirrored else 'false'}",
        ]
        if self.frame_size is not None:
            lines.append(f"frame_size = [{self.frame_size[0]}, {self.frame_size[1]}]")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        """The fields as ``from_dict`` reads them (JSON-ready)."""
        out: dict[str, Any] = {"centre": list(self.centre), "dealer": list(self.dealer),
                               "mirrored": self.mirrored}  # fmt: skip
        if self.frame_size is not None:
            out["frame_size"] = list(self.frame_size)
        return out

    def fitted(self, width: int, height: int) -> Calibration:
        """This calibration for frames of ``width`` x ``height``: the same, or scaled when it was
        made on frames of another size but the same shape (a camera asked for another
        resolution sees the same table). Another shape is another view of the table (a 4:3
        frame is not a 16:9 one cut down): a ``CalibrationError`` says to calibrate again."""
        if self.frame_size is None or self.frame_size == (width, height):
            return self
        w0, h0 = self.frame_size
        if abs(width / height - w0 / h0) > 0.01 * w0 / h0:
            raise CalibrationError(
                f"made on {w0}x{h0} frames, these are {width}x{height} (another shape): "
                "run `hakam calibrate` on this source"
            )
        sx, sy = width / w0, height / h0
        return Calibration(
            (self.centre[0] * sx, self.centre[1] * sy),
            (self.dealer[0] * sx, self.dealer[1] * sy),
            self.mirrored,
            (width, height),
        )

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_toml(), encoding="utf-8")

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "calibration") -> Calibration:
        unknown = sorted(set(data) - {"centre", "dealer", "mirrored", "frame_size"})
        if unknown:
            raise CalibrationError(f"{where}: {unknown[0]}: unknown field")
        for key in ("centre", "dealer"):
            if key not in data:
                raise CalibrationError(f"{where}: {key}: missing")
        centre = _pair(data["centre"], f"{where}: centre")
        dealer = _pair(data["dealer"], f"{where}: dealer")
        mirrored = data.get("mirrored", False)
        if not isinstance(mirrored, bool):
            raise CalibrationError(f"{where}: mirrored: must be true or false")
        size = data.get("frame_size")
        frame_size = None
        if size is not None:
            w, h = _pair(size, f"{where}: frame_size")
            frame_size = (int(w), int(h))
        try:
            return cls(centre, dealer, mirrored, frame_size)
        except CalibrationError as exc:
            raise CalibrationError(f"{where}: {exc}") from None

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        p = Path(path)
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CalibrationError(f"calibration {p}: cannot read ({exc.strerror})") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise CalibrationError(f"calibration {p}: not valid TOML ({exc})") from None
        return cls.from_dict(data, f"calibration {p}")


def _pair(value: Any, name: str) -> tuple[float, float]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        raise CalibrationError(f"{name}: must be two numbers [x, y]")
    return float(value[0]), float(value[1])


def parse_point(text: str, name: str) -> tuple[float, float]:
    """``"320,240"`` to a point; a one-line error naming the option otherwise."""
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        return float(parts[0]), float(parts[1])
    except ValueError:
        raise CalibrationError(f"{name}: must be X,Y in pixels, got {text!r}") from None


@dataclass(frozen=True)
class Attribution:
    """Where a card lies: the seat it faces, how clearly, and the seat the card is given."""

    seat: int  # the seat the play is given to
    expected: int  # the seat on turn by the rules
    by_position: int | None  # the seat it lies in front of (None: no calibration)
    clear: bool  # position is far enough from the centre and from the diagonals
    angle_off: float  # degrees from the direction of ``by_position``

    @property
    def out_of_turn(self) -> bool:
        return self.seat != self.expected


class SeatMap:
    """Seat directions from a calibration and the dealer's seat number."""

    def __init__(
        self,
        calibration: Calibration,
        dealer: int,
        clear_deg: float = 30.0,
        min_radius: float = 0.08,
    ) -> None:
        self.calibration = calibration
        self.dealer = dealer
        self.clear_deg = clear_deg
        cx, cy = calibration.centre
        dx, dy = calibration.dealer[0] - cx, calibration.dealer[1] - cy
        self.reach = math.hypot(dx, dy)
        self.min_radius = min_radius * self.reach
        base = math.atan2(dy, dx)
        # Image y points down: seen from above, the next seat to the right is 90 degrees
        # clockwise in table terms, i.e. minus 90 degrees in image angle (plus when mirrored).
        step = math.pi / 2 if calibration.mirrored else -math.pi / 2
        self.angles = [base + step * ((s - dealer) % 4) for s in range(4)]

    def direction(self, seat: int) -> tuple[float, float]:
        """Unit vector from the centre towards ``seat`` in image pixels."""
        a = self.angles[seat]
        return math.cos(a), math.sin(a)

    def seat_point(self, seat: int, fraction: float = 1.0) -> tuple[float, float]:
        cx, cy = self.calibration.centre
        ux, uy = self.direction(seat)
        return cx + ux * self.reach * fraction, cy + uy * self.reach * fraction

    def _offsets(self, point: tuple[float, float] | np.ndarray) -> tuple[list[float], float]:
        """Degrees off each seat's direction, and the distance from the centre."""
        cx, cy = self.calibration.centre
        dx, dy = float(point[0]) - cx, float(point[1]) - cy
        a = math.atan2(dy, dx)
        offs = [abs(math.degrees(math.remainder(a - sa, 2 * math.pi))) for sa in self.angles]
        return offs, math.hypot(dx, dy)

    def locate(self, point: tuple[float, float] | np.ndarray) -> tuple[int, float, bool]:
        """(seat faced, degrees off its direction, clear) for a point in the frame."""
        return self._faced(*self._offsets(point))

    def _faced(self, offs: list[float], radius: float) -> tuple[int, float, bool]:
        seat = int(np.argmin(offs))
        clear = offs[seat] <= self.clear_deg and radius >= self.min_radius
        return seat, offs[seat], clear

    def attribute(self, point: tuple[float, float] | np.ndarray, expected: int) -> Attribution:
        """The rules' seat unless the card lies clearly in front of another seat, or away from
        the centre on the far side of the table from the seat on turn (more than 90 degrees off
        its direction: between two other seats, the nearer of them)."""
        offs, radius = self._offsets(point)
        seat, off, clear = self._faced(offs, radius)
        far_side = offs[expected] > 90.0 and radius >= self.min_radius
        given = seat if clear or far_side else expected
        return Attribution(given, expected, seat, clear, round(off, 1))


def table_geometry(seats: SeatMap | None, roi: Any = None) -> dict[str, Any] | None:
    """Where the table is in the frame, for the live view: the centre, a point in front of
    each seat (from the calibration) and the play area (a zone with a ``polygon``, ``--roi``);
    None when unknown."""
    if seats is None and roi is None:
        return None
    geometry: dict[str, Any] = {"centre": None, "seats": None, "roi": None}
    if seats is not None:
        geometry["centre"] = [round(v, 1) for v in seats.calibration.centre]
        geometry["seats"] = [[round(v, 1) for v in seats.seat_point(s, 0.9)] for s in range(4)]
    if roi is not None:
        geometry["roi"] = [[round(float(x), 1), round(float(y), 1)] for x, y in roi.polygon]
    return geometry


def attribute(seats: SeatMap | None, point: Any, expected: int) -> Attribution:
    """Attribution with or without a calibration (without: the rules alone)."""
    if seats is None:
        return Attribution(expected, expected, None, False, 0.0)
    return seats.attribute(point, expected)
