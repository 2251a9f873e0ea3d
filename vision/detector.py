"""The tile detector at run time: the one place that loads the model.

ONNX Runtime on CPU runs the exported YOLO model; pre-processing (EXIF orientation,
colour modes, letterbox) and post-processing (box decoding, NMS, top-3 alternatives) are
plain numpy so they can be tested without a model. numpy, Pillow, OpenCV and onnxruntime
are imported inside functions so importing this module costs nothing.

Tiles use class-agnostic NMS (one tile is one box, whatever its code); the meld-grouping
classes are decoded as a separate family, because a meld box legitimately overlaps the
tiles inside it.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import os
import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Sequence, Union

from vision.classifier import DEFAULT_MODEL as DEFAULT_CLASSIFIER
from vision.detections import BACK, CLASS_NAMES, GROUP_CLASSES, PLAYING_CODES, Detection, DetectionSet, with_any_face
from vision.errors import CodedError
from vision.paths import file_problem, one_line
from vision.stacking import DEFAULT_MODEL as DEFAULT_STACK_MODEL

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "mjlens-tiles.onnx"
# Above any phone camera's 12-108 MP; a 20000x20000 image (400 MP) is refused before its
# pixels are decoded. Pillow itself refuses images over ~179 MP at open (reported the same).
MAX_PIXELS = 150_000_000
MIN_SIDE = 8  # below this there is no tile to see
# How far past 0..1 (or 0..255) a float image's pixels may run: cubic resampling overshoots by
# about a tenth of the range at sharp edges.
OVERSHOOT = 0.25
TOP_K = 3
PAD_VALUE = 114  # the grey ultralytics pads with during training
# A transparent photo (a hand cut out by a background-removal app) is read on the grey the
# detector learnt as no photo at all. On white, ivory faces and blank White dragons lose their
# edges, and the white read as a flash's reflection (cut-out photos: see docs/photo-pipeline.md).
BACKDROP = PAD_VALUE
NESTED_TILE_COVER = 0.8  # a tile box this much inside a better one is a duplicate

# The detector's tile confidence is its best class's score, split over 45 classes, so real
# tiles often score less than 0.25 (on held-out hand photos 0.25 finds 66% of the tiles, 0.04
# finds 99%). The classifier vetoes the boxes that hold no tile (its NOT_A_TILE class), so
# tiles are proposed from this lower confidence.
PROPOSAL_CONF = 0.04
DEFAULT_CONF = 0.25
IOU_THRESHOLD = 0.5  # non-maximum suppression between boxes of one family (tiles; groupings)
MAX_DETECTIONS = 500  # more boxes than any table holds tiles
# A photo whose tiles come out this small at the model's input (median short side of the sure
# tile boxes, in input pixels) is read again FINE_SCALE times larger, when it has the pixels.
# The small tiles of a whole table, or of a hand photographed from afar, are then boxed and read
# better; a close photo of one hand, whose tiles the model learnt at its input size, is read once.
# On 2,200 development hand photos, tiles under 24 / 28 / 32 px read again gave 955 / 959 / 952
# exact hands (947 read once; every photo read at 960 px: 927); at 28, 1920 px scenes of every
# layout reach mAP50 0.718 (0.675 read once).
SMALL_TILES = 28
FINE_SCALE = 1.5
# A close-up of one to a few tiles shows them larger than the model learnt most tiles (in
# hands and tables), and it misses many outright, even a lone tile filling half the frame.
# Where the sure tile boxes' median short side is LARGE_TILES input pixels or more, or there
# is none, the photo is read again COARSE_SCALE times as large and its tile boxes merged with
# the first reading's. (Hand photos' medians: 47 px at the median, 84 at most.)
LARGE_TILES = 100
COARSE_SCALE = 0.6
# A box of the smaller reading lying over a sure tile box of the first this much (IoU) is that
# tile again, and left out: merged by confidence, such boxes took 10-19 of the ~350 tiles read
# right at 640 px in 300 close-ups of each art set to a wrong code, and gave back 8-16.
SAME_TILE_IOU = 0.6
# A hand that no reading makes win is read at the other size over the part of the photo around
# its tiles, this many tile lengths more on each side (Detector._boxes_around). On 1,000
# development photos, against the whole photo: 1.5 / 2 / 3 / 5 read 480 / 481 / 482 / 481 exact
# hands (481), and at 3 the pass costs 0.81 of the first reading's time instead of 1.1.
AROUND_TILES = 3.0
# One hand is at most 18 tiles and 8 flowers: a photo with more sure tile boxes shows a table,
# whose tiles lie every way round and are read by the tile model alone. Fewer, larger tiles
# (a hand, a close-up) are read by the upright model as in photos of one hand: on the 640 px
# evaluation scenes that read hand layouts 0.859 -> 0.882 / 0.851 -> 0.858 mAP50 and close-ups
# 0.587 -> 0.658 / 0.500 -> 0.503 (training sources / held-out art), tables unchanged; the
# p50 time over those 200 scenes rose 3.6% (the upright model reads its unsure tiles twice).
HAND_TILES = 30
# Under a warm lamp or in a dim room the classifiers misread tile faces: they were trained on
# renders whose faces' bright pixels (FACE_PERCENTILE within the tile boxes) read FACE_WHITE at
# the median (5-95% of 160 test photos 132-251, blue over red 0.74-1.24; the 20 real table
# photos 180-246, 0.85-1.0). Where some channel of a photo's faces is CAST times off that, the
# boxes can be read again with the channels scaled to it (`DetectionSet.in_balanced_light`;
# vision.pipeline says when). The choice of 190-235 and 1.5-2.0 changed at most two of the
# complete photos read exactly in each light of the pipeline's test (vision/pipeline.py); at 1.5,
# 6 of bench_photo's first 100 photos as rendered had a classifier pass more (each about half a
# detector pass), at 1.8 3, which the latency target allows.
FACE_PERCENTILE = 90
FACE_WHITE = 210.0
CAST = 1.8
# A shadow over part of the hand (the phone's, the person's) or a lamp to one side lights the
# tiles unevenly, and both networks misread the shaded ones. Where the faces' bright pixels of
# the least lit tenth of the tiles read under UNEVEN times the best lit tenth's, the photo can be
# read again lit evenly by its tiles' own light (`evenly_lit`; renders as lit: 0.70 / 0.76 at the
# 5th percentile, real faces / drawn; under a shadow halving the light over part of the hand,
# 0.44 / 0.45 at the median).
UNEVEN = 0.65
MAX_TILE_GAIN = 4.0  # a box's own light is taken at most this much up: one too dark says nothing
LIGHT_REACH = 0.7  # tile sides: how far a tile's light reaches when the photo is lit evenly (evenly_lit)
# A photo out of focus or shaken blurs the tiles' strokes, which both networks then misread. How
# sharp a photo's tiles are: the median over its tile crops (as the classifier sees them) of the
# variance of the crop's Laplacian over the crop's own variance. Rendered test photos read 0.021 /
# 0.136 / 0.758 (5% / 50% / 95%), blurred by 1.5 px 0.006 / 0.020 / 0.083. Where it is under
# BLURRED, the photo can be read again sharpened (SHARPEN_AMOUNT times itself less its Gaussian
# blur of SHARPEN_SIGMA px added; `DetectionSet.sharpened`; vision.pipeline says when). At 0.03,
# two more of the photos counted in vision.pipeline read exactly, but 4 more of bench_photo's
# first 100 were read twice (a detector pass each): too many for the latency target.
BLURRED = 0.015
SHARPNESS_TILES = 8
SHARPEN_AMOUNT = 2.0
SHARPEN_SIGMA = 2.0
# A phone that moves while the shutter is open smears every point along a short line (shake).
# The smear's spectrum has evenly spaced zeros, which the cepstrum (the inverse transform of the
# log spectrum) of the middle SHAKE_WINDOW px square of the tiles' part of the photo shows as its
# deepest dip, on the ring of SHAKE_RADII px, at the smear's length and direction. Sharp and
# focus-blurred photos show a dip too, anywhere, but seldom SHAKE_CLEAR times as deep as any
# SHAKE_APART degrees or more away from it. Where the dip is that clear and lies SHAKE_MIN px out
# or more, the tile boxes can be read again with that smear undone (a Wiener filter assuming
# WIENER_NOISE of noise to signal; `DetectionSet.unshaken`; vision.pipeline says when). In the
# 120 complete photos of bench_photo's first 100 / 60, shaken by 7 / 9 / 13 px in random
# directions, it finds a shake in 83% / 90% / 91%, within a pixel and 10 degrees in 82% / 90% /
# 90%; as rendered it finds one in 12% (the renderer shakes some), blurred by 2.5 px in 2%. The
# real sample photo shows none as it is, and the shake of 7-21 px given it; of the 25 real table
# photos in ../shared/data/table-photos, one (a strip 110 px high) shows one. A tile-sharpness gate
# (as BLURRED) misses shake in sharp photos: strokes across the smear stay sharp, and the sample
# shaken by 15 px reads 0.33. A window of 512 px found a little more (7 / 9 / 13 px: 92% / 97% /
# 98%) for twice the time, which unsure hands pay (about 4.5 against 2.2 ms).
SHAKE_RADII = range(4, 25)
SHAKE_STEP = 3  # degrees between the directions tried on the ring
SHAKE_CLEAR = 1.6
SHAKE_APART = 30
SHAKE_MIN = 7
SHAKE_WINDOW = 256
JPEG_BLOCK = 8
WIENER_NOISE = 0.01
# A flash or a lamp mirrored in the tiles' glaze clips part of the photo to white in every
# channel, ink and all: the tile under it reads as a blank White dragon, another tile, or is not
# found at all. Such a reflection shows as pixels of GLARE_LEVEL or more in all three channels,
# near the tiles, in patches of at least GLARE_SHARE of a tile box; a tile box that much covered
# by one is washed out. More than GLARE_TILES washed-out tiles is an overexposed photo, which
# no reading can mend. The boxes can be read again with the washed-out tiles free to take any face
# (`DetectionSet.deglared`; vision.pipeline says when).
GLARE_LEVEL = 250
GLARE_SHARE = 0.15
GLARE_TILES = 3
# A reflection that hides a tile the detector did not box is given a box in the gap beside it,
# where the gap is at least HIDDEN_ROOM of a tile wide.
HIDDEN_ROOM = 0.6

ImageInput = Union[str, Path, bytes, "Image.Image", "np.ndarray"]


class DetectorError(CodedError):
    """A failure the caller can report: model files, or an image that cannot be read."""


@dataclass(frozen=True)
class Letterbox:
    """How an image of `width` x `height` was scaled and padded into a model input of
    `input_width` x `input_height`."""

    width: int
    height: int
    scale_x: float
    scale_y: float
    pad_x: int
    pad_y: int
    input_width: int
    input_height: int

    @classmethod
    def fit(cls, width: int, height: int, size: int, stride: int | None = None) -> "Letterbox":
        """Scale the long side to `size`. Without `stride` the input is size x size (a model
        exported for one input size); with it the short side is padded only up to a multiple
        of `stride`, since a fully convolutional model takes any such size and a 4:3 or 16:9
        photo then costs 25-44% less than its square (ultralytics' rectangular inference)."""
        scale = min(size / width, size / height)
        new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
        if stride:
            input_w, input_h = -(-new_w // stride) * stride, -(-new_h // stride) * stride
        else:
            input_w = input_h = size
        return cls(width, height, new_w / width, new_h / height,
                   (input_w - new_w) // 2, (input_h - new_h) // 2, input_w, input_h)

    @property
    def resized(self) -> tuple[int, int]:
        return round(self.width * self.scale_x), round(self.height * self.scale_y)

    def to_image(self, boxes: "np.ndarray") -> "np.ndarray":
        """Model-input xyxy boxes -> original-image xyxy boxes, clipped to the image."""
        import numpy as np

        out = np.empty_like(boxes, dtype=np.float64)
        out[:, [0, 2]] = ((boxes[:, [0, 2]] - self.pad_x) / self.scale_x).clip(0, self.width)
        out[:, [1, 3]] = ((boxes[:, [1, 3]] - self.pad_y) / self.scale_y).clip(0, self.height)
        return out


def load_image(source: ImageInput, draft_size: int | None = None) -> tuple["np.ndarray", tuple[int, int]]:
    """Decode any supported input to an RGB uint8 array, upright per its EXIF orientation.

    Returns (pixels, (width, height) of the upright original). With `draft_size`, JPEGs
    much larger than that are decoded at a reduced scale (far faster); the returned size
    is still the original's, so boxes can be mapped back to it.
    """
    import numpy as np
    from PIL import Image

    if isinstance(source, np.ndarray):
        return _array_to_rgb(source), (source.shape[1], source.shape[0])
    if isinstance(source, Image.Image):  # the caller's own, perhaps changed: its pixels, its file only checked
        if (data := _jpeg_file_behind(source)) is not None and (damage := jpeg_damage(data)):
            raise _damaged("the image", damage)
        return _pixels(source, None, "the image", draft_size)
    with _opened(source) as img:
        return _pixels(img, source, _source_name(source), draft_size)


def _pixels(img: "Image.Image", source: str | Path | bytes | None, name: str,
            draft_size: int | None) -> tuple["np.ndarray", tuple[int, int]]:
    """load_image's work on an image opened from `source` (None: the caller's own PIL image)."""
    from PIL import Image

    _check_size(*img.size, name)
    decoded = None
    if img.format in ("JPEG", "MPO") and source is not None:
        # Decoded by libjpeg-turbo itself, which tells damaged data (Pillow decodes past it without
        # a word), at the scale Pillow's draft would take.
        scale = _draft_scale(img.size, draft_size)
        decoded, damage = _strict_jpeg(_bytes_of(source), -(-img.size[0] // scale), -(-img.size[1] // scale))
        if damage:
            raise _damaged(name, damage)
    try:
        width, height = upright_size(img)
        if decoded is not None:
            turn = _UPRIGHT[exif_orientation(img)]
            img = Image.fromarray(decoded)
        else:
            if draft_size and img.format == "JPEG":
                img.draft("RGB", (draft_size, draft_size))
            img.load()
            turn = _UPRIGHT[exif_orientation(img)]  # after loading: Pillow stands a TIFF up as it loads
        if turn:
            img = img.transpose(Image.Transpose[turn])
        pixels = decoded if decoded is not None and not turn else _to_rgb(img)
    except (OSError, ValueError, SyntaxError) as exc:
        raise _unreadable(name, exc) from exc
    return pixels, (width, height)


def _damaged(name: str, damage: str) -> DetectorError:
    return DetectorError("unreadable_image", f"{name}: the JPEG data is damaged ({damage}), so part of the "
                                             "picture would read as garbage: copy or take the photo again")


def _jpeg_file_behind(img: "Image.Image") -> bytes | None:
    """The JPEG file a PIL image was opened from, where it can still be read (a path, or bytes in
    memory), else None: Pillow decodes damaged data without a word, whoever opened it."""
    if img.format not in ("JPEG", "MPO"):
        return None
    if isinstance(getattr(img, "fp", None), io.BytesIO):
        return img.fp.getvalue()
    filename = getattr(img, "filename", "")
    return _bytes_of(filename) if filename and Path(filename).is_file() else None


def _draft_scale(size: tuple[int, int], draft_size: int | None) -> int:
    """The reduction (1, 2, 4 or 8) at which Pillow's draft would decode a JPEG of `size` to be
    read at `draft_size`: the largest that keeps both sides at least that long."""
    if not draft_size:
        return 1
    ratio = min(size[0] // draft_size, size[1] // draft_size)
    return next((scale for scale in (8, 4, 2) if ratio >= scale), 1)


def jpeg_damage(data: bytes) -> str | None:
    """libjpeg-turbo's complaint about damaged JPEG data, or None. Pillow decodes past corrupt
    scan data without a word (the rest of the picture turns to grey or garbage blocks), so a
    damaged photo would be read and scored. Decoded at 1/8 scale: each coefficient is still
    Huffman-decoded, which is where damage shows, for a tenth of the full decode's time."""
    return _strict_jpeg(data, 1, 1)[1]


def _strict_jpeg(data: bytes, min_width: int, min_height: int) -> tuple["np.ndarray | None", str | None]:
    """A JPEG's RGB pixels, decoded at the smallest scale at least `min_width` x `min_height`, and
    libjpeg-turbo's complaint about damaged data (None: whole). No pixels where it is damaged, or
    where simplejpeg cannot decode it for another reason (Pillow's to judge and decode)."""
    import simplejpeg

    def decode(strict: bool) -> "np.ndarray":
        return simplejpeg.decode_jpeg(data, strict=strict, min_width=min_width, min_height=min_height)

    try:
        return decode(strict=True), None
    except ValueError as exc:
        message = one_line(exc)
        if not message.startswith(_DAMAGED_JPEG):
            return None, None
        return (decode(strict=False), None) if _padded(data, message) else (None, message)


# How libjpeg's warnings about damaged data begin
_DAMAGED_JPEG = ("Corrupt JPEG data", "Premature end of JPEG file")


def _padded(data: bytes, message: str) -> bool:
    """Whether the bytes libjpeg found left over before a marker are zeros some encoders pad with
    (the picture whole), not scan data a damaged stretch made the decoder skip."""
    import re

    if not (leftover := re.search(r"(\d+) extraneous bytes before marker 0x([0-9a-f]{2})", message)):
        return False
    return b"\x00" * int(leftover[1]) + b"\xff" + bytes.fromhex(leftover[2]) in data


def _bytes_of(source: str | Path | bytes | bytearray | memoryview) -> bytes:
    return Path(source).read_bytes() if isinstance(source, (str, Path)) else bytes(source)


def image_size(source: ImageInput) -> tuple[int, int]:
    """(width, height) of the image upright per its EXIF orientation, from its header alone."""
    import numpy as np

    if isinstance(source, np.ndarray):
        return source.shape[1], source.shape[0]
    try:
        with _opened(source) as img:
            return upright_size(img)
    except (OSError, ValueError, SyntaxError) as exc:
        raise DetectorError("unreadable_image", f"cannot read the image's header: {one_line(exc)}") from exc


def frames_after_the_first(source: ImageInput) -> int:
    """How many frames beyond the first an animation or a multi-page file holds (GIF, TIFF, WebP,
    APNG); the photo is read from the first. A camera's MPO or a HEIC keeps previews and depth
    maps beside its one photo: 0."""
    import numpy as np

    if isinstance(source, np.ndarray):
        return 0
    try:
        with _opened(source) as img:
            return getattr(img, "n_frames", 1) - 1 if img.format in ("GIF", "TIFF", "WEBP", "PNG") else 0
    except (DetectorError, OSError, ValueError, SyntaxError):  # read once already: judged there
        return 0


@contextlib.contextmanager
def _opened(source: str | Path | bytes | "Image.Image") -> Iterator["Image.Image"]:
    """`source` as a PIL image: the caller's own as it is, else opened here and closed after use
    (at once, not when the garbage collector gets to it)."""
    from PIL import Image

    if isinstance(source, Image.Image):
        yield source
    else:
        with _open(source) as img:
            yield img


def upright_size(img: "Image.Image") -> tuple[int, int]:
    """(width, height) of an opened image as it stands upright per its EXIF orientation."""
    width, height = img.size
    if exif_orientation(img) in (5, 6, 7, 8) and not _stood_up_by_pillow(img):  # these swap the sides
        return height, width
    return width, height


def exif_orientation(img: "Image.Image") -> int:
    """The EXIF orientation tag (1: upright as stored); 1 where it holds no orientation, as a
    malformed EXIF block may (a tuple of values, a string): the photo is then read as stored."""
    orientation = img.getexif().get(0x0112, 1)
    return orientation if isinstance(orientation, int) and orientation in _UPRIGHT else 1


def _stood_up_by_pillow(img: "Image.Image") -> bool:
    """Whether Pillow reports the image's size upright already: recent versions do so for a TIFF
    (and turn its pixels when they load), its stored width and height then read the other way."""
    tags = getattr(img, "tag_v2", None)
    return img.format == "TIFF" and tags is not None and img.size != (tags.get(256), tags.get(257))


# EXIF orientation -> the turn that stands the stored pixels upright. Applied by hand rather than by
# ImageOps.exif_transpose, which also rewrites the EXIF block and fails on a malformed one.
_UPRIGHT = {1: None, 2: "FLIP_LEFT_RIGHT", 3: "ROTATE_180", 4: "FLIP_TOP_BOTTOM", 5: "TRANSPOSE",
            6: "ROTATE_270", 7: "TRANSVERSE", 8: "ROTATE_90"}


@functools.cache
def register_phone_formats() -> None:
    """Let Pillow open HEIC / HEIF, the format iPhones save photos in by default (pillow-heif;
    it turns the file's rotation into pixels, so EXIF orientation then reads 1). AVIF, Android's
    newer format, Pillow opens itself."""
    from pillow_heif import register_heif_opener

    register_heif_opener()


def _source_name(source: str | Path | bytes | bytearray | memoryview) -> str:
    return "the image data" if isinstance(source, (bytes, bytearray, memoryview)) else str(source)


# How the image formats a phone or camera saves begin: a file that begins so but that Pillow cannot
# open is a damaged image (a download cut short), not some other kind of file.
IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"II*\x00", b"MM\x00*")


# HEIC and AVIF files begin with a box of type ftyp naming one of these brands
PHONE_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"mif1", b"msf1", b"avif", b"avis")


def looks_like_an_image(head: bytes) -> bool:
    """Whether `head`, a file's first bytes, begins as a JPEG, PNG, GIF, TIFF, WebP, HEIC or AVIF does."""
    return (head.startswith(IMAGE_SIGNATURES) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")
            or (head[4:8] == b"ftyp" and head[8:12] in PHONE_BRANDS))


def _head(stream: Path | io.BytesIO) -> bytes:
    if isinstance(stream, io.BytesIO):
        return stream.getvalue()[:12]
    with open(stream, "rb") as f:
        return f.read(12)


def _unreadable(name: str, exc: Exception) -> DetectorError:
    return DetectorError("unreadable_image",
                         f"{name}: cannot decode the image; the file may be cut short or damaged ({one_line(exc)})")


def pillow_open(stream: Path | io.BytesIO) -> "Image.Image":
    """`Image.open` without Pillow's decompression-bomb warning: each caller applies its own pixel
    limit (MAX_PIXELS, the server's), which the warning's 89 MP would only contradict. Past
    twice that Pillow still raises DecompressionBombError."""
    import warnings

    from PIL import Image

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        return Image.open(stream)


def _open(source: str | Path | bytes) -> "Image.Image":
    from PIL import Image, UnidentifiedImageError

    register_phone_formats()
    if isinstance(source, (bytearray, memoryview)):
        source = bytes(source)
    if not isinstance(source, (str, Path, bytes)):
        raise DetectorError("bad_argument", f"cannot read an image from {type(source).__name__}: give a file "
                                            "path, the file's bytes, a PIL image or an RGB array")
    name = _source_name(source)
    if isinstance(source, bytes):
        if not source:
            raise DetectorError("empty_file", "the image data is empty (0 bytes)")
        stream = io.BytesIO(source)
    else:
        if problem := file_problem(source, "image"):
            raise DetectorError(*problem)
        stream = Path(source)
    try:
        return pillow_open(stream)
    except Image.DecompressionBombError as exc:
        raise DetectorError("image_too_large", f"{name} has {bomb_pixels(exc) / 1e6:.0f} MP; the limit is "
                                               f"{MAX_PIXELS / 1e6:.0f} MP") from exc
    except UnidentifiedImageError as exc:
        if looks_like_an_image(_head(stream)):  # cut short or damaged before Pillow could tell
            raise _unreadable(name, exc) from exc
        raise DetectorError("not_an_image", f"{name}: not an image file Pillow can read") from exc
    except PermissionError as exc:
        raise DetectorError("cannot_read", f"{name}: cannot open it ({exc.strerror})") from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise _unreadable(name, exc) from exc


def bomb_pixels(exc: Exception) -> int:
    """The pixel count in Pillow's refusal to open an image far past its limit (its header says so)."""
    import re

    from PIL import Image

    named = re.search(r"\((\d+) pixels\)", str(exc))
    return int(named[1]) if named else 2 * Image.MAX_IMAGE_PIXELS + 1


def _check_size(width: int, height: int, name: str = "the image") -> None:
    if min(width, height) < MIN_SIDE:
        raise DetectorError("image_too_small", f"{name} is {width}x{height}; each side must be ≥ {MIN_SIDE} px")
    if width * height > MAX_PIXELS:
        raise DetectorError(
            "image_too_large",
            f"{name} is {width}x{height} ({width * height / 1e6:.0f} MP); the limit is "
            f"{MAX_PIXELS / 1e6:.0f} MP",
        )


def _to_rgb(img: "Image.Image") -> "np.ndarray":
    """RGB uint8 from any Pillow mode: 16-bit and float greys are rescaled, alpha goes on BACKDROP."""
    import numpy as np

    if img.mode == "F":  # float pixels: 0..1 or 0..255, as for a float array
        return _array_to_rgb(np.asarray(img))
    if img.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I"):
        grey = np.asarray(img, dtype=np.float64)
        # An 8-bit grey widened (Pillow's convert("I;16") keeps 0..255) is no black 16-bit photo.
        top = 65535.0 if grey.max() > 255 else 255.0
        grey = (grey.clip(0, top) * (255.0 / top)).round().astype(np.uint8)
        return np.repeat(grey[:, :, None], 3, axis=2)
    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        return _array_to_rgb(np.asarray(img.convert("RGBA")))
    return np.asarray(img.convert("RGB"))


def _array_to_rgb(array: "np.ndarray") -> "np.ndarray":
    """Accept HxW, HxWx1, HxWx3 (RGB) or HxWx4 (RGBA) arrays of uint8/uint16/float. (RGB: OpenCV's
    cv2.imread gives BGR, which reads red tiles as blue ones: cv2.cvtColor(img, cv2.COLOR_BGR2RGB).)"""
    import numpy as np

    array = np.asarray(array)  # a subclass (np.matrix) keeps two dimensions whatever is asked
    if array.ndim == 2:
        array = array[:, :, None]
    if array.ndim != 3 or array.shape[2] not in (1, 3, 4) or array.dtype.kind not in "buif":
        raise DetectorError("not_an_image", f"an array of shape {array.shape} and dtype {array.dtype} is not an image")
    _check_size(array.shape[1], array.shape[0])
    if array.dtype == np.uint16:
        array = (array / 257.0).round().astype(np.uint8)
    elif array.dtype != np.uint8:
        low, high = float(array.min()), float(array.max())
        # A little past either end is a resampler's overshoot, clipped; NaN fails both comparisons.
        if not (-OVERSHOOT <= low and high <= 255.0 + OVERSHOOT):
            found = "NaN" if np.isnan([low, high]).any() else f"from {low!r} to {high!r}"
            raise DetectorError("not_an_image", f"{array.dtype} pixels {found} make no image: pixels run 0..1 or "
                                                "0..255")
        top = 1.0 if high <= 1.0 + OVERSHOOT else 255.0
        array = (array.clip(0.0, top) * (255.0 / top)).round().astype(np.uint8)
    if array.shape[2] == 4:
        alpha = array[:, :, 3:4].astype(np.float32) / 255.0
        array = (array[:, :, :3] * alpha + BACKDROP * (1 - alpha)).round().astype(np.uint8)
    if array.shape[2] == 1:
        array = np.repeat(array, 3, axis=2)
    return np.ascontiguousarray(array)


def turned(rgb: "np.ndarray", degrees: float) -> tuple["np.ndarray", "np.ndarray"]:
    """The image turned counter-clockwise by `degrees` about its centre onto a canvas that holds
    all of it (the corners filled from its edges), and the 2x3 affine matrix that takes its
    pixels to the turned image's."""
    import cv2

    h, w = rgb.shape[:2]
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    size = (round(w * cos + h * sin), round(w * sin + h * cos))
    matrix[:, 2] += ((size[0] - w) / 2, (size[1] - h) / 2)
    return cv2.warpAffine(rgb, matrix, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), matrix


def corners_through(matrix: "np.ndarray", box: Sequence[float]) -> "np.ndarray":
    """The corners of `box` (x1, y1, x2, y2), in order round it, mapped by a 2x3 affine `matrix` (4 x 2)."""
    import numpy as np

    x1, y1, x2, y2 = box
    return np.array([[x1, y1, 1.0], [x2, y1, 1.0], [x2, y2, 1.0], [x1, y2, 1.0]]) @ np.asarray(matrix).T


def box_through(matrix: "np.ndarray", box: Sequence[float]) -> tuple[float, float, float, float]:
    """The axis-aligned box around the corners of `box` (x1, y1, x2, y2) mapped by a 2x3 affine
    `matrix`."""
    corners = corners_through(matrix, box)
    (left, top), (right, bottom) = corners.min(axis=0), corners.max(axis=0)
    return float(left), float(top), float(right), float(bottom)


def face_gains(rgb: "np.ndarray", detections: Sequence[Detection], kx: float = 1.0,
               ky: float = 1.0) -> "np.ndarray":
    """Per channel, the factor that takes the bright pixels of the tile faces (FACE_PERCENTILE
    within the tile boxes, scaled by kx, ky into `rgb`) to FACE_WHITE; all 1 without tile boxes."""
    import numpy as np

    pixels = [_face_pixels(rgb, box) for box in _tile_boxes(detections, kx, ky)]
    if sum(len(p) for p in pixels) == 0:
        return np.ones(3)
    bright = np.percentile(np.concatenate(pixels), FACE_PERCENTILE, axis=0)
    return FACE_WHITE / np.maximum(bright, 1.0)


def tile_lights(rgb: "np.ndarray", detections: Sequence[Detection], kx: float = 1.0,
                ky: float = 1.0) -> "np.ndarray":
    """Per tile box (scaled by kx, ky into `rgb`), per channel, its bright pixels' level
    (FACE_PERCENTILE): how its face is lit. Shape (boxes, 3); a box with no pixels reads 0."""
    import numpy as np

    levels = []
    for box in _tile_boxes(detections, kx, ky):
        pixels = _face_pixels(rgb, box)
        levels.append(np.percentile(pixels, FACE_PERCENTILE, axis=0) if len(pixels) else np.zeros(3))
    return np.array(levels).reshape(-1, 3)


def _face_pixels(rgb: "np.ndarray", box: tuple[float, float, float, float]) -> "np.ndarray":
    """The box's pixels (N x 3), every other one each way: a percentile reads the same for a
    quarter of the work."""
    x1, y1, x2, y2 = box
    return rgb[max(0, round(y1)):round(y2):2, max(0, round(x1)):round(x2):2].reshape(-1, 3)


def unevenly_lit(levels: "np.ndarray") -> bool:
    """Whether tiles of these lights (tile_lights) lie partly in shadow (UNEVEN)."""
    import numpy as np

    grey = levels.mean(axis=1)
    if len(grey) < 2:
        return False
    low, high = np.percentile(grey, [10, 90])
    return low < UNEVEN * high


def evenly_lit(rgb: "np.ndarray", detections: Sequence[Detection], kx: float = 1.0,
               ky: float = 1.0) -> "np.ndarray":
    """A copy of `rgb` lit as if evenly: each pixel scaled by the gains that take the faces of the
    tile boxes (scaled by kx, ky into `rgb`) near it to FACE_WHITE, a mean over the boxes weighed
    by a Gaussian of LIGHT_REACH tile sides, so that a tile in shadow, and the table around it,
    reads as one in the light. The detector then reads it anew: on shadowed development photos
    that read 67 of 115 hands exactly, the same boxes' crops balanced one by one 62."""
    import cv2
    import numpy as np

    boxes = np.array(_tile_boxes(detections, kx, ky), np.float32).reshape(-1, 4)
    gains = np.minimum(FACE_WHITE / np.maximum(tile_lights(rgb, detections, kx, ky), 1.0), MAX_TILE_GAIN)
    reach = LIGHT_REACH * float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    height, width = rgb.shape[:2]
    step = 8  # the field is smooth: worked out on a coarse grid, then enlarged
    ys = np.arange(0, height + step, step, dtype=np.float32)[:, None, None]
    xs = np.arange(0, width + step, step, dtype=np.float32)[None, :, None]
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    weights = np.exp(-((ys - cy) ** 2 + (xs - cx) ** 2) / (2 * max(reach, 1.0) ** 2)) + 1e-12
    field = (weights @ gains.astype(np.float32)) / weights.sum(axis=2, keepdims=True)
    field = cv2.resize(field, (len(xs[0]) * step, len(ys) * step), interpolation=cv2.INTER_LINEAR)[:height, :width]
    return np.clip(rgb * field, 0, 255).astype(np.uint8)


def tile_sharpness(rgb: "np.ndarray", detections: Sequence[Detection], kx: float = 1.0, ky: float = 1.0) -> float:
    """How sharp the tile boxes' crops are (see BLURRED), the boxes scaled by kx, ky into `rgb`;
    infinite without tile boxes (nothing blurred to see). At most SHARPNESS_TILES boxes, spread
    over them, are looked at: it runs for most photos, and their median reads near the same."""
    import cv2
    import numpy as np

    from vision.classifier import CROP_SCALE, INPUT_SIZE, crop_box

    boxes = _tile_boxes(detections, kx, ky)
    if not boxes:
        return float("inf")
    ratios = []
    for box in boxes[::-(-len(boxes) // SHARPNESS_TILES)]:
        crop = cv2.cvtColor(crop_box(rgb, box, CROP_SCALE, INPUT_SIZE), cv2.COLOR_RGB2GRAY).astype(np.float32)
        ratios.append(cv2.Laplacian(crop, cv2.CV_32F).var() / (crop.var() + 1e-3))
    return float(np.median(ratios))


def _tile_boxes(detections: Sequence[Detection], kx: float, ky: float) -> list[tuple[float, float, float, float]]:
    return [(x1 * kx, y1 * ky, x2 * kx, y2 * ky) for x1, y1, x2, y2 in (d.box for d in detections if d.is_tile)]


def _span(boxes: Sequence[tuple[float, float, float, float]], margin: float,
          shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The pixels (left, top, right, bottom) of an image of `shape` that hold `boxes`, `margin`
    px more on each side."""
    return (max(0, int(min(b[0] for b in boxes) - margin)), max(0, int(min(b[1] for b in boxes) - margin)),
            min(shape[1], int(max(b[2] for b in boxes) + margin)), min(shape[0], int(max(b[3] for b in boxes) + margin)))


def reflections(rgb: "np.ndarray", detections: Sequence[Detection], kx: float = 1.0,
                ky: float = 1.0) -> "np.ndarray | None":
    """The mask (255 where set, the size of `rgb`) of the reflections near the tile boxes, scaled
    by kx, ky into `rgb` (see GLARE_LEVEL); None where there are none, or where more than
    GLARE_TILES tiles look washed out (an overexposed photo)."""
    import cv2
    import numpy as np

    boxes = _tile_boxes(detections, kx, ky)
    if not boxes:
        return None
    tile_area = statistics.median((x2 - x1) * (y2 - y1) for x1, y1, x2, y2 in boxes)
    left, top, right, bottom = _span(boxes, math.sqrt(tile_area), rgb.shape)
    clipped = cv2.inRange(rgb[top:bottom, left:right], (GLARE_LEVEL,) * 3, (255,) * 3)
    if cv2.countNonZero(clipped) < GLARE_SHARE * tile_area:  # most photos: no patch that large
        return None
    count, labels, stats, _ = cv2.connectedComponentsWithStats(clipped, connectivity=8)
    large = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= GLARE_SHARE * tile_area)
    large = large[large > 0]  # 0 is the unclipped background
    if not len(large):
        return None
    mask = np.zeros(rgb.shape[:2], np.uint8)
    mask[top:bottom, left:right] = np.isin(labels, large) * np.uint8(255)
    if sum(washed_share(mask, box) >= GLARE_SHARE for box in boxes) > GLARE_TILES:
        return None
    return mask


def hidden_tiles(mask: "np.ndarray", detections: Sequence[Detection], kx: float = 1.0,
                 ky: float = 1.0) -> list[Detection]:
    """A box, free to take any playing face, for each reflection of `mask` that lies mostly
    outside the tile boxes, within a tile of its row: the tile it hides, the size of its row's
    tiles, level with them, in the gap between its row neighbours nearest the reflection.
    `detections` are in pixels of the photo, the mask in those scaled by kx, ky."""
    import cv2
    import numpy as np

    tiles = [d for d in detections if d.is_tile]
    if not tiles:
        return []
    covered = np.zeros(mask.shape, bool)
    for x1, y1, x2, y2 in _tile_boxes(tiles, kx, ky):
        covered[max(0, round(y1)):round(y2), max(0, round(x1)):round(x2)] = True
    count, labels, _, centroids = cv2.connectedComponentsWithStats((mask > 0).astype(np.uint8), connectivity=8)
    faces = tuple((code, 1 / len(PLAYING_CODES)) for code in sorted(PLAYING_CODES))
    hidden = []
    for k in range(1, count):
        if covered[labels == k].mean() > 0.5:  # on the tiles boxed already: washed out, not hidden
            continue
        cx, cy = centroids[k][0] / kx, centroids[k][1] / ky
        nearest = min(tiles, key=lambda d: math.hypot(d.center[0] - cx, d.center[1] - cy))
        row = [d for d in tiles if abs(d.center[1] - nearest.center[1]) < nearest.height / 2]
        w, h = statistics.median(d.width for d in row), statistics.median(d.height for d in row)
        if abs(nearest.center[0] - cx) > 2 * w or abs(nearest.center[1] - cy) > h:
            continue  # on the table, away from the tiles
        left = max((d for d in row if d.center[0] <= cx), key=lambda d: d.box[2], default=None)
        right = min((d for d in row if d.center[0] > cx), key=lambda d: d.box[0], default=None)
        lo = cx - w / 2 if left is None else left.box[2]
        hi = cx + w / 2 if right is None else right.box[0]
        if hi - lo < HIDDEN_ROOM * w:
            continue
        x1 = (lo + hi - w) / 2 if hi - lo < w else min(max(cx - w / 2, lo), hi - w)
        # level with its neighbours, on the line between their middles where the row runs askew
        ends = [d.center for d in (left, right) if d is not None]
        if len(ends) == 2 and ends[1][0] > ends[0][0]:
            at = (x1 + w / 2 - ends[0][0]) / (ends[1][0] - ends[0][0])
            middle = ends[0][1] + at * (ends[1][1] - ends[0][1])
        else:
            middle = ends[0][1]
        top = middle - h / 2
        hidden.append(Detection((x1, top, x1 + w, top + h), faces[0][0], faces[0][1], faces))
    return hidden


def washed_share(mask: "np.ndarray", box: Sequence[float], kx: float = 1.0, ky: float = 1.0) -> float:
    """The share of `box` (scaled by kx, ky into the mask) that the reflection `mask` covers."""
    x1, y1, x2, y2 = (max(0, round(v)) for v in (box[0] * kx, box[1] * ky, box[2] * kx, box[3] * ky))
    part = mask[y1:y2, x1:x2]
    return float((part > 0).mean()) if part.size else 0.0


def sharpened(rgb: "np.ndarray") -> "np.ndarray":
    """The image with SHARPEN_AMOUNT times its detail (itself less its Gaussian blur) added."""
    import cv2
    import numpy as np

    image = rgb.astype(np.float32)
    detail = image - cv2.GaussianBlur(image, (0, 0), SHARPEN_SIGMA)
    return np.clip(image + SHARPEN_AMOUNT * detail, 0, 255).astype(np.uint8)


def shake(rgb: "np.ndarray", detections: Sequence[Detection], kx: float = 1.0,
          ky: float = 1.0) -> tuple[int, float] | None:
    """The length (px) and direction (degrees anticlockwise from the x axis) of the smear that
    the cepstrum of the tile boxes' part of `rgb` shows clearly (see SHAKE_CLEAR), the boxes
    scaled by kx, ky into it; None where it shows none, or there are no tile boxes."""
    import cv2
    import numpy as np

    boxes = _tile_boxes(detections, kx, ky)
    if not boxes:
        return None
    left, top, right, bottom = _span(boxes, 0.0, rgb.shape)
    x0, y0 = max(left, (left + right - SHAKE_WINDOW) // 2), max(top, (top + bottom - SHAKE_WINDOW) // 2)
    part = cv2.cvtColor(rgb[y0:min(bottom, y0 + SHAKE_WINDOW), x0:min(right, x0 + SHAKE_WINDOW)],
                        cv2.COLOR_RGB2GRAY).astype(np.float32)
    if min(part.shape) <= 2 * SHAKE_RADII[-1]:
        return None
    # A window against the part's edges, whose jumps would add zeros of their own.
    part = (part - part.mean()) * cv2.createHanningWindow(part.shape[::-1], cv2.CV_32F)
    # The log spectrum of a real image is real and even: the half-plane transforms give it all.
    cepstrum = np.fft.fftshift(np.fft.irfft2(np.log1p(np.abs(np.fft.rfft2(part))), s=part.shape)).astype(np.float32)
    degrees = np.arange(0, 180, SHAKE_STEP)
    radii = np.asarray(SHAKE_RADII)
    cy, cx = cepstrum.shape[0] // 2, cepstrum.shape[1] // 2
    ring = cv2.remap(cepstrum, (cx + np.outer(np.cos(np.deg2rad(degrees)), radii)).astype(np.float32),
                     (cy - np.outer(np.sin(np.deg2rad(degrees)), radii)).astype(np.float32), cv2.INTER_LINEAR)
    # JPEG's 8 px blocks leave dips of their own along the rows and columns, at 8 px and its
    # multiples: 19 of the 120 test photos as rendered (512 px window) had their clearest there.
    ring[np.ix_(degrees % 90 == 0, radii % JPEG_BLOCK == 0)] = np.inf
    a, r = np.unravel_index(np.argmin(ring), ring.shape)
    turns = np.abs(np.arange(len(degrees)) - a)
    apart = np.minimum(turns, len(degrees) - turns) >= SHAKE_APART // SHAKE_STEP
    if ring[a, r] >= 0 or ring[a, r] > SHAKE_CLEAR * ring[apart].min():
        return None
    return int(radii[r]), float(degrees[a])


def smear_kernel(length: int, angle: float) -> "np.ndarray":
    """A line `length` px long at `angle` degrees (anticlockwise) through the middle of an odd
    square, summing to 1: how shake spreads one point."""
    import cv2
    import numpy as np

    size = length | 1
    kernel = np.zeros((size, size), np.float32)
    kernel[size // 2, (size - length) // 2:(size + length) // 2] = 1.0
    turn = cv2.getRotationMatrix2D(((size - 1) / 2, (size - 1) / 2), angle, 1.0)
    kernel = cv2.warpAffine(kernel, turn, (size, size))
    return kernel / kernel.sum()


def unshaken(rgb: "np.ndarray", length: int, angle: float) -> "np.ndarray":
    """`rgb` with a shake of `length` px at `angle` degrees undone (a Wiener filter)."""
    import cv2
    import numpy as np

    kernel = smear_kernel(length, angle)
    size = kernel.shape[0]
    # Mirrored borders: the filter treats the image as periodic, and its edges would ring. They
    # run on to sizes the transform takes quickly (half the time of the sizes as they come).
    height, width = rgb.shape[:2]
    h, w = cv2.getOptimalDFTSize(height + 4 * size), cv2.getOptimalDFTSize(width + 4 * size)
    padded = cv2.copyMakeBorder(rgb, 2 * size, h - height - 2 * size, 2 * size, w - width - 2 * size,
                                cv2.BORDER_REFLECT).astype(np.float32)
    spread = np.fft.rfft2(kernel, s=(h, w))
    # The kernel's centre, not its corner, stays in place.
    spread *= np.exp(2j * np.pi * (size // 2) * (np.fft.fftfreq(h)[:, None] + np.fft.rfftfreq(w)[None, :]))
    inverse = np.conj(spread) / (np.abs(spread) ** 2 + WIENER_NOISE)
    channels = [np.fft.irfft2(np.fft.rfft2(padded[:, :, c]) * inverse, s=(h, w)) for c in range(3)]
    restored = np.stack(channels, axis=-1)[2 * size:2 * size + height, 2 * size:2 * size + width]
    return np.clip(restored, 0, 255).astype(np.uint8)


def letterbox(rgb: "np.ndarray", size: int, stride: int | None = None) -> tuple["np.ndarray", Letterbox]:
    """Resize keeping aspect ratio and pad (see Letterbox.fit); returns a 1x3xHxW float32 tensor."""
    import cv2
    import numpy as np

    fit = Letterbox.fit(rgb.shape[1], rgb.shape[0], size, stride)
    interpolation = cv2.INTER_AREA if fit.scale_x < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(rgb, fit.resized, interpolation=interpolation)
    canvas = np.full((fit.input_height, fit.input_width, 3), PAD_VALUE, np.uint8)
    canvas[fit.pad_y : fit.pad_y + resized.shape[0], fit.pad_x : fit.pad_x + resized.shape[1]] = resized
    tensor = canvas.transpose(2, 0, 1)[None].astype(np.float32) * (1 / 255.0)
    return tensor, fit


def overlaps(box: "np.ndarray", boxes: "np.ndarray") -> tuple["np.ndarray", "np.ndarray"]:
    """(IoU with `box`, share of its own area inside `box`) for each of N xyxy `boxes`."""
    import numpy as np

    box, boxes = np.asarray(box, dtype=float), np.asarray(boxes, dtype=float)
    inter_w = (np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0])).clip(0)
    inter_h = (np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1])).clip(0)
    inter = inter_w * inter_h
    area = lambda b: (b[..., 2] - b[..., 0]).clip(0) * (b[..., 3] - b[..., 1]).clip(0)  # noqa: E731
    own = area(boxes)
    return inter / np.maximum(area(box) + own - inter, 1e-9), inter / np.maximum(own, 1e-9)


def nms(boxes: "np.ndarray", scores: "np.ndarray", iou_threshold: float, cover_threshold: float = 1.0) -> "np.ndarray":
    """Greedy non-maximum suppression; indices of kept boxes, best score first. A box also
    goes when more than `cover_threshold` of its area lies inside a better one."""
    import numpy as np

    order = np.argsort(-scores, kind="stable")
    keep = []
    while order.size:
        best, rest = order[0], order[1:]
        keep.append(best)
        iou, covered = overlaps(boxes[best], boxes[rest])
        order = rest[(iou <= iou_threshold) & (covered <= cover_threshold)]
    return np.asarray(keep, dtype=np.int64)


def decode(
    raw: "np.ndarray",
    fit: Letterbox,
    conf_threshold: float = DEFAULT_CONF,
    group_conf_threshold: float | None = None,
) -> list[Detection]:
    """Raw YOLO output (4 + classes, anchors) -> detections in original-image pixels.

    Class scores are independent sigmoid probabilities (ultralytics' head), so the
    alternatives are each class's own probability, not a distribution summing to 1.
    `conf_threshold` applies to tile boxes, `group_conf_threshold` (default: the same)
    to meld and concealed-kong boxes.
    """
    import numpy as np

    if raw.ndim != 2 or raw.shape[0] != 4 + len(CLASS_NAMES):
        raise DetectorError("model_output", f"unexpected model output shape {raw.shape}")
    xywh, scores = raw[:4].T, raw[4:].T
    xyxy = np.concatenate([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], axis=1)
    group_columns = np.array([name in GROUP_CLASSES for name in CLASS_NAMES])
    detections: list[Detection] = []
    group_conf = conf_threshold if group_conf_threshold is None else group_conf_threshold
    for columns, agnostic, threshold in ((~group_columns, True, conf_threshold), (group_columns, False, group_conf)):
        detections += _decode_family(
            xyxy, scores[:, columns], [n for n, c in zip(CLASS_NAMES, columns) if c],
            fit, threshold, IOU_THRESHOLD, agnostic,
        )
    detections.sort(key=lambda d: -d.confidence)
    return detections[:MAX_DETECTIONS]


def _suppressed(boxes: "np.ndarray", confidences: "np.ndarray", labels: "np.ndarray", iou_threshold: float,
                agnostic: bool) -> "np.ndarray":
    """Indices of the boxes NMS keeps, best first: whatever their label (`agnostic`), else per label."""
    if agnostic:
        # Tiles in a hand never lie inside one another, but the detector's second box on a
        # tile (its face alone, its side) does, often below the IoU threshold.
        return nms(boxes, confidences, iou_threshold, NESTED_TILE_COVER)
    # Offsetting each class far apart makes one NMS pass act per class.
    offset = labels[:, None] * (boxes.max() + 1.0)
    return nms(boxes + offset, confidences, iou_threshold)


def merged(detections: Sequence[Detection]) -> list[Detection]:
    """The boxes of several readings of one photo as one reading, best first: each family
    suppressed as `decode` suppresses one reading's (tiles whatever their code, meld boxes per class)."""
    import numpy as np

    result: list[Detection] = []
    for agnostic in (True, False):
        family = [d for d in detections if d.is_tile == agnostic]
        if not family:
            continue
        boxes = np.array([d.box for d in family], dtype=float)
        confidences = np.array([d.confidence for d in family])
        labels = np.array([CLASS_NAMES.index(d.code) for d in family])
        result += [family[i] for i in _suppressed(boxes, confidences, labels, IOU_THRESHOLD, agnostic)]
    result.sort(key=lambda d: -d.confidence)
    return result[:MAX_DETECTIONS]


def _decode_family(xyxy, scores, names, fit, conf_threshold, iou_threshold, agnostic) -> list[Detection]:
    import numpy as np

    best = scores.max(axis=1)
    candidates = np.flatnonzero(best > conf_threshold)
    image_boxes = fit.to_image(xyxy[candidates])
    # A box wholly in the padding clips to nothing in the image: there is no tile in it.
    has_area = (image_boxes[:, 2] > image_boxes[:, 0]) & (image_boxes[:, 3] > image_boxes[:, 1])
    candidates, image_boxes = candidates[has_area], image_boxes[has_area]
    if not candidates.size:
        return []
    boxes, family_scores = xyxy[candidates], scores[candidates]
    labels = family_scores.argmax(axis=1)
    confidences = best[candidates]
    keep = _suppressed(boxes, confidences, labels, iou_threshold, agnostic)
    image_boxes = image_boxes[keep]
    k = min(TOP_K, len(names))
    top = np.argsort(-family_scores[keep], axis=1)[:, :k]
    result = []
    for row, index in enumerate(keep):
        alternatives = tuple((names[c], float(family_scores[index, c])) for c in top[row])
        result.append(
            Detection(
                box=tuple(float(v) for v in image_boxes[row]),
                code=names[labels[index]],
                confidence=float(confidences[index]),
                alternatives=alternatives,
            )
        )
    return result


def cpu_session(model_path: Path, spin: bool = False):
    """An ONNX Runtime CPU session as the detector (`spin`) and the classifier use it.

    Only the detector's threads spin between operators: that keeps its run as fast as the
    peer's on a quiet machine (22 against 25 ms without spinning, 0.93 against 1.06 of the
    peer's time for detector and classifier together) and no slower when other processes
    share the cores, while the classifier, run right after it, must not spin as well: two
    sessions spinning one after the other on the same cores slowed each other by about 70%.
    """
    # ONNX Runtime 1.29+ sends usage reports over the network from Linux too, and where it cannot
    # store its device id (a service user's home) it prints a warning on every run. Photos are
    # read here offline: opted out, unless the person running it chose otherwise.
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])


def model_session(model_path: Path, what: str, error: type[CodedError]):
    """A CPU session (`cpu_session`) of a crop model's weights, or `error` saying that the `what`
    weights are missing (`model_missing`) or cannot be loaded (`model_corrupt`)."""
    if not model_path.is_file():
        raise error("model_missing", f"{what} weights not found: {model_path}")
    try:
        return cpu_session(model_path)
    except Exception as exc:  # onnxruntime raises several unrelated types for bad files
        raise error("model_corrupt", f"cannot load {what} {model_path}: {exc}") from exc


class Detector:
    """The shipped tile detector; the ONNX session is created on first use.

    `hand_photo`: the photo shows one player's hand, so its tiles lie upright or upside down
    (but the claimed ones, sideways) and the classifier reads them with its upright model.
    Without it, a photo that looks like one hand or a few tiles (`looks_like_a_hand`) is read
    that way too, and a table with the tile model alone.
    A given `conf_threshold` applies to every box. By default tile boxes need
    PROPOSAL_CONF when the classifier is loaded (DEFAULT_CONF without it), and meld and
    kong boxes, which the classifier does not check, DEFAULT_CONF.
    """

    def __init__(self, model_path: str | Path = DEFAULT_MODEL, conf_threshold: float | None = None,
                 classifier_path: str | Path | None = DEFAULT_CLASSIFIER, hand_photo: bool = False):
        self.model_path = Path(model_path)
        self._session = None
        self._input_name = ""
        self.imgsz = 0
        self.stride: int | None = None  # set for a model exported with a free input height/width
        # The second-stage classifier reads tile codes far better than the detector's own
        # class head (models/CLASSIFIER_CARD.md); without its file the detector's codes stand.
        self._classifier = None
        if classifier_path is not None and Path(classifier_path).is_file():
            from vision.classifier import DEFAULT_UPRIGHT_MODEL, TileClassifier

            self._classifier = TileClassifier(classifier_path, DEFAULT_UPRIGHT_MODEL)
        # Without its file, stacked kongs are found by their boxes alone (vision.grouping._raised).
        self._stack_model = None
        if DEFAULT_STACK_MODEL.is_file():
            from vision.stacking import StackModel

            self._stack_model = StackModel(DEFAULT_STACK_MODEL)
        self.hand_photo = hand_photo
        self.group_conf_threshold = DEFAULT_CONF if conf_threshold is None else conf_threshold
        if conf_threshold is None:
            conf_threshold = DEFAULT_CONF if self._classifier is None else PROPOSAL_CONF
        self.conf_threshold = conf_threshold

    def load(self):
        """The ONNX session, loaded now if it was not yet; raises DetectorError for a missing or
        unusable model file."""
        if self._session is not None:
            return self._session
        import ast

        if not self.model_path.is_file():
            # The shipped model can only be missing from a checkout without models/; a path the
            # user gave is simply wrong.
            hint = ("; ship weights there with `mjlens train --ship-from`" if self.model_path == DEFAULT_MODEL
                    else "")
            raise DetectorError("model_missing", f"{self.model_path}: no such model file{hint}")
        try:
            session = cpu_session(self.model_path, spin=True)
        except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
            raise DetectorError("model_corrupt", f"cannot load {self.model_path}: {exc}") from exc
        meta = session.get_modelmeta().custom_metadata_map
        try:
            names = ast.literal_eval(meta.get("names", "{}"))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            names = None
        if not isinstance(names, dict) or [names.get(i) for i in range(len(names))] != list(CLASS_NAMES):
            raise DetectorError("model_classes", f"{self.model_path} is no mahjong-lens tile detector: its class "
                                                 "names are not the tile codes, back, meld and kong_concealed")
        model_input = session.get_inputs()[0]
        if model_input.type != "tensor(float)" or len(model_input.shape) != 4:
            raise DetectorError("model_input", f"{self.model_path} takes {model_input.type} of shape "
                                               f"{model_input.shape}; the detector takes float32 images, 1x3xHxW "
                                               "(export without half precision)")
        self._input_name = model_input.name
        self.imgsz, self.stride = _input_geometry(model_input.shape, meta, self.model_path)
        self._session = session
        return session

    def detect(self, image: ImageInput) -> list[Detection]:
        """Every tile, face-down tile and meld box in `image`, best first."""
        return list(self.detect_set(image).kept)

    def detect_set(self, image: ImageInput, close_up: bool = True) -> DetectionSet:
        """`detect`'s boxes, with the tile boxes the crop classifier rejected beside them and
        readings of the photo changed, on demand: at the other input size (for a photo with the
        pixels), with its light balanced, with its shake undone, sharpened, with the tiles a
        reflection washes out freed (see DetectionSet). `close_up` False: a photo whose tiles
        look large, or that shows none surely, is not read again smaller (COARSE_SCALE)."""
        self.load()
        # The reduced JPEG decode keeps both sides at least the model's input size: a large 4:3
        # or 16:9 photo keeps nearly all the pixels a second look at FINE_SCALE can use.
        rgb, (width, height) = load_image(image, draft_size=self.imgsz)
        return self._found_in(rgb, width, height, read_again=True, close_up=close_up)

    def _found_in(self, rgb: "np.ndarray", width: int, height: int, read_again: bool,
                  close_up: bool = True) -> DetectionSet:
        """The checked boxes of `rgb`, decoded from a `width` x `height` photo; `read_again`:
        with the readings of the photo at the other input size, in balanced light, unshaken,
        sharpened and deglared on demand; `close_up`: read again smaller where its tiles look large."""
        detections, fit = self._boxes_at(rgb, width, height, self.imgsz)
        if close_up and self.stride is not None and tiles_look_large(detections, fit):
            # Its meld boxes are left out: a few large tiles seen smaller pass for a meld.
            coarse = self._boxes_at(rgb, width, height, round(self.imgsz * COARSE_SCALE))[0]
            detections = merged(detections + _new_tiles(coarse, detections))
        upright = self.hand_photo or looks_like_a_hand(detections, fit)
        fine = round(self.imgsz * FINE_SCALE)
        first, other = detections, None
        # Only a photo with the pixels is read larger: enlarging a 640 px one gained 640 px scenes
        # 0.01 mAP50 for twice the time.
        if self.stride is not None and max(width, height) >= fine:
            if tiles_look_small(detections, fit):
                first, other = self._boxes_at(rgb, width, height, fine)[0], lambda: detections
            else:  # around the tiles kept below: the other size is read only when asked for, after
                other = lambda: self._boxes_around(rgb, width, height, fine, found.kept)  # noqa: E731
        found = self._checked(rgb, width, height, first, upright)
        if not read_again:
            return found
        return replace(
            found,
            other_size=None if other is None else lambda: self._checked(rgb, width, height, other(), upright),
            in_balanced_light=lambda: self._in_balanced_light(rgb, width, height, first, found.kept, upright),
            unshaken=lambda: self._unshaken(rgb, width, height, first, found.kept, upright),
            sharpened=lambda: self._sharpened(rgb, width, height, found.kept),
            deglared=lambda: self._deglared(rgb, width, height, found))

    def _unshaken(self, rgb: "np.ndarray", width: int, height: int, detections: list[Detection],
                  kept: Sequence[Detection], upright: bool) -> DetectionSet | None:
        """`detections` read by the crop classifier again from `rgb` with the shake that the
        `kept` tiles' part shows undone, where it shows one of SHAKE_MIN px or more; else None."""
        kx, ky = rgb.shape[1] / width, rgb.shape[0] / height
        smear = shake(rgb, kept, kx, ky)
        if smear is None or smear[0] < SHAKE_MIN:
            return None
        # Only the crops are read again: the filter runs on the part of the photo they lie in.
        boxes = _tile_boxes(detections, kx, ky)
        margin = 2 * smear[0] + max(max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in boxes)
        left, top, right, bottom = _span(boxes, margin, rgb.shape)
        restored = rgb.copy()
        restored[top:bottom, left:right] = unshaken(rgb[top:bottom, left:right], *smear)
        return self._checked(restored, width, height, detections, upright)

    def _sharpened(self, rgb: "np.ndarray", width: int, height: int, kept: Sequence[Detection]) -> DetectionSet | None:
        """The photo read anew (at one input size) sharpened, where the `kept` tiles look blurred
        (BLURRED); else None."""
        if tile_sharpness(rgb, kept, rgb.shape[1] / width, rgb.shape[0] / height) >= BLURRED:
            return None
        return self._found_in(sharpened(rgb), width, height, read_again=False)

    def _deglared(self, rgb: "np.ndarray", width: int, height: int, found: DetectionSet) -> DetectionSet | None:
        """`found` with the tiles that reflections near its kept tiles wash out free to take any
        face (see GLARE_LEVEL), the rejected ones among them taken back, and a box for each
        reflection that hides a tile the detector did not box; None where there are no such
        reflections."""
        kx, ky = rgb.shape[1] / width, rgb.shape[0] / height
        mask = reflections(rgb, found.kept, kx, ky)
        if mask is None:
            return None

        def washed_out(d: Detection) -> bool:
            return d.is_tile and washed_share(mask, d.box, kx, ky) >= GLARE_SHARE

        kept = [with_any_face(d) if washed_out(d) else d for d in found.kept]
        kept += [with_any_face(d) for d in found.rejected if washed_out(d)]
        return replace(found, kept=tuple(kept + hidden_tiles(mask, kept, kx, ky)),
                       rejected=tuple(d for d in found.rejected if not washed_out(d)))

    def _in_balanced_light(self, rgb: "np.ndarray", width: int, height: int, detections: list[Detection],
                           kept: Sequence[Detection], upright: bool) -> DetectionSet | None:
        """The photo read with the light balanced: where the `kept` tiles are unevenly lit
        (UNEVEN), lit evenly by them and read anew; else, where some channel of their faces is
        CAST times off FACE_WHITE, `detections` read by the crop classifier again with each
        channel scaled to it; None where neither."""
        import numpy as np

        if self._classifier is None:
            return None
        kx, ky = rgb.shape[1] / width, rgb.shape[0] / height
        faces = [d for d in kept if d.code != BACK]  # a face-down tile shows its coloured back
        if unevenly_lit(tile_lights(rgb, faces, kx, ky)):
            return self._found_in(evenly_lit(rgb, faces, kx, ky), width, height, read_again=False)
        gains = face_gains(rgb, kept, kx, ky)
        if np.abs(np.log(gains)).max() < np.log(CAST):
            return None
        balanced = np.clip(rgb * gains.astype(np.float32), 0, 255).astype(np.uint8)
        return self._checked(balanced, width, height, detections, upright)

    def _checked(self, rgb: "np.ndarray", width: int, height: int, detections: list[Detection],
                 upright: bool) -> DetectionSet:
        """The boxes with the crop classifier's codes (`upright`: its upright model reads the
        tiles not lying sideways), its rejected boxes set apart (as they are without the
        classifier)."""
        if self._classifier is None:
            found = DetectionSet(tuple(detections))
        else:
            from vision.classifier import ClassifierError, reread

            try:
                found = reread(self._classifier, rgb, detections, "product", image_size=(width, height),
                               upright=upright)
            except ClassifierError as exc:
                raise DetectorError(exc.code, exc.message) from exc
        return replace(found, on_a_tile=self._stack_probe(rgb, width, height))

    def _stack_probe(self, rgb: "np.ndarray", width: int, height: int
                     ) -> Callable[[Sequence[Detection]], list[float]] | None:
        """The stack model's reading of tile boxes in `rgb`, decoded from a `width` x `height`
        photo, each box read once however often the hand is read again; None without the model."""
        if self._stack_model is None:
            return None
        from vision.stacking import StackModelError

        try:  # now, so that a broken model file fails the detection, not a reading long after
            self._stack_model.load()
        except StackModelError as exc:
            raise DetectorError(exc.code, exc.message) from exc
        return self._stack_model.probe(rgb, width, height)

    def _boxes_around(self, rgb: "np.ndarray", width: int, height: int, size: int,
                      kept: Sequence[Detection]) -> list[Detection]:
        """The model's boxes with `rgb` scaled to `size` on its long side, over only the part of
        the photo around the `kept` tiles (AROUND_TILES tile lengths more on each side), in
        pixels of the `width` x `height` original: a tile missed at one size lies among or
        beside the others, and the part costs a fraction of the whole photo."""
        kx, ky = rgb.shape[1] / width, rgb.shape[0] / height
        boxes = _tile_boxes(kept, kx, ky)
        if not boxes:
            return self._boxes_at(rgb, width, height, size)[0]
        tile = statistics.median(max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in boxes)
        left, top, right, bottom = _span(boxes, AROUND_TILES * tile, rgb.shape)
        scale = size / max(rgb.shape[:2])
        part = rgb[top:bottom, left:right]
        found, _ = self._boxes_at(part, round((right - left) / kx), round((bottom - top) / ky),
                                  max(round(max(part.shape[:2]) * scale), self.stride or 1))
        dx, dy = left / kx, top / ky
        return [replace(d, box=(d.box[0] + dx, d.box[1] + dy, d.box[2] + dx, d.box[3] + dy)) for d in found]

    def _boxes_at(self, rgb: "np.ndarray", width: int, height: int, size: int) -> tuple[list[Detection], Letterbox]:
        """The model's boxes with `rgb` scaled to `size` on its long side, in pixels of the
        `width` x `height` original, and how the original was fitted to the input."""
        tensor, fit = letterbox(rgb, size, self.stride)
        raw = self._session.run(None, {self._input_name: tensor})[0][0]
        # Boxes map to the decoded pixels; rescale if the JPEG was decoded at reduced size.
        fit = _rescaled(fit, width, height)
        return decode(raw, fit, self.conf_threshold, group_conf_threshold=self.group_conf_threshold), fit


def _sure_tiles(detections: Sequence[Detection]) -> list[Detection]:
    """The tile boxes at DEFAULT_CONF or more: those the photo's size and kind are judged by."""
    return [d for d in detections if d.is_tile and d.confidence >= DEFAULT_CONF]


def _sure_tile_sides(detections: Sequence[Detection], fit: Letterbox) -> list[float]:
    """The short side of each sure tile box, in input pixels."""
    return [min(d.width * fit.scale_x, d.height * fit.scale_y) for d in _sure_tiles(detections)]


def _new_tiles(found: Sequence[Detection], first: Sequence[Detection]) -> list[Detection]:
    """The tile boxes of `found` that repeat none of the sure tile boxes of `first`, the
    photo's first reading: none lies over one with an IoU above SAME_TILE_IOU."""
    sure = [d.box for d in _sure_tiles(first)]
    return [d for d in found if d.is_tile and not (sure and (overlaps(d.box, sure)[0] > SAME_TILE_IOU).any())]


def tiles_look_small(detections: Sequence[Detection], fit: Letterbox) -> bool:
    """Whether the sure tile boxes are under SMALL_TILES input pixels across, taking the
    median; False when there is none."""
    sides = _sure_tile_sides(detections, fit)
    return bool(sides) and statistics.median(sides) < SMALL_TILES


def tiles_look_large(detections: Sequence[Detection], fit: Letterbox) -> bool:
    """Whether the sure tile boxes are LARGE_TILES input pixels across or more, taking the
    median, or there is none."""
    sides = _sure_tile_sides(detections, fit)
    return not sides or statistics.median(sides) >= LARGE_TILES


def looks_like_a_hand(detections: Sequence[Detection], fit: Letterbox) -> bool:
    """Whether the photo shows one hand or a few tiles rather than a table: at most HAND_TILES
    sure tile boxes (DEFAULT_CONF), and not small ones."""
    sure = len(_sure_tiles(detections))
    return sure <= HAND_TILES and not tiles_look_small(detections, fit)


def _input_geometry(shape: list, meta: dict[str, str], model_path: Path) -> tuple[int, int | None]:
    """(long side the image is scaled to, stride to pad to or None for a fixed square input).

    A fixed export has integer height and width in its input shape; a dynamic export has
    names there, and its training size and stride come from ultralytics' metadata.
    """
    import ast

    height, width = shape[2], shape[3]
    if isinstance(height, int) and isinstance(width, int):
        if height != width or height < MIN_SIDE:
            raise DetectorError("model_input", f"{model_path} takes {width}x{height} inputs; a fixed input must be "
                                               f"square, at least {MIN_SIDE} px")
        return height, None
    try:
        size = ast.literal_eval(meta["imgsz"])  # "[640, 640]" from ultralytics; a plain size also reads
        size = max(size) if isinstance(size, (list, tuple)) else int(size)
        stride = int(meta["stride"])
    except (KeyError, ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise DetectorError("model_input",
                            f"{model_path} has a free input size but no usable imgsz/stride metadata") from exc
    if not (MIN_SIDE <= size <= 4096 and 1 <= stride <= size):
        raise DetectorError("model_input", f"{model_path} names an input size of {size} and a stride of {stride}; "
                                           f"a detector's are {MIN_SIDE}-4096 px and at least 1")
    return int(size), stride


def _rescaled(fit: Letterbox, width: int, height: int) -> Letterbox:
    if (fit.width, fit.height) == (width, height):
        return fit
    return replace(fit, width=width, height=height,
                   scale_x=fit.scale_x * fit.width / width, scale_y=fit.scale_y * fit.height / height)


_HAND_DETECTOR: Detector | None = None


def hand_detector() -> Detector:
    """The shipped detector for photos of one player's hand (see Detector's `hand_photo`), made
    once (its session loads once)."""
    global _HAND_DETECTOR
    if _HAND_DETECTOR is None:
        _HAND_DETECTOR = Detector(hand_photo=True)
    return _HAND_DETECTOR


def detect_hand(image: ImageInput, close_up: bool = True) -> DetectionSet:
    """The shipped hand detector's reading of a photo (`close_up`: see Detector.detect_set)."""
    return hand_detector().detect_set(image, close_up=close_up)
