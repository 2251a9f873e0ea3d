"""Draw what was read onto the photo, with a side panel that explains the score.

Every tile box carries its code (a pung or kong that reads the same throughout carries it once, on
its outline); melds are outlined and labelled; the winning tile is marked; uncertain tiles are
highlighted; each fan in the panel is numbered and the tiles behind it carry that number (one label
for neighbouring tiles behind the same fans), so every fan can be traced back to tiles in the photo.
Labels are drawn after every line and placed so that none covers another (`LabelPlacer`).

Chinese fan names need a CJK font (Debian: fonts-wqy-microhei or fonts-noto-cjk). Without one
the panel shows the English names only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from vision.detections import BACK, median_short_side
from vision.outputs import same_file, write_problem
from vision.pipeline import PhotoResult

CJK_FONTS = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
)
LATIN_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",)

Rect = tuple[float, float, float, float]

# RGB colours by role.
COLOURS = {
    "concealed": (40, 160, 255),
    "winning": (255, 200, 0),
    "meld": (60, 200, 90),
    "kong": (190, 90, 255),
    "flower": (255, 120, 200),
    "unassigned": (160, 160, 160),
    "uncertain": (255, 40, 40),
}

LABEL_PAD = 2  # pixels between a label's text and the edge of its backing
LANES = 3  # label heights a label may move away from its box, on each side
# Every label's text is placed by the box of this, so that labels stacked in lanes line up.
TEXT_EXTENT = "0123456789,?WINmpsz"
# A photo whose tiles came out smaller than this (the median box's shorter side, pixels: a photo
# from afar, or a copy a messaging app shrank) is drawn enlarged, so that a label fits its tile
# (their text is sized to the tiles, and no smaller than 9 px), up to ENLARGE_UP_TO times and
# ENLARGED_SIDE pixels along its longer side; by less than ENLARGE_FROM times it is not (the
# labels would gain no room worth resampling the photo for).
LEGIBLE_TILE_PX = 40
ENLARGE_FROM = 1.25
ENLARGE_UP_TO = 4.0
ENLARGED_SIDE = 2000


def _font(size: int, cjk: bool):
    """A TrueType font of `size` px (CJK-capable when asked and installed), else Pillow's own."""
    from PIL import ImageFont

    for path in (CJK_FONTS if cjk else ()) + LATIN_FONTS:
        if Path(path).is_file():
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)


def has_cjk_font() -> bool:
    return any(Path(p).is_file() for p in CJK_FONTS)


def annotate(image: Any, result: PhotoResult):
    """A new PIL image: the photo (path, bytes, PIL image or RGB array) with `result` drawn on it."""
    from PIL import Image, ImageDraw

    from vision.detector import load_image

    pixels, _ = load_image(image)
    photo = Image.fromarray(pixels)
    short = median_short_side([t.box for t in result.tiles])
    zoom = enlargement(short, photo.size)
    if zoom > 1:
        photo = photo.resize((round(photo.width * zoom), round(photo.height * zoom)), Image.Resampling.LANCZOS)
        result = replace(result, tiles=[replace(t, box=tuple(v * zoom for v in t.box)) for t in result.tiles])
        short *= zoom
    scale = max(photo.width, photo.height) / 1000
    size = max(12, round(16 * scale))
    # Labels and lines follow the tiles' size too: a label much wider than its tile covers its
    # neighbours' labels, and a thick outline their faces.
    font = _font(size if short is None else max(9, min(size, round(short * 0.35))), False)
    width = max(1, round(3 * scale) if short is None else min(round(3 * scale), round(short / 20)))
    draw = ImageDraw.Draw(photo)

    for group in result.groups:
        if group.kind in ("chow", "pung", "kong"):
            colour = COLOURS["kong" if group.concealed else "meld"]
            outline = _union([result.tiles[i].box for i in group.tiles], pad=width * 2)
            draw.rectangle(outline, outline=colour, width=width)
    # Uncertain and winning tiles last, so that no neighbour's outline crosses theirs.
    for tile in sorted(result.tiles, key=lambda t: t.uncertain or t.role == "winning"):
        thick = tile.uncertain or tile.role == "winning"
        draw.rectangle(tile.box, outline=_tile_colour(result, tile), width=width * (2 if thick else 1))
        if tile.uncertain and tile.role == "winning":  # gold stays the winning tile's mark
            x1, y1, x2, y2 = tile.box
            # inside the gold, as far in as a box cut to a sliver by the photo's edge allows
            inset_x, inset_y = min(width * 2, (x2 - x1) / 2), min(width * 2, (y2 - y1) / 2)
            draw.rectangle((x1 + inset_x, y1 + inset_y, x2 - inset_x, y2 - inset_y),
                           outline=COLOURS["uncertain"], width=width)
    for tiles, _ in _fan_runs(result):
        if len(tiles) > 1 and not _whole_meld(result, tiles):  # the tiles one fan label stands for
            points = [((b[0] + b[2]) / 2, b[3] + width) for b in (result.tiles[i].box for i in tiles)]
            draw.line(points, fill=(255, 255, 255), width=width)
    # Labels after every line, so that no outline hides a character.
    for label in photo_labels(result, photo.size, font, meld_pad=width * 2):
        _draw_label(draw, label, font)

    text, small = _font(round(size * 1.1), has_cjk_font()), _font(size, False)
    panel = _panel(result, photo.height, text, small, scale, zoom)
    canvas = Image.new("RGB", (photo.width + panel.width, max(photo.height, panel.height)), (24, 24, 24))
    canvas.paste(photo, (0, 0))
    canvas.paste(panel, (photo.width, 0))
    return canvas


@dataclass(frozen=True)
class Label:
    text: str
    colour: tuple[int, int, int]
    rect: Rect  # its dark backing, in photo pixels


def photo_labels(result: PhotoResult, size: tuple[int, int], font, meld_pad: float = 0) -> list[Label]:
    """Where each label of `result` goes on a photo of `size`, none over another; melds are
    outlined `meld_pad` pixels outside their tiles.

    Each tile's code goes above it (the winning tile's first, then left to right); a pung or kong
    whose tiles all read the same is labelled once, on its outline ("6s x4, 2 down"), rather than
    on each of its tiles; then the meld labels; then one fan label per run of neighbouring tiles
    of a group that share their fan numbers, below the run's middle (beside it, for a run laid up
    the photo).
    """
    placer = LabelPlacer(size, [t.box for t in result.tiles])
    _, top, _, bottom = font.getbbox(TEXT_EXTENT)
    labels: list[Label] = []

    def add(text: str, colour, anchor: Rect, sides: tuple[str, ...], own=()):
        left, _, right, _ = font.getbbox(text)
        rect = placer.place(anchor, right - left + 2 * LABEL_PAD, bottom - top + 2 * LABEL_PAD, sides, own)
        labels.append(Label(text, colour, rect))

    summaries = {g: _summary(result, group) for g, group in enumerate(result.groups)}
    # A tile the reader changed keeps its own label, which says so.
    summarised = {i for g, text in summaries.items() if text for i in result.groups[g].tiles
                  if "?" not in _tile_name(result.tiles[i])}
    for i, tile in sorted(enumerate(result.tiles), key=lambda it: (it[1].role != "winning", it[1].box[0])):
        if i not in summarised:
            text = f"WIN {_tile_name(tile)}" if tile.role == "winning" else _tile_name(tile)
            add(text, _tile_colour(result, tile), tile.box, ("above", "below"), [tile.box])
    for g, group in enumerate(result.groups):
        if group.kind in ("chow", "pung", "kong"):
            text = group.label + (f": {summaries[g]}" if summaries[g] else "")
            colour = COLOURS["kong" if group.concealed else "meld"]
            outline = _union([result.tiles[i].box for i in group.tiles], pad=meld_pad)
            add(text, colour, outline, ("below", "above"))
    for tiles, numbers in _fan_runs(result):
        if _whole_meld(result, tiles):  # by its outline, as the meld's own label
            anchor = _union([result.tiles[i].box for i in tiles], pad=meld_pad)
        else:
            middle = tiles[(len(tiles) - 1) // 2: len(tiles) // 2 + 1]
            anchor = _union([result.tiles[i].box for i in middle], pad=0)
        own = [result.tiles[i].box for i in tiles]
        # Beside a run of tiles laid up the photo (read turned a quarter): below its middle tile
        # lies its next.
        x1, y1, x2, y2 = _union(own, pad=0)
        sides = ("right", "left") if len(tiles) > 1 and y2 - y1 > x2 - x1 else ("below", "above")
        add(",".join(map(str, numbers)), (255, 255, 255), anchor, sides, own)
    return labels


def _tile_name(tile) -> str:
    if tile.detected == BACK and tile.code != BACK:  # a face-down kong tile shows its kong's code
        return f"{tile.code} down"
    if tile.code != tile.detected:  # the reader chose another code than the detector's first
        return f"{tile.code}?{tile.detected}"
    return tile.code


def _summary(result: PhotoResult, group) -> str | None:
    """`6s x4, 2 down` for a pung or kong whose tiles all read the same, else None."""
    codes = {result.tiles[i].code for i in group.tiles}
    if group.kind not in ("pung", "kong") or len(codes) != 1:
        return None
    down = sum(result.tiles[i].detected == BACK for i in group.tiles)
    return f"{codes.pop()} x{len(group.tiles) + group.stacked}" + (f", {down} down" if down else "")


def _tile_colour(result: PhotoResult, tile) -> tuple[int, int, int]:
    if tile.role == "winning":
        return COLOURS["winning"]
    if tile.uncertain:
        return COLOURS["uncertain"]
    if tile.role == "meld" and result.groups[tile.group].concealed:
        return COLOURS["kong"]
    return COLOURS.get(tile.role, COLOURS["unassigned"])


def _fan_runs(result: PhotoResult) -> list[tuple[list[int], list[int]]]:
    """(tiles, fan numbers) for each run of neighbouring tiles of one group that share their fan
    numbers, tiles in their order along the group: one label then stands for the whole run."""
    fans_of: dict[int, list[int]] = {}
    for number, indices in enumerate(result.fan_tiles, start=1):
        for i in indices:
            fans_of.setdefault(i, []).append(number)
    runs: list[tuple[list[int], list[int]]] = []
    for group in result.groups:
        if not group.tiles:  # a row whose one tile was taken as the winning tile
            continue
        x1, y1, x2, y2 = _union([result.tiles[i].box for i in group.tiles], pad=0)
        centre = (lambda b: b[0] + b[2]) if x2 - x1 >= y2 - y1 else (lambda b: b[1] + b[3])
        previous = None
        for i in sorted(group.tiles, key=lambda i: centre(result.tiles[i].box)):
            if i in fans_of and previous in fans_of and fans_of[i] == fans_of[previous]:
                runs[-1][0].append(i)
            elif i in fans_of:
                runs.append(([i], fans_of[i]))
            previous = i
    return runs


def _whole_meld(result: PhotoResult, tiles: list[int]) -> bool:
    group = result.groups[result.tiles[tiles[0]].group]
    return group.kind in ("chow", "pung", "kong") and len(tiles) == len(group.tiles)


class LabelPlacer:
    """Greedy placement of labels on an image of `size` holding `boxes`, in the order asked.

    A label takes the first spot, in the order of the sides asked and then moving away from its
    box a label height at a time, that overlaps no label placed before it and no box other than
    its `own` (a label on another tile's box reads as that tile's); failing that, the spot that
    overlaps placed labels least, then other boxes least. Spots are shifted to lie inside the
    image, so no label is cut at an edge.
    """

    def __init__(self, size: tuple[float, float], boxes):
        self.width, self.height = size
        boxes = [tuple(b) for b in boxes]
        # Buckets a tile or two wide: a label is asked only about what lies near it, so a photo of
        # 500 tiles does not compare every label with every box and label.
        sides = sorted(max(b[2] - b[0], b[3] - b[1]) for b in boxes)
        # (never finer than 1/256 of the image, so one huge box is filed in at most 65k cells)
        cell = max(sides[len(sides) // 2] * 2 if sides else 64.0, max(size) / 256, 16.0)
        self.boxes = _Buckets(cell, boxes)
        self.placed = _Buckets(cell, [])

    def place(self, anchor: Rect, w: float, h: float, sides=("above", "below"), own=()) -> Rect:
        """The spot for a `w` x `h` label of the box `anchor`, which may cover the faces of the
        boxes in `own`; it counts as placed from now on."""
        spots = list(self._spots(anchor, w, h, sides))
        reach = _union(spots, pad=0)  # only what lies there can overlap a spot
        labels = self.placed.near(reach)
        own = {tuple(b) for b in own}
        # The boxes of a tight row or grid overlap at their edges: a label may lie on that much.
        boxes = [_union([b], pad=-h / 4) for b in self.boxes.near(reach) if b not in own]
        best, best_cost = None, None
        for spot in spots:
            cost = (sum(_overlap(spot, r) for r in labels), sum(_overlap(spot, b) for b in boxes))
            if best_cost is None or cost < best_cost:
                best, best_cost = spot, cost
                if cost == (0, 0):
                    break
        self.placed.add(best)
        return best

    def _spots(self, anchor: Rect, w: float, h: float, sides):
        x1, y1, x2, y2 = anchor
        xs = ((x1 + x2 - w) / 2, x1, x2 - w)
        beside = {"above": lambda lane: [(x, y1 - h * (lane + 1)) for x in xs],
                  "below": lambda lane: [(x, y2 + h * lane) for x in xs],
                  "left": lambda lane: [(x1 - w - h * lane, (y1 + y2 - h) / 2)],
                  "right": lambda lane: [(x2 + h * lane, (y1 + y2 - h) / 2)]}
        # Inside its box last: the label then covers the face it names. Kept off the box's edges,
        # which a neighbour's box may overlap: its label may lie there.
        inside = [(x, y) for y in (y1 + h / 4, y2 - h * 5 / 4) for x in xs]
        for x, y in [spot for lane in range(LANES) for side in sides for spot in beside[side](lane)] + inside:
            x = min(max(x, 0), max(self.width - w, 0))
            y = min(max(y, 0), max(self.height - h, 0))
            yield (x, y, x + w, y + h)


class _Buckets:
    """Rectangles filed by the grid cells of `cell` px that they touch."""

    def __init__(self, cell: float, rects) -> None:
        self.cell = cell
        self.cells: dict[tuple[int, int], list[Rect]] = {}
        for rect in rects:
            self.add(rect)

    def _keys(self, rect: Rect):
        c = self.cell
        for i in range(int(rect[0] // c), int(rect[2] // c) + 1):
            for j in range(int(rect[1] // c), int(rect[3] // c) + 1):
                yield i, j

    def add(self, rect: Rect) -> None:
        for key in self._keys(rect):
            self.cells.setdefault(key, []).append(rect)

    def near(self, reach: Rect) -> list[Rect]:
        """Each filed rectangle that overlaps `reach`, once, in the order filed."""
        found: dict[int, Rect] = {}
        for key in self._keys(reach):
            for rect in self.cells.get(key, ()):
                if id(rect) not in found and _overlap(rect, reach):
                    found[id(rect)] = rect
        return list(found.values())


def _overlap(a: Rect, b: Rect) -> float:
    w, h = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _draw_label(draw, label: Label, font) -> None:
    x1, y1, _, _ = label.rect
    draw.rectangle(label.rect, fill=(0, 0, 0))
    left, top = font.getbbox(label.text)[0], font.getbbox(TEXT_EXTENT)[1]
    draw.text((x1 + LABEL_PAD - left, y1 + LABEL_PAD - top), label.text, font=font, fill=label.colour)


def enlargement(short: float | None, size: tuple[int, int]) -> float:
    """How many times larger to draw a photo of `size` whose median tile is `short` px across
    (vision.detections.median_short_side; LEGIBLE_TILE_PX): 1 for one whose tiles are large
    enough, or that shows none."""
    if not short or short >= LEGIBLE_TILE_PX:
        return 1.0
    zoom = min(ENLARGE_UP_TO, LEGIBLE_TILE_PX / short, ENLARGED_SIDE / max(size))
    return zoom if zoom >= ENLARGE_FROM else 1.0


def _union(boxes, pad: float) -> tuple[float, float, float, float]:
    return (
        min(b[0] for b in boxes) - pad,
        min(b[1] for b in boxes) - pad,
        max(b[2] for b in boxes) + pad,
        max(b[3] for b in boxes) + pad,
    )


def _panel(result: PhotoResult, height: int, text, small, scale: float, zoom: float = 1.0):
    """The side panel: total, each fan (numbered), payments, confidence and warnings; with `zoom`
    over 1, a note that the photo is drawn so many times larger (the places warnings name are
    the photo's own pixels)."""
    from PIL import Image, ImageDraw

    cjk = has_cjk_font()
    lines: list[tuple[str, tuple[int, int, int]]] = []
    white, grey, red = (235, 235, 235), (170, 170, 170), (255, 90, 90)
    score = result.score or {}
    if result.error is not None:
        lines.append((f"NOT SCORED: {result.error.code}", red))
        lines.extend((chunk, red) for chunk in _wrap(result.error.message, 48))
        lines.append(("", white))
    if score.get("ok"):
        lines.append((f"{score['rules'].upper()}  total {score['total']}", white))
        for number, fan in enumerate(score["fans"], start=1):
            name = f"{fan['zh']} {fan['en']}" if cjk else fan["en"]
            count = f" x{fan['count']}" if fan.get("count", 1) > 1 else ""
            lines.append((f"{number:>2}. {name}{count}  {fan['points'] * fan.get('count', 1)}", white))
        if score.get("flowers"):
            lines.append((f"flowers: {score['flowers']}", grey))
        pay = score.get("payments") or {}
        if pay:
            lines.append(("payments: " + "  ".join(f"{s} {v:+d}" for s, v in pay.items()), grey))
    if result.hand:
        lines.append(("", white))
        lines.append((f"confidence: tiles {result.confidence:.2f}, score {result.score_confidence:.2f}", grey))
    if result.runner_up:
        lines.append((f"runner-up reading: total {result.runner_up['total']}", grey))
    if zoom > 1:
        lines.append((f"photo drawn {zoom:.1f} times its size (its tiles are small)", grey))
    for warning in result.warnings:
        lines.extend((chunk, (255, 180, 80)) for chunk in _wrap("! " + warning, 48))

    line_h = round(text.size * 1.45)
    width = max(360, round(520 * scale))
    panel = Image.new("RGB", (width, max(height, line_h * (len(lines) + 2))), (24, 24, 24))
    draw = ImageDraw.Draw(panel)
    y = line_h // 2
    for content, colour in lines:
        draw.text((12, y), content, font=text if not content.startswith("!") else small, fill=colour)
        y += line_h
    return panel


def _wrap(text: str, width: int) -> list[str]:
    words, lines, current = text.split(), [], ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    return lines + ([current] if current else [])


# Formats both Pillow (`mjlens photo`) and OpenCV (`mjlens detect`) write, by file suffix.
OUTPUT_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff")


def output_problem(out: str | Path, photo: Any = None) -> str | None:
    """Why an annotated image could not be written to `out`, or None: checked before `photo` (its
    path, when it is one) is read, so that a mistyped path costs no work (missing folders are
    created then) and the photo itself is never written over."""
    if not str(out).strip():
        return "no file named for the annotated image: give one, e.g. annotated.png"
    if str(out).endswith(("/", os.sep)):  # Path would drop the slash and write a file of that name
        return f"{out} names a folder; name the image file to write, e.g. {Path(out) / 'annotated.png'}"
    out = Path(out)
    try:
        if out.is_dir():
            return f"{out} is a folder; name the image file to write, e.g. {out / 'annotated.png'}"
    except (OSError, ValueError) as exc:  # a folder not to be entered, a name too long, a NUL
        return f"{out}: cannot write there ({getattr(exc, 'strerror', None) or exc})"
    if isinstance(photo, (str, Path)) and same_file(out, photo):
        return f"{out} is the photo being read; name another file for the annotated image"
    if out.name.lower() in OUTPUT_SUFFIXES:  # a name that is all ending: pathlib sees no suffix
        return f"{out}: give the file a name before its ending, e.g. {out.with_name('annotated' + out.name)}"
    if out.suffix.lower() not in OUTPUT_SUFFIXES:
        return f"{out}: the annotated image's name must end in one of {' '.join(OUTPUT_SUFFIXES)}"
    problem = write_problem(out)
    return problem and f"{out}: cannot write there ({problem})"


def save_annotated(image: Any, result: PhotoResult, out: str | Path) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    annotate(image, result).save(out)
    return out
