"""Random *valid winning* hands in the project's JSON hand schema (issue 2), so every
rendered hand photo has a ground truth the scoring engine can score."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .codes import FLOWERS, HONOURS, PLAYABLE

WINDS = ("E", "S", "W", "N")
TERMINALS_AND_HONOURS = tuple(f"{n}{s}" for s in "mps" for n in (1, 9)) + HONOURS


@dataclass
class HandSet:
    kind: str  # "chow" | "pung" | "kong" | "pair"
    tiles: list[str]
    exposed: bool = False  # an exposed meld (claimed); kongs may also be concealed
    claimed_index: int | None = None  # which tile was claimed (turned sideways)


@dataclass
class WinningHand:
    sets: list[HandSet]  # melds and concealed sets; the pair is a set of kind "pair"
    winning_tile: str
    flowers: list[str]
    self_drawn: bool
    seat_wind: str
    round_wind: str
    # Concealed tiles of the irregular hands (seven pairs, thirteen orphans), which have no sets.
    loose: list[str] = field(default_factory=list)

    def concealed_tiles(self) -> list[str]:
        """Concealed tiles without the winning tile (one copy of it removed)."""
        tiles = list(self.loose)
        for s in self.sets:
            if not s.exposed and s.kind != "kong":
                tiles.extend(s.tiles)
        tiles.remove(self.winning_tile)
        return tiles

    def to_json(self) -> dict:
        melds = [{"kind": s.kind, "tiles": list(s.tiles), "concealed": not s.exposed}
                 for s in self.sets if s.exposed or s.kind == "kong"]
        return {
            "concealed": sorted(self.concealed_tiles(), key=PLAYABLE.index),
            "melds": melds,
            "winning_tile": self.winning_tile,
            "self_drawn": self.self_drawn,
            "seat_wind": self.seat_wind,
            "round_wind": self.round_wind,
            "flowers": list(self.flowers),
        }


def _pick_set(rng: np.random.Generator, used: Counter) -> HandSet:
    """One chow, pung or kong that keeps every tile within its four copies."""
    for _ in range(100):
        roll = rng.random()
        if roll < 0.5:
            suit = "mps"[rng.integers(3)]
            start = int(rng.integers(1, 8))
            tiles = [f"{start + k}{suit}" for k in range(3)]
            kind = "chow"
        else:
            tile = PLAYABLE[rng.integers(len(PLAYABLE))]
            kind = "kong" if roll > 0.85 else "pung"
            tiles = [tile] * (4 if kind == "kong" else 3)
        need = Counter(tiles)
        if all(used[t] + n <= 4 for t, n in need.items()):
            used.update(need)
            return HandSet(kind, tiles)
    raise RuntimeError("could not place a set within four copies")  # practically unreachable


def _pick_pair(rng: np.random.Generator, used: Counter) -> HandSet:
    choices = [t for t in PLAYABLE if used[t] <= 2]
    tile = choices[rng.integers(len(choices))]
    used[tile] += 2
    return HandSet("pair", [tile, tile])


def _context(rng: np.random.Generator) -> dict:
    flowers = sorted(rng.choice(FLOWERS, size=int(rng.choice([0, 0, 1, 1, 2, 2, 3, 4])),
                                replace=False).tolist(), key=FLOWERS.index)
    return dict(self_drawn=bool(rng.random() < 0.4), seat_wind=WINDS[rng.integers(4)],
                round_wind=WINDS[rng.integers(4)], flowers=flowers)


def random_winning_hand(rng: np.random.Generator) -> WinningHand:
    """Four sets and a pair (most often), seven pairs, or thirteen orphans."""
    context = _context(rng)
    roll = rng.random()
    if roll < 0.08:  # seven pairs: seven distinct kinds
        kinds = rng.choice(len(PLAYABLE), size=7, replace=False)
        loose = sorted([PLAYABLE[k] for k in kinds for _ in range(2)], key=PLAYABLE.index)
        win = loose[rng.integers(len(loose))]
        return WinningHand([], win, loose=loose, **context)
    if roll < 0.11:  # thirteen orphans: one of each, one doubled
        doubled = TERMINALS_AND_HONOURS[rng.integers(len(TERMINALS_AND_HONOURS))]
        loose = sorted([*TERMINALS_AND_HONOURS, doubled], key=PLAYABLE.index)
        win = loose[rng.integers(len(loose))]
        return WinningHand([], win, loose=loose, **context)
    used: Counter = Counter()
    sets = [_pick_set(rng, used) for _ in range(4)]
    sets.append(_pick_pair(rng, used))
    n_exposed = int(rng.choice([0, 0, 1, 1, 2, 2, 3, 4]))
    for k in rng.permutation(4)[:n_exposed]:
        s = sets[k]
        s.exposed = True
        s.claimed_index = int(rng.integers(len(s.tiles)))
    # Concealed kongs are melds too, but hidden: never the set that completes the hand.
    candidates = [i for i, s in enumerate(sets) if not s.exposed and s.kind != "kong"]
    win_set = candidates[rng.integers(len(candidates))]
    win = sets[win_set].tiles[rng.integers(len(sets[win_set].tiles))]
    return WinningHand(sets, win, **context)


def meld_heavy_hand(rng: np.random.Generator) -> WinningHand:
    """Four pungs and kongs of distinct tiles and a pair, two to four of the sets exposed: a hand
    photo full of the melds among which a kong laid stacked must be told from a pung."""
    context = _context(rng)
    tiles = rng.choice(len(PLAYABLE), size=5, replace=False)
    kongs = rng.random(4) < 0.5
    sets = [HandSet("kong", [PLAYABLE[t]] * 4) if kong else HandSet("pung", [PLAYABLE[t]] * 3)
            for t, kong in zip(tiles[:4], kongs)]
    for k in rng.permutation(4)[:int(rng.integers(2, 5))]:
        sets[k].exposed = True
        sets[k].claimed_index = int(rng.integers(len(sets[k].tiles)))
    pair = PLAYABLE[tiles[4]]
    return WinningHand([*sets, HandSet("pair", [pair, pair])], pair, **context)
