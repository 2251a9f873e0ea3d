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

A photo taken askew is grouped from its boxes turned so that the rows run level (`_levelled`).

Only two tile identities matter here: flowers (they become flowers wherever they lie) and
face-down `back` tiles (concealed kongs). Which tile is which is the hand reader's job.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from vision.detections import BACK, FLOWER_CODES, KONG_CONCEALED, MELD_EXPOSED, Detection
from vision.photo_errors import PhotoError

# Geometry thresholds, in tile sizes so they hold at any scale.
# Neighbours further apart than this (in the wider box's widths: a tile cut off by the photo's edge
# has a narrow box) are not in the same row: melds laid in line beyond the winning tile, 1.65 widths
# off, stay apart. Boxes turned level are narrower than the upright boxes of tilted tiles, over which
# 1.6 widths reached 2.2 tile widths at 16 degrees: between them, LEVEL_LINK_GAP (a winning tile
# beyond a flower in line lay 1.7 widths off in a benchmark photo).
LINK_GAP = 1.6
LEVEL_LINK_GAP = 2.0
SPLIT_GAP = 0.12  # tiles in a run touch; a wider gap separates melds and the winning tile
GHOST_OVERLAP = 0.25  # a box over two touching tiles overlaps each by more than this (in tile lengths)
HOLE = 0.5  # a gap in a row this wide (in tile lengths) can hold a tile the detector misread
IN_LINE = 0.25  # of a tile's height: how far off its row's line a tile between two of it may lie
MIN_VERTICAL_OVERLAP = 0.5  # of the shorter box's height, for two tiles to be row neighbours
ROW_ANGLE_TOLERANCE = 20.0  # degrees a neighbour pair may turn from the photo's typical row direction
MIN_TILT_TILES = 5  # fewer tiles than this show no row direction to level
# Rows running this many degrees askew or more are grouped from boxes turned level (`_levelled`):
# the detector's upright boxes of a tilted row overlap across rows and take in their neighbours.
LEVEL_FROM = 3.0
TILT_AGREEMENT = 25.0  # degrees a tile's nearest neighbour may lie off the rows' first estimate
WINNING_REACH = 2.5  # a lone tile this close (in tile lengths) past an end of the concealed row joins it
# A hand one tile short takes its one loose tile this close (in tile lengths, centre to centre) to an
# end of the concealed row, in any direction, as its winning tile: pushed forward, laid in front.
LONE_WINNER_REACH = 3.0
# |cos^2 - sin^2| of a row's angle from which its boxes tell a tile's length along the row from its
# width across (up to 36.9 degrees from level or from upright)
WELL_POSED = 0.3
MIN_TOUCHING = 6  # tiles of two melds laid edge to edge, at the fewest
SIDEWAYS_RATIO = 1.45  # width/height this many times the segment's typical tile: turned sideways
# A boxed kong of four face-up tiles is exposed when one tile is turned (its claimed tile) and
# concealed when none is, whatever class the detector gave its box, unless the detector is all
# but sure of that class: an unsure box class is the weaker cue, while the aspects of a tilted
# row's axis-aligned boxes say little. Aspects relative to the kong's other tiles, on 1,000
# development photos: concealed kongs laid face up reach 1.26 at the 95th percentile, exposed
# ones' turned tile 1.29 at the 5th.
KONG_TURNED = 1.3
KONG_NONE_TURNED = 1.2
SURE_GROUP_BOX = 0.95
REGION_DISTANCE = 2.5  # rows this close (in tile heights) to the hand belong to it
MAX_STRAY_TILES = 4  # more tiles than this outside the hand means other players' tiles in view
# Four kongs and a pair make 18 tiles, and the eight flowers lie near the hand too: a flower
# the detector misreads as a suit tile must not make one hand look like two.
MAX_HAND_TILES = 18 + 8
# A hand's tiles, standing, flat or sideways and nearer or farther from the camera, measure at
# most 1.6 times their median long side in our renders; a larger box is clutter (a phone, a
# shadow). Small boxes stay, down to a sliver: a tile cut off by the photo's edge is one (the
# renders label some 3 pixels wide); only a box under MIN_SIDE pixels across holds nothing.
MAX_SIZE = 2.0
MIN_SIDE = 1.0
FACE_ODDS = 0.15  # a box read face down but this likely a face is a misread tile, not felt
KONG_BOX_TILES = 2.0  # a concealed-kong box holds at least this many tiles' area
BOX_FULL_COVER = 0.8  # a meld box's fourth tile must lie this far inside (else it is a neighbour)
SAME_GROUP = 0.7  # IoU at which a meld box and a concealed-kong box are two readings of one group
# In a winning hand face-down tiles lie only in concealed kongs, four in a row: all down, the two
# ends down or the middle two down (B = down, U = up).
KONG_FACE_PATTERNS = ("BBBB", "BUUB", "UBBU")
STACKED_KONG_FACES = "BUB"  # three tiles face down, the fourth face up on the middle one
# A face-down box sharing more than this much of its length along the row with a face-up tile
# of its meld box lies under that tile: tiles of a row lie side by side, overlapping a little at most.
UNDER_OVERLAP = 0.6
# A kong shown as three tiles with the fourth lying on the middle one: from any but a steep view
# the top tile's top edge lies above where an upright neighbour's would, by this much of its height
# at the least (rendered: 0.0-0.54 by the camera's height; a tidy pung's middle tile at most 0.12),
# and by no more than STACK_RAISE_MAX (a tile higher still is one of a row behind). Its bottom edge
# lies above its neighbours' too, or (in the detector's box, which takes in the side of the tile
# under it) about level: at most STACK_SINK below. A box this much wider than its upright
# neighbours' is a tile turned on the table, whose box grows up as well (12 degrees: 1.26 times).
# A box whose near edge (the one players line up: the bottom, or the top in a photo taken from
# across the table) lies STACK_LIFT or more above its neighbours' (at most STACK_RAISE_MAX) and
# whose far edge lies at least STACK_FAR_LIFT above theirs lies on another tile however wide or
# short: a tile turned on the table reaches past their line, and a top tile lying sideways (on a
# claimed tile) is shorter than upright ones. A claimed tile lying sideways on the table, lined up
# with its neighbours' far edges (or loosely boxed), has its near edge as far up but its far edge
# level with theirs. Where the view is not yet known, both edges must lie STACK_LIFT above.
STACK_RAISE = 0.15
STACK_LIFT = 0.15
STACK_FAR_LIFT = 0.07
STACK_RAISE_MAX = 0.6
STACK_SINK = 0.05
STACK_TURNED = 1.2
SIDEWAYS_SHORT = 0.85  # a neighbour's box shorter than this of the other's lies sideways


@dataclass(frozen=True)
class MeldLayout:
    """One meld's tiles (indices into Layout.tiles) in the player's left-to-right order."""

    tiles: tuple[int, ...]
    concealed: bool  # True only for a concealed kong
    claimed: int | None  # the sideways tile, when one was seen
    from_box: bool  # found by a detector grouping box rather than by gaps
    stacked: bool = False  # a kong shown as three tiles: a fourth like the middle one lies under it


@dataclass(frozen=True)
class Layout:
    """Where each tile of the photo goes; every tile index appears exactly once.

    `reversed_view` is True when the photo was taken from across the table: the set-apart
    winning tile is then at the image's left end, and the orders below are the player's.
    `level` holds the same tiles with their boxes turned so that the rows run level (`tiles`
    themselves where they already do): what is measured along and across rows uses these.
    """

    tiles: tuple[Detection, ...]
    level: tuple[Detection, ...]
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

    A photo whose rows run askew is grouped from its boxes turned level too, and the layout that
    leaves fewer tiles out of the hand's count is taken (the level one when they tie): perspective
    and melds laid at an angle of their own can mislead the tilt (`row_tilt`), and the boxes as
    seen then group better. Raises PhotoError when there are no tiles, or when the tiles in view
    are clearly more than one hand (another player's tiles must not be read into the winner's hand).
    """
    level = _levelled(detections)
    if level is detections:
        return _group(detections, detections)
    layouts, errors = [], []
    for boxes in (level, detections):
        try:
            layouts.append(_group(detections, boxes))
        except PhotoError as exc:
            errors.append(exc)
        if layouts and _misfit(layouts[0]) == 0:  # nothing left to gain
            break
    if not layouts:
        raise errors[0]
    return min(layouts, key=_misfit)


def _misfit(layout: Layout) -> int:
    """Tiles left out of the hand, and concealed tiles more or fewer than its melds leave room for."""
    return len(layout.unassigned) + abs(standing_excess(layout))


def standing_excess(layout: Layout) -> int:
    """Concealed tiles (the winning tile included) beyond what the melds leave room for."""
    return len(layout.concealed) + (layout.winning is not None) - concealed_count(len(layout.melds))


def _group(in_photo: Sequence[Detection], detections: Sequence[Detection]) -> Layout:
    """`group_tiles` with the geometry of `detections`: the photo's boxes `in_photo`, or the same
    boxes turned level."""
    link_gap = LINK_GAP if detections is in_photo else LEVEL_LINK_GAP
    in_photo = tuple(d for d in in_photo if d.is_tile)
    tiles = tuple(d for d in detections if d.is_tile)
    group_boxes = _one_box_per_group([d for d in detections if not d.is_tile])
    if not tiles:
        raise PhotoError("no_tiles", "no_tiles", "no mahjong tiles were found in the photo")
    typical = statistics.median(max(t.width, t.height) for t in tiles)
    odd_size = [i for i, t in enumerate(tiles)
                if max(t.width, t.height) > MAX_SIZE * typical or min(t.width, t.height) < MIN_SIDE]
    sized = [i for i in range(len(tiles)) if i not in odd_size]
    if not sized:
        raise PhotoError("no_tiles", "no_tiles", "no mahjong tiles were found in the photo: every box is empty")
    flowers = [i for i in sized if tiles[i].code in FLOWER_CODES]
    in_melds = _flowers_in_meld_boxes(tiles, sized, flowers, group_boxes)
    flowers = [i for i in flowers if i not in in_melds]
    others = [i for i in sized if i not in flowers]
    if not others:
        raise PhotoError("no_tiles", "no_hand_tiles", "only flower tiles were found in the photo")

    rows = _rows(tiles, others, link_gap)
    hand_rows, outside_rows = _hand_region(tiles, rows)
    stray = [i for row in outside_rows for i in row]
    hand_count = sum(len(r) for r in hand_rows)
    if len(stray) > MAX_STRAY_TILES or hand_count > MAX_HAND_TILES:
        raise PhotoError(
            "not_winning",
            "several_hands",
            f"found {hand_count + len(stray)} tiles in {len(rows)} separate rows"
            + (f" besides {len(flowers)} flower(s)" if flowers else "")
            + ": this looks like "
            "more than one player's tiles; photograph only the winning hand",
        )
    warnings: list[str] = []
    if in_melds:
        warnings.append(f"{len(in_melds)} tile(s) read as flowers lie inside a meld's box and were read as meld tiles")
    if odd_size:
        warnings.append(
            f"{len(odd_size)} box(es) far larger than the other tiles, or empty, were not used: "
            + ", ".join(tiles[i].code for i in odd_size)
        )

    # Split rows at grouping boxes, then the rest at gaps; segments that are melds (by a box, a
    # sideways tile or face-down tiles) become melds, the rest stay in their row.
    melds: list[MeldLayout] = []
    row_segments: list[tuple[_Row, list[list[int]]]] = []
    rows = [_order_row(tiles, members) for members in hand_rows]
    ghosts = [i for row in rows for i in _straddling_boxes(tiles, row)]
    if ghosts:
        rows = _without(rows, ghosts)
        warnings.append(f"{len(ghosts)} box(es) straddling two neighbouring tiles were not used")
    # Felt between melds and plain dark clutter pass for a tile's back; a box read face-down that
    # fits no concealed kong's pattern along its row, nor lies in a concealed-kong box big enough
    # for a kong, nor has a likely face reading, is such a look-alike.
    kong_boxes = [b for b in group_boxes if b.code == KONG_CONCEALED]
    lone_backs = [
        i
        for row in rows
        for i in _backs_outside_kongs(tiles, row.members)
        if not any(_covered_fraction(tiles[i], b) >= BOX_FULL_COVER and _holds_several(b, tiles[i])
                   for b in kong_boxes)
        and sum(p for code, p in tiles[i].alternatives if code not in (BACK, *FLOWER_CODES)) < FACE_ODDS
    ]
    if lone_backs:
        rows = _without(rows, lone_backs)
        warnings.append(f"{len(lone_backs)} face-down box(es) that fit no concealed kong were not used")
    # Seen low, an exposed kong laid stacked shows the side of its lower middle tile below the top
    # tile, which the detector boxes as face down.
    in_rows = [i for row in rows for i in row.members]
    under = [i for row in rows for i in _backs_under_faces(tiles, row, in_rows, group_boxes)]
    if under:
        rows = _without(rows, under)
        warnings.append(f"{len(under)} face-down box(es) under a face-up tile (a kong laid stacked) were not used")
    misread = _flowers_inside_rows(tiles, rows, flowers)
    if misread:
        flowers = [i for i in flowers if i not in misread]
        warnings.append(f"{len(misread)} tile(s) read as flowers lie inside a row of the hand and were read as hand tiles")
    with_flowers = _set_apart_with_flowers(tiles, rows, flowers)
    if with_flowers:
        rows = _without(rows, with_flowers)
        flowers += with_flowers
        warnings.append(f"{len(with_flowers)} tile(s) set apart with the flowers were read as flowers")
    # A sideways tile marks a meld only when the detector drew no meld boxes: where it did, a
    # wide box in the concealed row (a tile seen from its side) must not make a meld.
    use_sideways = not any(b.code == MELD_EXPOSED for b in group_boxes)
    boxed: set[int] = set()
    for box, run, direction in _box_runs(tiles, rows, group_boxes, warnings):
        melds.append(_segment_meld(tiles, run, direction, box, use_sideways))
        boxed.update(run)
    for row in rows:
        pieces = []
        for start, end in _runs([i in boxed for i in row.members]):
            piece = row.members[start:end]
            if piece[0] in boxed:
                continue
            pieces.append([])
            for seg in _segments(tiles, _Row(piece, row.direction)):
                meld = _segment_meld(tiles, seg, row.direction, None, use_sideways)
                touching = [] if meld is not None or not use_sideways else _touching_melds(tiles, seg, row.direction, True)
                if meld is not None:
                    melds.append(meld)
                elif touching:
                    melds += touching
                else:
                    pieces[-1].append(seg)
        melds += _melds_beyond_melds(tiles, pieces, row.direction)
        row_segments.append((row, [seg for piece in pieces for seg in piece]))

    not_tiles = odd_size + ghosts + lone_backs + under  # boxes taken for no tile
    kept_out = stray + not_tiles  # reported apart, never pulled back into the hand
    unassigned: list[int] = list(kept_out)
    concealed: list[int] = []
    winning = None
    reversed_view = False
    nonempty = [(row, segs) for row, segs in row_segments if segs]
    if nonempty:
        concealed_row, concealed_segs = _pick_concealed_row(tiles, nonempty, len(melds))
        concealed, winning, reversed_view = _concealed_row(tiles, concealed_row, concealed_segs)
        for row, segs in nonempty:
            if segs is concealed_segs:
                continue
            for seg in segs:
                found = _run_melds(tiles, seg, row.direction)
                melds += found
                unassigned.extend([] if found else seg)
        # Lone tiles just past an end of the row (in the image, winning tile included) that the
        # row's chain did not reach: past the winning end, or at either end when no tile was set
        # apart, such a tile is the winning tile (the one set apart furthest); else it is concealed.
        loose = [i for i in unassigned if i not in kept_out]
        line = _player_to_image(concealed + ([winning] if winning is not None else []), reversed_view)
        for i, at_left in _beside_row_ends(tiles, line, loose, concealed_row.direction):
            unassigned.remove(i)
            if winning is None or at_left == reversed_view:
                if winning is not None:
                    concealed.append(winning)
                elif at_left:
                    concealed.reverse()
                winning, reversed_view = i, at_left
            else:  # the player's left end: the start of the row
                concealed.insert(0, i)
        loose = [i for i in loose if i in unassigned]
        if winning is None and len(loose) == 1 and len(concealed) == concealed_count(len(melds)) - 1:
            at_left = _by_row_end(tiles, concealed, loose[0])  # no tile apart: in image order
            if at_left is not None:
                unassigned.remove(loose[0])
                winning, reversed_view = loose[0], at_left
                if at_left:
                    concealed.reverse()
                warnings.append(f"the {tiles[winning].code} lying by the row's end, out of its line, was taken "
                                "for the winning tile (the hand is a tile short without it)")

    backs_loose = [i for i in concealed + ([winning] if winning is not None else []) if tiles[i].code == BACK]
    if backs_loose:
        warnings.append(f"{len(backs_loose)} tile(s) read face down lie outside a concealed kong, where no tile "
                        "lies face down: read from their other readings")
    # A tile that fits nowhere in the hand, or lies away from it, but touches a flower and could be
    # one is a flower read as a suit or honour tile: left out, the hand read surely without it (7 of
    # 7 such tiles that fit nowhere on 600 benchmark photos were flowers).
    misread_flowers = [i for i in unassigned if i not in not_tiles and _flower_by_a_flower(tiles, i, flowers)]
    if misread_flowers:
        unassigned = [i for i in unassigned if i not in misread_flowers]
        flowers += misread_flowers
        warnings.append(f"{len(misread_flowers)} tile(s) outside the hand's rows and melds lie against the flowers and were read "
                        "as flowers")
    stray = [i for i in stray if i in unassigned]
    if stray:
        warnings.append(
            f"{len(stray)} tile(s) lie away from the hand and were not used: "
            + ", ".join(tiles[i].code for i in stray)
        )
    lone = [i for i in unassigned if i not in kept_out]
    if lone:
        warnings.append(
            f"{len(lone)} tile(s) fit no meld and are not in the concealed row: "
            + ", ".join(tiles[i].code for i in lone)
        )
    # The side the winning tile lies apart on tells which edges are the tiles' near ones, beside a
    # row of two tiles or more: a lone tile and the winning one could lie either way round.
    known_view = reversed_view if winning is not None and len(concealed) >= 2 else None
    melds = [_as_stacked(tiles, m, known_view) for m in melds]
    melds.sort(key=lambda m: tiles[m.tiles[0]].center[0])
    if reversed_view:
        melds = [replace(m, tiles=m.tiles[::-1]) for m in reversed(melds)]
    return Layout(
        tiles=in_photo,
        level=tiles,
        concealed=tuple(concealed),
        winning=winning,
        melds=tuple(melds),
        flowers=tuple(flowers),
        unassigned=tuple(unassigned),
        reversed_view=reversed_view,
        warnings=tuple(warnings),
    )


def _holds_several(box: Detection, tile: Detection) -> bool:
    """A concealed-kong box that could hold the tile and its neighbours, not one the detector
    drew around the tile alone (a sliver at the photo's edge, read face down)."""
    return box.width * box.height >= KONG_BOX_TILES * tile.width * tile.height


def row_tilt(detections: Sequence[Detection]) -> float:
    """Degrees the photo's rows run askew, -90 to 90 (positive: falling to the right in the
    image), 0.0 when fewer than MIN_TILT_TILES tiles show it.

    Tiles in a row touch, so each tile's nearest neighbour lies along its row: the rows' direction
    is the axial mean of those directions (angles taken modulo 180 degrees, so a pair read either
    way round agrees), once more over the pairs within TILT_AGREEMENT of the first mean, which
    leaves out a flower set apart or a meld in front whose nearest tile lies across the rows.
    """
    tiles = [d for d in detections if d.is_tile]
    if len(tiles) < MIN_TILT_TILES:
        return 0.0
    centres = [t.center for t in tiles]
    angles = [math.atan2(ny - y, nx - x) for (x, y), (nx, ny) in zip(centres, _nearest(centres))]

    def axial_mean(values: list[float]) -> float:
        return math.atan2(sum(math.sin(2 * a) for a in values), sum(math.cos(2 * a) for a in values)) / 2

    first = axial_mean(angles)
    agreeing = [a for a in angles if abs(math.sin(a - first)) <= math.sin(math.radians(TILT_AGREEMENT))]
    return math.degrees(axial_mean(agreeing or angles))


def _nearest(centres: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Each centre's nearest other centre."""
    return [min((c for j, c in enumerate(centres) if j != k), key=lambda c: (c[0] - x) ** 2 + (c[1] - y) ** 2)
            for k, (x, y) in enumerate(centres)]


def _levelled(detections: Sequence[Detection]) -> Sequence[Detection]:
    """The detections with their boxes turned about the image's origin so that the rows run
    level (see `row_tilt`), each box as long and wide as its tile lies along and across the row;
    `detections` themselves where the rows run level already (LEVEL_FROM).

    Near 45 degrees an upright box no longer tells a tile's length along the row from its width
    across (see `_extents`): there every box keeps its size along and across the row together,
    shared out as the tiles' spacing along the rows shows (a meld's box: a tile's width across).
    """
    tilt = row_tilt(detections)
    if abs(tilt) < LEVEL_FROM:
        return detections
    c, s = math.cos(math.radians(tilt)), math.sin(math.radians(tilt))
    if abs(c * c - s * s) >= WELL_POSED:
        sizes = [_extents(d, (c, s)) for d in detections]
    else:
        sizes = _shared_out(detections, (c, s))
    out = []
    for d, (along, across) in zip(detections, sizes):
        cx, cy = d.center
        x, y = cx * c + cy * s, cy * c - cx * s
        out.append(replace(d, box=(x - along / 2, y - across / 2, x + along / 2, y + across / 2)))
    return out


def _shared_out(detections: Sequence[Detection], d: tuple[float, float]) -> list[tuple[float, float]]:
    """Each box's length along the row and width across it, at a tilt near 45 degrees: the two
    add up to (width + height) / (|cos| + |sin|) of its upright box; a tile's length along the row
    is the median step to its nearest neighbour, scaled with the box, and a meld's width across
    is a tile's."""
    c, s = abs(d[0]), abs(d[1])
    total = [(t.width + t.height) / (c + s) for t in detections]
    tiles = [k for k, t in enumerate(detections) if t.is_tile]
    typical = statistics.median(total[k] for k in tiles) if tiles else 0.0
    if len(tiles) < 2 or typical <= 0:
        return [_extents(t, d) for t in detections]
    centres = [detections[k].center for k in tiles]
    step = statistics.median(math.dist(c, n) for c, n in zip(centres, _nearest(centres)))
    along = min(step, 0.9 * typical)
    across = typical - along
    return [(total[k] * along / typical, total[k] * across / typical) if t.is_tile
            else (max(total[k] - across, along), across) for k, t in enumerate(detections)]


def _level(a: Detection, b: Detection) -> bool:
    """The two boxes overlap vertically enough to be neighbours in one row."""
    overlap = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
    return overlap >= MIN_VERTICAL_OVERLAP * min(a.height, b.height)


def _in_line(t: Detection, a: Detection, b: Detection) -> bool:
    """Tile `t` lies in the line of the level row's tiles `a` and `b`, as a tile between them does."""
    off = abs(t.center[1] - (a.center[1] + b.center[1]) / 2)
    return off <= IN_LINE * (a.height + b.height) / 2


def _level_with(a: Detection, b: Detection) -> bool:
    """The two tiles' centres lie IN_LINE of their mean height apart or less, as neighbours in a row do."""
    return abs(a.center[1] - b.center[1]) <= IN_LINE * (a.height + b.height) / 2


def _horizontal_gap(a: Detection, b: Detection) -> float:
    return max(b.box[0] - a.box[2], a.box[0] - b.box[2])


def _rows(tiles: Sequence[Detection], indices: list[int], link_gap: float) -> list[list[int]]:
    """Chain side-by-side tiles into rows.

    Candidate neighbours overlap vertically and nearly touch; the nearest pairs are linked first
    and each tile gets at most one neighbour on each side. Links never branch, so a tilted row in
    front of another (whose boxes overlap) stays apart.
    """

    def beside(a: Detection, b: Detection) -> bool:
        return _level(a, b) and _horizontal_gap(a, b) <= link_gap * max(a.width, b.width)

    def distance(i: int, j: int) -> float:
        (ax, ay), (bx, by) = tiles[i].center, tiles[j].center
        return math.hypot(bx - ax, by - ay)

    def angle(i: int, j: int) -> float:
        (ax, ay), (bx, by) = tiles[i].center, tiles[j].center
        return math.degrees(math.atan2(by - ay, bx - ax))

    pairs = [
        (i, j) for i in indices for j in indices
        if tiles[j].center[0] > tiles[i].center[0] and beside(tiles[i], tiles[j])
    ]
    # Rows in one photo run in about the same direction, which each tile's nearest pair shows:
    # a pair far off it (a tile of one row and the next tile of the row in front) is no pair of
    # neighbours.
    angles = {p: angle(*p) for p in pairs}
    nearest: dict[int, tuple[float, float]] = {}
    for i, j in pairs:
        for k in (i, j):
            if k not in nearest or distance(i, j) < nearest[k][0]:
                nearest[k] = (distance(i, j), angles[i, j])
    typical = statistics.median(a for _, a in nearest.values()) if pairs else 0.0
    candidates = sorted(
        [(distance(i, j), i, j) for (i, j) in pairs if abs(angles[i, j] - typical) <= ROW_ANGLE_TOLERANCE]
        + [(distance(i, j), i, j) for (i, j) in _stack_links(tiles, indices)]
    )
    right: dict[int, int] = {}
    left: dict[int, int] = {}
    for _, i, j in candidates:  # nearest pairs first; each tile gets one neighbour per side
        if i not in right and j not in left:
            right[i], left[j] = j, i
    parent = {i: i for i in indices}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in right.items():
        parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in indices:
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=len, reverse=True)


def _stack_links(tiles: Sequence[Detection], indices: list[int]) -> set[tuple[int, int]]:
    """Pairs (left, right) linking the top tile of a stacked kong to the two tiles beside it: it
    fills the hole between two tiles lying in line, raised above them (`_raised`), from a low
    camera too far to pass as their row neighbour by its angle or overlap. The three show a kong
    (one tile, or face down at the ends); a tile with a neighbour in its own line lies in a row of
    its own (a meld laid behind), on no kong."""
    by_x = sorted(indices, key=lambda i: tiles[i].center[0])
    xs = [tiles[i].center[0] for i in by_x]
    links = set()
    for m in indices:
        t = tiles[m]
        reach = SPLIT_GAP * t.width
        near = [c for c in by_x[bisect.bisect_left(xs, t.center[0] - 2 * t.width) : bisect.bisect_right(xs, t.center[0] + 2 * t.width)]
                if abs(tiles[c].center[1] - t.center[1]) < t.height]
        in_line = {c for c in near if c != m and _horizontal_gap(t, tiles[c]) <= reach and _level_with(t, tiles[c])}
        left = [a for a in near if tiles[a].center[0] < t.center[0] and t.box[0] - tiles[a].box[2] <= reach]
        right = [b for b in near if tiles[b].center[0] > t.center[0] and tiles[b].box[0] - t.box[2] <= reach]
        for a in left:
            for b in right:
                ta, tb = tiles[a], tiles[b]
                if (not in_line - {a, b} and tb.box[0] - ta.box[2] >= HOLE * max(ta.width, tb.width)
                        and _level_with(ta, tb)
                        and _raised(ta, t, tb)
                        and (_faces_of(tiles, [a, m, b]) == STACKED_KONG_FACES or one_code(tiles, [a, m, b]))):
                    links |= {(a, m), (m, b)}
    return links


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


def _box_runs(
    tiles: Sequence[Detection], rows: list[_Row], group_boxes: list[Detection], warnings: list[str]
) -> list[tuple[Detection, list[int], tuple[float, float]]]:
    """The tiles each grouping box holds, with the direction of their row.

    A box holds a run of 3-4 consecutive tiles of one row. A tile may belong to a box that contains
    its centre (see `_owning_box`). Boxes are axis-aligned, so a tilted meld's box also takes in
    parts of its neighbours and of the row behind: a run longer than a meld loses its least-covered
    end tiles, a meld box's fourth tile must lie well inside (unless only with it does the run lie
    apart from the row's other tiles: a kong under a tight box; see also `_tight_box_ends`), and of
    the runs a box takes in several rows only the best-covered one counts. Lone tiles well inside
    the box (cut off by the photo's edge, so no row reaches them) complete a run of two or three. A
    run that touches its row's other tiles is no meld (see `_set_apart`), unless its tiles lie face
    down as a concealed kong's do (no concealed row shows a back, and two kongs laid edge to edge
    under loosely drawn boxes leave a tile between them in neither box) or the detector is all but
    sure of its box (SURE_GROUP_BOX): players also lay their last concealed tiles against a meld. A
    box that holds no run of three in any one row takes its tiles from all rows, where each piece
    lies apart in its row and well inside the box: a stacked kong's raised top tile, or a meld seen
    from low, can chain its tiles to the row behind.
    """
    if not group_boxes:
        return []
    best: dict[int, tuple[float, list[int], tuple[float, float]]] = {}
    lone: dict[int, list[int]] = {}
    pieces: dict[int, list[tuple[list[int], tuple[float, float]]]] = {}
    for row in rows:
        owner: list[int | None] = []
        cover: list[float] = []
        for i in row.members:
            b, fraction = _owning_box(tiles[i], group_boxes)
            owner.append(b)
            cover.append(fraction)
        _tight_box_ends(tiles, row, owner, cover, group_boxes)
        if len(row.members) == 1 and owner[0] is not None and cover[0] >= BOX_FULL_COVER:
            lone.setdefault(owner[0], []).append(row.members[0])
        for lo, hi in _runs(owner):
            b = owner[lo]
            if b is None:
                continue
            while hi - lo > 4:
                lo, hi = _less_covered_end_off(cover, lo, hi)
            apart = _set_apart(tiles, row, owner, lo, hi)
            exposed = group_boxes[b].code == MELD_EXPOSED  # 3 or 4 tiles; a concealed kong has 4
            if exposed and hi - lo == 4 and min(cover[lo], cover[hi - 1]) < BOX_FULL_COVER:
                shorter = _less_covered_end_off(cover, lo, hi)
                shorter_apart = _set_apart(tiles, row, owner, *shorter)
                if shorter_apart or not apart:
                    (lo, hi), apart = shorter, shorter_apart
            total = sum(cover[lo:hi])
            held = row.members[lo:hi]
            apart = apart or _held_though_touching(tiles, held, group_boxes[b])
            if hi - lo >= 2 and apart and (b not in best or total > best[b][0]):
                best[b] = (total, held, row.direction)
            if apart and min(cover[lo:hi]) >= BOX_FULL_COVER:
                pieces.setdefault(b, []).append((held, row.direction))
    runs = []
    for b, box in enumerate(group_boxes):
        run, direction = best[b][1:] if b in best else ([], (1.0, 0.0))
        run = run + [i for i in lone.get(b, []) if i not in run][: 4 - len(run)]
        across_rows = [i for held, _ in pieces.get(b, []) for i in held]
        if len(run) < 3 and len(pieces.get(b, [])) > 1 and 3 <= len(across_rows) <= 4:
            run, direction = across_rows, max(pieces[b], key=lambda piece: len(piece[0]))[1]
        if len(run) < 3:
            warnings.append(f"a {box.code} box holds no run of 3-4 tiles; ignored it")
            continue
        runs.append((box, sorted(run, key=lambda i: tiles[i].center[0]), direction))
    return runs


def _tight_box_ends(tiles: Sequence[Detection], row: _Row, owner: list[int | None], cover: list[float],
                    group_boxes: list[Detection]) -> None:
    """Give a box drawn tight over its meld the end tile it leaves out (in place).

    A box holding two tiles of a row, or three that touch a neighbour (and are not a meld all the
    same: `_held_though_touching`), takes that neighbour where the neighbour's centre lies in no
    box, the box overlaps it more than any other box does, it touches the run, the first readings
    with it make a set, and only with it does the run lie apart from the row's other tiles: the
    detector often draws a meld's box short of its first or last tile, and the box was then
    ignored or its meld left a tile behind.
    """
    m = row.members
    for lo, hi in _runs(list(owner)):  # a copy: the loop fills in owner
        b = owner[lo]
        if b is None or not 2 <= hi - lo <= 3 or (hi - lo == 3 and (
                _set_apart(tiles, row, owner, lo, hi) or _held_though_touching(tiles, m[lo:hi], group_boxes[b]))):
            continue
        for n, run, end in ((lo - 1, (lo - 1, hi), lo), (hi, (lo, hi + 1), hi - 1)):
            if not 0 <= n < len(m) or owner[n] is not None:
                continue
            overlaps = [_covered_fraction(tiles[m[n]], g) for g in group_boxes]
            overlap = overlaps[b]
            if (overlap <= 0 or overlap < max(overlaps)
                    or _gap_along(tiles[m[min(n, end)]], tiles[m[max(n, end)]], row.direction) > SPLIT_GAP
                    or not _reads_as_set([tiles[i].code for i in m[run[0]:run[1]]])):
                continue
            owner[n] = b
            if _set_apart(tiles, row, owner, *run):
                cover[n] = overlap
                break
            owner[n] = None


def _held_though_touching(tiles: Sequence[Detection], held: list[int], box: Detection) -> bool:
    """Whether a box's run is a meld though it touches its row's other tiles: face down as a
    concealed kong's lie, or the detector all but sure of its box (see `_box_runs`)."""
    return (_faces_of(tiles, held) in KONG_FACE_PATTERNS or _shows_stacked_kong(tiles, held)
            or box.confidence >= SURE_GROUP_BOX)


def _owning_box(tile: Detection, group_boxes: list[Detection]) -> tuple[int | None, float]:
    """The grouping box the tile belongs to, and the share of the tile it covers.

    Of the boxes containing the tile's centre, the most confident of those covering it well: the
    detector also draws unsure boxes across two melds, which cover their tiles as fully as the
    melds' own boxes do. Else the box covering most of it.
    """
    fractions = [_covered_fraction(tile, g) if _contains(g, tile.center) else 0.0 for g in group_boxes]
    well = [k for k, f in enumerate(fractions) if f >= BOX_FULL_COVER]
    if well:
        b = max(well, key=lambda k: group_boxes[k].confidence)
    else:
        b = max(range(len(fractions)), key=fractions.__getitem__)
    return (b, fractions[b]) if fractions[b] > 0 else (None, 0.0)


def _less_covered_end_off(cover: list[float], lo: int, hi: int) -> tuple[int, int]:
    """The run lo:hi less whichever end tile its box covers less."""
    return (lo + 1, hi) if cover[lo] < cover[hi - 1] else (lo, hi - 1)


def _one_box_per_group(group_boxes: list[Detection]) -> list[Detection]:
    """The group boxes less those lying on a more confident box of the other class.

    The detector keeps one box per class (exposed meld, concealed kong) on a group it cannot
    tell; two boxes on the same tiles would share them out between them and neither would
    hold a run.
    """
    kept: list[Detection] = []
    for box in sorted(group_boxes, key=lambda b: -b.confidence):
        if all(iou(box, k) < SAME_GROUP for k in kept):
            kept.append(box)
    return kept


def iou(a: Detection, b: Detection) -> float:
    """Intersection over union of two boxes."""
    inter = _covered_fraction(a, b) * a.width * a.height
    union = a.width * a.height + b.width * b.height - inter
    return inter / union if union > 0 else 0.0


def _runs(values: list) -> list[tuple[int, int]]:
    """(start, end) of each run of equal consecutive values."""
    runs, start = [], 0
    for k in range(1, len(values) + 1):
        if k == len(values) or values[k] != values[start]:
            runs.append((start, k))
            start = k
    return runs


def _contains(box: Detection, point: tuple[float, float]) -> bool:
    return box.box[0] <= point[0] <= box.box[2] and box.box[1] <= point[1] <= box.box[3]


def _covered_fraction(tile: Detection, group: Detection) -> float:
    w = min(tile.box[2], group.box[2]) - max(tile.box[0], group.box[0])
    h = min(tile.box[3], group.box[3]) - max(tile.box[1], group.box[1])
    area = tile.width * tile.height
    return max(w, 0.0) * max(h, 0.0) / area if area > 0 else 0.0


def _without(rows: list[_Row], left_out: list[int]) -> list[_Row]:
    """The rows without the `left_out` tiles; rows left empty are dropped."""
    return [_Row(kept, row.direction) for row in rows if (kept := [i for i in row.members if i not in left_out])]


def _faces_of(tiles: Sequence[Detection], run: list[int]) -> str:
    """The run's tiles as B (face down) and U (face up), to match against KONG_FACE_PATTERNS."""
    return "".join("B" if tiles[i].code == BACK else "U" for i in run)


def _backs_outside_kongs(tiles: Sequence[Detection], row: list[int]) -> list[int]:
    """Face-down tiles of an ordered row that no window of the row shows as a kong."""
    faces = _faces_of(tiles, row)
    in_kong = {start + k for start in range(len(row) - 3) if faces[start : start + 4] in KONG_FACE_PATTERNS
               for k in range(4)}
    in_kong |= {start + k for start in range(len(row) - 2) if _shows_stacked_kong(tiles, row[start : start + 3])
                for k in range(3)}
    return [i for n, i in enumerate(row) if faces[n] == "B" and n not in in_kong]


def _straddling_boxes(tiles: Sequence[Detection], row: _Row) -> list[int]:
    """Boxes of a row lying over the seam of two tiles that touch each other: the detector's
    second look at half of each, not a tile (two touching tiles leave it no room). Such a box
    overlaps each of the two by GHOST_OVERLAP or more, and by more than they overlap each other
    (the upright boxes of tilted tiles do overlap)."""
    m, d = row.members, row.direction
    ghosts: list[int] = []
    for a, b, c in zip(m, m[1:], m[2:]):
        if a in ghosts:
            continue
        seam = _gap_along(tiles[a], tiles[c], d)
        deeper = max(_gap_along(tiles[a], tiles[b], d), _gap_along(tiles[b], tiles[c], d))
        if seam <= SPLIT_GAP and deeper < min(seam, -GHOST_OVERLAP):
            ghosts.append(b)
    return ghosts


def _backs_under_faces(tiles: Sequence[Detection], row: _Row, others: Sequence[int],
                       group_boxes: Sequence[Detection]) -> list[int]:
    """Face-down boxes of a row that lie in an exposed meld's box with a face-up box among
    `others` (the raised top tile of a kong laid stacked chains to a row of its own), overlap it
    and share more than UNDER_OVERLAP of their length along the row with it: they lie under it."""
    d = row.direction
    meld_boxes = [g for g in group_boxes if g.code == MELD_EXPOSED]

    def under(b: Detection, t: Detection) -> bool:
        return (_covered_fraction(b, t) > 0 and max(_gap_along(b, t, d), _gap_along(t, b, d)) < -UNDER_OVERLAP
                and any(_covered_fraction(b, g) >= BOX_FULL_COVER and _covered_fraction(t, g) >= BOX_FULL_COVER
                        for g in meld_boxes))

    return [b for b in row.members if tiles[b].code == BACK
            and any(tiles[j].code != BACK and under(tiles[b], tiles[j]) for j in others if j != b)]


def _flowers_in_meld_boxes(tiles: Sequence[Detection], sized: list[int], flowers: list[int],
                           group_boxes: list[Detection]) -> list[int]:
    """Flower-read tiles inside a meld or kong box among tiles mostly read as playing tiles.

    No meld holds a flower, so such a tile is a meld tile drawn like a flower in this set (the
    detector finds meld boxes far more surely than it reads codes); a box over flowers alone is
    the flowers' row, which the detector can take for a meld. A box over more than four tiles
    also takes in flowers laid against the meld: they stay flowers.
    """
    found: list[int] = []
    for box in group_boxes:
        inside = [i for i in sized if _covered_fraction(tiles[i], box) >= BOX_FULL_COVER]
        read_as_flowers = [i for i in inside if i in flowers]
        if 2 * len(read_as_flowers) < len(inside) <= 4:
            found += [i for i in read_as_flowers if i not in found]
    return found


def _flowers_inside_rows(tiles: Sequence[Detection], rows: list[_Row], flowers: list[int]) -> list[int]:
    """Flower-read tiles that fill a tile-sized hole between two touching tiles of a row, put
    into that row (in place). Players set their flowers apart, so such a tile is a hand tile
    the detector misread. A flower only level with them (laid behind the winning tile's gap, seen
    from low) is no such tile."""
    inside = []
    for f in flowers:
        for row in rows:
            d = row.direction
            for n, (a, b) in enumerate(zip(row.members, row.members[1:])):
                if (_in_line(tiles[f], tiles[a], tiles[b]) and _gap_along(tiles[a], tiles[b], d) >= HOLE
                        and max(_gap_along(tiles[a], tiles[f], d), _gap_along(tiles[f], tiles[b], d)) <= SPLIT_GAP):
                    row.members.insert(n + 1, f)
                    inside.append(f)
                    break
            if f in inside:
                break
    return inside


def _set_apart_with_flowers(tiles: Sequence[Detection], rows: list[_Row], flowers: list[int]) -> list[int]:
    """Tiles at a row's end, apart from the row but touching a flower, whose readings include a
    flower: players lay their flowers together, away from the hand, so such a tile is one."""
    found = []
    for row in rows:
        m, d = row.members, row.direction
        if len(m) < 3:
            continue
        for end, gap in ((m[0], _gap_along(tiles[m[0]], tiles[m[1]], d)), (m[-1], _gap_along(tiles[m[-2]], tiles[m[-1]], d))):
            if gap > SPLIT_GAP and _flower_by_a_flower(tiles, end, flowers):
                found.append(end)
    return found


def _flower_by_a_flower(tiles: Sequence[Detection], i: int, flowers: list[int]) -> bool:
    """Tile `i` has a flower among its readings and touches a flower in its line."""
    return any(code in FLOWER_CODES for code, _ in tiles[i].alternatives) and any(
        _level(tiles[i], tiles[f]) and _horizontal_gap(tiles[i], tiles[f]) <= SPLIT_GAP * max(tiles[i].width, tiles[f].width)
        for f in flowers
    )


def _order_row(tiles: Sequence[Detection], members: list[int]) -> _Row:
    """Order tiles along the row's direction (robust to tilt, perspective and gentle arcs).

    The direction is the slope of a straight-line fit through the boxes' centres, top edges or
    bottom edges, whichever fits best: a sideways tile shifts its centre, but players line
    tiles up along the near edge, which the top or bottom edges then follow exactly.
    """
    if len(members) < 2:
        return _Row(list(members), (1.0, 0.0))
    xs = [tiles[i].center[0] for i in members]
    fits = [
        _line_fit(xs, [tiles[i].center[1] for i in members]),
        _line_fit(xs, [tiles[i].box[1] for i in members]),
        _line_fit(xs, [tiles[i].box[3] for i in members]),
    ]
    slope = min(fits, key=lambda f: f[1])[0]
    norm = math.hypot(1.0, slope)
    d = (1 / norm, slope / norm)
    ordered = sorted(members, key=lambda i: tiles[i].center[0] * d[0] + tiles[i].center[1] * d[1])
    return _Row(ordered, d)


def _line_fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares slope of y over x and the residual sum of squares."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0, math.inf
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    rss = sum((y - my - slope * (x - mx)) ** 2 for x, y in zip(xs, ys))
    return slope, rss


def _gap_along(a: Detection, b: Detection, d: tuple[float, float]) -> float:
    """Free space between consecutive tiles a and b along direction d, in tile lengths along the
    row (the longer of the two: a tile cut off by the photo's edge is short)."""
    dist = (b.center[0] - a.center[0]) * d[0] + (b.center[1] - a.center[1]) * d[1]
    along_a, along_b = _extents(a, d)[0], _extents(b, d)[0]
    return (dist - along_a / 2 - along_b / 2) / max(along_a, along_b)


def _extents(t: Detection, d: tuple[float, float]) -> tuple[float, float]:
    """The tile's length along the row and across it, undoing the row's tilt.

    The axis-aligned box of a tile turned by the row's angle a has width
    L*cos(a) + W*sin(a) and height L*sin(a) + W*cos(a); solve that for L (along) and W
    (across). Near 45 degrees the system is ill-conditioned; there the chords through the box
    centre along and across the row are used instead.
    """
    c, s = abs(d[0]), abs(d[1])
    det = c * c - s * s
    if abs(det) >= WELL_POSED:
        along = (c * t.width - s * t.height) / det
        across = (c * t.height - s * t.width) / det
        if along > 0 and across > 0:
            return along, across
    return _chord(t, c, s), _chord(t, s, c)


def _chord(t: Detection, c: float, s: float) -> float:
    """Length of the line through the box centre in direction (c, s), inside the box."""
    limits = [t.width / c if c else math.inf, t.height / s if s else math.inf]
    return min(limits)


def _set_apart(tiles: Sequence[Detection], row: _Row, owner: list[int | None], lo: int, hi: int) -> bool:
    """Whether the run row.members[lo:hi] of a grouping box is set apart from the row's other
    tiles on both sides: by a gap, or by a neighbour in another grouping box (melds laid edge to
    edge). A meld lies apart from the concealed tiles, so a box over tiles that touch ungrouped
    neighbours (the detector's commonest wrong meld box, on the concealed row) holds no meld."""
    m = row.members

    def apart(a: int, b: int, neighbour: int) -> bool:
        boxed = owner[neighbour] is not None and owner[neighbour] != owner[lo]
        return boxed or _gap_along(tiles[m[a]], tiles[m[b]], row.direction) > SPLIT_GAP

    return (lo == 0 or apart(lo - 1, lo, lo - 1)) and (hi == len(m) or apart(hi - 1, hi, hi))


def _segments(tiles: Sequence[Detection], row: _Row) -> list[list[int]]:
    """The row cut where its tiles lie apart (SPLIT_GAP). A stacked concealed kong (face down, a
    tile face up raised on the middle one, face down) is a segment of its own whatever its gaps:
    its top tile may lie off the middle, leaving a gap beside it, and nothing lies against it."""
    m = row.members
    stacks = [k for k in range(len(m) - 2) if _shows_stacked_kong(tiles, m[k:k + 3])]
    ends = {k for s in stacks for k in (s, s + 3)}  # cuts before these tiles
    inside = {k for s in stacks for k in (s + 1, s + 2)}
    segments = [[m[0]]]
    for k in range(1, len(m)):
        if k in ends or (k not in inside and _gap_along(tiles[m[k - 1]], tiles[m[k]], row.direction) > SPLIT_GAP):
            segments.append([m[k]])
        else:
            segments[-1].append(m[k])
    return segments


def _turned(tiles: Sequence[Detection], seg: list[int], d: tuple[float, float]) -> dict[int, float]:
    """Per tile, how much longer along the row (relative to its width across) it is than the
    segment's other tiles."""
    aspect = {}
    for i in seg:
        along, across = _extents(tiles[i], d)
        aspect[i] = along / across
    return {i: aspect[i] / statistics.median(aspect[j] for j in seg if j != i) for i in seg}


def _sideways_tile(tiles: Sequence[Detection], seg: list[int], d: tuple[float, float]) -> int | None:
    """The one tile much longer along the row (relative to its width across) than the others."""
    return _the_one_turned(_turned(tiles, seg, d), SIDEWAYS_RATIO) if len(seg) >= 3 else None


def _the_one_turned(turned: dict[int, float], ratio: float) -> int | None:
    """The tile of `turned` (from `_turned`) beyond `ratio`, when exactly one is."""
    over = [i for i, r in turned.items() if r > ratio]
    return over[0] if len(over) == 1 else None


def _touching_melds(tiles: Sequence[Detection], seg: list[int], d: tuple[float, float],
                    every_one_marked: bool) -> list[MeldLayout]:
    """Melds laid edge to edge with no grouping box drawn over them: the run cut into parts of
    3-4 tiles, none empty (no melds when no cut fits).

    A part holds at most one sideways (claimed) tile, and face-down tiles only as a concealed
    kong's pattern; each part shows one or the other (`every_one_marked`: a run in the concealed
    tiles' row) or else its first readings make a chow, pung or kong (a run in a row of its own;
    six stray tiles behind the hand are no melds). Of the cuts that fit, the one with the most
    parts so marked, then the most parts that read as sets: where the layout cannot tell a kong
    and a chow from a chow and a kong, the faces can.
    """
    if not MIN_TOUCHING <= len(seg) <= 16:
        return []
    sideways = {i for i, r in _turned(tiles, seg, d).items() if r > SIDEWAYS_RATIO}
    best: tuple[tuple[int, int], list[MeldLayout]] | None = None
    for sizes in _cuts(len(seg)):
        bounds = [sum(sizes[:k]) for k in range(len(sizes) + 1)]
        parts = [seg[a:b] for a, b in zip(bounds, bounds[1:])]
        claimed = [[i for i in part if i in sideways] for part in parts]
        faces = [_faces_of(tiles, part) for part in parts]
        if any(len(c) > 1 or ("B" in f and f not in KONG_FACE_PATTERNS) for c, f in zip(claimed, faces)):
            continue
        marks = [bool(c) or "B" in f for c, f in zip(claimed, faces)]
        sets = [_reads_as_set([tiles[i].code for i in part]) for part in parts]
        if not all(m or (s and not every_one_marked) for m, s in zip(marks, sets)):
            continue
        key = (sum(marks), sum(sets))
        if best is None or key > best[0]:
            melds = [MeldLayout(tuple(part), "B" in f or (len(part) == 4 and not c), c[0] if c else None, False)
                     for part, c, f in zip(parts, claimed, faces)]
            best = (key, melds)
    return best[1] if best else []


def _cuts(n: int) -> list[tuple[int, ...]]:
    """The ways to cut n tiles into runs of 3 and 4, in order, at most four runs."""
    if n == 0:
        return [()]
    return [(size,) + rest for size in (3, 4) if size <= n for rest in _cuts(n - size) if len(rest) < 4]


def _reads_as_set(codes: list[str]) -> bool:
    """Whether first readings make a chow, pung or kong (face-down tiles count as a kong's)."""
    faces = [c for c in codes if c != BACK]
    if len(set(faces)) == 1 and faces[0] not in FLOWER_CODES:
        return True
    if len(codes) != 3 or len(faces) != 3 or any(c[1] not in "mps" for c in faces) or len({c[1] for c in faces}) != 1:
        return False
    ranks = sorted(int(c[0]) for c in faces)
    return ranks == list(range(ranks[0], ranks[0] + 3))


def _segment_meld(
    tiles: Sequence[Detection], seg: list[int], d: tuple[float, float], box: Detection | None, use_sideways: bool
) -> MeldLayout | None:
    """A meld: a run inside a grouping box, a kong with face-down tiles, or (with `use_sideways`)
    a run of 3-4 with a sideways (claimed) tile."""
    if box is not None:
        # Face-down tiles are a concealed kong's, whatever looks turned: a stacked one's top tile
        # beside a face-down tile cut short by the photo's edge is wider than it.
        face_down = (len(seg) == 4 and any(tiles[i].code == BACK for i in seg)) or _faces_of(
            tiles, seg) == STACKED_KONG_FACES
        if len(seg) == 4 and not face_down and box.confidence < SURE_GROUP_BOX:
            turned = _turned(tiles, seg, d)
            claimed = _the_one_turned(turned, KONG_TURNED)
            concealed = max(turned.values()) < KONG_NONE_TURNED or (box.code == KONG_CONCEALED and claimed is None)
            return MeldLayout(tuple(seg), concealed, claimed, True)
        claimed = None if face_down else _sideways_tile(tiles, seg, d)
        # A concealed kong has no claimed tile: a sideways one overrules a concealed-kong box.
        concealed = face_down or (box.code == KONG_CONCEALED and claimed is None)
        return MeldLayout(tuple(seg), concealed, claimed, True)
    if (len(seg) == 4 and any(tiles[i].code == BACK for i in seg)) or _shows_stacked_kong(tiles, seg):
        return MeldLayout(tuple(seg), True, None, False)
    if use_sideways and len(seg) in (3, 4):
        claimed = _sideways_tile(tiles, seg, d)
        if claimed is not None:
            return MeldLayout(tuple(seg), False, claimed, False)
    return None


def _melds_beyond_melds(tiles: Sequence[Detection], pieces: list[list[list[int]]],
                        d: tuple[float, float]) -> list[MeldLayout]:
    """The melds made by the segments of a row's pieces (its parts between boxed melds) that lie
    beyond a boxed meld from the piece holding most tiles, taken out of `pieces`: each segment
    as a meld, then what is left of the piece as one run.

    Players lay their exposed melds together at one end of the concealed row, so tiles past a
    meld lie in melds too: a pung there whose box the detector missed is not concealed (nor is
    one whose tiles' boxes leave a gap between them).
    """
    sizes = [sum(map(len, piece)) for piece in pieces]
    if len(pieces) < 2 or sizes.count(max(sizes)) > 1:  # no one piece is clearly the concealed tiles'
        return []
    main = sizes.index(max(sizes))
    found: list[MeldLayout] = []
    for k, piece in enumerate(pieces):
        if k == main:
            continue
        left = []
        for seg in piece:
            segment_melds = _run_melds(tiles, seg, d)
            found += segment_melds
            left += [] if segment_melds else [seg]
        run = [i for seg in left for i in seg]
        if len(left) > 1 and (run_melds := _run_melds(tiles, run, d)):
            found += run_melds
            left = []
        piece[:] = left
    return found


def _run_melds(tiles: Sequence[Detection], run: list[int], d: tuple[float, float]) -> list[MeldLayout]:
    """The melds of a run in a row of its own: a run of 3-4 is a meld laid out without a sideways
    tile; a longer one, melds laid edge to edge (none when it cannot be cut into melds)."""
    if len(run) in (3, 4):
        return [MeldLayout(tuple(run), len(run) == 4, None, False)]
    return _touching_melds(tiles, run, d, False)


def meld_codes(shown: Sequence[str], stacked: bool) -> tuple[str, ...]:
    """A meld's codes from those of its tiles in view, in order: a stacked kong's hidden fourth is
    read as the middle one lying on it (a face-down tile there has taken the kong's code)."""
    return tuple(shown[:2]) + tuple(shown[1:]) if stacked else tuple(shown)


def _as_stacked(tiles: Sequence[Detection], meld: MeldLayout, reversed_view: bool | None) -> MeldLayout:
    """The meld, read as a stacked kong when its three tiles show one: face down at the ends with
    the middle tile raised (see STACK_RAISE) or under a concealed-kong box, or face up, reading
    one tile (`one_code`: a chow is never stacked), with the middle tile raised."""
    if len(meld.tiles) != 3:
        return meld
    if _faces_of(tiles, list(meld.tiles)) == STACKED_KONG_FACES:
        in_kong_box = meld.from_box and meld.concealed
        if in_kong_box or _shows_stacked_kong(tiles, meld.tiles, reversed_view):
            return replace(meld, concealed=True, claimed=None, stacked=True)
        return meld
    if meld.concealed or any(tiles[i].code == BACK for i in meld.tiles) or one_code(tiles, meld.tiles) is None:
        return meld
    return replace(meld, stacked=True) if _middle_raised(tiles, meld.tiles, reversed_view) else meld


def _shows_stacked_kong(tiles: Sequence[Detection], run: Sequence[int], reversed_view: bool | None = None) -> bool:
    """Three tiles face down with one face up lying on the middle one, raised above the others."""
    return (len(run) == 3 and _faces_of(tiles, list(run)) == STACKED_KONG_FACES
            and _middle_raised(tiles, run, reversed_view))


def _middle_raised(tiles: Sequence[Detection], run: Sequence[int], reversed_view: bool | None) -> bool:
    a, m, b = sorted((tiles[i] for i in run), key=lambda t: t.center[0])
    return _raised(a, m, b, reversed_view)


def one_code(tiles: Sequence[Detection], run: Sequence[int]) -> str | None:
    """The code the run's face-up tiles read first, all but at most one of them, that one listing
    it among its readings; None when they read no one tile so."""
    firsts = Counter(tiles[i].code for i in run if tiles[i].code != BACK)
    if not firsts:
        return None
    code, count = firsts.most_common(1)[0]
    odd = [tiles[i] for i in run if tiles[i].code not in (BACK, code)]
    return code if len(odd) < min(count, 2) and all(code in dict(t.alternatives) for t in odd) else None


def _raised(a: Detection, m: Detection, b: Detection, reversed_view: bool | None = None) -> bool:
    """Tile `m`, between `a` and `b` of a level row, lies raised above them as a stacked kong's top
    tile does. Players line tiles up by their near edges (the bottom edges in the photo, the top
    ones when `reversed_view`: taken from across the table; None: not known), so a box whose near
    edge lies clear above theirs, its far edge above theirs too, lies on a tile (STACK_LIFT,
    STACK_FAR_LIFT). Else the bottom edges give the line, and the taller neighbour (a claimed tile
    lies sideways, its box shorter) where an upright tile's top edge would be (STACK_RAISE,
    STACK_RAISE_MAX, STACK_SINK, STACK_TURNED)."""
    along = (m.center[0] - a.center[0]) / (b.center[0] - a.center[0]) if b.center[0] > a.center[0] else 0.5

    def lift(edge: int) -> float:  # how far m's edge (box index 1: top, 3: bottom) lies above the neighbours'
        return a.box[edge] + along * (b.box[edge] - a.box[edge]) - m.box[edge]

    height = max(a.height, b.height)
    near, far = (1, 3) if reversed_view else (3, 1)
    far_least = STACK_LIFT if reversed_view is None else STACK_FAR_LIFT
    if (STACK_LIFT * height <= lift(near) <= STACK_RAISE_MAX * height
            and far_least * height <= lift(far) <= STACK_RAISE_MAX * height):
        return True
    width = max(t.width for t in (a, b) if t.height >= SIDEWAYS_SHORT * height)
    raised_bottom = lift(3)
    raised_top = raised_bottom + m.height - height
    return (m.width <= STACK_TURNED * width
            and STACK_RAISE * height <= raised_top <= STACK_RAISE_MAX * height
            and -STACK_SINK * height <= raised_bottom <= STACK_RAISE_MAX * height)


def concealed_count(melds: int) -> int:
    """Concealed tiles, the winning one included, beside `melds` melds (a kong counts as three)."""
    return 14 - 3 * melds


def _pick_concealed_row(
    tiles: Sequence[Detection], rows: list[tuple[_Row, list[list[int]]]], melds: int
) -> tuple[_Row, list[list[int]]]:
    """The row (with its segments left after the melds) that holds the concealed tiles.

    Most often it is the row with the longest run of unmelded tiles. But a hand of three or four
    melds keeps only a few concealed tiles, often in a short row behind the melds, and a meld
    whose box the detector missed then makes the longer run. So when that choice leaves the
    tiles uncountable as a hand (concealed tiles, winning one included, are 14 less 3 per meld,
    the melds of the other rows' runs counted too) and exactly one other row makes them count,
    that row is taken.
    """
    def counts(candidate: tuple[_Row, list[list[int]]]) -> bool:
        others = sum(len(_run_melds(tiles, s, rs[0].direction)) for rs in rows if rs is not candidate for s in rs[1])
        return sum(len(s) for s in candidate[1]) == concealed_count(melds + others)

    longest = max(rows, key=lambda rs: max(len(s) for s in rs[1]))
    fitting = [rs for rs in rows if counts(rs)]
    return fitting[0] if not counts(longest) and len(fitting) == 1 else longest


def _concealed_row(
    tiles: Sequence[Detection], row: _Row, segments: list[list[int]]
) -> tuple[list[int], int | None, bool]:
    """Concealed tiles, the set-apart winning tile and whether the view is reversed.

    The winning tile is a lone tile at an end of the concealed row: after a gap, or lying
    differently from the rest (flat beside standing tiles). At the image's right end it is the
    normal view; at the left end the photo was taken from across the table.
    """
    order = [i for seg in segments for i in seg]
    # Seen obliquely, a row's gaps change along it: standing tiles show their sides, so their boxes
    # overlap more and more towards one end, and seen low and close the gaps widen towards the
    # camera. A tile set apart shows as an end gap wider than the gap beside it, by SPLIT_GAP,
    # even where the row's boxes overlap; an end gap wider than the other's only by the row's
    # trend tells nothing.
    gaps = [_gap_along(tiles[a], tiles[b], row.direction) for a, b in zip(order, order[1:])]
    left_excess, right_excess = (gaps[0] - gaps[1], gaps[-1] - gaps[-2]) if len(gaps) >= 2 else (0.0, 0.0)
    right = len(segments) >= 2 and len(segments[-1]) == 1 or right_excess > SPLIT_GAP
    left = len(segments) >= 2 and len(segments[0]) == 1 or left_excess > SPLIT_GAP
    if right and left:
        # The left one is the winning tile, seen from across the table, where it stands out
        # from its neighbour's gap by SPLIT_GAP more than the right one does; else the right one,
        # as from the player's seat (a row spread out evenly shows gaps apart at either end).
        left = left_excess > right_excess + SPLIT_GAP
        right = not left
    if not (right or left) and len(order) >= 3:
        right = _lies_differently(tiles, order, order[-1], row.direction)
        left = not right and _lies_differently(tiles, order, order[0], row.direction)
    if right:
        return order[:-1], order[-1], False
    if left:
        return order[1:][::-1], order[0], True
    return order, None, False


def _player_to_image(order: list[int], reversed_view: bool) -> list[int]:
    return order[::-1] if reversed_view else list(order)


def _beside_row_ends(
    tiles: Sequence[Detection], line: list[int], loose: list[int], d: tuple[float, float]
) -> list[tuple[int, bool]]:
    """Lone tiles just past an end of the row `line` (in image order) that its chain did not
    reach: a flat tile beside standing ones, one set a little off the line, one cut off by the
    photo's edge. Each with whether it lies past the image's left end; the right end comes first.

    A tile length is the end tile's extent along the row, or the row's pitch (the median step
    between neighbours' centres, over three steps or more so that a gap is no step) when longer:
    the extent of standing tiles seen from the side is far shorter than the room each takes in
    the row."""
    found = []
    steps = [math.dist(tiles[a].center, tiles[b].center) for a, b in zip(line, line[1:])]
    pitch = statistics.median(steps) if len(steps) >= 3 else 0.0
    for end, at_left in ((line[-1], False), (line[0], True)):
        reach = WINNING_REACH * max(_extents(tiles[end], d)[0], pitch)
        for i in loose:
            dx = tiles[i].center[0] - tiles[end].center[0]
            dy = tiles[i].center[1] - tiles[end].center[1]
            beyond = (dx * d[0] + dy * d[1]) * (-1 if at_left else 1)
            if beyond > 0 and math.hypot(dx, dy) <= reach and all(i != f for f, _ in found):
                found.append((i, at_left))
                break
    return found


def _by_row_end(tiles: Sequence[Detection], line: list[int], i: int) -> bool | None:
    """Whether tile `i` lies within LONE_WINNER_REACH tile lengths of the row's left end in the
    image (True) or of its right end (False), the nearer; None when near neither."""
    size = max(max(tiles[e].width, tiles[e].height) for e in (line[0], line[-1]))
    left, right = (math.dist(tiles[i].center, tiles[e].center) for e in (line[0], line[-1]))
    if min(left, right) > LONE_WINNER_REACH * size:
        return None
    return left < right


def _lies_differently(tiles: Sequence[Detection], order: list[int], i: int, d: tuple[float, float]) -> bool:
    ratio = _turned(tiles, order, d)[i]
    return ratio > SIDEWAYS_RATIO or ratio < 1 / SIDEWAYS_RATIO
