"""Every way a 14-tile hand can be read as a winning shape, with every place the winning tile can sit.

Forms (`Decomposition.form`):

- ``regular``           four sets (chow/pung/kong) and a pair; declared melds are fixed sets.
- ``seven_pairs``       seven pairs, concealed; four identical tiles count as two pairs.
- ``thirteen_orphans``  one each of the 13 terminals and honours plus a second copy of one.
- ``honours_knitted``   14 distinct tiles: honours and number tiles of one knitted pattern
                        (147/258/369 in three different suits), no sets at all (全不靠 family).
- ``knitted_straight``  the nine tiles of one knitted pattern (组合龙) + one set + a pair.

A decomposition lists its units (sets, pairs, knitted triples, single tiles) and which unit holds
the winning tile.  When the winning tile could sit in different units (say a chow or a pung of
the same tile), each placement is a separate decomposition, so rules about waits and about pungs
completed by a discard can be judged per placement.  Sets never cross suits, so each suit's count
table is split on its own (looked up in _suit_sets_table, which lists every split into sets a suit
can have) and the suits are combined; results are cached on the normalised standing tiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import permutations, product
from operator import itemgetter, mul
from typing import NamedTuple

from . import tiles as T
from .hand import Hand, Meld

SET_KINDS = frozenset({"chow", "pung", "kong"})
# The forms above as messages name them (a rule set that refuses a form says which, by this name)
FORM_NAMES: dict[str, str] = {
    "regular": "four sets and a pair",
    "seven_pairs": "seven pairs",
    "thirteen_orphans": "thirteen orphans 十三幺",
    "honours_knitted": "knitted tiles 全不靠",
    "knitted_straight": "a knitted straight 组合龙 with a set and a pair",
}
# The six knitted patterns: suit order for ranks 1-4-7, 2-5-8, 3-6-9.
KNITTED_PATTERNS: tuple[tuple[int, ...], ...] = tuple(
    tuple(9 * s + r + 3 * k for s, r in zip(order, range(3)) for k in range(3))
    for order in permutations(range(3))
)
_KNITTED_COUNTS = tuple(itemgetter(*p) for p in KNITTED_PATTERNS)  # a pattern's nine counts in one call


class Unit(NamedTuple):
    """One part of a decomposition.

    kind: chow | pung | kong | pair | knitted (e.g. 1-4-7m of 组合龙) | single (a lone tile of
    全不靠 or 十三幺).  `tile` is the lowest tile index; `tiles` all of them, `codes` the same as
    tile codes (what results list: every scored hand lists its units).  `declared` is true
    for the player's melds (which come first, in one order whatever the Hand's); `concealed` is
    false only for exposed melds.  A pung of concealed tiles completed by a discard is concealed here;
    see `Decomposition.unit_is_concealed`.
    """

    kind: str
    tile: int
    tiles: tuple[int, ...]
    codes: tuple[str, ...]
    declared: bool = False
    concealed: bool = True

    @property
    def is_set(self) -> bool:
        return self.kind in SET_KINDS


class Decomposition(NamedTuple):
    form: str
    units: tuple[Unit, ...]
    winning_unit: int  # index into units of the unit that holds the winning tile
    winning: int  # the winning tile's index

    def sets(self) -> list[Unit]:
        return [u for u in self.units if u.kind in SET_KINDS]

    def unit_is_concealed(self, i: int, self_drawn: bool) -> bool:
        """Concealed for pung-counting rules: a set completed by a discarded tile is exposed."""
        u = self.units[i]
        return u.concealed and (self_drawn or i != self.winning_unit or u.declared)


@lru_cache(maxsize=None)
def chow_wait(chow: Unit, winning: int) -> str:
    """Where the winning tile sits in its chow: "closed" (the middle), "edge" (the 3 of 123 or
    the 7 of 789) or "two_sided"."""
    position = winning - chow.tile
    if position == 1:
        return "closed"
    rank = T.rank(chow.tile)
    if (position == 2 and rank == 1) or (position == 0 and rank == 7):
        return "edge"
    return "two_sided"


def _unit(kind: str, tile: int) -> Unit:
    """The standing-tile unit of a kind at a tile (units are immutable, so one object each)."""
    if kind == "chow":
        tiles = (tile, tile + 1, tile + 2)
    elif kind == "knitted":
        tiles = (tile, tile + 3, tile + 6)
    else:
        tiles = (tile,) * {"pung": 3, "kong": 4, "pair": 2, "single": 1}[kind]
    return Unit(kind, tile, tiles, tuple(map(T.TILE_CODES.__getitem__, tiles)))


def meld_unit(m: Meld) -> Unit:
    return Unit(m.kind, m.first, m.indices, m.tiles, True, m.concealed)


# One suit holds at most four sets (12 tiles) besides a pair, so every way its nine counts can
# split into sets is known in advance: _suit_sets_table lists them all once, and a suit of a new
# hand is looked up instead of searched (fresh hands keep meeting suit patterns not seen before).
# The pair is found by trying its few possible ranks (_pair_ranks) against that table.
_SET_SHAPES = (*(("pung", r) for r in range(9)), *(("chow", r) for r in range(7)))


def _add_set(counts: tuple[int, ...], kind: str, rank: int) -> tuple[int, ...] | None:
    """One suit's counts with a pung or chow added at rank (0-8); None past five copies (a fifth
    copy only in a wait search: waiting on a tile held four times is a dead wait, which the
    dead_wait_counts option still counts)."""
    c = list(counts)
    for r in (rank, rank + 1, rank + 2) if kind == "chow" else (rank, rank, rank):
        c[r] += 1
    return tuple(c) if max(c) <= 5 else None


def _by_tile(unit: tuple[str, int]) -> tuple[int, str]:
    return unit[1], unit[0]


@lru_cache(maxsize=None)
def _suit_sets_table() -> dict[tuple[int, ...], tuple[tuple[tuple[str, int], ...], ...]]:
    """Every count vector of one suit that splits into at most four sets, with its splits as
    (kind, rank index), each sorted by tile, the splits sorted.  Built on first use by adding sets
    in _SET_SHAPES order (so each multiset of sets once): some 3,300 vectors, a few milliseconds.
    The values are tuples, which the garbage collector stops scanning after one pass."""
    table: dict[tuple[int, ...], list] = {(0,) * 9: [()]}
    frontier = [((0,) * 9, (), 0)]
    for _ in range(4):
        grown = []
        for counts, split, first in frontier:
            for j in range(first, len(_SET_SHAPES)):
                more = _add_set(counts, *_SET_SHAPES[j])
                if more:
                    grown.append((more, split + (_SET_SHAPES[j],), j))
                    table.setdefault(more, []).append(split + (_SET_SHAPES[j],))
        frontier = grown
    return {counts: tuple(sorted(tuple(sorted(split, key=_by_tile)) for split in splits))
            for counts, splits in table.items()}


@lru_cache(maxsize=None)
def _suit_splits(counts: tuple[int, ...], with_pair: bool) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Every distinct split of one suit's nine counts into sets, plus one pair (listed last) when
    `with_pair`, as (kind, rank index).  Cached: hands share suit patterns."""
    if not with_pair:
        return _suit_sets_table().get(counts, ())
    found = []
    for p in _pair_ranks(counts):
        if counts[p] >= 2:
            rest = counts[:p] + (counts[p] - 2,) + counts[p + 1:]
            found += [split + (("pair", p),) for split in _suit_sets_table().get(rest, ())]
    return tuple(sorted(found))


def _pair_ranks(counts: Sequence[int]) -> range:
    """The ranks (0-8) where the pair of one suit's sets-and-pair split can be.  Counting each
    tile by its rank, a pung (3r) and a chow (3r + 3) add multiples of 3 and a pair at p adds 2p,
    so 2p, and hence p, is fixed modulo 3 by the suit's rank total."""
    return range(2 * sum(map(mul, range(9), counts)) % 3, 9, 3)


def _split_suits(counts: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The 34 counts as each suit's nine and the honours' seven, the pieces the tables take."""
    c = tuple(counts)
    return c[:9], c[9:18], c[18:27], c[T.NUMBER_TILES:T.PLAYING_TILES]


def _pair_suit(suits: tuple[tuple[int, ...], ...]) -> int:
    """Where the pair of a sets-and-pair reading of _split_suits must be: the suit (0-2) holding 2
    mod 3 tiles, or 3 for an honour held twice; -1 when no such reading can exist (an honour held
    once or four times, a suit with 1 mod 3 tiles, or not exactly one pair place)."""
    honours = suits[3]
    if 1 in honours or 4 in honours or honours.count(2) > 1:
        return -1
    pair_suit = 3 if 2 in honours else -1
    for suit in range(3):
        left = sum(suits[suit]) % 3
        if left == 1:
            return -1
        if left == 2:
            if pair_suit >= 0:
                return -1
            pair_suit = suit
    return pair_suit


def _regular_fit(counts: list[int]) -> bool:
    """Whether counts split into sets and one pair (declared melds set aside)."""
    suits = _split_suits(counts)
    pair_suit = _pair_suit(suits)
    return pair_suit >= 0 and all(_suit_splits(suits[suit], suit == pair_suit) for suit in range(3))


@lru_cache(maxsize=None)
def _suit_parts(counts: tuple[int, ...], with_pair: bool, suit: int) -> tuple[tuple[tuple[Unit, ...], Unit | None], ...]:
    """_suit_splits of one suit as units: (the sets, sorted by tile; the pair or None) each."""
    parts = []
    for split in _suit_splits(counts, with_pair):
        units = tuple(_unit(kind, rank + 9 * suit) for kind, rank in split)
        parts.append((units[:-1], units[-1]) if with_pair else (units, None))
    return tuple(parts)


def _sets_and_pair(counts: Sequence[int]) -> list[tuple[Unit, ...]]:
    """Every split of counts into sets plus exactly one pair, the sets sorted by tile and the pair
    last; suits are split independently and combined (in suit order, so the sets stay sorted)."""
    suits = _split_suits(counts)
    pair_suit = _pair_suit(suits)
    if pair_suit < 0:
        return []
    per_suit = [_suit_parts(suits[suit], suit == pair_suit, suit) for suit in range(3)]
    if not all(per_suit):
        return []
    honours = suits[3]
    honour_sets = tuple([_unit("pung", T.NUMBER_TILES + h) for h, n in enumerate(honours) if n == 3]) \
        if 3 in honours else ()
    pair = _unit("pair", T.NUMBER_TILES + honours.index(2)) if pair_suit == 3 else None
    readings = []
    for (sets0, pair0), (sets1, pair1), (sets2, pair2) in product(*per_suit):
        readings.append((*sets0, *sets1, *sets2, *honour_sets, pair or pair0 or pair1 or pair2))
    if len(readings) > 1:
        readings.sort(key=lambda r: (r[-1].tile, r))
    return readings


@lru_cache(maxsize=65536)
def _standing_readings(standing: tuple[int, ...], n_melds: int) -> tuple[tuple[str, tuple[Unit, ...]], ...]:
    """All readings of the standing tiles (concealed + winning tile) as (form, units)."""
    counts = list(standing)
    readings: list[tuple[str, tuple[Unit, ...]]] = []
    for split in _sets_and_pair(counts):
        readings.append(("regular", split))
    # how many different tiles: a quick gate for the special forms
    distinct = T.PLAYING_TILES - standing.count(0)
    if n_melds == 0:
        if distinct <= 7 and 1 not in standing and 3 not in standing:  # no tile held an odd number of times
            pairs = tuple(_unit("pair", i) for i in range(T.PLAYING_TILES) for _ in range(counts[i] // 2))
            readings.append(("seven_pairs", pairs))
        if distinct == 13 and sum(counts[i] for i in T.TERMINALS_AND_HONOURS) == 14 \
                and all(counts[i] for i in T.TERMINALS_AND_HONOURS):
            double = next(i for i in T.TERMINALS_AND_HONOURS if counts[i] == 2)
            units = tuple(_unit("pair" if i == double else "single", i) for i in T.TERMINALS_AND_HONOURS)
            readings.append(("thirteen_orphans", units))
        if distinct == 14:  # 14 single tiles
            numbers = {i for i in range(T.NUMBER_TILES) if counts[i]}
            if any(numbers <= set(p) for p in KNITTED_PATTERNS):
                readings.append(("honours_knitted", tuple(_unit("single", i) for i in range(T.PLAYING_TILES) if counts[i])))
    # a 组合龙 needs nine different number tiles
    if n_melds <= 1 and distinct >= 9 and T.NUMBER_TILES - counts[:T.NUMBER_TILES].count(0) >= 9:
        for pattern, counts_of in zip(KNITTED_PATTERNS, _KNITTED_COUNTS):
            if 0 not in counts_of(counts):
                for i in pattern:
                    counts[i] -= 1
                knitted = tuple(_unit("knitted", pattern[k]) for k in (0, 3, 6))
                readings.extend(("knitted_straight", knitted + split) for split in _sets_and_pair(counts))
                for i in pattern:
                    counts[i] += 1
    return tuple(readings)


def decompositions(hand: Hand) -> list[Decomposition]:
    """Every distinct (reading, winning-tile placement) of a hand; empty if the hand does not win."""
    return list(_decompositions(hand.standing, hand.melds, T.INDEX[hand.winning_tile]))


def _decompositions(standing: tuple[int, ...], melds: tuple[Meld, ...], win: int) -> tuple[Decomposition, ...]:
    readings = _standing_readings(standing, len(melds))
    if not readings:
        return ()
    # in one order whatever order the melds were given in: rule sets that take the first pair of
    # sets a fan fits then point at the same sets for every order
    fixed = tuple(sorted(map(meld_unit, melds), key=lambda u: (u.tile, u.kind, u.concealed)))
    result: list[Decomposition] = []
    for form, parts in readings:
        units = fixed + parts
        # standing units are equal when kind and tile are, and _unit makes one object of each,
        # so a short list finds them by identity
        seen: list[Unit] = []
        for k, u in enumerate(parts, len(fixed)):
            if win in u.tiles and u not in seen:
                seen.append(u)
                result.append(Decomposition(form, units, k, win))
    return tuple(result)


def wait_count(hand: Hand, limit: int = T.PLAYING_TILES, dead: bool = False) -> int:
    """How many different tiles the hand waited on before its winning tile, counting at most
    `limit` (enough to tell a single wait from several); dead waits only when `dead` is true."""
    win = T.INDEX[hand.winning_tile]
    counts = list(hand.standing)  # the winning tile is taken back out of both
    counts[win] -= 1
    held = list(hand.counts)
    held[win] -= 1
    return len(_wait_indices(tuple(counts), len(hand.melds), held, limit, dead))


def _wait_indices(counts: tuple[int, ...], n_melds: int, held: Sequence[int], limit: int,
                  dead: bool) -> tuple[int, ...]:
    """The first `limit` waits of the standing counts, in tile order; `held` includes melds."""
    # seven pairs: six pairs and a lone tile wait on that tile
    pairs_wait = -1
    if n_melds == 0 and T.PLAYING_TILES - counts.count(0) <= 7:
        odd = [i for i, n in enumerate(counts) if n % 2]
        pairs_wait = odd[0] if len(odd) == 1 else -1
    found = _regular_waits(counts)
    if pairs_wait >= 0:
        found.add(pairs_wait)
    if n_melds <= 1:
        found |= _special_waits(counts, n_melds)
    return tuple(i for i in sorted(found) if dead or held[i] < 4)[:limit]


def _regular_waits(counts: tuple[int, ...]) -> set[int]:
    """Tiles that make the standing counts sets (as many as the melds leave) and a pair.  Sets
    never cross suits, so each suit's answers are looked up (_suit_state, _suit_growth) and the
    parts combined: the new tile's part must complete, every other part must already split, and
    exactly one part holds the pair."""
    honours = counts[T.NUMBER_TILES:]
    if 4 in honours or honours.count(1) > 1:  # four standing honours or two lone ones never make sets
        return set()
    pairs = [h for h, n in enumerate(honours) if n == 2] if 2 in honours else []
    suits = (counts[:9], counts[9:18], counts[18:27])
    # "the other suits split" is arithmetic on the tallies of the suits' states
    state = [_suit_state(suits[0]), _suit_state(suits[1]), _suit_state(suits[2])]
    broken, paired = state.count(BROKEN), state.count(PAIRED)
    out: set[int] = set()
    if 1 in honours:  # the lone honour must become the pair
        if not pairs and not broken and not paired:
            out.add(T.NUMBER_TILES + honours.index(1))
        return out
    # an honour pair that becomes a pung leaves the hand's pair to the other honour pair or a suit
    if len(pairs) == 2 and not broken and not paired:
        out.update(T.NUMBER_TILES + h for h in pairs)
    if len(pairs) == 1 and not broken and paired == 1:
        out.add(T.NUMBER_TILES + pairs[0])
    if len(pairs) > 1:
        return out
    # a number tile: its suit completes, with the pair unless the honours or another suit hold it;
    # a suit's growth is looked up only when the other suits split (usually only the suit the
    # winning tile left broken)
    for k, suit in enumerate(suits):
        others_broken = broken - (state[k] == BROKEN)
        if others_broken:
            continue
        sets_only, with_pair = _suit_growth(suit)
        others_paired = paired - (state[k] == PAIRED)
        if pairs:
            ranks = sets_only if not others_paired else ()
        else:
            ranks = (with_pair if not others_paired else ()) + (sets_only if others_paired == 1 else ())
        out.update(map((9 * k).__add__, ranks))
    return out


SETS, PAIRED, BROKEN = 0, 1, 2  # a suit's standing tiles: sets only, sets and a pair, neither


@lru_cache(maxsize=None)
def _suit_state(counts: tuple[int, ...]) -> int:
    """One suit's standing counts split into sets (SETS), into sets and a pair (PAIRED), or neither
    (BROKEN); the tile count allows only one of the first two."""
    size = sum(counts) % 3
    if size == 0 and _suit_splits(counts, False):
        return SETS
    if size == 2 and _suit_splits(counts, True):
        return PAIRED
    return BROKEN


@lru_cache(maxsize=None)
def _sets_growth_table() -> dict[tuple[int, ...], int]:
    """For each count vector of one suit that one more tile turns into sets (an entry of
    _suit_sets_table less one tile): the ranks of the tiles that do, as bits (bit r for rank r).
    Built with that table (some 13,000 vectors, ~8 ms), so a wait search looks a suit up instead
    of trying each tile (fresh hands keep meeting suits not seen before)."""
    grown: dict[tuple[int, ...], int] = {}
    for counts in _suit_sets_table():
        for r in range(9):
            if counts[r]:
                less = counts[:r] + (counts[r] - 1,) + counts[r + 1:]
                grown[less] = grown.get(less, 0) | 1 << r
    return grown


@lru_cache(maxsize=None)
def _suit_growth(counts: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One suit's standing counts: (the ranks (0-8) whose tile makes them sets, the ranks whose
    tile makes them sets and a pair); the tile count says which of the two a grown suit can be."""
    growth = _sets_growth_table()
    if (sum(counts) + 1) % 3 != 2:
        return _ranks_of(growth.get(counts, 0)), ()
    grown = 0
    for p in range(9):
        if counts[p] >= 2:  # a pair held stays the pair, and the new tile completes the sets
            grown |= growth.get(counts[:p] + (counts[p] - 2,) + counts[p + 1:], 0)
    # or the new tile pairs one held and the rest are sets: counts less that tile, whose rank total
    # is then a multiple of 3 (see _pair_ranks), so p is the rank total of counts modulo 3
    table = _suit_sets_table()
    for p in range(sum(map(mul, range(9), counts)) % 3, 9, 3):
        if counts[p] and counts[:p] + (counts[p] - 1,) + counts[p + 1:] in table:
            grown |= 1 << p
    return (), _ranks_of(grown)


def _ranks_of(bits: int) -> tuple[int, ...]:
    return tuple([r for r in range(9) if bits >> r & 1])


def _special_waits(counts: tuple[int, ...], n_melds: int) -> set[int]:
    """Tiles that complete 十三幺, 全不靠 / 七星不靠 or a 组合龙 reading, whose waits need not
    touch the tiles held; each form is answered from its definition (see _standing_readings)."""
    out: set[int] = set()
    # both concealed-only forms hold twelve different tiles at least, thirteen for 全不靠
    if n_melds == 0 and T.PLAYING_TILES - counts.count(0) >= 12:
        orphans = [counts[i] for i in T.TERMINALS_AND_HONOURS]
        if sum(orphans) == 13:  # nothing but terminals and honours
            missing = [i for i, n in zip(T.TERMINALS_AND_HONOURS, orphans) if not n]
            if not missing:
                out.update(T.TERMINALS_AND_HONOURS)
            elif len(missing) == 1:  # then one of the twelve is held twice
                out.add(missing[0])
        if max(counts) == 1:  # thirteen different tiles: a 14th different one of a fitting pattern
            numbers = {i for i in range(T.NUMBER_TILES) if counts[i]}
            for pattern in KNITTED_PATTERNS:
                if numbers.issubset(pattern):
                    out.update(i for i in (*pattern, *range(T.NUMBER_TILES, T.PLAYING_TILES)) if not counts[i])
    if T.NUMBER_TILES - counts[:T.NUMBER_TILES].count(0) >= 8:
        rest = list(counts)
        for pattern, counts_of in zip(KNITTED_PATTERNS, _KNITTED_COUNTS):
            if counts_of(counts).count(0) > 1:  # the usual case, told from the nine counts alone
                continue
            missing = [i for i in pattern if not counts[i]]
            for i in pattern:
                rest[i] -= bool(counts[i])
            # all nine held: the rest waits as sets and a pair; eight: the rest must already be
            # sets and a pair, and the ninth completes the 组合龙
            if not missing:
                out |= _regular_waits(tuple(rest))
            elif _regular_fit(rest):
                out.add(missing[0])
            for i in pattern:
                rest[i] += bool(counts[i])
    return out
