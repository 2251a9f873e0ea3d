"""Group tile detections into the winner's hand layout, by geometry alone.

Words used here:
- *row*: tiles chained side by side (each overlaps its neighbour vertically and nearly touches it);
  rows may be tilted by perspective or bent into a gentle arc.
- *segment*: a run of a row between two gaps wider than normal spacing.
- *meld*: an exposed chow/pung/kong or a concealed kong; found from the detector's grouping boxes,
  else from segments that carry a sideways (claimed) tile or face-down tiles, or that lie in a row
  away from the concealed tiles.
- the *concealed row*: the row holding the longest run of tiles that is no meld; a single tile set
  apart at one of its ends is the winning tile.

Only two tile identities matter here: flowers (they become flowers wherever they lie) and
face-down `back` tiles (concealed kongs). Which tile is which is the hand reader's job.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from vision.detections import BACK, KONG_CONCEALED, TILE_CODES, Detection
from vision.photo_errors import PhotoError

FLOWER_CODES = frozenset(c for c in TILE_CODES if c.endswith("f"))

# Geometry thresholds. Lengths along a row are in units of the local tile width (the narrower box
# of two neighbours, which is an upright tile's width even next to a sideways tile).
LINK_GAP = 1.6  # neighbours further apart than this are not in the same row
SPLIT_GAP = 0.25  # tiles in a run touch; a wider gap separates melds and the winning tile
MIN_VERTICAL_OVERLAP = 0.5  # of the shorter box's height, for two tiles to be row neighbours
SIDEWAYS_RATIO = 1.45  # width/height this many times the segment's typical tile: turned sideways
REGION_DISTANCE = 2.5  # rows this close (in tile heights) to the hand belong to it
MAX_STRAY_TILES = 4  # more tiles than this outside the hand means other players' tiles in view
MAX_HAND_TILES = 18  # four kongs and a pair: the most tiles one hand can have (flowers aside)
BOX_MIN_COVER = 0.5  # a tile belongs to the grouping box covering most (at least this) of it


@dataclass(frozen=True)
class MeldLayout:
    """One meld's tiles (indices into Layout.tiles) in the player's left-to-right order."""

    tiles: tuple[int, ...]
    concealed: bool  # True only for a concealed kong
    claimed: int | None  # the sideways tile, when one was seen
    from_box: bool  # found by a detector grouping box rather than by gaps


@dataclass(frozen=True)
class Layout:
    """Where each tile of the photo goes; every tile index appears exactly once.

    `reversed_view` is True when the photo was taken from across the table: the set-apart
    winning tile is then at the image's left end, and the orders below are the player's.
    """

    tiles: tuple[Detection, ...]
    concealed: tuple[int, ...]  # standing/concealed tiles, the winning tile excluded
    winning: int | None  # the set-apart tile, None when no tile was set apart
    melds: tuple[MeldLayout, ...]
    flowers: tuple[int, ...]
    unassigned: tuple[int, ...]
    reversed_view: bool
    warnings: tuple[str, ...]


@dataclass
class _Row:
    members: list[int]  # tile indices ordered along the row
    direction: tuple[float, float]  # unit vector along the row, pointing to the image's right


def group_tiles(detections: Sequence[Detection]) -> Layout:
    """Turn detections (tiles and grouping boxes) into the winner's hand layout.

    Raises PhotoError when there are no tiles, or when the tiles in view are clearly more than
    one hand (another player's tiles must not be read into the winner's hand).
    """
    tiles = tuple(d for d in detections if d.is_tile)
    group_boxes = [d for d in detections if not d.is_tile]
    if not tiles:
        raise PhotoError("no_tiles", "no_tiles", "no mahjong tiles were found in the photo")
    flowers = [i for i, t in enumerate(tiles) if t.code in FLOWER_CODES]
    others = [i for i, t in enumerate(tiles) if t.code not in FLOWER_CODES]
    if not others:
        raise PhotoError("no_tiles", "no_hand_tiles", "only flower tiles were found in the photo")

    rows = _rows(tiles, others)
    hand_rows, outside_rows = _hand_region(tiles, rows)
    stray = [i for row in outside_rows for i in row]
    hand_count = sum(len(r) for r in hand_rows)
    if len(stray) > MAX_STRAY_TILES or hand_count > MAX_HAND_TILES:
        raise PhotoError(
            "not_winning",
            "several_hands",
            f"found {hand_count + len(stray)} tiles in {len(rows)} separate rows: this looks like "
            "more than one player's tiles; photograph only the winning hand",
        )
    warnings: list[str] = []
    if stray:
        warnings.append(
            f"{len(stray)} tile(s) lie away from the hand and were not used: "
            + ", ".join(tiles[i].code for i in stray)
        )

    hand_tiles = [i for row in hand_rows for i in row]
    melds, boxed = _box_melds(tiles, hand_tiles, group_boxes, warnings)
    loose_rows = [_order_row(tiles, [i for i in row if i not in boxed]) for row in hand_rows]
    loose_rows = [r for r in loose_rows if r.members]

    # Split rows into segments; segments that look like melds become melds.
    row_segments: list[list[list[int]]] = []
    for row in loose_rows:
        kept = []
        for seg in _segments(tiles, row):
            meld = _segment_meld(tiles, seg)
            if meld is not None:
                melds.append(meld)
            else:
                kept.append(seg)
        row_segments.append(kept)

    unassigned: list[int] = list(stray)
    concealed: list[int] = []
    winning = None
    reversed_view = False
    nonempty = [segs for segs in row_segments if segs]
    if nonempty:
        concealed_segs = max(nonempty, key=lambda segs: max(len(s) for s in segs))
        concealed, winning, reversed_view = _concealed_row(concealed_segs)
        for segs in nonempty:
            if segs is concealed_segs:
                continue
            for seg in segs:
                # A run of 3-4 in a row of its own is a meld laid out without a sideways tile.
                if len(seg) in (3, 4):
                    melds.append(MeldLayout(tuple(seg), len(seg) == 4, None, False))
                else:
                    unassigned.extend(seg)

    backs_loose = [i for i in concealed + ([winning] if winning is not None else []) if tiles[i].code == BACK]
    if backs_loose:
        warnings.append(f"{len(backs_loose)} face-down tile(s) outside a kong cannot be read")
    if unassigned and len(unassigned) > len(stray):
        lone = [i for i in unassigned if i not in stray]
        warnings.append(
            f"{len(lone)} tile(s) fit no meld and are not in the concealed row: "
            + ", ".join(tiles[i].code for i in lone)
        )
    if reversed_view:
        melds.reverse()
        melds = [MeldLayout(m.tiles[::-1], m.concealed, m.claimed, m.from_box) for m in melds]
    else:
        melds.sort(key=lambda m: tiles[m.tiles[0]].center[0])
    return Layout(
        tiles=tiles,
        concealed=tuple(concealed),
        winning=winning,
        melds=tuple(melds),
        flowers=tuple(flowers),
        unassigned=tuple(unassigned),
        reversed_view=reversed_view,
        warnings=tuple(warnings),
    )


def _vertical_overlap(a: Detection, b: Detection) -> float:
    return min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])


def _horizontal_gap(a: Detection, b: Detection) -> float:
    return max(b.box[0] - a.box[2], a.box[0] - b.box[2])


def _rows(tiles: Sequence[Detection], indices: list[int]) -> list[list[int]]:
    """Chain near side-by-side tiles into rows (connected components of the neighbour links)."""
    parent = {i: i for i in indices}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for n, i in enumerate(indices):
        a = tiles[i]
        for j in indices[n + 1 :]:
            b = tiles[j]
            unit = min(a.width, b.width)
            if (
                _vertical_overlap(a, b) >= MIN_VERTICAL_OVERLAP * min(a.height, b.height)
                and _horizontal_gap(a, b) <= LINK_GAP * unit
            ):
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in indices:
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=len, reverse=True)


def _bbox(tiles: Sequence[Detection], row: list[int]) -> tuple[float, float, float, float]:
    return (
        min(tiles[i].box[0] for i in row),
        min(tiles[i].box[1] for i in row),
        max(tiles[i].box[2] for i in row),
        max(tiles[i].box[3] for i in row),
    )


def _box_distance(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    dx = max(0.0, b[0] - a[2], a[0] - b[2])
    dy = max(0.0, b[1] - a[3], a[1] - b[3])
    return math.hypot(dx, dy)


def _hand_region(
    tiles: Sequence[Detection], rows: list[list[int]]
) -> tuple[list[list[int]], list[list[int]]]:
    """The longest row and every row transitively close to it; the rest lies outside the hand."""
    scale = statistics.median(max(tiles[i].height, tiles[i].width) for i in rows[0])
    region = [rows[0]]
    boxes = [_bbox(tiles, rows[0])]
    remaining = rows[1:]
    grew = True
    while grew:
        grew = False
        for row in list(remaining):
            bb = _bbox(tiles, row)
            if any(_box_distance(bb, b) <= REGION_DISTANCE * scale for b in boxes):
                region.append(row)
                boxes.append(bb)
                remaining.remove(row)
                grew = True
    return region, remaining


def _box_melds(
    tiles: Sequence[Detection],
    hand_tiles: list[int],
    group_boxes: list[Detection],
    warnings: list[str],
) -> tuple[list[MeldLayout], set[int]]:
    """Melds from the detector's grouping boxes; a box holding other than 3-4 tiles is ignored."""
    members: dict[int, list[int]] = {}
    for i in hand_tiles:
        cover = [_covered_fraction(tiles[i], g) for g in group_boxes]
        if cover and max(cover) >= BOX_MIN_COVER:
            members.setdefault(cover.index(max(cover)), []).append(i)
    melds: list[MeldLayout] = []
    boxed: set[int] = set()
    for b, inside in members.items():
        if len(inside) not in (3, 4):
            warnings.append(
                f"a {group_boxes[b].code} box holds {len(inside)} tiles, not 3 or 4; ignored it"
            )
            continue
        row = _order_row(tiles, inside)
        concealed = group_boxes[b].code == KONG_CONCEALED or (
            len(inside) == 4 and any(tiles[i].code == BACK for i in inside)
        )
        claimed = None if concealed else _sideways_tile(tiles, row.members)
        melds.append(MeldLayout(tuple(row.members), concealed, claimed, True))
        boxed.update(inside)
    return melds, boxed


def _covered_fraction(tile: Detection, group: Detection) -> float:
    w = min(tile.box[2], group.box[2]) - max(tile.box[0], group.box[0])
    h = min(tile.box[3], group.box[3]) - max(tile.box[1], group.box[1])
    area = tile.width * tile.height
    return max(w, 0.0) * max(h, 0.0) / area if area > 0 else 0.0


def _order_row(tiles: Sequence[Detection], members: list[int]) -> _Row:
    """Order tiles along the row's principal direction (robust to tilt and gentle arcs)."""
    if len(members) < 2:
        return _Row(list(members), (1.0, 0.0))
    xs = [tiles[i].center[0] for i in members]
    ys = [tiles[i].center[1] for i in members]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    angle = 0.5 * math.atan2(2 * sxy, sxx - syy)
    d = (math.cos(angle), math.sin(angle))
    if d[0] < 0:
        d = (-d[0], -d[1])
    ordered = sorted(members, key=lambda i: tiles[i].center[0] * d[0] + tiles[i].center[1] * d[1])
    return _Row(ordered, d)


def _gap_along(a: Detection, b: Detection, d: tuple[float, float]) -> float:
    """Free space between consecutive tiles a and b along direction d, in local tile widths."""
    dist = (b.center[0] - a.center[0]) * d[0] + (b.center[1] - a.center[1]) * d[1]
    return (dist - _half_extent(a, d) - _half_extent(b, d)) / min(a.width, b.width)


def _half_extent(t: Detection, d: tuple[float, float]) -> float:
    """Distance from the box centre to where a ray along d leaves the box."""
    limits = [t.width / 2 / abs(d[0]) if d[0] else math.inf, t.height / 2 / abs(d[1]) if d[1] else math.inf]
    return min(limits)


def _segments(tiles: Sequence[Detection], row: _Row) -> list[list[int]]:
    segments = [[row.members[0]]]
    for prev, cur in zip(row.members, row.members[1:]):
        if _gap_along(tiles[prev], tiles[cur], row.direction) > SPLIT_GAP:
            segments.append([cur])
        else:
            segments[-1].append(cur)
    return segments


def _aspect(t: Detection) -> float:
    return t.width / t.height if t.height > 0 else 1.0


def _sideways_tile(tiles: Sequence[Detection], seg: list[int]) -> int | None:
    """The one tile much wider (relative to its height) than the others of its meld."""
    if len(seg) < 3:
        return None
    turned = []
    for i in seg:
        typical = statistics.median(_aspect(tiles[j]) for j in seg if j != i)
        if _aspect(tiles[i]) > SIDEWAYS_RATIO * typical:
            turned.append(i)
    return turned[0] if len(turned) == 1 else None


def _segment_meld(tiles: Sequence[Detection], seg: list[int]) -> MeldLayout | None:
    """A segment is a meld when it carries a sideways tile or is a kong with face-down tiles."""
    if len(seg) == 4 and any(tiles[i].code == BACK for i in seg):
        return MeldLayout(tuple(seg), True, None, False)
    if len(seg) in (3, 4):
        claimed = _sideways_tile(tiles, seg)
        if claimed is not None:
            return MeldLayout(tuple(seg), False, claimed, False)
    return None


def _concealed_row(segments: list[list[int]]) -> tuple[list[int], int | None, bool]:
    """Concealed tiles, the set-apart winning tile and whether the view is reversed.

    The winning tile is a lone tile at an end of the concealed row. At the image's right end it
    is the normal view; at the left end the photo was taken from across the table.
    """
    tiles_in_order = [i for seg in segments for i in seg]
    if len(segments) < 2:
        return tiles_in_order, None, False
    right = len(segments[-1]) == 1
    left = len(segments[0]) == 1 and not right
    if right:
        return tiles_in_order[:-1], tiles_in_order[-1], False
    if left:
        rest = tiles_in_order[1:]
        return rest[::-1], tiles_in_order[0], True
    return tiles_in_order, None, False
