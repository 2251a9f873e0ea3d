"""Read the hand: pick each tile's code from its box's top-k readings so the tiles form a winning hand.

The layout (from `vision.grouping`) fixes where every tile goes; this module chooses the codes.
Readings are enumerated from the most probable down (each tile's alternatives are independent,
so the k-best enumeration below is exact), and each one is checked by the scoring engine
itself (`scoring.score_json`): tile counts, at most four copies, real chows/pungs/kongs and a
winning decomposition. The winning reading that ranks highest (its probability times the
sort-order weight: players sort their tiles) is the answer; the next distinct winning reading is
the runner-up, reported when it is close. The readings tried also tell how sure the
score is (HandReading.score_probability): those that score alike count for it, those that
cannot win do not count against it.
"""

from __future__ import annotations

import functools
import heapq
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from scoring import Meld, ScoringError, get_ruleset, score_json
from vision.detections import BACK, FLOWER_CODES, PLAYING_CODES, TILE_CODES, Detection
from vision.grouping import Layout, MeldLayout, concealed_count, meld_codes, one_code, standing_excess
from vision.photo_errors import PhotoError

PLAYING_ORDER = {c: n for n, c in enumerate(TILE_CODES)}  # suits in order, then honours
CLEAR_ORDER = 3  # a row "clearly" ascends when it steps up at least this many times as often as down
# Four concealed tiles give only four steps, which a shuffled row or a sorted one of honours and
# pairs can take three to one either way by chance: too few to overrule the gap grouping saw.
MIN_ORDER_TILES = 5
# A winning tile this many tile widths apart from the row was set apart on purpose (a tile nudged
# or cut off by the photo's edge lies closer): its end is the player's right whatever the order.
CLEAR_APART = 0.75
# A reading of a sorted row that steps down within a suit is this much less likely per step.
OUT_OF_ORDER = 0.2
# Normalised probability below which an alternative is never tried. The search stops once no
# later reading can rank near the best winning one, so a low floor costs only the photos no
# likelier reading makes win.
MIN_ALTERNATIVE = 0.005
UNCERTAIN_BELOW = 0.9  # a chosen code less probable than this is reported as uncertain
ON_A_TILE = 0.9  # the stack model's probability that takes a meld's middle tile for a stacked kong's top
CLOSE_RUNNER_UP = 0.2  # a runner-up at least this probable relative to the best is reported
# Other flower readings scored to see whether the score hangs on which flower is which, under rules
# where it may: enough to cover the likely ones (a doubtful flower has two or three), few enough to
# cost about a millisecond.
FLOWER_READINGS = 12
MAX_TRIED = 600  # readings enumerated (most never reach the scorer) before giving up on a winning one
FARTHEST = 1e-4  # readings less probable than this, relative to the most probable, are not tried
# A tile at the player's left end of the concealed row whose centre lies this many tile widths
# from its neighbour's is set apart from the row (touching tiles: about one width).
FLOWER_APART = 1.6
# Past the row's right end, a tile read as a flower this many tile widths beyond the last one
# still belongs to the row; and the last of the row lies apart (the winning tile) when its centre
# is this many widths from its neighbour's.
FLOWER_IN_ROW_REACH = 2.0
WINNING_APART = 1.3


@dataclass(frozen=True)
class Reading:
    """One assignment of codes: per layout tile index (face-down kong tiles get the kong's code)."""

    codes: Mapping[int, str]
    winning: int  # layout index of the winning tile, -1 when none could be chosen
    hand: dict  # the JSON hand of scoring's schema, context included
    score: dict  # scoring's JSON result for `hand`
    probability: float  # joint probability of the chosen codes (per-tile top-k normalised)


@dataclass(frozen=True)
class HandReading:
    best: Reading  # the highest-ranked winning reading, else the most probable reading
    winning: bool  # whether `best` is a winning hand
    runner_up: Reading | None  # next distinct winning reading, when close to the best
    uncertain: tuple[int, ...]  # tiles whose chosen code is doubtful or differs from the top-1
    warnings: tuple[str, ...]
    # Probability that best's score (fans and total) is right, given that the photo shows a
    # winning hand with each flower once: the readings tried that score the same, over all but
    # those found not to win. Far above best.probability where the doubt lies in tiles the score
    # does not hang on (which flower, under MCR) or in readings that cannot win. A lower bound:
    # readings too improbable to try count as winning otherwise. 0 when no reading wins.
    score_probability: float = 0.0


def read_hand(
    layout: Layout,
    context: Mapping[str, object] | None = None,
    rules: str = "mcr",
    options: Mapping[str, object] | None = None,
    winning_tile: str | None = None,
    kong_codes: tuple[str, ...] = (),
    flowers: tuple[str, ...] | None = None,
) -> HandReading:
    """Choose the reading of `layout` that is a winning hand and ranks highest: its probability
    times the sort-order weight (`_order_weight`).

    `context` holds the JSON hand's win flags (self_drawn, seat_wind, ...). `winning_tile`
    names the winning tile when the photo does not show it set apart (or overrides it).
    `kong_codes` names, in order, the tiles of kongs laid with all four tiles face down.
    `flowers` names the winner's flowers, when the photo cannot tell which they are (their small
    numerals blur) or does not show them all.
    Codes passed in are assumed valid (the pipeline checks them). Raises PhotoError (not_winning)
    when the tile count cannot make a hand or tiles are unreadable.
    """
    warnings: list[str] = []
    kong_fill = _face_down_kongs(layout, kong_codes, warnings)
    choices = _tile_choices(layout, winning_tile, warnings)
    unseen_winner = _check_tile_count(layout, winning_tile)
    if unseen_winner:
        warnings.append(f"the winning tile {winning_tile} is not in the photo: taken as given")
    variables = sorted(choices)
    lists = [choices[i] for i in variables]
    if flowers is None:
        flower_options = _flower_options(layout)
        flower_codes, flower_prob, flowers_uncertain = _flower_codes(layout, flower_options)
        unseen_flowers: tuple[str, ...] = ()
    else:
        flower_codes, unseen_flowers = _named_flowers(layout, flowers)
        flower_options, flower_prob, flowers_uncertain = [], 1.0, ()
        if unseen_flowers:
            warnings.append(f"flower(s) {', '.join(unseen_flowers)} not in the photo: taken as given")

    def build(vector: tuple[int, ...]) -> tuple[dict[int, str], float]:
        codes = {i: lists[k][vector[k]][0] for k, i in enumerate(variables)}
        codes.update(flower_codes)
        prob = flower_prob * math.prod(lists[k][vector[k]][1] for k in range(len(variables)))
        # Face-down kong tiles show the kong's tile: its face-up tiles' or the caller's hint.
        # A tile read as a back elsewhere has face readings of its own (`_tile_choices`).
        for n, m in enumerate(layout.melds):
            down = [i for i in m.tiles if i not in choices]
            if down:
                shown = [codes[i] for i in m.tiles if i not in down]
                for i in down:
                    codes[i] = kong_fill[n] if n in kong_fill else shown[0]
        return codes, prob

    best: Reading | None = None
    runner_up: Reading | None = None
    first: Reading | None = None
    best_rank = runner_up_rank = 0.0
    scored: list[tuple[float, tuple]] = []  # (probability, score key) of the winning readings
    not_winning = 0.0  # probability of the readings found to make no winning hand
    top_codes, top_prob = build((0,) * len(lists))
    order_weight = _order_weight(layout, top_codes)
    for tried, vector in enumerate(_k_best(lists)):
        codes, prob = build(vector)
        if tried >= MAX_TRIED or prob < FARTHEST * top_prob:
            break
        # A reading ranks at most its probability: none later can be the best or a close runner-up.
        if best is not None and (prob < CLOSE_RUNNER_UP * best_rank or prob < runner_up_rank):
            break
        if not _kongs_agree(layout, codes):
            not_winning += prob
            continue
        rank = prob * order_weight(codes)
        if best is not None and rank < max(CLOSE_RUNNER_UP * best_rank, runner_up_rank):
            continue
        # A reading whose melds are no chows, pungs or kongs cannot win: on test photos four in
        # five readings scored were such, and scoring each cost more than telling so. The first
        # reading is still scored, as the one shown when none wins.
        if first is not None and not _melds_form(layout, codes):
            not_winning += prob
            continue
        reading = _score_reading(layout, codes, prob, winning_tile, context, rules, options, unseen_winner,
                                 unseen_flowers)
        if first is None:
            first = reading
        if not _is_winning(reading.score):
            not_winning += prob
            continue
        scored.append((prob, _score_key(reading.score)))
        if best is None or rank > best_rank:
            rivals = [(r, k) for r, k in ((best, best_rank), (runner_up, runner_up_rank))
                      if r is not None and hand_key(r.hand, flowers=False) != hand_key(reading.hand, flowers=False)]
            runner_up, runner_up_rank = max(rivals, key=lambda rk: rk[1], default=(None, 0.0))
            best, best_rank = reading, rank
        elif hand_key(reading.hand, flowers=False) != hand_key(best.hand, flowers=False) and rank > runner_up_rank:
            runner_up, runner_up_rank = reading, rank
    if runner_up is not None and runner_up_rank < CLOSE_RUNNER_UP * best_rank:
        runner_up = None
    if first is None:  # every reading had face-up kong tiles that disagree
        first = _score_reading(layout, top_codes, top_prob, winning_tile, context, rules, options, unseen_winner,
                               unseen_flowers)
    chosen = best or first
    if layout.winning is None and winning_tile is None and _winning_tile_decides(chosen.hand, chosen.score, rules,
                                                                                   options):
        warnings.append(
            f"no tile was set apart as the winning tile; took {chosen.hand['winning_tile']}: "
            "give the right one with --winning-tile"
        )
    uncertain = tuple(
        i
        for k, i in enumerate(variables)
        if chosen.codes[i] != top_codes[i] or dict(lists[k])[chosen.codes[i]] < UNCERTAIN_BELOW
    ) + flowers_uncertain
    score_probability = 0.0
    if best is not None:
        key = _score_key(best.score)
        same = sum(p for p, k in scored if k == key) / (flower_prob - not_winning)  # flower_prob: all readings
        score_probability = min(1.0, same * _same_score_flowers(best, flower_options, flower_prob, rules, options))
    return HandReading(chosen, best is not None, runner_up, uncertain, tuple(warnings), score_probability)


def _face_down_kongs(layout: Layout, kong_codes: tuple[str, ...], warnings: list[str]) -> dict[int, str]:
    """Codes for kongs whose four tiles all lie face down, from the caller's hints, which name
    them left to right as seen in the photo (along its rows, where it was taken askew); hints
    beyond those kongs are warned of. A hint naming a stacked kong (`stacked_kongs_named`) is its own."""
    kong_codes = _beyond_stacked(layout, kong_codes)
    hidden = sorted(
        (n for n, m in enumerate(layout.melds) if all(layout.tiles[i].code == BACK for i in m.tiles)),
        key=lambda n: min(layout.level[i].box[0] for i in layout.melds[n].tiles),
    )
    if len(kong_codes) < len(hidden):
        raise PhotoError(
            "not_winning",
            "unknown_kong",
            f"{len(hidden)} concealed kong(s) lie with all four tiles face down, so their tile cannot "
            "be seen; name each with --kong CODE (e.g. --kong 5p)",
        )
    if len(kong_codes) > len(hidden):
        warnings.append(
            f"--kong {' '.join(kong_codes[len(hidden):])}: ignored, the photo shows "
            f"{len(hidden)} kong(s) with all four tiles face down"
        )
    return dict(zip(hidden, kong_codes))


def _flower_options(layout: Layout) -> list[list[tuple[str, float]]]:
    """Each flower tile's flower codes, most probable first, normalised among the flowers."""
    return [
        _normalised(layout.tiles[i].alternatives or ((layout.tiles[i].code, layout.tiles[i].confidence),), FLOWER_CODES)
        or [(code, 1 / len(FLOWER_CODES)) for code in sorted(FLOWER_CODES)]  # read as no flower: any
        for i in layout.flowers
    ]


def _flower_codes(layout: Layout, options: list[list[tuple[str, float]]]) -> tuple[dict[int, str], float, tuple[int, ...]]:
    """The flowers' codes, their joint probability and the doubtful ones.

    Each flower exists once, so two flower tiles never share a code: the most probable
    assignment of distinct codes among their flower alternatives wins (the eight flowers
    differ only by a small numeral and character, which photos blur). With no distinct
    assignment among the alternatives each keeps its top reading and scoring reports the clash.
    """
    best = _distinct_codes(options) or [o[0] for o in options]
    uncertain = tuple(
        i for i, (code, p), top in zip(layout.flowers, best, options) if code != top[0][0] or p < UNCERTAIN_BELOW
    )
    return {i: code for i, (code, _) in zip(layout.flowers, best)}, math.prod(p for _, p in best), uncertain


def _same_score_flowers(best: Reading, options: list[list[tuple[str, float]]], flower_prob: float, rules: str,
                        rule_options: Mapping[str, object] | None) -> float:
    """Probability of the flower readings with which `best` scores as it does, given that no
    flower is there twice: all of them where the rules count flowers alike; else of the
    FLOWER_READINGS likeliest, so a lower bound."""
    if not options or get_ruleset(rules).flowers_alike:
        return 1.0
    key = _score_key(best.score)
    mass, twice = flower_prob, 0.0  # best's own flowers; readings naming a flower twice
    for n, vector in enumerate(_k_best(options)):
        if n == FLOWER_READINGS:
            break
        codes = [options[k][v][0] for k, v in enumerate(vector)]
        p = math.prod(options[k][v][1] for k, v in enumerate(vector))
        if len(set(codes)) < len(codes):
            twice += p
        elif codes != best.hand["flowers"] and _score_key(
                score_json({**best.hand, "flowers": codes}, rules=rules,
                           options=dict(rule_options) if rule_options else None)) == key:
            mass += p
    return mass / (1 - twice)


def _named_flowers(layout: Layout, named: tuple[str, ...]) -> tuple[dict[int, str], tuple[str, ...]]:
    """The flower tiles' codes among the flowers the caller named, each tile the named code it
    most resembles (each flower exists once), and the named flowers no tile took."""
    if len(layout.flowers) > len(named):
        raise PhotoError(
            "not_winning",
            "flower_count",
            f"{len(layout.flowers)} tile(s) read as flowers, but {len(named)} flower(s) named: "
            "name every flower in the photo",
        )
    options = []
    for i in layout.flowers:
        read = dict(_normalised(layout.tiles[i].alternatives or ((layout.tiles[i].code, 1.0),), frozenset(named)))
        # A named flower the tile does not resemble at all still takes it when no other is left.
        options.append([(code, read.get(code, MIN_ALTERNATIVE / 10)) for code in named])
    chosen = _distinct_codes(options)
    codes = {i: code for i, (code, _) in zip(layout.flowers, chosen)}
    return codes, tuple(code for code in named if code not in codes.values())


def _distinct_codes(options: list[list[tuple[str, float]]]) -> list[tuple[str, float]]:
    """The most probable choice of one (code, probability) per option list with no code twice;
    empty when there is none."""
    # One list at a time, keeping per set of codes used so far its most probable choice:
    # exact, and at most 2^8 sets, where trying every combination of eight flowers' eight
    # alternatives took seconds.
    by_used: dict[frozenset[str], tuple[float, tuple[tuple[str, float], ...]]] = {frozenset(): (1.0, ())}
    for option in options:
        step: dict[frozenset[str], tuple[float, tuple[tuple[str, float], ...]]] = {}
        for used, (prob, chosen) in by_used.items():
            for code, p in option:
                key = used | {code}
                if code not in used and (key not in step or prob * p > step[key][0]):
                    step[key] = (prob * p, chosen + ((code, p),))
        by_used = step
    return list(max(by_used.values(), key=lambda v: v[0])[1]) if by_used else []


def _order_weight(layout: Layout, top_codes: Mapping[int, str]) -> Callable[[Mapping[int, str]], float]:
    """How much a reading keeps the order players lay their tiles in.

    Players sort their tiles: when the most probable reading of the concealed row mostly ascends
    within each suit, a reading that puts a tile out of its suit's order (the nine of a 7-8-9
    read as a six) is less likely than its classifier odds say, by OUT_OF_ORDER per descending
    step; so is one that splits a suit, or the honours, into two blocks (the 1s heading 1-2-3s
    read as an honour), per extra block: sorting puts each suit together, in whatever order of
    suits. A row that is not clearly sorted weighs every reading alike. Players lay an exposed
    chow in order too, so a reading whose chow runs neither up nor down along the meld (7-8-6)
    is OUT_OF_ORDER less likely, whatever the row.
    """
    row = list(layout.concealed)
    up, down = _suit_steps([top_codes[i] for i in row if i in top_codes])
    row_sorted = up >= CLEAR_ORDER * max(down, 1) and up + down >= MIN_ORDER_TILES - 1
    threes = [m.tiles for m in layout.melds if len(m.tiles) == 3 and not m.stacked]

    def weight(codes: Mapping[int, str]) -> float:
        steps = sum(_chow_out_of_order([codes[i] for i in m]) for m in threes)
        if row_sorted:
            read = [codes[i] for i in row if i in codes]
            steps += _suit_steps(read)[1] + _split_suits(read)
        return OUT_OF_ORDER ** steps

    return weight


def _chow_out_of_order(meld: list[str]) -> bool:
    """Whether three tiles read as a chow lie other than in rank order, up or down."""
    if len({c[1] for c in meld}) > 1 or meld[0][1] not in "mps":
        return False
    ranks = [int(c[0]) for c in meld]
    low = min(ranks)
    return sorted(ranks) == [low, low + 1, low + 2] and ranks[1] != low + 1


def _suit_steps(row: list[str]) -> tuple[int, int]:
    """Steps up and down between neighbouring tiles of one number suit."""
    pairs = [(a, b) for a, b in zip(row, row[1:]) if a[1] == b[1] and a[1] in "mps" and a != b]
    up = sum(a[0] < b[0] for a, b in pairs)
    return up, len(pairs) - up


def _split_suits(row: list[str]) -> int:
    """Blocks of one suit (or of honours) beyond the first, along the row."""
    blocks = [a[1] for k, a in enumerate(row) if k == 0 or row[k - 1][1] != a[1]]
    return len(blocks) - len(set(blocks))


def _normalised(
    alternatives: tuple[tuple[str, float], ...], allowed: frozenset[str] = PLAYING_CODES
) -> list[tuple[str, float]]:
    candidates = [(c, p) for c, p in alternatives if c in allowed and p > 0]
    total = sum(p for _, p in candidates)
    if not candidates:
        return []
    kept = [(c, p / total) for c, p in candidates if p / total >= MIN_ALTERNATIVE]
    return sorted(kept, key=lambda cp: -cp[1])


def _tile_choices(
    layout: Layout, winning_tile: str | None, warnings: list[str]
) -> dict[int, list[tuple[str, float]]]:
    """Candidate codes, most probable first, for every face-up tile of the hand."""
    in_hand = list(layout.concealed) + [i for m in layout.melds for i in m.tiles]
    if layout.winning is not None:
        in_hand.append(layout.winning)
    choices: dict[int, list[tuple[str, float]]] = {}
    unreadable = []
    for i in in_hand:
        tile = layout.tiles[i]
        alternatives = tile.alternatives or ((tile.code, tile.confidence),)
        if tile.code == BACK and any(i in m.tiles and m.concealed for m in layout.melds):
            continue  # takes the kong's code
        options = _normalised(alternatives)
        if tile.code == BACK:
            # Only a concealed kong's tiles lie face down: this one shows a face the classifier
            # found nearly as plain as a back (a white dragon, a blurred tile); its faces keep
            # their small odds, so the reading's confidence says how doubtful it is.
            face = sum(p for c, p in alternatives if c in PLAYING_CODES)
            options = [(c, p * face) for c, p in options]
        if not options:
            unreadable.append(i)
            continue
        choices[i] = options
    if unreadable:
        raise PhotoError(
            "not_winning",
            "unreadable_tiles",
            f"{len(unreadable)} tile(s) of the hand lie face down or could not be read as a playing tile",
        )
    if winning_tile is not None and layout.winning is not None:
        seen = choices[layout.winning]
        if seen[0][0] != winning_tile:
            warnings.append(
                f"the tile set apart reads {seen[0][0]}, but the winning tile was given as {winning_tile}; "
                "used the latter"
            )
        choices[layout.winning] = [(winning_tile, dict(seen).get(winning_tile, seen[0][1]))]
    return choices


def _check_tile_count(layout: Layout, winning_tile: str | None) -> bool:
    """Whether the winning tile, given by the caller, is missing from the photo (the hand is
    otherwise complete, with no tile set apart); raises PhotoError when the count is wrong."""
    standing = len(layout.concealed) + (layout.winning is not None)
    expected = concealed_count(len(layout.melds))
    unseen = layout.winning is None and standing == expected - 1  # could be the winning tile
    if unseen and winning_tile is not None:
        return True
    if standing != expected:
        melds = f" beside {len(layout.melds)} meld(s)" if layout.melds else ""
        total = standing + sum(len(m.tiles) + m.stacked for m in layout.melds)
        raise PhotoError(
            "not_winning",
            "tile_count",
            f"read {total} tile{'s' * (total != 1)}: {standing} concealed{melds}; a winning hand needs {expected} concealed "
            f"tiles{melds} (14 tiles, plus one per kong)"
            + ("; if the winning tile is not in the photo, name it with --winning-tile (e.g. 5p)" if unseen else ""),
        )


def _k_best(lists: list[list[tuple[str, float]]]):
    """Index vectors into `lists` (each sorted by falling probability) in order of falling product.

    Each vector has one parent (lower its last raised position), so none repeats; a child is
    never more probable than its parent, so a heap yields them best first.
    """
    logs = [[math.log(max(p, 1e-12)) for _, p in options] for options in lists]
    start = (0,) * len(lists)
    heap = [(-sum(l[0] for l in logs), start, 0)]
    while heap:
        neg, vector, pivot = heapq.heappop(heap)
        yield vector
        for k in range(pivot, len(lists)):
            if vector[k] + 1 < len(lists[k]):
                child = vector[:k] + (vector[k] + 1,) + vector[k + 1 :]
                cost = neg - logs[k][vector[k] + 1] + logs[k][vector[k]]
                heapq.heappush(heap, (cost, child, k))


def _melds_form(layout: Layout, codes: Mapping[int, str]) -> bool:
    """Whether each meld's tiles, as `codes` reads them, form a chow, pung or kong."""
    return all(_is_meld(meld_codes([codes[i] for i in m.tiles], m.stacked)) for m in layout.melds)


@functools.lru_cache(maxsize=4096)
def _is_meld(codes: tuple[str, ...]) -> bool:
    try:
        Meld.from_tiles(codes)
    except ScoringError:
        return False
    return True


def _kongs_agree(layout: Layout, codes: Mapping[int, str]) -> bool:
    """The face-up tiles of a concealed kong must all show the same tile."""
    for m in layout.melds:
        if m.concealed and len({codes[i] for i in m.tiles}) > 1:
            return False
    return True


def _score_reading(
    layout: Layout,
    codes: dict[int, str],
    probability: float,
    winning_tile: str | None,
    context: Mapping[str, object] | None,
    rules: str,
    options: Mapping[str, object] | None,
    unseen_winner: bool,
    unseen_flowers: tuple[str, ...],
) -> Reading:
    """Score the reading with its winning tile: the code given, when `unseen_winner` says that
    tile is not in the photo; else the set-apart tile; else a concealed tile of the code given;
    else the tile at the player's right end of the row, then the left end (where a winning tile
    is laid even when no gap shows), then, unless the ends fail whatever the winning tile
    (`_fails_whatever_the_winner`: on test photos, every time both failed), the highest-scoring
    of the other codes."""
    options = dict(options) if options else None
    if unseen_winner:
        hand = {**_hand_dict(layout, codes, None, context, unseen_flowers), "winning_tile": winning_tile}
        return Reading(codes, -1, hand, score_json(hand, rules=rules, options=options), probability)

    def scored(w: int) -> tuple[dict, dict, int]:
        hand = _hand_dict(layout, codes, w, context, unseen_flowers)
        return hand, score_json(hand, rules=rules, options=options), w

    if layout.winning is not None:
        ends, others = [layout.winning], []
    elif winning_tile is not None:
        ends, others = [i for i in reversed(layout.concealed) if codes[i] == winning_tile][:1], []
    else:
        ends = [layout.concealed[-1], layout.concealed[0]]
        if _seen_from_across(layout, codes):
            ends.reverse()
        rightmost = {codes[i]: i for i in layout.concealed}
        others = [i for i in rightmost.values() if i not in ends]
    if not ends:
        message = f"no concealed tile reads {winning_tile}, the winning tile given"
        score = {"ok": False, "error": {"code": "winning_tile_missing", "message": message}}
        return Reading(codes, -1, _hand_dict(layout, codes, None, context, unseen_flowers), score, probability)
    results = [scored(w) for w in ends]
    winning = [r for r in results if _is_winning(r[1])]
    if not winning and others and not all(_fails_whatever_the_winner(r[1]) for r in results):
        results += [scored(w) for w in others]
    hand, score, w = winning[0] if winning else max(results, key=lambda r: (_is_winning(r[1]), r[1].get("total", -1)))
    return Reading(codes, w, hand, score, probability)


def orient(layout: Layout, winning_tile: str | None = None) -> Layout:
    """Undo a view direction that the tiles' order contradicts.

    Grouping takes the end where a tile lies apart for the winning tile's end (the player's
    right). A tile can also lie apart at the other end (cut off by the photo's edge, nudged) while
    the winning tile touches the row. Players sort their tiles, so when the row, read from the
    winning tile's end backwards, clearly ascends, the winning tile is at the other end. A tile
    set clearly apart (CLEAR_APART) at the image's right is the winning tile whatever the order:
    some players sort the other way round. (At the image's left a tile set apart may as well be a
    flower, which players lay apart at their left.) A caller's named `winning_tile` that the tile
    taken reads keeps it whatever the order (some players lay the winning tile at their left);
    one that the row's first tile reads, lying further apart, takes that tile; else the order
    decides, and the name corrects the tile taken.
    """
    if layout.winning is None or len(layout.concealed) < MIN_ORDER_TILES:
        return layout
    image = list(layout.concealed) + [layout.winning]  # player's order
    if layout.reversed_view:
        image.reverse()  # now left to right in the photo
    # read from the row's other end: the player sits on our side after all, or across the table
    turned = replace(layout, concealed=(layout.winning,) + layout.concealed[:0:-1], winning=layout.concealed[0],
                     reversed_view=not layout.reversed_view)
    start, taken = (layout.tiles[i].code for i in (layout.concealed[0], layout.winning))
    if taken == winning_tile:
        return layout
    if start == winning_tile and _start_further_apart(layout):
        return turned
    if not layout.reversed_view and _clearly_apart(layout):
        return layout
    ascends_in_image, descends_in_image = _clear_order([PLAYING_ORDER.get(layout.tiles[i].code, -1) for i in image])
    if not (ascends_in_image if layout.reversed_view else descends_in_image):
        return layout
    if winning_tile is not None or not _clearly_apart(layout):  # a tile nudged or cut off says nothing
        return turned
    apart = layout.tiles[layout.winning].code
    return replace(turned, warnings=turned.warnings + (
        f"the tile set apart from the row at its other end ({apart}) was read as a tile of the row, which is "
        f"sorted from it; if it is the winning tile, name it: --winning-tile {apart}",))


def _start_further_apart(layout: Layout) -> bool:
    """Whether the row's first tile lies further from the next than the winning tile from the row."""
    axis = _row_axis(layout)
    if axis is None:
        return False
    along = axis[0]
    first, second, last = layout.concealed[0], layout.concealed[1], layout.concealed[-1]
    return abs(along(second) - along(first)) > abs(along(layout.winning) - along(last))


def _clearly_apart(layout: Layout) -> bool:
    """Whether the winning tile lies CLEAR_APART tile widths or more from the end of the row."""
    axis = _row_axis(layout)
    if axis is None:
        return False
    along, _, width, _ = axis
    gap = abs(along(layout.winning) - along(layout.concealed[-1])) - width
    return gap >= CLEAR_APART * width


def flowers_set_apart(layout: Layout) -> Layout:
    """Read as flowers the tiles set apart at the player's left end of the concealed row when
    the row holds exactly that many tiles too many.

    Players lay their flowers apart, at the left of the hand; a flower misread as a playing tile
    (flower art varies most between sets) would otherwise join the row and spoil the count.
    """
    excess = standing_excess(layout)
    if not 0 < excess < len(layout.concealed) or len(layout.flowers) + excess > len(FLOWER_CODES):
        return layout
    last, first_kept = layout.level[layout.concealed[excess - 1]], layout.level[layout.concealed[excess]]
    width = max(min(last.width, last.height), min(first_kept.width, first_kept.height))
    if math.dist(last.center, first_kept.center) < FLOWER_APART * width:
        return layout
    return replace(
        layout,
        concealed=layout.concealed[excess:],
        flowers=layout.flowers + layout.concealed[:excess],
        warnings=layout.warnings + (
            f"{excess} tile(s) lie apart at the left of a hand that has {excess} tile(s) too many: "
            "read as flowers",),
    )


def flowers_in_the_row(layout: Layout) -> Layout:
    """Read as playing tiles the flowers lying in line with the concealed row, on the player's
    right of its first tile, when the row is exactly that many tiles short.

    Grouping already puts back a flower that fills a hole between two touching tiles. Others lie
    where flowers could lie too: at the row's end before the winning tile (where a sorted hand
    keeps its dragons), or, when no tile was set apart, past the row's right end, where the last
    tiles and the winning tile go. Only the count tells: players lay flowers apart at the left,
    so when the row lacks just those tiles they are playing tiles drawn like flowers in this set
    (a framed White dragon). With no winning tile yet, the last of them becomes the winning tile
    when it lies apart.
    """
    missing = -standing_excess(layout)
    axis = _row_axis(layout)
    if missing <= 0 or axis is None:
        return layout
    along, across, width, span = axis
    candidates = sorted((i for i in layout.flowers if along(i) > 0 and abs(across(i)) < width), key=along)
    if layout.winning is not None:
        inside = [i for i in candidates if along(i) < along(layout.winning)]
    else:
        inside, end = [], span
        for i in candidates:
            if along(i) - end > FLOWER_IN_ROW_REACH * width:
                break
            inside.append(i)
            end = max(end, along(i))
    if len(inside) != missing:
        return layout
    concealed = sorted(layout.concealed + tuple(inside), key=along)
    winning = layout.winning
    if winning is None and concealed[-1] in inside and along(concealed[-1]) - along(concealed[-2]) > WINNING_APART * width:
        winning = concealed.pop()
    return replace(
        layout,
        concealed=tuple(concealed),
        winning=winning,
        flowers=tuple(i for i in layout.flowers if i not in inside),
        warnings=layout.warnings + (
            f"{missing} tile(s) read as flowers lie in line with a row that is {missing} tile(s) short: "
            "read as playing tiles",),
    )


def playing_tiles_among_the_flowers(layout: Layout) -> Layout:
    """Put back into the concealed row the tiles among the flowers that read as playing tiles,
    when the row is exactly that many tiles short.

    Grouping counts a tile lying apart at the row's end, touching a flower, as a flower when a
    flower is among its readings; but players also leave a gap after the first tiles of the row.
    The count tells which: the twin of `flowers_set_apart`, for a row too short.
    """
    missing = -standing_excess(layout)
    playing = tuple(i for i in layout.flowers if layout.tiles[i].code in PLAYING_CODES)
    if missing <= 0 or len(playing) != missing:
        return layout
    axis = _row_axis(layout)
    # Flowers lie at the player's left: a row of one tile has no direction to sort along.
    concealed = playing + layout.concealed if axis is None else tuple(sorted(layout.concealed + playing, key=axis[0]))
    return replace(
        layout,
        concealed=concealed,
        flowers=tuple(i for i in layout.flowers if i not in playing),
        warnings=layout.warnings + (
            f"{missing} tile(s) set with the flowers read as playing tiles, and the row is {missing} tile(s) "
            "short: read as hand tiles",),
    )


def _row_axis(layout: Layout) -> tuple[Callable[[int], float], Callable[[int], float], float, float] | None:
    """Distance of a tile's centre along the concealed row from its first tile and across it,
    the row's tile width and its length; None for a row of fewer than two tiles."""
    if len(layout.concealed) < 2:
        return None
    row = [layout.level[i] for i in layout.concealed]
    (x0, y0), (x1, y1) = row[0].center, row[-1].center
    span = math.hypot(x1 - x0, y1 - y0)
    if span == 0:
        return None
    ux, uy = (x1 - x0) / span, (y1 - y0) / span

    def along(i: int) -> float:
        cx, cy = layout.level[i].center
        return (cx - x0) * ux + (cy - y0) * uy

    def across(i: int) -> float:
        cx, cy = layout.level[i].center
        return -(cx - x0) * uy + (cy - y0) * ux

    return along, across, max(min(t.width, t.height) for t in row), span


def _read_by_all(layout: Layout, tiles: Sequence[int]) -> set[str]:
    """The playing codes among the readings of every one of `tiles`."""
    readings = [{code for code, _ in layout.tiles[i].alternatives} or {layout.tiles[i].code} for i in tiles]
    return set.intersection(*readings) & PLAYING_CODES


def stacked_kongs_named(layout: Layout, kong_codes: Sequence[str]) -> Layout:
    """The layout with a three-tile exposed meld taken for a stacked kong for each code of
    `kong_codes` that it reads (`one_code`): seen from straight above, a kong with its fourth tile
    on the middle one shows no more than a pung does."""
    named = list(_beyond_stacked(layout, kong_codes))
    melds = list(layout.melds)
    for n, m in enumerate(melds):
        code = _may_lie_stacked(layout, m)
        if code in named:
            named.remove(code)
            melds[n] = replace(m, stacked=True)
    return layout if tuple(melds) == layout.melds else replace(layout, melds=tuple(melds))


def stacked_kongs_seen(layout: Layout, on_a_tile: Callable[[Sequence[Detection]], Sequence[float]] | None) -> Layout:
    """The layout with each three-tile exposed meld that reads one tile taken for a stacked kong
    where `on_a_tile` (the stack model, vision.stacking; None: none) sees its middle tile lying on
    another (ON_A_TILE): the boxes alone cannot tell one seen from above (grouping._raised)."""
    if on_a_tile is None:
        return layout
    # A meld with tiles face down is a concealed kong (grouping._as_stacked), never shown to the model.
    candidates = [n for n, m in enumerate(layout.melds) if _may_lie_stacked(layout, m) is not None
                  and all(layout.tiles[i].code != BACK for i in m.tiles)]
    if not candidates:
        return layout
    seen = on_a_tile([layout.tiles[layout.melds[n].tiles[1]] for n in candidates])
    stacked = {n for n, p in zip(candidates, seen) if p >= ON_A_TILE}
    if not stacked:
        return layout
    return replace(layout, melds=tuple(replace(m, stacked=True) if n in stacked else m
                                       for n, m in enumerate(layout.melds)))


def _may_lie_stacked(layout: Layout, meld: MeldLayout) -> str | None:
    """The code of an exposed meld of three tiles not read stacked that read one tile (`one_code`:
    a chow is never stacked): what a kong laid with its fourth tile on the middle one shows; else
    None."""
    if len(meld.tiles) != 3 or meld.stacked or meld.concealed:
        return None
    return one_code(layout.tiles, meld.tiles)


def _beyond_stacked(layout: Layout, kong_codes: Sequence[str]) -> tuple[str, ...]:
    """`kong_codes` without one code for each stacked kong of the layout that reads it: those name
    kongs already seen."""
    left = list(kong_codes)
    for m in layout.melds:
        code = one_code(layout.tiles, m.tiles)
        if m.stacked and code in left:
            left.remove(code)
    return tuple(left)


def four_tile_runs_that_are_no_kong(layout: Layout) -> Layout:
    """Read as concealed tiles the four-tile melds that can be no kong (no code among all four
    tiles' readings; none face down or sideways) when the hand is one tile short per such meld.

    The detector's meld boxes sometimes fall on four concealed tiles lying apart (a pair and a
    pair, say); taken for a kong, they leave the concealed row a tile short.
    """
    no_kongs = [m for m in layout.melds
                if len(m.tiles) == 4 and m.claimed is None and not _read_by_all(layout, m.tiles)
                and all(layout.tiles[i].code != BACK for i in m.tiles)]
    if not no_kongs or -standing_excess(layout) != len(no_kongs):
        return layout
    # The player's order along the row: left to right in the photo, or the reverse from across.
    hand = sorted(list(layout.concealed) + [i for m in no_kongs for i in m.tiles],
                  key=lambda i: layout.level[i].center[0], reverse=layout.reversed_view)
    return replace(
        layout,
        concealed=tuple(hand),
        melds=tuple(m for m in layout.melds if m not in no_kongs),
        warnings=layout.warnings + (
            f"{len(no_kongs)} run(s) of four tiles that can be no kong were read as concealed tiles",),
    )


def _seen_from_across(layout: Layout, codes: Mapping[int, str]) -> bool:
    """Whether a row with no tile set apart was photographed from across the table, so that the
    player's right end is on the image's left. Players lay their flowers apart at their left, so
    flowers on the image's right of the row say so; else players sort their tiles, so a row that
    clearly descends in the photo says so. A shuffled row says nothing, and the photo's right
    end stays the player's."""
    row = layout.concealed
    if layout.flowers:
        middle = sum(layout.level[i].center[0] for i in row) / len(row)
        return all(layout.level[i].center[0] > middle for i in layout.flowers)
    return len(row) >= MIN_ORDER_TILES and _clear_order([PLAYING_ORDER[codes[i]] for i in row])[1]


def _clear_order(order: list[int]) -> tuple[bool, bool]:
    """Whether a row of tile ranks clearly ascends, and whether it clearly descends."""
    up = sum(a < b for a, b in zip(order, order[1:]))
    down = sum(a > b for a, b in zip(order, order[1:]))
    return up >= CLEAR_ORDER * max(down, 1), down >= CLEAR_ORDER * max(up, 1)


def _hand_dict(
    layout: Layout, codes: Mapping[int, str], winning: int | None, context: Mapping[str, object] | None,
    unseen_flowers: tuple[str, ...],
) -> dict:
    """The JSON hand; with `winning` None (not known) the winning tile is left out. The flowers are
    those in the photo and `unseen_flowers`, named by the caller but not seen."""
    melds = []
    for m in layout.melds:
        tiles = list(meld_codes([codes[i] for i in m.tiles], m.stacked))
        kind = "kong" if len(tiles) == 4 else "pung" if len(set(tiles)) == 1 else "chow"
        meld = {"kind": kind, "tiles": tiles, "concealed": m.concealed}
        if m.claimed is not None:
            meld["claimed"] = codes[m.claimed]
        melds.append(meld)
    hand = {
        "concealed": [codes[i] for i in layout.concealed if i != winning],
        "melds": melds,
        "winning_tile": codes[winning] if winning is not None else None,
        "flowers": [codes[i] for i in layout.flowers] + list(unseen_flowers),
    }
    hand.update(context or {})
    return hand


def _winning_tile_decides(hand: Mapping[str, Any], score: Mapping[str, object], rules: str,
                          options: Mapping[str, object] | None) -> bool:
    """Whether another of the hand's tiles as its winning tile would score otherwise (fans or
    total), or the hand does not win: only then is a winning tile the photo does not set apart
    worth a word."""
    if not _is_winning(score):
        return True
    tiles = [*hand["concealed"], hand["winning_tile"]]
    for code in set(tiles) - {hand["winning_tile"]}:
        concealed = list(tiles)
        concealed.remove(code)
        other = score_json({**hand, "concealed": concealed, "winning_tile": code}, rules=rules, options=options)
        if _is_winning(other) and _score_key(other) != _score_key(score):
            return True
    return False


def _is_winning(score: Mapping[str, object]) -> bool:
    return bool(score.get("ok")) and score.get("reason") != "not_winning"


# Failures of the tiles themselves: which of the concealed tiles is the winning one cannot mend
# them (the winning tile's choice leaves the 14 tiles as they are). Only the win flags that name
# the winning tile (robbing a kong, the last copy) can clash with one choice and not another.
WINNER_BLIND_ERRORS = frozenset({"too_many_copies", "wrong_tile_count", "bad_meld", "flower_in_hand", "unknown_tile"})


def _fails_whatever_the_winner(score: Mapping[str, Any]) -> bool:
    if score.get("ok"):
        return score.get("reason") == "not_winning"
    return score["error"]["code"] in WINNER_BLIND_ERRORS


def _score_key(score: Mapping[str, object]) -> tuple:
    """What a reader of the score sees: the fans with their counts, and the total."""
    return score.get("total"), tuple(sorted((f["key"], f["count"]) for f in score.get("fans", ())))


def hand_key(hand: Mapping[str, Any], flowers: bool = True) -> tuple:
    """The tiles of a hand in an order-independent form: two readings of one hand compare equal.
    Without `flowers`, readings that differ only in which flower a tile is compare equal too."""
    melds = sorted((m.get("kind"), tuple(sorted(m.get("tiles", []))), bool(m.get("concealed")))
                   for m in hand.get("melds", []))
    key = (tuple(sorted(hand.get("concealed", []))), tuple(melds), hand.get("winning_tile"))
    return key + (tuple(sorted(hand.get("flowers", []))),) if flowers else key
