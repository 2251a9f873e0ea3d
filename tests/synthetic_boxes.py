"""Build detector-like boxes for hand layouts, for grouping and reading tests without a model.

A row is laid out tile by tile along a direction, with a per-tile scale (perspective), an
optional bend (arc) and gaps; sideways tiles swap width and height; a tilted row's boxes are the
axis-aligned bounds of its turned tiles, as a detector reports them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from vision.detections import Detection


@dataclass
class RowSpec:
    codes: list[str]
    origin: tuple[float, float] = (100.0, 300.0)  # top-left of the first tile
    tile_w: float = 40.0
    tile_h: float = 56.0
    gap: float = 1.0  # normal spacing between touching tiles, pixels
    gaps_after: dict[int, float] = field(default_factory=dict)  # extra space after tile i
    sideways: set[int] = field(default_factory=set)
    angle_deg: float = 0.0  # row tilt
    shrink: float = 0.0  # perspective: the last tile is (1 - shrink) times the first
    bend: float = 0.0  # arc: vertical offset at the row's ends relative to its middle, pixels
    probs: dict[int, tuple[tuple[str, float], ...]] = field(default_factory=dict)
    raised: dict[int, float] = field(default_factory=dict)  # pixels up: tile i lies on another (a stacked kong)


def row_detections(spec: RowSpec) -> list[Detection]:
    n = len(spec.codes)
    out = []
    along = 0.0
    ca, sa = math.cos(math.radians(spec.angle_deg)), math.sin(math.radians(spec.angle_deg))
    for k, code in enumerate(spec.codes):
        s = 1.0 - spec.shrink * (k / max(n - 1, 1))
        w, h = spec.tile_w * s, spec.tile_h * s
        if k in spec.sideways:
            # A flat tile turned 90 degrees: long side across; kept bottom-aligned with the row.
            w, h = spec.tile_h * s, spec.tile_w * s
        u = (k - (n - 1) / 2) / max((n - 1) / 2, 1)
        lift = spec.bend * u * u
        cx = spec.origin[0] + (along + w / 2) * ca
        cy = spec.origin[1] + spec.tile_h / 2 + (along + w / 2) * sa + lift - spec.raised.get(k, 0.0)
        if k in spec.sideways:  # bottom-aligned with its upright neighbours
            cx -= (spec.tile_h * s - h) / 2 * sa
            cy += (spec.tile_h * s - h) / 2 * ca
        alternatives = spec.probs.get(k, ((code, 1.0),))
        # A detector's box is axis-aligned: the bounding box of the tile turned with its row.
        bw, bh = w * abs(ca) + h * abs(sa), w * abs(sa) + h * abs(ca)
        out.append(
            Detection(
                box=(cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2),
                code=alternatives[0][0],
                confidence=alternatives[0][1],
                alternatives=alternatives,
            )
        )
        along += w + spec.gap + spec.gaps_after.get(k, 0.0)
    return out


def group_box(tiles: list[Detection], kind: str, pad: float = 3.0) -> Detection:
    return Detection(
        box=(
            min(t.box[0] for t in tiles) - pad,
            min(t.box[1] for t in tiles) - pad,
            max(t.box[2] for t in tiles) + pad,
            max(t.box[3] for t in tiles) + pad,
        ),
        code=kind,
        confidence=0.9,
    )


def codes_of(tiles, indices) -> list[str]:
    return [tiles[i].code for i in indices]


def turned(detections: list[Detection], degrees: float, centre: tuple[float, float] = (400.0, 400.0)) -> list[Detection]:
    """The detections of a photo turned `degrees` about `centre` (positive: the rows then fall to
    the right in the image), each box the upright bounds of its turned corners, as a detector
    boxes a turned tile."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    out = []
    for d in detections:
        x1, y1, x2, y2 = d.box
        corners = [(x - centre[0], y - centre[1]) for x, y in ((x1, y1), (x2, y1), (x1, y2), (x2, y2))]
        xs = [centre[0] + x * c - y * s for x, y in corners]
        ys = [centre[1] + x * s + y * c for x, y in corners]
        out.append(Detection((min(xs), min(ys), max(xs), max(ys)), d.code, d.confidence, d.alternatives, d.not_a_tile))
    return out
