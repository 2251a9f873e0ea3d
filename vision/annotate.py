"""Draw what was read onto the photo, with a side panel that explains the score.

Every tile box carries its code; melds are outlined and labelled; the winning tile is marked;
uncertain tiles are highlighted; each fan in the panel is numbered and the boxes of the tiles
behind it carry that number, so every fan can be traced back to tiles in the photo.

Chinese fan names need a CJK font (Debian: fonts-wqy-microhei or fonts-noto-cjk). Without one
the panel shows the English names only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from vision.detections import BACK
from vision.pipeline import PhotoResult

CJK_FONTS = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
)
LATIN_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",)

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
    scale = max(photo.width, photo.height) / 1000
    size = max(12, round(16 * scale))
    small, text = _font(size, False), _font(round(size * 1.1), has_cjk_font())
    width = max(3, round(3 * scale))
    draw = ImageDraw.Draw(photo)

    fans_of: dict[int, list[int]] = {}
    for number, indices in enumerate(result.fan_tiles, start=1):
        for i in indices:
            fans_of.setdefault(i, []).append(number)

    for group in result.groups:
        if group.kind not in ("chow", "pung", "kong"):
            continue
        x1, y1, x2, y2 = _union([result.tiles[i].box for i in group.tiles], pad=width * 2)
        colour = COLOURS["kong" if group.concealed else "meld"]
        draw.rectangle((x1, y1, x2, y2), outline=colour, width=width)
        _label(draw, (x1, y2), group.label, small, colour, "below")

    for i, tile in enumerate(result.tiles):
        colour = COLOURS["uncertain"] if tile.uncertain else COLOURS.get(tile.role, COLOURS["unassigned"])
        if tile.role == "meld" and result.groups[tile.group].concealed:
            colour = COLOURS["kong"]
        box = tile.box
        draw.rectangle(box, outline=colour, width=width * (2 if tile.uncertain or tile.role == "winning" else 1))
        if tile.detected == BACK and tile.code != BACK:  # a face-down kong tile shows its kong's code
            name = f"{tile.code} down"
        elif tile.code != tile.detected:  # the reader chose another code than the detector's first
            name = f"{tile.code}?{tile.detected}"
        else:
            name = tile.code
        if tile.role == "winning":
            name = f"WIN {name}"
        others = [t.box for j, t in enumerate(result.tiles) if j != i]
        _label(draw, (box[0], box[1]), name, small, colour, "above", others)
        if i in fans_of:
            _label(draw, (box[0], box[3]), ",".join(map(str, fans_of[i])), small, (255, 255, 255), "inside")

    panel = _panel(result, photo.height, text, small, scale)
    canvas = Image.new("RGB", (photo.width + panel.width, max(photo.height, panel.height)), (24, 24, 24))
    canvas.paste(photo, (0, 0))
    canvas.paste(panel, (photo.width, 0))
    return canvas


def label_top(corner, width: float, height: float, others) -> float:
    """Where a label `width` x `height` at a box's top-left `corner` starts: above the box, unless
    that strip lies on one of the `others` boxes (a tile of the row behind, or of a tightly packed
    set), whose code it would seem to be; then just inside the box's top."""
    x1, y1 = corner
    strip = (x1, y1 - height, x1 + width, y1)
    lies_on = any(strip[0] < o[2] and o[0] < strip[2] and strip[1] < o[3] and o[1] < strip[3] for o in others)
    return y1 if lies_on or strip[1] < 0 else strip[1]


def _union(boxes, pad: float) -> tuple[float, float, float, float]:
    return (
        min(b[0] for b in boxes) - pad,
        min(b[1] for b in boxes) - pad,
        max(b[2] for b in boxes) + pad,
        max(b[3] for b in boxes) + pad,
    )


def _label(draw, corner, text: str, font, colour, where: str, others=()) -> None:
    """Text on a dark backing at a box's left corner: `above` a top corner (inside the box when
    that would lie on one of the `others` boxes), `below` a bottom corner, or `inside` the box
    just over its bottom corner."""
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    w, h = right - left, bottom - top
    x = corner[0]
    if where == "above":
        y = label_top(corner, w + 4, h + 4, others)
    else:
        y = {"below": corner[1] + 2, "inside": corner[1] - h - 6}[where]
    draw.rectangle((x, y, x + w + 4, y + h + 4), fill=(0, 0, 0))
    draw.text((x + 2 - left, y + 2 - top), text, font=font, fill=colour)


def _panel(result: PhotoResult, height: int, text, small, scale: float):
    """The side panel: total, each fan (numbered), payments, confidence and warnings."""
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


def output_problem(out: str | Path) -> str | None:
    """Why an annotated image could not be written to `out`, or None: checked before a photo is
    read, so that a mistyped path costs no work. Missing folders are created when it is saved."""
    out = Path(out)
    if out.is_dir():
        return f"{out} is a folder; name the image file to write, e.g. {out / 'annotated.png'}"
    if out.suffix.lower() not in OUTPUT_SUFFIXES:
        return f"{out}: the annotated image's name must end in one of {' '.join(OUTPUT_SUFFIXES)}"
    folder = next(p for p in (out.absolute().parent, *out.absolute().parents) if p.exists())
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        return f"{out}: cannot write there ({folder} is not a folder this user can write to)"
    return None


def save_annotated(image: Any, result: PhotoResult, out: str | Path) -> Path:
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    annotate(image, result).save(out)
    return out
