"""One synthetic photo: lay out tiles, render them, apply effects, and read the labels
(YOLO boxes and the per-image ground truth) back from the id buffer."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .art import Atlas
from .codes import BACK, CLASS_INDEX, KONG_CONCEALED, MELD_EXPOSED, PLAYABLE, TILE_CODES
from .effects import camera_roll, hand_occluder, lens_distortion, photometric, resample_and_compress
from .layouts import LAYOUTS, Layout, Prop, TileSize, flat_pose, random_tile_size
from .render import render

MIN_BOX_PX = 3  # smaller boxes are not labelled
MIN_FACE_PX = 40  # a face smaller than this (pixels) cannot be read: no code label
MIN_FACE_SIDE = 6  # nor one seen so edge-on that it is narrower than this (pixels)
FACE_SHOWN = 0.55  # share of a face that must be visible (unhidden and in the frame) to label its code
BODY_SHOWN = 0.25  # share of a tile that must be visible to label it at all
OCCLUDER_KEEP = 0.6  # share of a label's pixels a reaching hand may leave


@dataclass
class Label:
    name: str  # class name
    box: tuple[float, float, float, float]


@dataclass
class Sample:
    image: np.ndarray  # uint8 RGB
    labels: list[Label]
    meta: dict


def restrict_to_atlas(rng: np.random.Generator, layout: Layout, atlas: Atlas) -> None:
    """Sources without some art (fluffystuff has no flowers, gnome-postmodern no White
    or flowers) cannot draw those tiles: a hand drops its flowers (make_sample only
    keeps hands whose other tiles are drawable), other layouts swap in drawable tiles."""
    missing = [t for t in layout.tiles if t.true_code not in atlas.faces]
    if not missing:
        return
    if layout.hand is not None:
        layout.tiles = [t for t in layout.tiles if t.true_code in atlas.faces]
        layout.hand["flowers"] = [f for f in layout.hand["flowers"] if f in atlas.faces]
        return
    drawable = [c for c in PLAYABLE if c in atlas.faces]
    # one stand-in per missing kind, so a pung of it is still a pung
    stand_in = {c: drawable[rng.integers(len(drawable))]
                for c in sorted({t.true_code for t in missing}, key=TILE_CODES.index)}
    for t in missing:
        t.true_code = stand_in[t.true_code]


def _props(rng: np.random.Generator, layout: Layout, size: TileSize) -> list[Prop]:
    """Dice and phones standing beside the tiles, never on them."""
    pts = np.array([t.pose.centre[:2] for t in layout.tiles])
    props = []
    for _ in range(int(rng.poisson(0.6))):
        if rng.random() < 0.6:
            e = rng.uniform(12, 18)
            dims, colour = TileSize(e, e, e), (240, 240, 236) if rng.random() < 0.7 else (200, 40, 40)
        else:
            dims, colour = TileSize(rng.uniform(65, 80), rng.uniform(140, 165), 8), (25, 25, 30)
        # keep the prop's whole footprint clear of every tile's
        clear = np.hypot(dims.w, dims.h) / 2 + size.h * 0.8
        lo, hi = pts.min(0) - clear, pts.max(0) + clear
        side = rng.integers(4)
        x = rng.uniform(lo[0], hi[0]) if side < 2 else (lo[0] if side == 2 else hi[0])
        y = rng.uniform(lo[1], hi[1]) if side >= 2 else (lo[1] if side == 0 else hi[1])
        props.append(Prop(flat_pose(x, y, rng.uniform(0, np.pi), dims), dims, colour))
    return props


def _boxes(ids: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per tile: bounding box of its visible pixels, visible pixel count, visible face
    pixel count (ids hold 2i for body and 2i+1 for face pixels)."""
    h, w = ids.shape
    flat = ids.ravel()
    pix = np.flatnonzero(flat >= 0)
    vals = flat[pix]
    tile = vals >> 1
    counts = np.bincount(tile, minlength=n)[:n]
    faces = np.bincount(tile[(vals & 1) == 1], minlength=n)[:n]
    boxes = np.zeros((n, 4))
    if len(pix):
        xs, ys = pix % w, pix // w
        x0 = np.full(n, w); y0 = np.full(n, h); x1 = np.full(n, -1); y1 = np.full(n, -1)
        np.minimum.at(x0, tile, xs)
        np.minimum.at(y0, tile, ys)
        np.maximum.at(x1, tile, xs)
        np.maximum.at(y1, tile, ys)
        boxes = np.stack([x0, y0, x1 + 1, y1 + 1], 1).astype(float)
    return boxes, counts, faces


def _rotation(up: np.ndarray) -> int:
    """Clockwise angle of the face's up direction in the image, to the nearest 90."""
    angle = np.degrees(np.arctan2(up[0], -up[1]))
    return int(round(angle / 90)) % 4 * 90


def make_sample(rng: np.random.Generator, atlas: Atlas, kind: str, width: int, height: int,
                roll: float = 0.0) -> Sample:
    """One photo of layout `kind` drawn with `atlas`, its labels and ground truth; every
    random choice comes from `rng`, so the same generator state gives the same sample. `roll`:
    the camera turned that many degrees about its axis (the photo grows to hold all of it)."""
    size = random_tile_size(rng)
    for _ in range(50):  # a hand must be drawable but for its flowers, or its truth is wrong
        layout = LAYOUTS[kind](rng, size)
        if layout.hand is None or all(t.true_code in atlas.faces or t.role == "flower"
                                      for t in layout.tiles):
            break
    restrict_to_atlas(rng, layout, atlas)
    n = len(layout.tiles)
    r = render(rng, layout, atlas, size, width, height, _props(rng, layout, size))
    image, ids = r.image, r.ids

    # Decide each tile's label from tile-on-tile occlusion, before anything moves pixels.
    _, counts, faces = _boxes(ids, n)
    names: list[str | None] = []
    for i in range(n):
        if (r.body_areas[i] <= 0 or counts[i] < BODY_SHOWN * r.body_areas[i]
                or layout.tiles[i].role == "under"):  # a stacked kong's hidden tile: its edge is no tile to find
            names.append(None)
        elif r.face_areas[i] > 0:  # the face looks at the camera: readable, or ambiguous
            readable = (r.face_areas[i] >= MIN_FACE_PX and r.face_short_sides[i] >= MIN_FACE_SIDE
                        and faces[i] >= FACE_SHOWN * r.face_areas[i])
            names.append(layout.tiles[i].true_code if readable else None)
        else:
            names.append(BACK)

    shown = r.body_areas[r.body_areas > 0]
    tile_px = float(np.median(np.sqrt(shown))) if len(shown) else 10.0
    if rng.random() < 0.15:
        before = counts.copy()
        hand_occluder(rng, image, ids, tile_px)
        _, after, faces_after = _boxes(ids, n)
        for i, name in enumerate(names):
            if name is None:
                continue
            if after[i] < OCCLUDER_KEEP * before[i] or (
                    name != BACK and faces_after[i] < FACE_SHOWN * r.face_areas[i]):
                names[i] = None
    if rng.random() < 0.3:
        image, ids = lens_distortion(rng, image, ids)
    if roll:  # after the lens, whose distortion turns with the phone
        image, ids = camera_roll(image, ids, roll)
        height, width = ids.shape
    image = resample_and_compress(rng, photometric(rng, image))

    boxes, counts, _ = _boxes(ids, n)
    labels: list[Label] = []
    tiles_meta = []
    for i, (t, name) in enumerate(zip(layout.tiles, names)):
        x0, y0, x1, y1 = boxes[i]
        if name is None or counts[i] == 0 or x1 - x0 < MIN_BOX_PX or y1 - y0 < MIN_BOX_PX:
            names[i] = None
            continue
        box = (float(x0), float(y0), float(x1), float(y1))
        labels.append(Label(name, box))
        tiles_meta.append({
            "code": name, "true_code": t.true_code, "box": [round(v, 1) for v in box],
            "face_up": t.face_up, "rotation": _rotation(r.up_vectors[i]), "role": t.role,
            "group": t.group,
        })
    groups_meta = []
    for g in layout.groups:
        members = [i for i, t in enumerate(layout.tiles) if t.group == g.id and names[i] is not None]
        total = sum(1 for t in layout.tiles if t.group == g.id)
        if len(members) < max(2, total - 1):  # a group mostly out of view is not boxed
            continue
        b = boxes[members]
        box = (float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max()))
        labels.append(Label(KONG_CONCEALED if g.concealed else MELD_EXPOSED, box))
        groups_meta.append({"id": g.id, "kind": g.kind, "concealed": g.concealed, "stacked": g.stacked,
                            "box": [round(v, 1) for v in box]})
    # True when every tile of the hand got a label, i.e. the photo shows the whole hand
    hand_complete = layout.hand is not None and all(
        name is not None for t, name in zip(layout.tiles, names) if t.role not in ("other", "under"))
    meta = {"layout": layout.kind, "source": atlas.source, "width": width, "height": height,
            "tiles": tiles_meta, "groups": groups_meta, "hand": layout.hand,
            "hand_complete": hand_complete}
    return Sample(image, labels, meta)


def yolo_lines(sample: Sample) -> list[str]:
    h, w = sample.image.shape[:2]
    lines = []
    for lab in sample.labels:
        x0, y0, x1, y1 = lab.box
        lines.append(f"{CLASS_INDEX[lab.name]} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} "
                     f"{(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}")
    return lines
