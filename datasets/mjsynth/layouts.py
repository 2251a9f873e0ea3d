"""Where the tiles lie: the three scene layouts (a winning hand laid out for a photo, a
whole table, a close-up) as 3-D tile poses on the table plane z = 0, in millimetres.

A camera on the -y side looking towards +y sees tiles with yaw 0 upright.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .codes import FLOWERS, PLAYABLE
from .hands import WinningHand, meld_heavy_hand, random_winning_hand


@dataclass(frozen=True)
class TileSize:
    w: float  # face width
    h: float  # face height
    d: float  # thickness (face to back)


@dataclass(frozen=True)
class Pose:
    """A box's centre and its axes: u = face right, v = face up, n = out of the face."""

    centre: np.ndarray
    u: np.ndarray
    v: np.ndarray
    n: np.ndarray


@dataclass
class PlacedTile:
    true_code: str
    pose: Pose
    face_up: bool  # the face points away from the table or stands upright
    role: str  # concealed | winning | meld | kong | flower | under | other
    group: int | None = None


@dataclass
class Prop:
    """A distractor box (a die, a phone) that is never labelled."""

    pose: Pose
    size: TileSize
    colour: tuple[int, int, int]


@dataclass
class Group:
    id: int
    kind: str  # chow | pung | kong
    concealed: bool
    stacked: bool = False  # a kong shown as three tiles, the fourth lying on the middle one


@dataclass
class View:
    """Where the camera may stand: azimuth 0 = on the -y side looking towards +y."""

    azimuth: float  # degrees
    azimuth_spread: float
    elevation: tuple[float, float]  # degrees above the table
    fill: tuple[float, float]  # fraction of the frame the layout spans
    distance: tuple[float, float]  # camera distance in layout extents (perspective strength)
    tile_px: tuple[float, float] = (13.0, 22.0)  # zoom in until the median tile is this wide


@dataclass
class Layout:
    kind: str  # hand | table | closeup
    tiles: list[PlacedTile]
    groups: list[Group]
    view: View
    hand: dict | None = None


def _rot(yaw: float) -> tuple[np.ndarray, np.ndarray]:
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([c, s, 0.0]), np.array([-s, c, 0.0])


def flat_pose(x: float, y: float, yaw: float, size: TileSize, face_up: bool = True,
              z: float = 0.0) -> Pose:
    """A tile lying on its back (face up) or on its face; yaw 0 = face top towards +y."""
    u, v = _rot(yaw)
    n = np.array([0.0, 0.0, 1.0 if face_up else -1.0])
    if not face_up:
        u = -u  # keep u x v = n
    return Pose(np.array([x, y, z + size.d / 2]), u, v, n)


def standing_pose(x: float, y: float, yaw: float, size: TileSize) -> Pose:
    """A tile standing on its bottom edge, face towards -y rotated by yaw."""
    u, back = _rot(yaw)
    return Pose(np.array([x, y, size.h / 2]), u, np.array([0.0, 0.0, 1.0]), -back)


def _rotate_about_z(pose: Pose, yaw: float) -> Pose:
    """Turn a pose about the vertical axis through the origin."""
    c, s = np.cos(yaw), np.sin(yaw)
    r = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    return Pose(r @ pose.centre, r @ pose.u, r @ pose.v, r @ pose.n)


def random_tile_size(rng: np.random.Generator) -> TileSize:
    w = rng.uniform(22, 30)
    return TileSize(w, w * rng.uniform(1.25, 1.45), w * rng.uniform(0.6, 0.9))


# --- a winning hand laid out for a photo ---

@dataclass
class _Item:
    """One tile in a row being laid out, before its position is known."""

    code: str
    face_up: bool
    sideways: bool
    role: str
    group: int | None


@dataclass
class Untidy:
    """How carelessly a player lays tiles in a row, one standard deviation: each tile off the line
    by `across` of its depth and turned by `turn` radians; up to `gap` of a tile's width more
    space before it."""

    rng: np.random.Generator
    across: float
    turn: float
    gap: float

    def nudge(self, depth: float, width: float) -> tuple[float, float, float]:
        """(extra space before the tile, its offset across the row, its turn)."""
        return (self.gap * width * self.rng.random(), self.rng.normal(0, self.across * depth),
                self.rng.normal(0, self.turn))


# Nobody lines tiles up exactly: each hand photo's rows are laid with up to this much care
# lacking (a fraction of it drawn evenly per photo). The extra space stays well under the
# winning tile's (a quarter of a width at the least), which must still read as set apart.
MESSIEST = (0.04, 0.05, 0.08)  # Untidy's across, turn, gap


def _row(items: list[_Item], x0: float, y_near: float, size: TileSize, gap: float,
         standing: bool, untidy: Untidy | None = None) -> tuple[list[PlacedTile], float]:
    """Lay items left to right from x0 with their near edges on y_near (each nudged off its
    place by `untidy`); returns the placed tiles and the x where the row ends."""
    placed, x = [], x0
    for it in items:
        along = size.h if it.sideways else size.w
        depth = size.d if standing else size.w if it.sideways else size.h
        extra, off, turn = untidy.nudge(depth, size.w) if untidy else (0.0, 0.0, 0.0)
        # A turned tile's corners reach further along the row: room for them, so none overlap.
        room = depth * abs(np.sin(turn)) / 2
        x += extra + room
        cx = x + along / 2
        if standing:
            pose = standing_pose(cx, y_near + size.d / 2 + off, turn, size)
        else:
            pose = flat_pose(cx, y_near + depth / 2 + off, (np.pi / 2 if it.sideways else 0.0) + turn,
                             size, it.face_up)
        placed.append(PlacedTile(it.code, pose, it.face_up, it.role, it.group))
        x += along + gap + room
    return placed, x


# Many tables show a kong as three tiles with the fourth on the middle one; the reader must see it.
STACKED_EXPOSED_KONGS = 0.3
STACKED_CONCEALED_KONGS = 0.15


def _kong_face_pattern(rng: np.random.Generator) -> list[bool]:
    roll = rng.random()
    if roll < 0.45:
        return [False, True, True, False]  # the two ends face down
    if roll < 0.65:
        return [True, False, False, True]
    if roll < 0.85:
        return [False] * 4
    return [True] * 4


def _stacked_kong(tiles: list[str], exposed: bool, claimed: int | None, group: int) -> list[_Item]:
    """A kong laid as three tiles with the fourth on the middle one (the last item): face up
    when exposed, else on three tiles face down, as many tables show a concealed kong."""
    role = "meld" if exposed else "kong"
    bottom = [_Item(t, exposed, exposed and k == claimed, role, group) for k, t in enumerate(tiles[:3])]
    bottom[1].role = "under"
    return bottom + [_Item(tiles[3], True, bottom[1].sideways, role, group)]


def _place_meld(rng: np.random.Generator, items: list[_Item], x: float, y_near: float, size: TileSize,
                gap: float, stacked: bool, untidy: Untidy) -> tuple[list[PlacedTile], float]:
    """A meld laid flat from x; a stacked kong's last item lies on its middle tile, a little off."""
    if not stacked:
        return _row(items, x, y_near, size, gap, False, untidy)
    placed, x_end = _row(items[:3], x, y_near, size, gap, False, untidy)
    top, below = items[3], placed[1].pose
    dx, dy = rng.normal(0, size.w * 0.04, 2)
    yaw = np.arctan2(-below.v[0], below.v[1]) + rng.normal(0, 0.03)
    pose = flat_pose(below.centre[0] + dx, below.centre[1] + dy, yaw, size, True, z=size.d)
    return placed + [PlacedTile(top.code, pose, True, top.role, top.group)], x_end


def hand_layout(rng: np.random.Generator, size: TileSize,
                hands: Callable[[np.random.Generator], WinningHand] = random_winning_hand,
                stacked_exposed_kongs: float | None = None) -> Layout:
    """One player's winning hand laid out for a photo; `stacked_exposed_kongs`: the share of
    exposed kongs laid stacked (None: STACKED_EXPOSED_KONGS)."""
    hand: WinningHand = hands(rng)
    if stacked_exposed_kongs is None:
        stacked_exposed_kongs = STACKED_EXPOSED_KONGS
    gap = rng.uniform(0.0, 1.2)
    untidy = Untidy(rng, *(rng.uniform(0.0, 1.0) * np.asarray(MESSIEST)))
    standing = rng.random() < 0.45
    groups: list[Group] = []
    meld_rows: list[list[_Item]] = []
    for s in hand.sets:
        if not s.exposed and s.kind != "kong":
            continue
        stacked = s.kind == "kong" and rng.random() < (stacked_exposed_kongs if s.exposed else STACKED_CONCEALED_KONGS)
        g = Group(len(groups), s.kind, not s.exposed, stacked)
        groups.append(g)
        if stacked:
            meld_rows.append(_stacked_kong(s.tiles, s.exposed, s.claimed_index, g.id))
        elif s.exposed:
            meld_rows.append([_Item(t, True, k == s.claimed_index, "meld", g.id)
                              for k, t in enumerate(s.tiles)])
        else:
            meld_rows.append([_Item(t, up, False, "kong", g.id)
                              for t, up in zip(s.tiles, _kong_face_pattern(rng))])
    concealed = hand.concealed_tiles()
    if rng.random() < 0.85:  # most players sort their tiles
        concealed.sort(key=PLAYABLE.index)
    else:
        concealed = [concealed[i] for i in rng.permutation(len(concealed))]
    tiles, x_end = _row([_Item(t, True, False, "concealed", None) for t in concealed],
                        0.0, 0.0, size, gap, standing, untidy)
    win_gap = size.w * rng.uniform(0.25, 1.0)
    win_standing = standing and rng.random() < 0.7
    win, x_end = _row([_Item(hand.winning_tile, True, False, "winning", None)],
                      x_end + win_gap, 0.0, size, gap, win_standing, untidy)
    tiles += win
    # Exposed melds: in front of the concealed row, or continuing it to the right.
    in_front = rng.random() < 0.6 or not meld_rows
    if in_front:  # a flat row nearer the camera than the concealed row
        x, y_near = rng.uniform(-size.w, size.w * 2), -(size.h + rng.uniform(2, 12))
    else:  # continuing the concealed row, far edges level with it
        row_depth = size.d if standing else size.h
        x, y_near = x_end + size.w * rng.uniform(0.5, 1.5), row_depth - size.h
    for n in rng.permutation(len(meld_rows)):
        placed, x = _place_meld(rng, meld_rows[n], x, y_near, size, gap, groups[n].stacked, untidy)
        tiles += placed
        x += size.w * rng.uniform(0.2, 0.8)
    if hand.flowers:  # set apart at the far left, in front or level with the row
        fx = -size.w * (len(hand.flowers) + rng.uniform(1.0, 2.5))
        fy = -(size.h + rng.uniform(2, 12)) * rng.integers(0, 2)
        placed, _ = _row([_Item(f, True, False, "flower", None) for f in hand.flowers],
                         fx, fy, size, gap, False, untidy)
        tiles += placed
    from_across = not standing and rng.random() < 0.12  # upside-down photo across the table
    view = View(180.0 if from_across else 0.0, 25.0,
                (25.0, 70.0) if standing else (35.0, 90.0), (0.7, 1.0), (1.0, 3.0),
                (20.0, 36.0))
    return Layout("hand", tiles, groups, view, hand.to_json())


# --- whole-table views ---

def _full_set(rng: np.random.Generator) -> list[str]:
    codes = [c for c in PLAYABLE for _ in range(4)] + list(FLOWERS)
    return [codes[i] for i in rng.permutation(len(codes))]


def _take_meld(rng: np.random.Generator, deck: list[str]) -> tuple[str, list[str]] | None:
    """Take an exposed pung or chow out of the deck, or None when the copies are gone."""
    tile = deck[rng.integers(len(deck))]
    if tile in FLOWERS:
        return None
    if rng.random() < 0.5 and tile[1] != "z" and int(tile[0]) <= 7:
        tiles = [f"{int(tile[0]) + k}{tile[1]}" for k in range(3)]
        kind = "chow"
    else:
        tiles, kind = [tile] * 3, "pung"
    if any(deck.count(t) < tiles.count(t) for t in tiles):
        return None
    for t in tiles:
        deck.remove(t)
    return kind, tiles


def table_layout(rng: np.random.Generator, size: TileSize) -> Layout:
    """Four seats round a square: hands standing, walls of face-down stacks, discard
    ponds, exposed melds; or (sometimes) a set spread face up in a grid."""
    if rng.random() < 0.3:
        return _spread_layout(rng, size)
    deck = _full_set(rng)

    def draw() -> str:
        if len(deck) < 3:  # a crowded table may need more than one set: open another
            deck[:0] = _full_set(rng)
        return deck.pop()

    tiles: list[PlacedTile] = []
    groups: list[Group] = []
    gap = rng.uniform(0.0, 1.0)
    wall_half = 9.5 * size.w
    for seat in range(4):
        yaw = seat * np.pi / 2  # seat 0 sits at -y and faces +y
        local: list[PlacedTile] = []
        # The wall in front of the seat: up to 18 stacks of two, face down, some taken.
        stacks = int(rng.integers(0, 19))
        start = int(rng.integers(0, 19 - stacks)) if stacks < 18 else 0
        for k in range(start, start + stacks):
            x = (k - 9 + 0.5) * (size.w + gap * 0.3)
            for level in range(1 + int(rng.random() < 0.85)):
                pose = flat_pose(x, -wall_half, 0.0, size, face_up=False, z=level * size.d)
                local.append(PlacedTile(draw(), pose, False, "other"))
        # Discards: rows of six face up between the wall and the centre.
        for k in range(int(rng.integers(0, 19))):
            r, c = divmod(k, 6)
            jitter = rng.normal(0, 0.8, 2)
            pose = flat_pose((c - 3 + 0.5) * (size.w + gap) + jitter[0],
                             -3.2 * size.h + (2 - r) * (size.h + gap) + jitter[1],
                             rng.normal(0, 0.04), size)
            local.append(PlacedTile(draw(), pose, True, "other"))
        # The player's hand, standing outside the wall, facing the player.
        n_melds = int(rng.choice([0, 0, 1, 1, 2, 3]))
        hand_y = -wall_half - 2.5 * size.h
        items = [_Item(draw(), True, False, "concealed", None) for _ in range(13 - 3 * n_melds)]
        x0 = -len(items) * (size.w + gap) / 2 - 2 * size.w
        placed, x_end = _row(items, x0, hand_y, size, gap, True)
        local += placed
        # Exposed melds flat, between the hand and the wall, right of centre.
        x = x_end - size.w * 3 * n_melds
        for _ in range(n_melds):
            meld = _take_meld(rng, deck)
            if meld is None:
                continue
            kind, meld_tiles = meld
            g = Group(len(groups), kind, concealed=False)
            groups.append(g)
            claimed = int(rng.integers(3))
            row = [_Item(t, True, k == claimed, "meld", g.id) for k, t in enumerate(meld_tiles)]
            placed, x = _row(row, x, hand_y + size.d + 2, size, gap, False)
            local += placed
            x += size.w * 0.5
        tiles += [PlacedTile(t.true_code, _rotate_about_z(t.pose, yaw), t.face_up, t.role, t.group)
                  for t in local]
    view = View(float(rng.uniform(0, 360)), 180.0, (25.0, 80.0), (0.7, 1.15), (1.0, 2.5))
    return Layout("table", tiles, groups, view)


def _spread_layout(rng: np.random.Generator, size: TileSize) -> Layout:
    """A whole set (or part of one) face up in a tight grid, photographed from above,
    like the pictures people post of a set."""
    deck = _full_set(rng)
    cols = int(rng.integers(6, 13))
    rows = int(rng.integers(2, 13))
    if rng.random() < 0.5:  # sets are often shown sorted
        deck.sort(key=lambda c: (PLAYABLE + FLOWERS).index(c))
        start = int(rng.integers(0, max(1, len(deck) - rows * cols)))
        deck = deck[start:]
    gap = rng.uniform(0.0, 1.5)
    jitter = rng.uniform(0.0, 1.5)
    tiles = []
    for r in range(rows):
        for c in range(cols):
            if not deck:
                break
            dx, dy = rng.normal(0, jitter, 2)
            pose = flat_pose(c * (size.w + gap) + dx, -r * (size.h + gap) + dy,
                             rng.normal(0, 0.02), size)
            tiles.append(PlacedTile(deck.pop(0), pose, True, "other"))
    view = View(0.0 if rng.random() < 0.8 else 180.0, 20.0, (55.0, 90.0), (0.7, 1.0), (1.2, 3.0))
    return Layout("table", tiles, [], view)


# --- close-ups ---

def closeup_layout(rng: np.random.Generator, size: TileSize) -> Layout:
    count = int(rng.integers(1, 6))
    kinds = PLAYABLE + FLOWERS
    # flowers are 8 of 144 tiles in a set: weight them up so the detector sees enough
    weights = np.array([3.0 if c in FLOWERS else 1.0 for c in kinds])
    codes = rng.choice(kinds, size=count, replace=False, p=weights / weights.sum()).tolist()
    in_row = rng.random() < 0.6
    row_standing = rng.random() < 0.3  # a row shares one way of lying, or tiles collide
    tiles = []
    for k, code in enumerate(codes):
        if in_row:
            x, y, yaw = k * (size.w + rng.uniform(0, 3)), 0.0, rng.normal(0, 0.05)
            standing, up = row_standing, row_standing or rng.random() > 0.15
        else:
            x, y = rng.uniform(-1, 1, 2) * size.h * (1 + count * 0.6)
            yaw = rng.uniform(-np.pi, np.pi)
            standing, up = rng.random() < 0.25, rng.random() > 0.15
        pose = standing_pose(x, y, yaw, size) if standing else flat_pose(x, y, yaw, size, up)
        tiles.append(PlacedTile(code, pose, standing or up, "other"))
    if not in_row:  # scattered tiles may overlap: keep only those clear of the others
        kept: list[PlacedTile] = []
        for t in tiles:
            if all(np.linalg.norm(t.pose.centre[:2] - o.pose.centre[:2]) > size.h * 1.75
                   for o in kept):
                kept.append(t)
        tiles = kept
    view = View(0.0, 60.0, (25.0, 90.0), (0.45, 1.1), (1.5, 5.0), (50.0, 200.0))
    return Layout("closeup", tiles, [], view)


# A stacked kong shows three tiles as a pung does: the stack model sees as many of each.
MELD_PHOTO_STACKED_KONGS = 0.6


def melds_layout(rng: np.random.Generator, size: TileSize) -> Layout:
    """A hand photo whose hand is mostly exposed pungs and kongs, more of the kongs laid stacked:
    what the stack model (vision.stacking, datasets/train_stack.py) learns to tell apart."""
    return hand_layout(rng, size, meld_heavy_hand, MELD_PHOTO_STACKED_KONGS)


LAYOUTS = {"hand": hand_layout, "table": table_layout, "closeup": closeup_layout, "melds": melds_layout}
