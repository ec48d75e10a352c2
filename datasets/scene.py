"""Render a card-table scene as a webcam sees it, with exact whole-card boxes.

Cards are placed on the table plane in millimetres and projected through a pinhole camera tilted
0-45 degrees, so perspective is real, not a 2-D rotation. Every card is warped straight from its
raster to the output frame; its label box is the bounding box of its projected outline (bent
outline included), also where it is covered, the same style as the real rf100 set. A card is
labelled only while enough of it, or one corner index, is visible: a detector must not be taught
to see cards nobody could read.

The same ``Renderer`` draws the frames of the scripted deal videos, so the model and the
pipeline tests see one world.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

CARD_W_MM, CARD_H_MM = 63.0, 88.0

# Corner index regions in card-local unit coordinates (x0, y0, x1, y1): top-left and its twin.
INDEX_REGIONS = ((0.02, 0.02, 0.2, 0.3), (0.8, 0.7, 0.98, 0.98))
# The printed index and its pip in the same two corners (``art.INDEX_CORNER``): the box a finder of
# corner indices learns, for each corner at least ``INDEX_SHOWN`` of whose region can be seen.
INDEX_BOXES = ((0.0, 0.0, 0.2, 0.26), (0.8, 0.74, 1.0, 1.0))
INDEX_SHOWN = 0.6


@dataclass
class Camera:
    """A pinhole camera over the table; table coordinates are millimetres, z up."""

    width: int
    height: int
    focal: float  # pixels
    tilt: float  # degrees from straight down
    yaw: float  # degrees, rotation about the vertical axis
    distance: float  # mm from the table point at the image centre
    target: tuple[float, float] = (0.0, 0.0)  # table point at the image centre
    k1: float = 0.0  # radial lens distortion (negative: barrel)

    def _pose(self) -> tuple[np.ndarray, np.ndarray]:
        t, y = math.radians(self.tilt), math.radians(self.yaw)
        # Camera looks down (-z), tilted about its x axis, rotated by yaw about the table z axis.
        cz, sz = math.cos(y), math.sin(y)
        rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
        ct, st = math.cos(t), math.sin(t)
        rx = np.array([[1, 0, 0], [0, ct, -st], [0, st, ct]])
        down = np.array([[1, 0, 0], [0, -1, 0], [0, 0, -1]])  # camera z into the table
        r_wc = rz @ rx @ down.T  # camera axes in world coordinates
        look = r_wc @ np.array([0, 0, 1.0])
        centre = np.array([self.target[0], self.target[1], 0.0]) - look * self.distance
        return r_wc.T, centre

    def homography(self) -> np.ndarray:
        """3x3 map from table millimetres (z = 0) to undistorted pixels."""
        r, c = self._pose()
        k = np.array([[self.focal, 0, self.width / 2], [0, self.focal, self.height / 2], [0, 0, 1]])
        t = -r @ c
        return k @ np.column_stack([r[:, 0], r[:, 1], t])

    def project(self, pts_mm: np.ndarray, h: np.ndarray | None = None) -> np.ndarray:
        h = self.homography() if h is None else h
        p = np.column_stack([pts_mm, np.ones(len(pts_mm))]) @ h.T
        return p[:, :2] / p[:, 2:3]


def distort_points(pts: np.ndarray, cam: Camera) -> np.ndarray:
    """Where undistorted pixel positions land after radial lens distortion."""
    if cam.k1 == 0:
        return pts
    c = np.array([cam.width / 2, cam.height / 2])
    norm = _lens_norm(cam)
    n = (pts - c) / norm
    r2 = (n**2).sum(1, keepdims=True)
    return c + n * (1 + cam.k1 * r2) * norm


def _lens_norm(cam: Camera) -> float:
    """Distortion radius unit: half the frame diagonal, so k1 means the same at every size."""
    return 0.5 * math.hypot(cam.width, cam.height)


_DIST_MAPS: dict[tuple[int, int, float, float], tuple[np.ndarray, np.ndarray]] = {}


def distort_image(img: np.ndarray, cam: Camera) -> np.ndarray:
    """Apply the lens distortion to a rendered frame (inverse map solved by fixed point)."""
    if cam.k1 == 0:
        return img
    key = (cam.width, cam.height, float(cam.k1))
    if key not in _DIST_MAPS:
        if len(_DIST_MAPS) > 64:
            _DIST_MAPS.clear()
        norm = _lens_norm(cam)
        yy, xx = np.mgrid[0 : cam.height, 0 : cam.width].astype(np.float32)
        c = np.array([cam.width / 2, cam.height / 2], np.float32)
        d = np.stack([(xx - c[0]) / norm, (yy - c[1]) / norm], -1)
        u = d.copy()
        for _ in range(8):  # solve u * (1 + k1 |u|^2) = d
            u = d / (1 + cam.k1 * (u**2).sum(-1, keepdims=True))
        src = u * norm + c
        _DIST_MAPS[key] = (src[..., 0].copy(), src[..., 1].copy())
    mx, my = _DIST_MAPS[key]
    return cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


@dataclass
class CardPlacement:
    """A card lying on the table: centre (mm), rotation (deg), face up or down, bend."""

    name: str  # card name ("QH") or "BACK"
    x: float
    y: float
    angle: float
    face_up: bool = True
    bend: float = 0.0  # fraction of card width the long edges bow by
    label: bool = True  # False for distractors (ranks 2-6) and backs
    lift: float = 0.0  # mm above the table (fanned or held cards cast longer shadows)
    tag: str = ""  # caller's own marker (seat, "pile", "fan"...)


@dataclass
class Occluder:
    """Anything over the cards that is not a card: a hand and arm, a cup, a phone."""

    kind: str
    params: dict = field(default_factory=dict)


@dataclass
class Label:
    card: str
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in pixels
    visible: float  # share of the card's area that can be seen
    index_visible: float  # best share of one corner index that can be seen
    tag: str = ""
    # The face's own corners in pixels, from the printed top-left (an index corner) clockwise
    # round to bottom-left; may lie outside the frame. What an oriented-box or corner finder,
    # and a reader of straightened cards, learn from.
    corners: tuple[tuple[float, float], ...] = ()
    # Pixel boxes (x1, y1, x2, y2) of the corner indices that show (``INDEX_BOXES``).
    index_boxes: tuple[tuple[float, float, float, float], ...] = ()


def bend_unit(pts: np.ndarray, bend: float) -> np.ndarray:
    """Bow the long edges sideways by ``bend`` of the width (a card that was held curved)."""
    if bend == 0:
        return pts
    out = pts.copy()
    out[:, 0] += bend * (1 - (2 * pts[:, 1] - 1) ** 2)
    return out


CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])  # unit: tl, tr, br, bl


def unit_to_table(pts: np.ndarray, p: CardPlacement) -> np.ndarray:
    """Card unit coordinates (x right, y down the printed face, as in its raster) to table
    millimetres (x right, y away from the viewer, seen from above). The face's y runs against
    the table's, or the card would lie on the table as its mirror image."""
    local = (pts - 0.5) * np.array([CARD_W_MM, -CARD_H_MM])
    a = math.radians(p.angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return local @ rot.T + np.array([p.x, p.y])


class Renderer:
    """Draws scenes from card rasters: one instance per worker; caches resized rasters."""

    def __init__(self, deck_images: dict[str, np.ndarray]):
        self.deck = deck_images
        self._sized: dict[tuple[str, int], np.ndarray] = {}
        self.last_objects: list[list[float]] = []
        self._occluder_boxes: list[list[float]] = []
        self._outlines: dict[str, np.ndarray] = {}

    def share_outlines(self, other: Renderer) -> None:
        """Use ``other``'s outline cache: a court-swapped copy keeps each card's own alpha."""
        self._outlines = other._outlines

    def outline(self, name: str) -> np.ndarray:
        """The card's true edge (rounded corners included) in unit coordinates, from its alpha."""
        if name not in self._outlines:
            src = self.deck[name]
            alpha = (src[:, :, 3] > 127).astype(np.uint8)
            contours, _ = cv2.findContours(alpha, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            c = max(contours, key=cv2.contourArea)[:, 0, :].astype(np.float64)
            c = cv2.approxPolyDP(c.astype(np.float32), 0.6, True)[:, 0, :].astype(np.float64)
            hh, ww = alpha.shape
            self._outlines[name] = (c + 0.5) / np.array([ww, hh])
        return self._outlines[name]

    def raster(self, name: str, height: int) -> np.ndarray:
        """The card raster resized near ``height`` px (area filter, so warps do not alias)."""
        # Quarter-octave size buckets: few cached sizes, never upscaled by more than 19%.
        bucket = max(24, int(2 ** (math.ceil(math.log2(max(height, 1) * 1.2) * 4) / 4)))
        bucket = min(bucket, self.deck[name].shape[0])
        key = (name, bucket)
        if key not in self._sized:
            if len(self._sized) > 400:
                self._sized.clear()
            src = self.deck[name]
            w = max(8, round(src.shape[1] * bucket / src.shape[0]))
            self._sized[key] = cv2.resize(src, (w, bucket), interpolation=cv2.INTER_AREA)
        return self._sized[key]

    def render(
        self,
        rng: np.random.Generator,
        cam: Camera,
        background: np.ndarray,
        cards: list[CardPlacement],
        occluders: list[Occluder] = (),  # type: ignore[assignment]
        effects: dict | None = None,
        table_span_mm: float = 1400.0,
        pixels: bool = True,
    ) -> tuple[np.ndarray | None, list[Label]]:
        """Render one frame; returns the BGR image and the labels of the visible cards.

        ``pixels`` False: the labels alone (the image is None). They need only which card or
        hand owns each pixel, so no table, shading, shadow or effect is drawn and ``rng`` is not
        drawn from; the labels are the same as with pixels."""
        w, h = cam.width, cam.height
        hom = cam.homography()
        img = self._table(cam, hom, background, table_span_mm) if pixels else None
        owner = np.full((h, w), -1, np.int16)
        self._occluder_boxes: list[list[float]] = []
        areas: list[float] = []
        polys: list[np.ndarray] = []
        if pixels:
            shadow_strength = rng.uniform(0.15, 0.45)
            light_dir = rng.normal(0, 1, 2)
            light_dir /= np.linalg.norm(light_dir) + 1e-9
        for i, p in enumerate(cards):
            name = p.name if p.face_up else "BACK"
            if name not in self.deck:
                name = "BACK" if "BACK" in self.deck else p.name
            unit_pts = bend_unit(self.outline(name), p.bend)
            px = cam.project(unit_to_table(unit_pts, p), hom)  # undistorted frame
            polys.append(distort_points(px, cam))
            x0, y0 = np.floor(px.min(0)).astype(int) - 2
            x1, y1 = np.ceil(px.max(0)).astype(int) + 2
            areas.append(abs(cv2.contourArea(px.astype(np.float32))))
            if x1 < 0 or y1 < 0 or x0 >= w or y0 >= h:
                continue
            cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            if cx1 - cx0 < 2 or cy1 - cy0 < 2:
                continue
            ends = cam.project(unit_to_table(np.array([[0.5, 0.0], [0.5, 1.0]]), p), hom)
            height_px = float(np.linalg.norm(ends[0] - ends[1]))
            src = self.raster(name, max(int(height_px * 1.2), 24))
            if not pixels:  # which card owns each pixel is all the labels need
                a = self._warp_card(np.ascontiguousarray(src[:, :, 3]), p, cam, hom,
                                    (cx0, cy0, cx1, cy1))  # fmt: skip
                owner[cy0:cy1, cx0:cx1][a.astype(np.float32) / 255.0 > 0.5] = i
                continue
            patch = self._warp_card(src, p, cam, hom, (cx0, cy0, cx1, cy1))
            alpha = patch[:, :, 3:4].astype(np.float32) / 255.0
            # Soft shadow cast away from the light, longer for lifted cards.
            off = light_dir * (2 + p.lift * 0.6) * (height_px / 120)
            blur = int(3 + p.lift * 0.3 + height_px / 60) | 1
            m = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
            shadow = cv2.warpAffine(alpha[:, :, 0], m, (cx1 - cx0, cy1 - cy0))
            shadow = cv2.GaussianBlur(shadow, (blur, blur), 0)[..., None]
            roi = img[cy0:cy1, cx0:cx1]
            roi *= 1 - shadow_strength * shadow
            face = patch[:, :, :3].astype(np.float32)
            if p.bend:
                face = self._bend_shading(face, p.bend, rng)
            roi[:] = roi * (1 - alpha) + face * alpha
            own = owner[cy0:cy1, cx0:cx1]
            own[alpha[:, :, 0] > 0.5] = i
        for occ in occluders or []:
            if pixels:
                self._draw_occluder(img, owner, occ, rng, light_dir)
            else:
                self._own_occluder(owner, self._occluder_mask(occ, h, w))
        # Every object's box (labelled or not): lets checks find cards that stand alone.
        self.last_objects = [
            [*np.round(q.min(0), 1).tolist(), *np.round(q.max(0), 1).tolist()] for q in polys
        ] + self._occluder_boxes
        labels = self._labels(cards, polys, areas, owner, cam, hom)
        if img is not None:
            img = apply_effects(img, rng, cam, effects or {}, owner)
        return img, labels

    @staticmethod
    def _table(
        cam: Camera, hom: np.ndarray, background: np.ndarray, table_span_mm: float
    ) -> np.ndarray:
        """The table texture seen by the camera: texture pixels -> mm -> image."""
        s = table_span_mm / background.shape[0]
        tex_to_mm = np.array(
            [
                [s, 0, cam.target[0] - table_span_mm / 2],
                [0, s, cam.target[1] - table_span_mm / 2],
                [0, 0, 1],
            ]
        )
        return cv2.warpPerspective(
            background,
            hom @ tex_to_mm,
            (cam.width, cam.height),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REFLECT,
        ).astype(np.float32)

    def _warp_card(self, src, p, cam, hom, roi) -> np.ndarray:
        """Warp the card raster into the (undistorted) frame region ``roi``, bow included."""
        cx0, cy0, cx1, cy1 = roi
        sh, sw = src.shape[:2]
        unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
        dst = (cam.project(unit_to_table(unit, p), hom) - np.array([cx0, cy0])).astype(np.float32)
        m = cv2.getPerspectiveTransform(unit * np.float32([sw, sh]), dst)
        patch = cv2.warpPerspective(
            src,
            m,
            (cx1 - cx0, cy1 - cy0),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0, 0),
        )
        if p.bend:
            patch = _bow(patch, dst, p.bend)
        return patch

    @staticmethod
    def _bend_shading(face: np.ndarray, bend: float, rng: np.random.Generator) -> np.ndarray:
        _hh, ww = face.shape[:2]
        g = np.linspace(-1, 1, ww, dtype=np.float32)[None, :, None]
        return face * (1 + np.sign(bend) * 0.25 * abs(bend) * 10 * g * rng.uniform(0.3, 1))

    @staticmethod
    def _occluder_mask(occ: Occluder, h: int, w: int) -> np.ndarray:
        """The pixels an occluder covers (255), by its kind and parameters."""
        mask = np.zeros((h, w), np.uint8)
        if occ.kind == "hand":
            # An arm entering from an edge, ending in a palm with fingers.
            (sx, sy), (ex, ey) = occ.params["start"], occ.params["end"]
            width = occ.params["width"]
            cv2.line(mask, (int(sx), int(sy)), (int(ex), int(ey)), 255, int(width))
            ang = math.atan2(ey - sy, ex - sx)
            palm = (int(ex + math.cos(ang) * width * 0.5), int(ey + math.sin(ang) * width * 0.5))
            cv2.ellipse(
                mask,
                palm,
                (int(width * 0.75), int(width * 0.6)),
                math.degrees(ang),
                0,
                360,
                255,
                -1,
            )
            for k in range(int(occ.params.get("fingers", 4))):
                fa = ang + (k - 1.5) * 0.28
                fx = palm[0] + math.cos(fa) * width * 1.25
                fy = palm[1] + math.sin(fa) * width * 1.25
                cv2.line(mask, palm, (int(fx), int(fy)), 255, max(2, int(width * 0.22)))
        elif occ.kind == "cup":
            c, r = occ.params["centre"], occ.params["radius"]
            cv2.circle(mask, (int(c[0]), int(c[1])), int(r), 255, -1)
        elif occ.kind == "phone":
            box = ((occ.params["centre"]), occ.params["size"], occ.params["angle"])
            pts = cv2.boxPoints(box).astype(np.int32)
            cv2.fillConvexPoly(mask, pts, 255)
        else:
            raise ValueError(f"unknown occluder {occ.kind!r}")
        return mask

    def _own_occluder(self, owner: np.ndarray, mask: np.ndarray) -> None:
        """The occluder's pixels hide the cards under it (owner -2); its box is kept."""
        owner[mask > 127] = -2
        ys, xs = np.nonzero(mask > 0)
        if len(xs):
            self._occluder_boxes.append(
                [float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())]
            )

    def _draw_occluder(self, img, owner, occ: Occluder, rng, light_dir) -> None:
        h, w = owner.shape
        mask = self._occluder_mask(occ, h, w)
        colour = np.array(occ.params.get("colour", (120, 150, 200)), np.float32)
        soft = cv2.GaussianBlur(mask, (5, 5), 0).astype(np.float32)[..., None] / 255
        # Shadow of the object first, then the object with a shading gradient.
        off = light_dir * occ.params.get("height", 20)
        sm = cv2.warpAffine(soft[..., 0], np.float32([[1, 0, off[0]], [0, 1, off[1]]]), (w, h))
        k = int(9 + occ.params.get("height", 20) / 2) | 1
        sm = cv2.GaussianBlur(sm, (k, k), 0)[..., None]
        img *= 1 - 0.4 * sm
        shade = _fractal_like(rng, h, w)[..., None]
        body = colour * (0.75 + 0.5 * shade)
        if occ.kind == "cup":
            c, r = occ.params["centre"], occ.params["radius"]
            inner = np.zeros((h, w), np.uint8)
            cv2.circle(inner, (int(c[0]), int(c[1])), int(r * 0.82), 255, -1)
            body = np.where(
                inner[..., None] > 0,
                np.array(occ.params.get("drink", (20, 40, 70)), np.float32),
                body,
            )
        if occ.kind == "phone":
            body = body * 0.25
        img[:] = img * (1 - soft) + body * soft
        self._own_occluder(owner, mask)

    def _labels(self, cards, polys, areas, owner, cam, hom) -> list[Label]:
        h, w = owner.shape
        counts = np.bincount((owner[owner >= 0]).ravel(), minlength=len(cards))
        labels = []
        gx, gy = np.meshgrid(np.linspace(0, 1, 5), np.linspace(0, 1, 5))
        for i, p in enumerate(cards):
            if not (p.label and p.face_up) or areas[i] < 1:
                continue
            vis = float(counts[i]) / areas[i]
            best_idx = 0.0
            index_boxes = []
            for (x0, y0, x1, y1), ibox in zip(INDEX_REGIONS, INDEX_BOXES, strict=True):
                unit = np.column_stack([x0 + gx.ravel() * (x1 - x0), y0 + gy.ravel() * (y1 - y0)])
                pts = cam.project(unit_to_table(bend_unit(unit, p.bend), p), hom)
                pts = pts.round().astype(int)
                inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
                seen = np.zeros(len(pts), bool)
                seen[inside] = owner[pts[inside, 1], pts[inside, 0]] == i
                best_idx = max(best_idx, float(seen.mean()))
                if seen.mean() >= INDEX_SHOWN:
                    index_boxes.append(_index_box(ibox, p, cam, hom, w, h))
            px = polys[i]
            x1, y1 = np.clip(px.min(0), 0, [w, h])
            x2, y2 = np.clip(px.max(0), 0, [w, h])
            x1, y1, x2, y2 = (float(v) for v in (x1, y1, x2, y2))
            if x2 - x1 < 4 or y2 - y1 < 4:
                continue
            if vis >= 0.3 or (best_idx >= 0.6 and vis >= 0.08):
                face = cam.project(unit_to_table(bend_unit(CORNERS, p.bend), p), hom)
                labels.append(
                    Label(
                        p.name,
                        (float(x1), float(y1), float(x2), float(y2)),
                        min(vis, 1.0),
                        best_idx,
                        p.tag,
                        tuple((float(x), float(y)) for x, y in distort_points(face, cam)),
                        tuple(b for b in index_boxes if b is not None),
                    )
                )
        return labels


def _index_box(region, p: CardPlacement, cam: Camera, hom: np.ndarray, w: int, h: int):
    """The pixel box of one corner index (card unit ``region``), clipped to the frame; None when
    less than 3 pixels of it are left on either side."""
    x0, y0, x1, y1 = region
    gx, gy = np.meshgrid(np.linspace(x0, x1, 3), np.linspace(y0, y1, 3))  # a bent card bows
    unit = np.column_stack([gx.ravel(), gy.ravel()])
    pts = distort_points(cam.project(unit_to_table(bend_unit(unit, p.bend), p), hom), cam)
    bx1, by1 = np.clip(pts.min(0), 0, [w, h])
    bx2, by2 = np.clip(pts.max(0), 0, [w, h])
    if bx2 - bx1 < 3 or by2 - by1 < 3:
        return None
    return (float(bx1), float(by1), float(bx2), float(by2))


def _bow(patch: np.ndarray, dst: np.ndarray, bend: float) -> np.ndarray:
    """Shift the warped card sideways along its long axis so its edges bow like the outline."""
    hh, ww = patch.shape[:2]
    if hh < 4 or ww < 4:
        return patch
    # The card's x and y axes in the frame, from its projected corners (tl, tr, br, bl).
    p00 = dst[0]
    px = dst[1] - p00
    py = dst[3] - p00
    len_y = np.linalg.norm(py) + 1e-6
    ux = px / (np.linalg.norm(px) + 1e-6)
    yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32)
    # Card-local y in [0,1] of each pixel (projection on the long axis).
    t = ((xx - p00[0]) * py[0] + (yy - p00[1]) * py[1]) / (len_y**2)
    shift = bend * np.linalg.norm(px) * (1 - (2 * np.clip(t, 0, 1) - 1) ** 2)
    mx = xx - ux[0] * shift
    my = yy - ux[1] * shift
    return cv2.remap(
        patch, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0)
    )


def _fractal_like(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    g = rng.random((4, 4)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def apply_effects(
    img: np.ndarray,
    rng: np.random.Generator,
    cam: Camera,
    fx: dict,
    owner: np.ndarray | None = None,
) -> np.ndarray:
    """Light, colour, glare, lens, blur, noise: the ways a webcam frame differs from a scan."""
    h, w = img.shape[:2]
    if fx.get("light", True):
        g = rng.random((3, 3)).astype(np.float32)
        field_ = cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
        img *= (rng.uniform(0.55, 1.15) + rng.uniform(0.0, 0.5) * (field_ - 0.5))[..., None]
    if fx.get("temperature", True):
        kelvin = rng.uniform(-1, 1)  # <0 warm (tungsten), >0 cool (daylight)
        gains = np.array([1 + 0.12 * kelvin, 1.0, 1 - 0.12 * kelvin], np.float32)
        img *= gains * rng.uniform(0.95, 1.05, 3).astype(np.float32)
    n_glare = fx.get("glare", int(rng.random() < 0.35) * int(rng.integers(1, 3)))
    for _ in range(n_glare):
        gx, gy = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
        if owner is not None and (owner >= 0).any() and rng.random() < 0.8:
            ys, xs = np.nonzero(owner >= 0)
            j = rng.integers(len(xs))
            gx, gy = float(xs[j]), float(ys[j])
        sig = rng.uniform(0.02, 0.09) * max(w, h)
        x0, x1 = int(max(gx - 3 * sig, 0)), int(min(gx + 3 * sig, w))
        y0, y1 = int(max(gy - 3 * sig, 0)), int(min(gy + 3 * sig, h))
        if x1 <= x0 or y1 <= y0:
            continue
        yy, xx = np.ogrid[y0:y1, x0:x1]
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sig**2)).astype(np.float32)
        img[y0:y1, x0:x1] += blob[..., None] * np.float32(rng.uniform(40, 150))
    img = np.clip(img, 0, 255)
    if cam.k1:
        img = distort_image(img, cam)
    if fx.get("motion", rng.random() < 0.15):
        k = int(rng.integers(3, 11))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        kern = cv2.warpAffine(kern, rot, (k, k))
        kern /= kern.sum() + 1e-9
        img = cv2.filter2D(img, -1, kern)
    if fx.get("defocus", rng.random() < 0.2):
        s = rng.uniform(0.6, 2.0)
        img = cv2.GaussianBlur(img, (0, 0), s)
    noise = fx.get("noise", rng.uniform(1, 8))
    if noise:
        grain = rng.standard_normal((h, w, 3), dtype=np.float32)
        grain[..., 1:] = grain[..., 1:] * 0.3 + grain[..., :1] * 0.7  # mostly luminance noise
        img += grain * np.float32(noise)
    return np.clip(img, 0, 255).astype(np.uint8)


def jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img
