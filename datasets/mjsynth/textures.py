"""Procedural table surfaces (felt, wood, cloth, printed mats, glass, abstract patterns)
with clutter lying on them, and a room background beyond the table's edge."""

from __future__ import annotations

import cv2
import numpy as np

FELT = ((28, 110, 62), (24, 80, 48), (30, 70, 130), (20, 44, 90), (120, 30, 36),
        (90, 90, 92), (24, 24, 26), (200, 184, 150), (30, 120, 120), (80, 50, 110),
        (150, 150, 140), (210, 210, 205))
WOOD = ((150, 100, 60), (110, 70, 40), (190, 150, 100), (80, 50, 30), (200, 170, 130))


def _smooth(rng: np.random.Generator, size: int, cells: int) -> np.ndarray:
    """Value noise in -1..1, smooth at `cells` features across the texture."""
    grid = rng.uniform(-1, 1, (cells + 1, cells + 1)).astype(np.float32)
    return cv2.resize(grid, (size, size), interpolation=cv2.INTER_CUBIC)


def _colour(rng: np.random.Generator, palette) -> np.ndarray:
    return np.clip(np.array(palette[rng.integers(len(palette))], np.float32)
                   + rng.normal(0, 10, 3), 0, 255)


def _felt(rng, size, mm):
    base = _colour(rng, FELT)
    shade = 1 + 0.07 * _smooth(rng, size, 4) + 0.03 * _smooth(rng, size, 40)
    # fibres about 0.25 mm, drawn at half resolution (the camera blurs them anyway)
    fine = rng.standard_normal((size // 2, size // 2), dtype=np.float32) * 0.035
    fine = cv2.resize(cv2.GaussianBlur(fine, (0, 0), max(0.6, 0.125 / mm)), (size, size))
    return (shade + fine)[:, :, None] * base


def _wood(rng, size, mm):
    base = _colour(rng, WOOD)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    across = -x * np.sin(angle) + y * np.cos(angle)
    warp = 25 / mm * _smooth(rng, size, 3) + 4 / mm * _smooth(rng, size, 12)
    grain = np.sin((across + warp) * mm * rng.uniform(0.5, 1.5)) * 0.5 + 0.5
    plank = rng.uniform(60, 200) / mm
    seams = (np.abs(((across / plank) % 1) - 0.5) > 0.49).astype(np.float32)
    shade = 0.82 + 0.18 * grain ** 2 + 0.05 * _smooth(rng, size, 6) - 0.25 * seams
    return base * shade[:, :, None]


def _cloth(rng, size, mm):
    a, b = _colour(rng, FELT), _colour(rng, FELT + ((240, 240, 236),))
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    period = rng.uniform(8, 60) / mm
    kind = rng.integers(3)
    if kind == 0:
        pattern = ((x // period + y // period) % 2).astype(np.float32)
    elif kind == 1:
        pattern = ((x // period) % 2).astype(np.float32)
    else:
        pattern = (((x % period) - period / 2) ** 2 + ((y % period) - period / 2) ** 2
                   < (period * 0.3) ** 2).astype(np.float32)
    pattern = cv2.GaussianBlur(pattern, (0, 0), 1.0)[:, :, None]
    weave = 1 + 0.05 * np.sin(x * mm * 3) * np.sin(y * mm * 3)
    return (a * pattern + b * (1 - pattern)) * weave[:, :, None]


def _glass(rng, size, mm):
    base = np.array([18, 20, 22], np.float32) + rng.uniform(0, 30)
    glow = np.clip(_smooth(rng, size, 2), 0, 1)
    return base + glow[:, :, None] * rng.uniform(30, 90)


def _abstract(rng, size, mm):
    img = _felt(rng, size, mm)
    for _ in range(int(rng.integers(5, 30))):
        colour = _colour(rng, FELT + WOOD).tolist()
        centre = tuple(int(v) for v in rng.integers(0, size, 2))
        if rng.random() < 0.5:
            axes = tuple(int(v) for v in rng.integers(5, size // 4, 2))
            cv2.ellipse(img, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour,
                        -1 if rng.random() < 0.6 else int(rng.integers(1, 6)), cv2.LINE_AA)
        else:
            end = tuple(int(v) for v in rng.integers(0, size, 2))
            cv2.line(img, centre, end, colour, int(rng.integers(1, 12)), cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


def _printed_mat(rng, size, mm):
    img = _felt(rng, size, mm)
    line = np.clip(img[0, 0] * rng.uniform(0.4, 1.8), 0, 255).tolist()
    inset = int(size * rng.uniform(0.05, 0.3))
    thick = max(1, int(rng.uniform(1, 4) / mm))
    cv2.rectangle(img, (inset, inset), (size - inset, size - inset), line, thick, cv2.LINE_AA)
    if rng.random() < 0.5:
        cv2.circle(img, (size // 2, size // 2), int(size * rng.uniform(0.05, 0.2)), line, thick, cv2.LINE_AA)
    return img


SURFACES = (_felt, _felt, _felt, _wood, _wood, _cloth, _glass, _abstract, _printed_mat)


def _clutter(rng: np.random.Generator, img: np.ndarray, mm: float) -> None:
    """Coins, cards, paper, chips and dice lying on the table (drawn flat)."""
    size = img.shape[0]
    for _ in range(int(rng.poisson(2.5))):
        centre = rng.uniform(0, size, 2)
        kind = rng.integers(4)
        colour = rng.uniform(0, 255, 3).tolist()
        c = tuple(int(v) for v in centre)
        if kind == 0:  # coin or chip
            r = int(rng.uniform(9, 20) / mm)
            metal = [rng.uniform(150, 230)] * 3 if rng.random() < 0.5 else colour
            cv2.circle(img, c, r, metal, -1, cv2.LINE_AA)
            cv2.circle(img, c, max(1, int(r * 0.8)), [v * 0.85 for v in metal], max(1, r // 8), cv2.LINE_AA)
        elif kind == 1:  # card, paper, phone seen from above
            w, h = rng.uniform(50, 160, 2) / mm
            rect = ((float(centre[0]), float(centre[1])), (float(w), float(h)), float(rng.uniform(0, 180)))
            fill = [rng.uniform(200, 250)] * 3 if rng.random() < 0.5 else colour
            cv2.fillConvexPoly(img, np.round(cv2.boxPoints(rect) * 16).astype(np.int32), fill, cv2.LINE_AA, 4)
        elif kind == 2:  # score sticks
            for k in range(int(rng.integers(1, 6))):
                a = rng.uniform(0, np.pi)
                d = np.array([np.cos(a), np.sin(a)]) * 40 / mm
                p = centre + rng.normal(0, 8 / mm, 2)
                cv2.line(img, tuple(int(v) for v in p - d), tuple(int(v) for v in p + d), colour,
                         max(1, int(3 / mm)), cv2.LINE_AA)
        else:  # a pen or a die seen from above
            side = max(2, int(rng.uniform(10, 16) / mm))
            cv2.rectangle(img, c, (c[0] + side, c[1] + side), [rng.uniform(200, 250)] * 3, -1, cv2.LINE_AA)
            cv2.circle(img, (c[0] + side // 2, c[1] + side // 2), max(1, side // 6), (200, 30, 30), -1, cv2.LINE_AA)


def table_texture(rng: np.random.Generator, size: int, mm_per_px: float) -> np.ndarray:
    """A size x size float32 RGB texture of a table at mm_per_px millimetres per pixel."""
    surface = SURFACES[rng.integers(len(SURFACES))]
    img = np.ascontiguousarray(surface(rng, size, mm_per_px), np.float32)
    _clutter(rng, img, mm_per_px)
    return np.clip(img, 0, 255)


def room_background(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """What lies beyond the table: a blurry floor or wall with soft blobs, in the
    muted colours of rooms (greys, beiges, browns, dim light)."""
    grey = rng.uniform(25, 210)
    a = np.clip(grey * (1 + rng.normal(0, 0.12, 3)), 0, 255).astype(np.float32)
    b = np.clip(a * rng.uniform(0.6, 1.2) + rng.normal(0, 12, 3), 0, 255).astype(np.float32)
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    img = np.broadcast_to(a * (1 - t) + b * t, (h, w, 3)).copy()
    light = rng.uniform(-30, 30, (4, 4, 1)) + rng.uniform(-6, 6, (4, 4, 3))  # mostly brightness
    blobs = cv2.resize(light.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(img + blobs, 0, 255)
