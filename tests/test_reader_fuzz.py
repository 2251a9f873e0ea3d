"""Whatever the detector hands over, reading ends in a score or a coded error, never a traceback.

Seeded random scenes: a winning hand or random tiles in a row (tilted, bent, turned round,
sideways tiles), melds and kongs with and without the detector's group boxes, flowers, stray and
degenerate boxes, random alternatives (backs and flowers among them), the whole photo turned
askew, every rule set.
"""

from __future__ import annotations

import json
import random

import pytest

from tests.synthetic_boxes import RowSpec, group_box, row_detections, turned
from vision.detections import BACK, GROUP_CLASSES, TILE_CODES, Detection
from vision.grouping import FLOWER_CODES
from vision.photo_errors import EXIT_CODES
from vision.pipeline import read_detections

PLAYING = [c for c in TILE_CODES if c not in FLOWER_CODES]
FLOWERS = [c for c in TILE_CODES if c in FLOWER_CODES]
ANY = PLAYING + FLOWERS + [BACK]
WINNING = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "7z", "7z", "7z"]
MELDS = [["2s", "3s", "4s"], ["6z"] * 3, ["back", "1p", "1p", "back"], ["4m"] * 4, ["back"] * 4, ["2z", "2z", "back"]]


def _alternatives(rng: random.Random, code: str) -> tuple[tuple[str, float], ...]:
    codes = list(dict.fromkeys([code] + rng.sample(ANY, rng.randint(1, 6))))
    weights = sorted((rng.random() for _ in codes), reverse=True)
    return tuple((c, w / sum(weights)) for c, w in zip(codes, weights))


def _scene(rng: random.Random) -> list[Detection]:
    if rng.random() < 0.6:
        melds = rng.choice([0, 0, 1, 2])
        codes = WINNING[: 12 - 3 * melds] + WINNING[-2:]
    else:
        codes = [rng.choice(PLAYING) for _ in range(rng.choice([1, 4, 10, 13, 14, 16]))]
    n = len(codes)
    detections = row_detections(RowSpec(
        codes,
        gaps_after={n - 2: rng.choice([0.0, 20.0])},
        probs={k: _alternatives(rng, codes[k]) for k in range(n) if rng.random() < 0.4},
        sideways={rng.randrange(n)} if rng.random() < 0.2 else set(),
        angle_deg=rng.choice([0.0, 0.0, 10.0, 180.0, 90.0, -30.0]),
        shrink=rng.choice([0.0, 0.2]),
        bend=rng.choice([0.0, 10.0]),
    ))
    for m in range(rng.choice([0, 0, 1, 2, 3])):
        meld = rng.choice(MELDS) if rng.random() < 0.7 else [rng.choice(ANY) for _ in range(rng.randint(2, 5))]
        laid = row_detections(RowSpec(
            meld, origin=(100.0 + 200 * m, 400.0),
            probs={k: _alternatives(rng, meld[k]) for k in range(len(meld)) if rng.random() < 0.5},
            sideways={rng.randrange(len(meld))} if rng.random() < 0.6 else set(),
        ))
        detections += laid
        if rng.random() < 0.7:
            detections.append(group_box(laid[: rng.randint(1, len(laid))], rng.choice(sorted(GROUP_CLASSES))))
    for k in range(rng.choice([0, 0, 1, 3, 9])):
        code = rng.choice(FLOWERS)
        detections.append(Detection((10.0 + 45 * k, 10.0, 50.0 + 45 * k, 66.0), code, 0.8,
                                    _alternatives(rng, code) if rng.random() < 0.5 else ()))
    if rng.random() < 0.2:
        x, y = rng.uniform(0, 600), rng.uniform(0, 500)
        detections.append(Detection((x, y, x + rng.choice([0, 1, 40]), y + rng.choice([0, 2, 56])),
                                    rng.choice(ANY), rng.random()))
    if rng.random() < 0.1:
        detections.append(group_box(detections[: rng.randint(1, len(detections))], rng.choice(sorted(GROUP_CLASSES))))
    if rng.random() < 0.3:  # the whole photo taken askew: grouping turns its boxes level
        detections = turned(detections, rng.choice([15.0, 35.0, 45.0, -40.0, 60.0]))
    rng.shuffle(detections)
    return detections


def _check(seed: int) -> None:
    rng = random.Random(seed)
    detections = _scene(rng)
    result = read_detections(
        detections,
        rules=rng.choice(["mcr", "sihai", "shanghai"]),
        winning_tile=rng.choice([None, None, None, rng.choice(PLAYING)]),
        kong_codes=rng.choice([(), (), ("3z",), ("1m", "2m")]),
    )
    if result.error is None:
        assert result.score is not None and result.hand is not None
    else:
        assert result.error.kind in EXIT_CODES and result.error.message
    json.dumps(result.to_json())


@pytest.mark.parametrize("seed", range(120))
def test_any_detections_end_in_a_score_or_a_coded_error(seed):
    _check(seed)


@pytest.mark.slow
def test_thousands_of_random_scenes_end_in_a_score_or_a_coded_error():
    failed = []
    for seed in range(120, 6000):
        try:
            _check(seed)
        except Exception as exc:  # every kind of failure is collected, to report them all at once
            failed.append(f"seed {seed}: {type(exc).__name__}: {exc}")
    assert not failed, "\n".join(failed)
