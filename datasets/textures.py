"""Procedural table surfaces: felt, wood, woven cloth and patterned tablecloths.

Each texture is made from a seed alone, so a dataset is reproducible without shipping images.
Textures are square BGR images that the scene warps onto the table plane.
"""

from __future__ import annotations

import struct
from functools import cache
from pathlib import Path

import cv2
import numpy as np

TEXTURE_SIZE = 768


def _smooth_noise(rng: np.random.Generator, size: int, cells: int) -> np.ndarray:
    """Value noise in [0, 1]: random grid upscaled with bicubic interpolation."""
    grid = rng.random((cells + 1, cells + 1)).astype(np.float32)
    return np.clip(cv2.resize(grid, (size, size), interpolation=cv2.INTER_CUBIC), 0, 1)


def _fractal(rng: np.random.Generator, size: int, octaves: int = 4, base: int = 4) -> np.ndarray:
    acc = np.zeros((size, size), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        acc += amp * _smooth_noise(rng, size, base * 2**o)
        total += amp
        amp *= 0.5
    return acc / total


def _colour(rng: np.random.Generator, palette: list[tuple[int, int, int]]) -> np.ndarray:
    c = np.array(palette[rng.integers(len(palette))], np.float32)
    return np.clip(c + rng.normal(0, 12, 3), 0, 255)


FELT = [(40, 110, 30), (90, 60, 20), (30, 30, 120), (60, 60, 60), (20, 80, 100), (35, 35, 35)]
WOOD = [(40, 80, 140), (30, 60, 110), (60, 110, 170), (25, 45, 80), (90, 140, 190)]
CLOTH = [
    (230, 230, 230),
    (200, 210, 220),
    (60, 60, 170),
    (150, 90, 40),
    (80, 140, 80),
    (40, 40, 40),
]


def felt(rng: np.random.Generator, size: int = TEXTURE_SIZE) -> np.ndarray:
    base = _colour(rng, FELT)
    low = _fractal(rng, size, 3, 3)[..., None] - 0.5
    grain = rng.normal(0, 1, (size, size, 1)).astype(np.float32)
    img = base * (1 + 0.25 * low) + grain * rng.uniform(4, 12)
    return np.clip(img, 0, 255).astype(np.uint8)


def wood(rng: np.random.Generator, size: int = TEXTURE_SIZE) -> np.ndarray:
    base = _colour(rng, WOOD)
    yy, _xx = np.mgrid[0:size, 0:size].astype(np.float32)
    warp = _fractal(rng, size, 4, 2) * rng.uniform(20, 60)
    freq = rng.uniform(0.04, 0.15)
    rings = np.sin((yy + warp * 3) * freq + _fractal(rng, size, 2, 8) * 6)
    fibres = cv2.blur(rng.normal(0, 1, (size, size)).astype(np.float32), (41, 1))
    shade = 0.18 * rings + 0.6 * fibres + 0.2 * (_fractal(rng, size, 3, 2) - 0.5)
    img = base[None, None, :] * (1 + shade[..., None])
    if rng.random() < 0.5:  # planks
        plank = int(rng.uniform(90, 220))
        img[(yy.astype(int) % plank) < 3] *= 0.55
    if rng.random() < 0.5:
        img = np.ascontiguousarray(np.rot90(img))
    return np.clip(img, 0, 255).astype(np.uint8)


def woven(rng: np.random.Generator, size: int = TEXTURE_SIZE) -> np.ndarray:
    base = _colour(rng, CLOTH)
    period = int(rng.integers(3, 8))
    yy, xx = np.mgrid[0:size, 0:size]
    weave = (((xx // period) + (yy // period)) % 2).astype(np.float32) - 0.5
    low = _fractal(rng, size, 3, 4) - 0.5
    img = base * (1 + 0.12 * weave[..., None] + 0.2 * low[..., None])
    img += rng.normal(0, 5, (size, size, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def tablecloth(rng: np.random.Generator, size: int = TEXTURE_SIZE) -> np.ndarray:
    """Checks, stripes or repeated motifs on a cloth, the patterns of home tablecloths."""
    a, b = _colour(rng, CLOTH), _colour(rng, CLOTH + FELT)
    yy, xx = np.mgrid[0:size, 0:size]
    period = int(rng.integers(24, 110))
    kind = rng.integers(3)
    if kind == 0:  # gingham
        m = ((xx // period) % 2 + (yy // period) % 2).astype(np.float32) / 2
    elif kind == 1:  # stripes
        m = ((xx // period) % 2).astype(np.float32)
    else:  # dots or rosettes
        cx = (xx % period) - period / 2
        cy = (yy % period) - period / 2
        r = np.sqrt(cx**2 + cy**2)
        m = (r < period * rng.uniform(0.15, 0.4)).astype(np.float32)
        m += 0.5 * (np.abs(r - period * 0.42) < 2)
    m = np.clip(m, 0, 1)[..., None]
    img = a * (1 - m) + b * m
    img = img * (1 + 0.15 * (_fractal(rng, size, 3, 3)[..., None] - 0.5))
    img += rng.normal(0, 4, (size, size, 1))
    angle = rng.uniform(0, 180)
    rot = cv2.getRotationMatrix2D((size / 2, size / 2), angle, 1.0)
    img = cv2.warpAffine(img.astype(np.float32), rot, (size, size), borderMode=cv2.BORDER_REFLECT)
    return np.clip(img, 0, 255).astype(np.uint8)


def plain(rng: np.random.Generator, size: int = TEXTURE_SIZE) -> np.ndarray:
    """A smooth laminate or painted table: white, black or coloured with a faint texture."""
    base = _colour(rng, [(235, 235, 235), (25, 25, 25), (200, 190, 170), (120, 120, 120)])
    low = _fractal(rng, size, 3, 2)[..., None] - 0.5
    img = base * (1 + 0.1 * low) + rng.normal(0, 2, (size, size, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


# Photographic wood, cloth and stone patterns from Debian's gimp-data (installed by the set-up).
GIMP_PATTERNS = Path("/usr/share/gimp/2.0/patterns")
PACKAGED = (
    "Wood/burlwood.pat",
    "Wood/parque1.pat",
    "Wood/parque2.pat",
    "Wood/parque3.pat",
    "Wood/pine.pat",
    "Wood/walnut.pat",
    "Wood/wood1.pat",
    "Wood/wood2.pat",
    "Wood/wood3.pat",
    "Wood/wood4.pat",
    "Wood/wood5.pat",
    "Wood/corkboard.pat",
    "Fabric/burlap.pat",
    "Stone/marble1.pat",
    "Stone/marble2.pat",
    "Stone/marble3.pat",
    "Stone/granite1.pat",
    "Stone/slate.pat",
    "Paper/paper.pat",
    "Legacy/pastel.pat",
    "Legacy/fibers.pat",
)


def read_gimp_pattern(path: Path) -> np.ndarray:
    """A GIMP .pat file (big-endian header, then raw pixels) as a BGR image."""
    data = path.read_bytes()
    header, _version, width, height, depth = struct.unpack(">5I", data[:20])
    if data[20:24] != b"GPAT" or depth not in (1, 2, 3, 4):
        raise ValueError(f"{path}: not a GIMP pattern")
    pixels = np.frombuffer(data, np.uint8, width * height * depth, header)
    img = pixels.reshape(height, width, depth)
    if depth <= 2:
        return cv2.cvtColor(np.ascontiguousarray(img[:, :, 0]), cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(np.ascontiguousarray(img[:, :, :3]), cv2.COLOR_RGB2BGR)


@cache
def packaged_patterns() -> tuple[Path, ...]:
    return tuple(GIMP_PATTERNS / p for p in PACKAGED if (GIMP_PATTERNS / p).exists())


def packaged(rng: np.random.Generator, size: int = TEXTURE_SIZE) -> np.ndarray:
    """A packaged photo texture, tiled at a random scale, with a slight colour cast."""
    paths = packaged_patterns()
    tile = read_gimp_pattern(paths[rng.integers(len(paths))])
    scale = rng.uniform(1.0, 3.0)
    tile = cv2.resize(
        tile,
        (max(8, round(tile.shape[1] * scale)), max(8, round(tile.shape[0] * scale))),
        interpolation=cv2.INTER_CUBIC,
    )
    reps = (size // tile.shape[0] + 1, size // tile.shape[1] + 1, 1)
    img = np.tile(tile, reps)[:size, :size].astype(np.float32)
    img *= rng.uniform(0.85, 1.15, 3).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


MAKERS = {
    "felt": felt,
    "wood": wood,
    "woven": woven,
    "tablecloth": tablecloth,
    "plain": plain,
    "packaged": packaged,
}
WEIGHTS = {
    "felt": 0.2,
    "wood": 0.2,
    "woven": 0.12,
    "tablecloth": 0.18,
    "plain": 0.1,
    "packaged": 0.2,
}


def make_texture(seed: int, size: int = TEXTURE_SIZE) -> tuple[str, np.ndarray]:
    """The texture number ``seed``: its kind and BGR image, the same on every machine."""
    rng = np.random.default_rng(seed)
    weights = {k: w for k, w in WEIGHTS.items() if k != "packaged" or packaged_patterns()}
    kinds = list(weights)
    p = np.array(list(weights.values()))
    kind = kinds[rng.choice(len(kinds), p=p / p.sum())]
    return kind, MAKERS[kind](rng, size)
