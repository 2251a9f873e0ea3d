"""Tile-face art: where each source comes from, how its names map to our codes, and the
face atlases the renderer reads.

An atlas is a folder `<cache>/atlas/<source>/` of PNG faces named `<code>__<k>.png`
(RGBA, FACE_W x FACE_H) plus `source.json`. Sources whose art is a bare symbol on a
transparent background (`opaque: false`) are composed onto a face colour chosen per
scene; opaque sources (scans, photos, raster themes) bring their own face colour.
Third-party art is only ever read from ../shared or fetched into the ignored cache.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .codes import REPO_ROOT, TILE_CODES  # first: it puts the repository on sys.path for vision
from vision.errors import CodedError  # noqa: E402,I001

FACE_W, FACE_H = 120, 160
CACHE_DIR = Path(os.environ.get("MJLENS_ART_CACHE", REPO_ROOT / "datasets" / "_art"))
SHARED_DIR = Path(os.environ.get("MJLENS_SHARED", REPO_ROOT.parent / "shared"))
FLUFFY_DIR = SHARED_DIR / "data" / "tile-art" / "fluffystuff" / "Regular"
CAMERASH_DIR = SHARED_DIR / "data" / "tile-crops" / "camerash"
# Free CJK fonts (Kai, Ming, Hei, Mincho) the `drawn` source writes its faces with.
FONT_PACKAGES = ("fonts-arphic-ukai", "fonts-arphic-uming", "fonts-wqy-zenhei", "fonts-wqy-microhei",
                 "fonts-cwtex-kai", "fonts-cwtex-ming", "fonts-cwtex-heib",
                 "fonts-arphic-bkai00mp", "fonts-arphic-bsmi00lp", "fonts-arphic-gbsn00lp",
                 "fonts-arphic-gkai00mp", "fonts-hanazono")
DEBIAN_PACKAGES = ("kdegames-mahjongg-data-kf5", "gnome-mahjongg", "xmahjongg", *FONT_PACKAGES)
FONT_DIR = CACHE_DIR / "debian" / "usr/share/fonts/truetype"  # where the font packages unpack

SOURCES = ("fluffystuff", "kmahjongg-default", "kmahjongg-traditional", "kmahjongg-classic",
           "kmahjongg-jade", "gnome-smooth", "gnome-postmodern", "xmahjongg-real", "xmahjongg-dorothys",
           "camerash", "drawn")
# Sources available without any download: tests and a fresh checkout use these.
LOCAL_SOURCES = ("fluffystuff", "camerash")


class ArtError(CodedError):
    """A source is missing or unreadable."""


# --- name -> code mappings (each checked by eye on a contact sheet, see fetch_art.py) ---

def _suits(prefix_by_suit: dict[str, str]) -> dict[str, str]:
    return {f"{prefix}{n}": f"{n}{suit}" for suit, prefix in prefix_by_suit.items()
            for n in range(1, 10)}


FLUFFY_NAMES: dict[str, str] = {
    **_suits({"m": "Man", "p": "Pin", "s": "Sou"}),
    # red fives are ordinary fives with a red symbol in riichi sets
    "Man5-Dora": "5m", "Pin5-Dora": "5p", "Sou5-Dora": "5s",
    "Ton": "1z", "Nan": "2z", "Shaa": "3z", "Pei": "4z",
    "Haku": "5z", "Hatsu": "6z", "Chun": "7z",
}

# KMahjongg numbers winds N, S, E, W and dragons White, Green, Red.
KMAHJONGG_IDS: dict[str, str] = {
    **_suits({"m": "CHARACTER_", "p": "ROD_", "s": "BAMBOO_"}),
    "WIND_1": "4z", "WIND_2": "2z", "WIND_3": "1z", "WIND_4": "3z",
    "DRAGON_1": "5z", "DRAGON_2": "6z", "DRAGON_3": "7z",
    "FLOWER_1": "5f", "FLOWER_2": "6f", "FLOWER_3": "7f", "FLOWER_4": "8f",
    "SEASON_1": "1f", "SEASON_2": "2f", "SEASON_3": "3f", "SEASON_4": "4f",
}

# The classic set labels its first two flowers Orchid and Plum (checked on its sheet).
KMAHJONGG_OVERRIDES: dict[str, dict[str, str]] = {
    "classic": {"FLOWER_1": "6f", "FLOWER_2": "5f"},
}

# GNOME smooth.png: one strip of 96x132 tiles, by index.
GNOME_SMOOTH_ORDER: tuple[str, ...] = (
    *(f"{n}p" for n in range(1, 10)),
    "4z", "3z", "2z", "1z", "7z", "6z",
    *(f"{n}m" for n in range(1, 10)),
    *(f"{n}s" for n in range(1, 10)),
    "6f", "7f", "5f", "8f", "5z", "1f", "2f", "3f", "4f",
)
GNOME_TILE = (96, 132)
GNOME_FACE_BOX = (11, 4, 93, 118)  # the face inside one tile, without the drawn body

# xmahjongg real.gif: 9x5 grid of scanned tiles, row-major; None = the credits cell.
XMAHJONGG_GRID: tuple[str | None, ...] = (
    *(f"{n}p" for n in range(1, 10)),
    *(f"{n}s" for n in range(1, 10)),
    *(f"{n}m" for n in range(1, 10)),
    "1f", "2f", "3f", "4f", "4z", "2z", "1z", "3z", None,
    "5f", "6f", "7f", "8f", "6z", "5z", "7z", None, None,
)

# xmahjongg dorothys.gif / dorwhite.gif (Dorothy's pixel-art sets, ivory and white):
# 21 x 64x80 cells per row, the first two rows in this order (rows 3-4 repeat them
# highlighted).
DOROTHY_ORDER: tuple[str, ...] = (
    *(f"{n}p" for n in range(1, 10)),
    "4z", "3z", "2z", "1z", "7z", "6z",
    *(f"{n}m" for n in range(1, 10)),
    *(f"{n}s" for n in range(1, 10)),
    "1f", "2f", "3f", "4f", "5z", "8f", "6f", "5f", "7f",
)
DOROTHY_CELL = (64, 80)
DOROTHY_FACE_BOX = (4, 2, 53, 63)  # the face inside one cell, without the drawn body

CAMERASH_HONOURS = {
    "east": "1z", "south": "2z", "west": "3z", "north": "4z",
    "white": "5z", "green": "6z", "red": "7z",
}
CAMERASH_BONUS = {
    "spring": "1f", "summer": "2f", "autumn": "3f", "winter": "4f",
    "plum": "5f", "orchid": "6f", "chrysanthemum": "7f", "bamboo": "8f",
}


def camerash_code(label_name: str) -> str:
    """Map a camerash label such as `dots-5` or `honors-east` to our tile code."""
    kind, _, value = label_name.partition("-")
    suit = {"characters": "m", "dots": "p", "bamboo": "s"}.get(kind)
    if suit and value.isdigit():
        return f"{value}{suit}"
    table = {"honors": CAMERASH_HONOURS, "bonus": CAMERASH_BONUS}.get(kind, {})
    if value in table:
        return table[value]
    raise ArtError("unknown_label", f"camerash label {label_name!r} has no tile code")


# --- the held-out split of real crops ---

def is_held_out_crop(image_name: str) -> bool:
    """True for the ~25% of camerash crops never used for training.

    The rule is a hash of the file name, so the split is the same on every machine and
    for every seed; detector evaluation uses exactly the crops where this is True.
    """
    return hashlib.sha1(image_name.encode()).digest()[0] % 4 == 0


@dataclass(frozen=True)
class Crop:
    path: Path
    code: str
    held_out: bool


def camerash_crops(root: Path = CAMERASH_DIR) -> list[Crop]:
    """Every labelled real crop with its tile code and split, sorted by file name."""
    labels = root / "labels.csv"
    if not labels.is_file():
        raise ArtError("source_missing", f"camerash crops not found: {labels} is missing")
    with labels.open(newline="") as f:
        rows = list(csv.DictReader(f))
    crops = [Crop(root / "images" / r["image-name"], camerash_code(r["label-name"]),
                  is_held_out_crop(r["image-name"])) for r in rows]
    return sorted(crops, key=lambda c: c.path.name)


# --- rasterising ---

def to_face(rgba: np.ndarray) -> np.ndarray:
    """Any RGBA face picture at the atlas size (FACE_H x FACE_W); every source ends here."""
    import cv2

    return cv2.resize(rgba, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)


def _pad_symbol(rgba: np.ndarray, margin: float) -> np.ndarray:
    """Shrink a bare symbol inside a transparent margin (fraction of each side)."""
    import cv2

    h, w = rgba.shape[:2]
    ih, iw = int(round(h * (1 - 2 * margin))), int(round(w * (1 - 2 * margin)))
    inner = cv2.resize(rgba, (iw, ih), interpolation=cv2.INTER_AREA)
    out = np.zeros_like(rgba)
    y0, x0 = (h - ih) // 2, (w - iw) // 2
    out[y0:y0 + ih, x0:x0 + iw] = inner
    return out


def _decode_png(data: bytes) -> np.ndarray:
    from PIL import Image

    return np.array(Image.open(io.BytesIO(data)).convert("RGBA"))


def _svg_file_to_rgba(path: Path, width: int) -> np.ndarray:
    import cairosvg

    return _decode_png(cairosvg.svg2png(url=str(path), output_width=width))


def _svg_element_to_rgba(svg: Path, element_id: str, zoom: float) -> np.ndarray:
    """Rasterise one element of an SVG file, cropped to its painted pixels."""
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise ArtError("tool_missing", "rsvg-convert is needed to cut KMahjongg tiles: "
                       "install Debian package librsvg2-bin")
    png = subprocess.run([exe, "-i", element_id, "-z", str(zoom), str(svg)],
                         check=True, capture_output=True).stdout
    rgba = _decode_png(png)
    ys, xs = np.nonzero(rgba[:, :, 3])
    if len(xs) == 0:  # e.g. a blank White dragon: keep the full (empty) canvas
        return rgba
    return rgba[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


# --- atlas builders, one per source: each returns ({code: [rgba face, ...]}, opaque) ---

def _build_fluffystuff() -> tuple[dict[str, list[np.ndarray]], bool]:
    if not FLUFFY_DIR.is_dir():
        raise ArtError("source_missing", f"fluffystuff art not found at {FLUFFY_DIR}")
    faces: dict[str, list[np.ndarray]] = {}
    for name, code in FLUFFY_NAMES.items():
        symbol = _svg_file_to_rgba(FLUFFY_DIR / f"{name}.svg", FACE_W * 2)
        faces.setdefault(code, []).append(to_face(_pad_symbol(symbol, 0.09)))
    return faces, False


def _kmahjongg_svg(name: str) -> Path:
    svgz = CACHE_DIR / "debian" / "usr/share/kmahjongglib/tilesets" / f"{name}.svgz"
    if not svgz.is_file():
        raise ArtError("source_missing", f"{svgz} not found: run `python datasets/fetch_art.py`")
    svg = CACHE_DIR / "work" / f"kmahjongg-{name}.svg"
    svg.parent.mkdir(parents=True, exist_ok=True)
    svg.write_bytes(gzip.decompress(svgz.read_bytes()))
    return svg


def _build_kmahjongg(name: str) -> tuple[dict[str, list[np.ndarray]], bool]:
    svg = _kmahjongg_svg(name)
    faces: dict[str, list[np.ndarray]] = {}
    for element_id, code in {**KMAHJONGG_IDS, **KMAHJONGG_OVERRIDES.get(name, {})}.items():
        symbol = _svg_element_to_rgba(svg, element_id, 2.0)
        faces.setdefault(code, []).append(to_face(_pad_symbol(symbol, 0.04)))
    return faces, False


# The jade set carves its symbols in white, for a green face. The renderer lays art that has no
# face of its own on ivory faces, so each symbol is inked in each of these dark inks instead.
JADE_INKS = ((25, 85, 55), (30, 30, 35), (40, 50, 120))


def inked(symbol: np.ndarray, ink: tuple[int, int, int]) -> np.ndarray:
    """A light symbol (RGBA, on transparency) redrawn in a dark ink, its transparency as it was;
    its shading (a carving's darker grooves) still shows, as lighter ink."""
    shade = 1.25 - symbol[..., :3].astype(np.float32).mean(axis=2, keepdims=True) / 255
    out = symbol.copy()
    out[..., :3] = np.clip(np.array(ink, np.float32) * shade, 0, 255).astype(np.uint8)
    return out


def _build_kmahjongg_jade() -> tuple[dict[str, list[np.ndarray]], bool]:
    faces, opaque = _build_kmahjongg("jade")
    return {code: [inked(face, ink) for face in items for ink in JADE_INKS]
            for code, items in faces.items()}, opaque


def _debian_file(rel: str) -> Path:
    path = CACHE_DIR / "debian" / rel
    if not path.is_file():
        raise ArtError("source_missing", f"{path} not found: run `python datasets/fetch_art.py`")
    return path


def _gnome_faces(strip: np.ndarray, keep) -> dict[str, list[np.ndarray]]:
    """Cut the faces of a GNOME theme strip (GNOME_SMOOTH_ORDER) whose codes `keep` allows."""
    tw, _ = GNOME_TILE
    x0, y0, x1, y1 = GNOME_FACE_BOX
    faces: dict[str, list[np.ndarray]] = {}
    for index, code in enumerate(GNOME_SMOOTH_ORDER):
        if keep(code):
            face = strip[y0:y1, index * tw + x0:index * tw + x1].copy()
            face[:, :, 3] = 255
            faces.setdefault(code, []).append(to_face(face))
    return faces


def _build_gnome_smooth() -> tuple[dict[str, list[np.ndarray]], bool]:
    from PIL import Image

    strip = np.array(Image.open(_debian_file("usr/share/gnome-mahjongg/themes/smooth.png"))
                     .convert("RGBA"))
    return _gnome_faces(strip, lambda code: True), True


def _build_gnome_postmodern() -> tuple[dict[str, list[np.ndarray]], bool]:
    """The postmodern theme draws White, flowers and seasons as GNOME logos and abstract
    pictures no real set has, so only its suits, winds, Red and Green are used."""
    import cairosvg

    svg = _debian_file("usr/share/gnome-mahjongg/themes/postmodern.svg")
    strip = _decode_png(cairosvg.svg2png(url=str(svg), output_width=GNOME_TILE[0] * 43))
    return _gnome_faces(strip, lambda code: code[1] in "mps" or code in ("1z", "2z", "3z", "4z",
                                                                          "6z", "7z")), True


def _build_xmahjongg_real() -> tuple[dict[str, list[np.ndarray]], bool]:
    from PIL import Image

    grid = np.array(Image.open(_debian_file("usr/share/games/xmahjongg/tiles/real.gif"))
                    .convert("RGBA"))
    h, w = grid.shape[:2]
    cw, ch = w / 9, h / 5
    inset = 3  # each scanned cell has a dark gap around the tile
    faces: dict[str, list[np.ndarray]] = {}
    for index, code in enumerate(XMAHJONGG_GRID):
        if code is None:
            continue
        r, c = divmod(index, 9)
        x0, y0 = int(round(c * cw)) + inset, int(round(r * ch)) + inset
        x1, y1 = int(round((c + 1) * cw)) - inset, int(round((r + 1) * ch)) - inset
        face = grid[y0:y1, x0:x1].copy()
        face[:, :, 3] = 255
        faces.setdefault(code, []).append(to_face(face))
    return faces, True


def _build_xmahjongg_dorothys() -> tuple[dict[str, list[np.ndarray]], bool]:
    from PIL import Image

    cw, ch = DOROTHY_CELL
    x0, y0, x1, y1 = DOROTHY_FACE_BOX
    faces: dict[str, list[np.ndarray]] = {}
    for name in ("dorothys", "dorwhite"):  # two sets: ivory and white faces
        grid = np.array(Image.open(_debian_file(f"usr/share/games/xmahjongg/tiles/{name}.gif"))
                        .convert("RGBA"))
        for index, code in enumerate(DOROTHY_ORDER):
            r, c = divmod(index, 21)
            face = grid[r * ch + y0:r * ch + y1, c * cw + x0:c * cw + x1].copy()
            face[:, :, 3] = 255
            faces.setdefault(code, []).append(to_face(face))
    return faces, True


def _camerash_faces(held_out: bool) -> dict[str, list[np.ndarray]]:
    from PIL import Image

    faces: dict[str, list[np.ndarray]] = {}
    for crop in camerash_crops():
        if crop.held_out == held_out:
            faces.setdefault(crop.code, []).append(to_face(np.array(Image.open(crop.path).convert("RGBA"))))
    return faces


def _build_camerash() -> tuple[dict[str, list[np.ndarray]], bool]:
    return _camerash_faces(held_out=False), True


def held_out_crop_atlas() -> Atlas:
    """Faces from the held-out real crops, which no model trains on: for evaluation only, so
    never built into the atlas cache that training renders from."""
    return Atlas("camerash-held-out", True, _camerash_faces(held_out=True))


def _build_drawn(styles: int | None = None) -> tuple[dict[str, list[np.ndarray]], bool]:
    from . import drawn

    return drawn.build(FONT_DIR, styles or drawn.STYLES), False


BUILDERS = {
    "fluffystuff": _build_fluffystuff,
    "kmahjongg-default": lambda: _build_kmahjongg("default"),
    "kmahjongg-traditional": lambda: _build_kmahjongg("traditional"),
    "kmahjongg-classic": lambda: _build_kmahjongg("classic"),
    "kmahjongg-jade": _build_kmahjongg_jade,
    "gnome-smooth": _build_gnome_smooth,
    "gnome-postmodern": _build_gnome_postmodern,
    "xmahjongg-real": _build_xmahjongg_real,
    "xmahjongg-dorothys": _build_xmahjongg_dorothys,
    "camerash": _build_camerash,
    "drawn": _build_drawn,
}


def fetch_debian(cache: Path = CACHE_DIR) -> None:
    """Download the Debian packages (DEBIAN_PACKAGES: the three games' tile art and the CJK fonts
    the drawn source writes with) with apt-get and unpack them into the cache."""
    if shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        raise ArtError("tool_missing", "apt-get and dpkg are needed to fetch the Debian art")
    debs = cache / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    missing = [p for p in DEBIAN_PACKAGES if not list(debs.glob(f"{p}_*.deb"))]
    if missing:
        done = subprocess.run(["apt-get", "download", *missing], cwd=debs,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise ArtError("download_failed", "apt-get download failed (try `apt-get update`):\n"
                           + done.stderr.strip())
    for deb in sorted(debs.glob("*.deb")):
        subprocess.run(["dpkg", "-x", str(deb), str(cache / "debian")], check=True)


# --- atlas files ---

@dataclass(frozen=True)
class Atlas:
    """The faces of one art source, ready for the renderer."""

    source: str
    opaque: bool
    faces: dict[str, list[np.ndarray]]  # code -> RGBA faces (FACE_H, FACE_W, 4)

    @property
    def codes(self) -> list[str]:
        return [c for c in TILE_CODES if c in self.faces]


def build_atlas(source: str, cache: Path = CACHE_DIR, drawn_styles: int | None = None) -> Path:
    """Rasterise one source into `<cache>/atlas/<source>/` and return that folder. `drawn_styles`
    sets how many imagined sets the `drawn` source writes (drawn.STYLES by default; the first
    ones are the same whatever the number)."""
    from PIL import Image

    if source not in BUILDERS:
        raise ArtError("unknown_source", f"unknown art source {source!r}; known: {', '.join(SOURCES)}")
    faces, opaque = _build_drawn(drawn_styles) if source == "drawn" else BUILDERS[source]()
    folder = cache / "atlas" / source
    tmp = folder.with_name(source + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for code, items in faces.items():
        for k, face in enumerate(items):
            Image.fromarray(face).save(tmp / f"{code}__{k}.png")
    (tmp / "source.json").write_text(json.dumps({"source": source, "opaque": opaque}))
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)  # a half-built atlas is never visible under the real name
    return folder


def load_atlas(source: str, cache: Path = CACHE_DIR) -> Atlas:
    """Read an atlas, building it first when its source needs no download."""
    from PIL import Image

    folder = cache / "atlas" / source
    if not (folder / "source.json").is_file():
        if source not in LOCAL_SOURCES:
            raise ArtError("atlas_missing", f"no atlas for {source!r} in {cache}: "
                           "run `python datasets/fetch_art.py` first")
        build_atlas(source, cache)
    info = json.loads((folder / "source.json").read_text())
    faces: dict[str, list[np.ndarray]] = {}
    for png in sorted(folder.glob("*.png"), key=lambda p: (p.stem.split("__")[0],
                                                           int(p.stem.split("__")[1]))):
        code = png.stem.split("__")[0]
        if code in TILE_CODES:
            faces.setdefault(code, []).append(np.array(Image.open(png).convert("RGBA")))
    return Atlas(source, bool(info["opaque"]), faces)


def available_sources(cache: Path = CACHE_DIR) -> list[str]:
    """Sources that can be loaded now (built atlases plus the local ones)."""
    built = {p.parent.name for p in (cache / "atlas").glob("*/source.json")}
    local = {"fluffystuff": FLUFFY_DIR.is_dir(), "camerash": CAMERASH_DIR.is_dir()}
    return [s for s in SOURCES if s in built or local.get(s, False)]


def contact_sheet(atlas: Atlas, face_colour=(235, 230, 215)) -> np.ndarray:
    """All codes of one atlas in code order, labelled, for checking a mapping by eye."""
    import cv2

    cols, pad, label_h = 9, 6, 18
    codes = list(TILE_CODES)
    rows = (len(codes) + cols - 1) // cols
    sheet = np.full((rows * (FACE_H + label_h + pad), cols * (FACE_W + pad), 3), 90, np.uint8)
    for i, code in enumerate(codes):
        r, c = divmod(i, cols)
        y, x = r * (FACE_H + label_h + pad), c * (FACE_W + pad)
        cv2.putText(sheet, code, (x + 4, y + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (255, 255, 0), 1, cv2.LINE_AA)
        if code not in atlas.faces:
            continue
        face = atlas.faces[code][0].astype(np.float32)
        alpha = face[:, :, 3:] / 255
        rgb = face[:, :, :3] * alpha + np.array(face_colour, np.float32) * (1 - alpha)
        sheet[y + label_h:y + label_h + FACE_H, x:x + FACE_W] = rgb.astype(np.uint8)
    return sheet
