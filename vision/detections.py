"""Typed detector output shared by the detector, grouping, annotation and pipelines."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

# Detector class names, in class-index order: the 42 tile codes, face-down tiles,
# then meld-grouping boxes. These are also the YOLO dataset `names`.
TILE_CODES: tuple[str, ...] = (
    *(f"{n}m" for n in range(1, 10)),
    *(f"{n}p" for n in range(1, 10)),
    *(f"{n}s" for n in range(1, 10)),
    *(f"{n}z" for n in range(1, 8)),
    *(f"{n}f" for n in range(1, 9)),
)
BACK = "back"
MELD_EXPOSED = "meld"  # box around one exposed chow/pung/kong
KONG_CONCEALED = "kong_concealed"  # box around a concealed kong
CLASS_NAMES: tuple[str, ...] = (*TILE_CODES, BACK, MELD_EXPOSED, KONG_CONCEALED)
GROUP_CLASSES = frozenset({MELD_EXPOSED, KONG_CONCEALED})
FLOWER_CODES = frozenset(c for c in TILE_CODES if c.endswith("f"))
PLAYING_CODES = frozenset(TILE_CODES) - FLOWER_CODES
# A tile whose face could not be read (a box the classifier rejected, one read unsurely where no
# reading wins, one under a reflection) may show a face its reading ranks low or not at all:
# every playing code the reading does not list gets this share of the listed mass, so the hand
# can choose. A box taken back at 0.01 / 0.03 / 0.1 / 0.3 read 936 / 937 / 936 / 932 hands (933
# listed codes only); every tile at 0.01-0.05, 947.
UNREAD_FACE = 0.03


@dataclass(frozen=True)
class Detection:
    """One box found in an image, in pixel coordinates of the original image.

    `alternatives` holds the top classes (best first, the chosen one included) with
    their probabilities, which the hand reader uses to fix doubtful tiles.
    """

    box: tuple[float, float, float, float]  # x1, y1, x2, y2
    code: str
    confidence: float
    alternatives: tuple[tuple[str, float], ...] = field(default=())
    not_a_tile: float = 0.0  # the crop classifier's probability that the box holds no tile (0: unchecked)

    @property
    def is_tile(self) -> bool:
        return self.code not in GROUP_CLASSES

    @cached_property  # grouping asks for it hundreds of times per tile
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return ((x1 + x2) / 2, (y1 + y2) / 2)

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


@dataclass(frozen=True)
class DetectionSet:
    """What the detector found in one image: the boxes it keeps, and the tile boxes it proposed
    that the crop classifier judged to hold no tile, each read as the tile it most resembles.

    A hand that reads one tile short or over may take one of the rejected boxes back, or leave
    out a kept box the classifier doubted (`vision.pipeline`). A hand that reads from neither may
    be read from `other_size`: the same photo read by the detector at its other input size
    (`vision.detector.FINE_SCALE`), on demand; None where the detector has no other size.
    A hand that reads unsurely in a warm or dim light, or in a shadow, may be read from
    `in_balanced_light`, on demand: where the tiles are unevenly lit (`vision.detector.UNEVEN`),
    the photo lit evenly and read anew by the detector; else the same boxes read by the crop
    classifier with the photo's colours balanced; None where the tile faces are lit evenly and
    as the classifiers learnt them (`vision.detector.CAST`).
    One in a shaken photo may be read from `unshaken`: the same boxes read by the crop classifier
    with the shake undone, on demand; None where the tiles' part shows no clear shake
    (`vision.detector.SHAKE_CLEAR`). One in a blurred photo may be read from `sharpened`: the
    photo sharpened and read anew, on demand; None where the tiles look sharp
    (`vision.detector.BLURRED`). One with a flash or lamp mirrored in the tiles may be read from
    `deglared`: the same boxes with the tiles the reflections wash out free to take any face, and
    a box for each tile they hide; None where there are none (`vision.detector.GLARE_LEVEL`).
    `on_a_tile` gives, for tile boxes, the probability that each lies on another tile, as a
    stacked kong's top tile does (the stack model, `vision.stacking`), on demand; None without
    the model.
    """

    kept: tuple[Detection, ...]
    rejected: tuple[Detection, ...] = ()
    other_size: Callable[[], DetectionSet] | None = field(default=None, compare=False, repr=False)
    in_balanced_light: Callable[[], DetectionSet | None] | None = field(default=None, compare=False, repr=False)
    unshaken: Callable[[], DetectionSet | None] | None = field(default=None, compare=False, repr=False)
    sharpened: Callable[[], DetectionSet | None] | None = field(default=None, compare=False, repr=False)
    deglared: Callable[[], DetectionSet | None] | None = field(default=None, compare=False, repr=False)
    on_a_tile: Callable[[Sequence[Detection]], Sequence[float]] | None = field(default=None, compare=False, repr=False)


def median_short_side(boxes: Sequence[Sequence[float]]) -> float | None:
    """The median of the boxes' shorter sides (the upper one of an even count), None for none:
    how large tiles came out in a photo."""
    sides = sorted(min(b[2] - b[0], b[3] - b[1]) for b in boxes)
    return sides[len(sides) // 2] if sides else None


def with_any_face(d: Detection) -> Detection:
    """`d` free to take any playing face, those its reading does not list at UNREAD_FACE of the
    listed mass (see there); unchanged where its reading gives no face any mass."""
    listed = dict(d.alternatives)
    floor = UNREAD_FACE * sum(listed.values())
    if floor <= 0:  # no reading to weigh the others against
        return d
    unlisted = tuple((code, floor) for code in sorted(PLAYING_CODES) if code not in listed)
    return replace(d, alternatives=d.alternatives + unlisted)
