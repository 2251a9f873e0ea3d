"""Tile faces drawn from Chinese fonts and simple shapes: the `drawn` art source.

The game-theme sources give one drawing per tile; real sets differ most in the fonts of their
numerals and honours, in how dots and sticks are drawn and in their flower pictures, and a
classifier that saw only a handful of sets reads an unseen set's 五 as 三 and its nine sticks
as six. Each drawn style picks its fonts (Kai, Ming, Hei and Mincho faces of free CJK fonts
from Debian packages), its inks, its dot and stick shapes and whether it writes simplified
forms (万, 发, 兰) and corner indices; the standard arrangements of dots and sticks stay
fixed, as they are in every real set, but which sticks are red does not (sets disagree, and a
model that keys on the nine's red middle column reads another set's nine as six). Flowers
carry their character and number (1-4, Arabic or Chinese, on either side of the top row),
over a random plant or in a frame, as real sets paint different pictures over the same name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .art import FACE_H, FACE_W, ArtError, to_face

# The files art.FONT_PACKAGES unpack under usr/share/fonts/truetype.
FONT_FILES = ("arphic/ukai.ttc", "arphic/uming.ttc", "wqy/wqy-zenhei.ttc", "wqy/wqy-microhei.ttc",
              "cwtex/cwkai.ttf", "cwtex/cwming.ttf", "cwtex/cwheib.ttf",
              "arphic-bkai00mp/bkai00mp.ttf", "arphic-bsmi00lp/bsmi00lp.ttf",
              "arphic-gbsn00lp/gbsn00lp.ttf", "arphic-gkai00mp/gkai00mp.ttf", "hanazono/HanaMinA.ttf")
STYLES = 48  # faces per code in the atlas: each from its own style

NUMERALS = "一二三四五六七八九"
WINDS = {"1z": "東", "2z": "南", "3z": "西", "4z": "北"}
WIND_LETTERS = {"1z": "E", "2z": "S", "3z": "W", "4z": "N"}
FLOWER_WORDS = {"1f": "春", "2f": "夏", "3f": "秋", "4f": "冬",
                "5f": "梅", "6f": "蘭", "7f": "菊", "8f": "竹"}
SIMPLIFIED = {"萬": "万", "發": "发", "蘭": "兰", "東": "东"}

INKS = {"black": (25, 25, 30), "blue": (30, 60, 150), "green": (20, 120, 60),
        "red": (190, 30, 35), "navy": (20, 35, 90)}

# Centres of the dots and sticks of each count, in face fractions (x, y): the fixed
# arrangements every set uses. 8s tilts its sticks into an M over a W.
DOT_LAYOUT: dict[int, list[tuple[float, float]]] = {
    1: [(.5, .5)],
    2: [(.5, .28), (.5, .72)],
    3: [(.24, .2), (.5, .5), (.76, .8)],
    4: [(.28, .28), (.72, .28), (.28, .72), (.72, .72)],
    5: [(.26, .24), (.74, .24), (.5, .5), (.26, .76), (.74, .76)],
    6: [(x, y) for y in (.2, .5, .8) for x in (.3, .7)],
    7: [(.22, .14), (.5, .25), (.78, .36), (.3, .6), (.7, .6), (.3, .85), (.7, .85)],
    8: [(x, y) for y in (.14, .38, .62, .86) for x in (.3, .7)],
    9: [(x, y) for y in (.18, .5, .82) for x in (.2, .5, .8)],
}
STICK_LAYOUT: dict[int, list[tuple[float, float, float]]] = {  # x, y, tilt in degrees
    2: [(.5, .27, 0), (.5, .73, 0)],
    3: [(.5, .27, 0), (.3, .73, 0), (.7, .73, 0)],
    4: [(x, y, 0) for y in (.27, .73) for x in (.3, .7)],
    5: [(.22, .27, 0), (.78, .27, 0), (.5, .5, 0), (.22, .73, 0), (.78, .73, 0)],
    6: [(x, y, 0) for y in (.27, .73) for x in (.2, .5, .8)],
    7: [(.5, .17, 0)] + [(x, y, 0) for y in (.5, .83) for x in (.2, .5, .8)],
    8: [(.14, .27, 0), (.38, .27, 20), (.62, .27, -20), (.86, .27, 0),
        (.14, .73, 0), (.38, .73, -20), (.62, .73, 20), (.86, .73, 0)],
    9: [(x, y, 0) for y in (.17, .5, .83) for x in (.2, .5, .8)],
}


@dataclass(frozen=True)
class DrawnStyle:
    """One imagined set: fonts, inks and shapes shared by all its faces."""

    numeral_font: Path
    honour_font: Path
    flower_font: Path
    simplified: bool  # 万 发 兰 instead of 萬 發 蘭
    numeral_ink: tuple[int, int, int]
    wind_ink: tuple[int, int, int]
    dot_inks: tuple[tuple[int, int, int], ...]
    stick_inks: tuple[tuple[int, int, int], ...]
    dot_rings: int  # 1: solid dots, 2-3: ringed
    dot_scale: float
    stick_width: float  # fraction of the face width
    stick_length: float  # scale of the standard lengths: short sticks leave gaps between rows
    corner_index: bool  # a small number or wind letter in the top left corner
    stick_colours: str  # "conventional", "columns" (by column), "mixed" (any stick any ink), "one"
    stick_shape: str  # "bamboo", "bone" or "plain" (see _Canvas.stick)
    bird: bool  # 1s as a bird (most sets) or one large stick
    flower_layout: str  # "row" (number and name over a plant), "corner", "framed" or "name"
    flower_numerals: str  # "1234" or "一二三四"
    plants_number_right: bool  # 5f-8f write their number right of the name, 1f-4f left
    white: str  # "blank", "frame" or "double"


def font_paths(root: Path) -> list[Path]:
    """The known CJK fonts under a `fonts/truetype` folder (the cache's unpacked packages or
    the system's)."""
    found = [root / f for f in FONT_FILES if (root / f).is_file()]
    if not found:
        raise ArtError("source_missing", f"no CJK fonts under {root}: run `python datasets/fetch_art.py`")
    return found


@lru_cache(maxsize=None)
def _cmap(path: Path) -> frozenset[int]:
    """The characters a font (the first of a collection) has."""
    from fontTools.ttLib import TTFont

    with TTFont(str(path), fontNumber=0, lazy=True) as font:
        return frozenset(font["cmap"].getBestCmap())


def _fonts_with(fonts: list[Path], text: str) -> list[Path]:
    return [f for f in fonts if all(ord(c) in _cmap(f) for c in text)]


def _inks(*names: str) -> tuple[tuple[int, int, int], ...]:
    return tuple(INKS[n] for n in names)


def random_style(rng: np.random.Generator, fonts: list[Path]) -> DrawnStyle:
    simplified = bool(rng.random() < 0.4)
    words = "".join(NUMERALS) + ("万" if simplified else "萬")
    honours = "".join(WINDS.values()) + "中" + ("发" if simplified else "發")
    flowers = "".join(SIMPLIFIED.get(w, w) if simplified else w for w in FLOWER_WORDS.values())

    def pick(text: str) -> Path:
        options = _fonts_with(fonts, text)
        if not options:
            raise ArtError("source_missing", f"no fetched font has all of {text}")
        return options[rng.integers(len(options))]

    dot_palettes = [_inks("blue", "green", "red"), _inks("navy", "green", "red"), _inks("blue", "blue", "red"),
                    _inks("green", "blue", "red"), _inks("black", "green", "red")]
    stick_palettes = [_inks("green", "green", "red"), _inks("green", "blue", "red"),
                      _inks("blue", "green", "red"), _inks("navy", "green", "red")]
    return DrawnStyle(
        numeral_font=pick(words), honour_font=pick(honours), flower_font=pick(flowers),
        simplified=simplified,
        numeral_ink=INKS[str(rng.choice(["black", "blue", "navy", "black"]))],
        wind_ink=INKS[str(rng.choice(["black", "blue", "navy"]))],
        dot_inks=dot_palettes[rng.integers(len(dot_palettes))],
        stick_inks=stick_palettes[rng.integers(len(stick_palettes))],
        dot_rings=int(rng.integers(1, 4)),
        dot_scale=float(rng.uniform(0.8, 1.1)),
        stick_width=float(rng.uniform(0.11, 0.17)),
        stick_length=float(rng.uniform(0.65, 1.0)),
        corner_index=bool(rng.random() < 0.35),
        stick_colours=str(rng.choice(["conventional", "conventional", "columns", "mixed", "one"])),
        stick_shape=str(rng.choice(["bamboo", "bamboo", "bone", "plain"])),
        bird=bool(rng.random() < 0.7),
        flower_layout=str(rng.choice(["row", "row", "row", "corner", "framed", "name"])),
        flower_numerals=str(rng.choice(["1234", "1234", "一二三四"])),
        plants_number_right=bool(rng.random() < 0.6),
        white=str(rng.choice(["blank", "frame", "frame", "double"])),
    )


class _Canvas:
    """A transparent face drawn at twice the atlas size, shrunk when done."""

    SCALE = 2

    def __init__(self):
        from PIL import Image, ImageDraw

        self.w, self.h = FACE_W * self.SCALE, FACE_H * self.SCALE
        self.image = Image.new("RGBA", (self.w, self.h), (0, 0, 0, 0))
        self.draw = ImageDraw.Draw(self.image)

    def text(self, chars: str, font: Path, box: tuple[float, float, float, float],
             ink: tuple[int, int, int]) -> None:
        """Write `chars` as large as fits the box (face fractions x0, y0, x1, y1), centred."""
        from PIL import ImageFont

        x0, y0, x1, y1 = box[0] * self.w, box[1] * self.h, box[2] * self.w, box[3] * self.h
        probe = ImageFont.truetype(str(font), 100)
        l, t, r, b = probe.getbbox(chars)
        size = max(4, int(100 * min((x1 - x0) / max(1, r - l), (y1 - y0) / max(1, b - t))))
        face = ImageFont.truetype(str(font), size)
        l, t, r, b = face.getbbox(chars)
        self.draw.text(((x0 + x1 - (r - l)) / 2 - l, (y0 + y1 - (b - t)) / 2 - t), chars,
                       font=face, fill=(*ink, 255))

    def dot(self, cx: float, cy: float, r: float, ink, rings: int, centre_ink) -> None:
        cx, cy, r = cx * self.w, cy * self.h, r * self.w
        for k in range(rings):
            rr = r * (1 - k / rings)
            colour = ink if k % 2 == 0 else (250, 250, 245)
            self.draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=(*colour, 255))
        c = r * 0.25
        self.draw.ellipse((cx - c, cy - c, cx + c, cy + c), fill=(*centre_ink, 255))

    def stick(self, cx: float, cy: float, width: float, length: float, tilt: float, ink,
              shape: str = "bamboo") -> None:
        """A stick: "bamboo" (a bar with node bands at both ends and the middle), "bone" (a
        narrow bar between wide knobs) or "plain" (a bar with a light core)."""
        cx, cy, hw, hl = cx * self.w, cy * self.h, width * self.w / 2, length * self.h / 2
        c, s = math.cos(math.radians(tilt)), math.sin(math.radians(tilt))

        def quad(u0: float, u1: float, half: float):
            return [(cx + x * c - y * s, cy + x * s + y * c)
                    for x, y in ((-half, u0), (half, u0), (half, u1), (-half, u1))]

        light = (250, 250, 245, 255)
        if shape == "bone":
            self.draw.polygon(quad(-hl, hl, hw * 0.45), fill=(*ink, 255))
            for u in (-hl, hl):
                self.draw.polygon(quad(u - hl * 0.22, u + hl * 0.22, hw * 1.1), fill=(*ink, 255))
            return
        self.draw.polygon(quad(-hl, hl, hw), fill=(*ink, 255))
        if shape == "bamboo":
            for u in (-hl, 0.0, hl):
                self.draw.polygon(quad(u - hl * 0.08, u + hl * 0.08, hw * 1.25), fill=(*ink, 255))
        self.draw.polygon(quad(-hl * 0.8, hl * 0.8, hw * 0.25), fill=light)

    def plant(self, rng: np.random.Generator, top: float) -> None:
        """A random painted plant below `top` (a face fraction): a stem, leaves and red or blue
        blossoms (real sets differ here)."""
        blossom = INKS[str(rng.choice(["red", "blue"]))]
        steps = int(rng.integers(2, 5))
        x, y = self.w * rng.uniform(0.35, 0.65), self.h * 0.92
        for _ in range(steps):
            nx = float(np.clip(x + self.w * rng.uniform(-0.25, 0.25), self.w * 0.12, self.w * 0.88))
            ny = y - self.h * (0.92 - top - 0.05) / steps * rng.uniform(0.7, 1.0)
            self.draw.line((x, y, nx, ny), fill=(*INKS["green"], 255), width=int(self.w * 0.02) + 1)
            leaf = self.w * rng.uniform(0.04, 0.08)
            self.draw.ellipse((nx - leaf * 1.8, ny - leaf, nx + leaf * 1.8, ny + leaf),
                              fill=(*INKS["green"], 255))
            if rng.random() < 0.6:
                b = self.w * rng.uniform(0.04, 0.08)
                bx, by = nx + self.w * rng.uniform(-0.08, 0.08), ny - self.h * 0.05
                self.draw.ellipse((bx - b, by - b, bx + b, by + b), fill=(*blossom, 255))
            x, y = nx, ny

    def bird(self, rng: np.random.Generator, style: DrawnStyle) -> None:
        """1s: most sets draw a bird (a peacock, a sparrow) instead of one stick."""
        w, h = self.w, self.h
        body, tail, head = style.stick_inks[0], style.stick_inks[2], style.stick_inks[1]
        cy = h * rng.uniform(0.45, 0.6)
        for k in range(5):  # tail feathers fanning down and back
            a = math.radians(200 + k * 18 + rng.uniform(-5, 5))
            self.draw.line((w * 0.45, cy, w * 0.45 + math.cos(a) * w * 0.4, cy - math.sin(a) * h * 0.35),
                           fill=(*tail, 255), width=int(w * 0.05))
        self.draw.ellipse((w * 0.25, cy - h * 0.14, w * 0.72, cy + h * 0.12), fill=(*body, 255))
        hx, hy = w * 0.7, cy - h * 0.2
        self.draw.ellipse((hx - w * 0.1, hy - w * 0.1, hx + w * 0.1, hy + w * 0.1), fill=(*head, 255))
        self.draw.polygon([(hx + w * 0.08, hy - w * 0.03), (hx + w * 0.22, hy + w * 0.02),
                           (hx + w * 0.08, hy + w * 0.05)], fill=(*INKS["red"], 255))

    def frame(self, ink, double: bool) -> None:
        m, t = 0.14, max(3, int(self.w * 0.045))
        self.draw.rectangle((self.w * m, self.h * m * 0.8, self.w * (1 - m), self.h * (1 - m * 0.8)),
                            outline=(*ink, 255), width=t)
        if double:
            m2 = m + 0.12
            self.draw.rectangle((self.w * m2, self.h * (m2 * 0.8), self.w * (1 - m2), self.h * (1 - m2 * 0.8)),
                                outline=(*ink, 255), width=max(2, t // 2))

    def face(self) -> np.ndarray:
        return to_face(np.array(self.image))


def draw_face(code: str, style: DrawnStyle, rng: np.random.Generator) -> np.ndarray:
    """One RGBA face (FACE_H x FACE_W) of `code` in `style`."""
    canvas = _Canvas()
    value, suit = int(code[0]), code[1]
    if suit == "m":
        canvas.text(NUMERALS[value - 1], style.numeral_font, (.16, .06, .84, .46), style.numeral_ink)
        canvas.text("万" if style.simplified else "萬", style.numeral_font, (.12, .5, .88, .95), INKS["red"])
    elif suit == "p":
        layout = DOT_LAYOUT[value]
        radius = style.dot_scale * (0.38 if value == 1 else {2: .19, 3: .16, 4: .19, 5: .17}.get(value, .14))
        for k, (x, y) in enumerate(layout):
            ink = style.dot_inks[_dot_ink(value, k, x, y)]
            canvas.dot(x, y, radius, ink, style.dot_rings + (2 if value == 1 else 0), INKS["red"])
    elif suit == "s":
        if value == 1 and style.bird:
            canvas.bird(rng, style)
        elif value == 1:
            canvas.stick(.5, .5, style.stick_width * 1.6, float(rng.uniform(0.5, 0.8)), 0, style.stick_inks[2],
                         style.stick_shape)
        else:
            length = style.stick_length * {7: 0.28, 8: 0.36, 9: 0.28}.get(value, 0.4)
            column_shift = int(rng.integers(3))
            for x, y, tilt in STICK_LAYOUT[value]:
                ink = style.stick_inks[_stick_ink(style.stick_colours, value, x, y, column_shift, rng)]
                canvas.stick(x, y, style.stick_width, length, tilt, ink, style.stick_shape)
    elif code in WINDS:
        canvas.text(WINDS[code], style.honour_font, (.1, .12, .9, .9), style.wind_ink)
    elif code == "5z":
        if style.white != "blank":
            canvas.frame(INKS["blue"], style.white == "double")
    elif code == "6z":
        canvas.text("发" if style.simplified else "發", style.honour_font, (.1, .12, .9, .9), INKS["green"])
    elif code == "7z":
        canvas.text("中", style.honour_font, (.12, .12, .88, .9), INKS["red"])
    else:
        _draw_flower(canvas, code, style, rng)
    if style.corner_index and (suit in "mps" or code in WIND_LETTERS):
        canvas.text(str(value) if suit in "mps" else WIND_LETTERS[code], style.flower_font,
                    (.02, .01, .16, .13), INKS["black"])
    return canvas.face()


def _dot_ink(value: int, k: int, x: float, y: float) -> int:
    """Which of a style's three inks a dot takes: the conventional colouring in outline (a red
    centre for the five, red lower groups of the six and seven, rows of three inks for the
    nine), without any one set's exact scheme."""
    if value == 5 and (x, y) == (.5, .5):
        return 2
    if value == 9:
        return 0 if y < 0.3 else 2 if y < 0.7 else 1
    if value in (6, 7):
        return 1 if y < 0.45 else 2
    if value == 3:
        return k
    return 0 if k % 2 == 0 or value in (2, 4, 8) else 1


def _stick_ink(colours: str, value: int, x: float, y: float, column_shift: int,
               rng: np.random.Generator) -> int:
    """Which of a style's three inks a stick takes. Conventionally red marks the centre of the
    five, the top of the seven and the middle column of the nine, and the six's rows and the
    eight's halves differ; other sets colour by column or at random, or use one ink."""
    if colours == "one":
        return 0
    if colours == "mixed":
        return int(rng.integers(3))
    if colours == "columns":
        return (round(x * 3 - 0.5) + column_shift) % 3
    if (value == 5 and (x, y) == (.5, .5)) or (value == 7 and y < 0.3) or (value == 9 and x == .5):
        return 2
    if value in (6, 8):
        return 0 if y < 0.5 else 1
    return 0


def _draw_flower(canvas: _Canvas, code: str, style: DrawnStyle, rng: np.random.Generator) -> None:
    """A flower: its name and its number 1-4 (real sets put the number on either side of the
    name, or alone in a corner), over a plant that says nothing about which flower it is."""
    value = int(code[0])
    word = FLOWER_WORDS[code]
    word = SIMPLIFIED.get(word, word) if style.simplified else word
    number = style.flower_numerals[(value - 1) % 4]
    number_ink = INKS[str(rng.choice(["red", "red", "blue", "black"]))]
    word_ink = INKS[str(rng.choice(["black", "red", "blue", "green"]))]
    if style.flower_layout == "row":
        number_right = value > 4 and style.plants_number_right
        canvas.plant(rng, top=0.35)
        canvas.text(word, style.flower_font, (.42, .04, .9, .34) if not number_right else (.1, .04, .58, .34),
                    word_ink)
        canvas.text(number, style.flower_font, (.08, .05, .36, .3) if not number_right else (.64, .05, .92, .3),
                    number_ink)
        return
    if style.flower_layout == "framed":
        canvas.frame(INKS[str(rng.choice(["black", "green"]))], False)
        canvas.text(word, style.flower_font, (.25, .25, .75, .75), word_ink)
    elif style.flower_layout == "corner":
        canvas.plant(rng, top=0.35)
        canvas.text(word, style.flower_font, (.55, .05, .92, .32), word_ink)
    else:
        canvas.text(word, style.flower_font, (.15, .2, .85, .85), word_ink)
    canvas.text(number, style.flower_font, (.06, .04, .28, .24), number_ink)


def build(font_root: Path, styles: int = STYLES) -> dict[str, list[np.ndarray]]:
    """The `drawn` atlas: one face of every tile code per style."""
    from .codes import TILE_CODES

    fonts = font_paths(font_root)
    rng = np.random.default_rng(20261130)
    faces: dict[str, list[np.ndarray]] = {}
    for _ in range(styles):
        style = random_style(rng, fonts)
        for code in TILE_CODES:
            if code != "back":
                faces.setdefault(code, []).append(draw_face(code, style, rng))
    return faces
