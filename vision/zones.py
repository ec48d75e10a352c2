"""Zones as polygons: the play area (``--roi``) that keeps cards in players' hands out."""

from __future__ import annotations

import cv2
import numpy as np

from hakam.vision.detections import Detections


class ZoneError(ValueError):
    """A polygon that cannot be a zone (message says why, in one line)."""


def parse_polygon(text: str) -> np.ndarray:
    """``"x,y;x,y;x,y"`` (pixels, at least three points) to an (N, 2) float array."""
    points = []
    for i, part in enumerate(p for p in text.replace(" ", "").split(";") if p):
        xy = part.split(",")
        if len(xy) != 2:
            raise ZoneError(f"point {i + 1} {part!r} is not x,y")
        try:
            points.append((float(xy[0]), float(xy[1])))
        except ValueError:
            raise ZoneError(f"point {i + 1} {part!r} is not two numbers") from None
    if len(points) < 3:
        raise ZoneError(f"a polygon needs at least 3 points x,y;x,y;x,y, got {len(points)}")
    poly = np.array(points, np.float32)
    if abs(cv2.contourArea(poly)) < 1:
        raise ZoneError("the polygon has no area")
    return poly


class PolygonZone:
    """A polygon in frame pixels; a detection is inside when its box centre is."""

    def __init__(self, polygon: np.ndarray | str) -> None:
        self.polygon = parse_polygon(polygon) if isinstance(polygon, str) else polygon
        self.polygon = np.asarray(self.polygon, np.float32).reshape(-1, 2)
        if len(self.polygon) < 3:
            raise ZoneError("a polygon needs at least 3 points")

    def contains(self, points: np.ndarray) -> np.ndarray:
        """Boolean mask of the (N, 2) points inside or on the edge of the polygon."""
        contour = self.polygon.reshape(-1, 1, 2)
        return np.array(
            [cv2.pointPolygonTest(contour, (float(x), float(y)), False) >= 0 for x, y in points],
            bool,
        )

    def trigger(self, detections: Detections) -> np.ndarray:
        """Boolean mask of the detections whose centre lies in the zone."""
        if len(detections) == 0:
            return np.zeros(0, bool)
        return self.contains(detections.centres)

    def filter(self, detections: Detections) -> Detections:
        return detections[self.trigger(detections)]
