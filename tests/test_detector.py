"""Detector pre/post-processing with fake model outputs, bad inputs, and the shipped model."""

from __future__ import annotations

import io
import json
import struct
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.classifier import TOP_K as CLASSIFIER_TOP_K
from vision.detections import CLASS_NAMES, Detection
from vision.grouping import iou
from vision.detector import (
    BACKDROP,
    DEFAULT_CONF,
    DEFAULT_MODEL,
    FINE_SCALE,
    Detector,
    DetectorError,
    Letterbox,
    decode,
    letterbox,
    _input_geometry,
    image_size,
    jpeg_damage,
    load_image,
    looks_like_a_hand,
    merged,
    nms,
    tiles_look_large,
    tiles_look_small,
)

from tests.damaged_files import damaged_in_the_middle

REPO = Path(__file__).resolve().parent.parent
NC = len(CLASS_NAMES)


def fake_output(objects: list[tuple[tuple[float, float, float, float], dict[str, float]]], anchors: int = 50):
    """A raw (4 + classes, anchors) YOLO output: one anchor per (xywh, {code: score}) object."""
    raw = np.zeros((4 + NC, anchors), np.float32)
    raw[2:4] = 1.0
    for column, (xywh, scores) in enumerate(objects):
        raw[:4, column] = xywh
        for code, score in scores.items():
            raw[4 + CLASS_NAMES.index(code), column] = score
    return raw


IDENTITY = Letterbox(640, 640, 1.0, 1.0, 0, 0, 640, 640)


# --- letterbox -------------------------------------------------------------------------

def test_letterbox_wide_image_pads_top_and_bottom():
    fit = Letterbox.fit(1000, 500, 640)
    assert fit.resized == (640, 320)
    assert (fit.pad_x, fit.pad_y) == (0, 160)
    assert fit.scale_x == pytest.approx(0.64)


def test_letterbox_maps_boxes_back_to_the_original():
    fit = Letterbox.fit(300, 900, 640)
    original = np.array([[30.0, 90.0, 150.0, 450.0]])
    model_space = original.copy()
    model_space[:, [0, 2]] = original[:, [0, 2]] * fit.scale_x + fit.pad_x
    model_space[:, [1, 3]] = original[:, [1, 3]] * fit.scale_y + fit.pad_y
    np.testing.assert_allclose(fit.to_image(model_space), original, atol=1e-6)


def test_letterbox_clips_boxes_in_the_padding():
    fit = Letterbox.fit(1000, 500, 640)
    clipped = fit.to_image(np.array([[-20.0, 10.0, 700.0, 630.0]]))
    np.testing.assert_allclose(clipped, [[0, 0, 1000, 500]])


def test_letterbox_tensor_shape_and_padding_value():
    rgb = np.full((100, 200, 3), 255, np.uint8)
    tensor, fit = letterbox(rgb, 64)
    assert tensor.shape == (1, 3, 64, 64) and tensor.dtype == np.float32
    assert tensor[0, :, 0, 0] == pytest.approx(114 / 255)  # padding row above the image
    assert tensor[0, :, 32, 32] == pytest.approx(1.0)
    assert (fit.pad_x, fit.pad_y) == (0, 16)


# Rectangular inputs (a model exported with a free height/width): long side to the size,
# short side padded only up to the next multiple of the stride.
RECT_CASES = {
    "landscape-4:3": ((1000, 750), (640, 480), (0, 0)),
    "landscape-16:9": ((1920, 1080), (640, 384), (0, 12)),
    "portrait-9:16": ((1080, 1920), (384, 640), (12, 0)),
    "square": ((1000, 1000), (640, 640), (0, 0)),
    "small-portrait": ((300, 500), (384, 640), (0, 0)),
}


@pytest.mark.parametrize("case", RECT_CASES)
def test_rectangular_letterbox_pads_the_short_side_to_the_stride(case):
    (width, height), (input_w, input_h), pad = RECT_CASES[case]
    fit = Letterbox.fit(width, height, 640, stride=32)
    assert (fit.input_width, fit.input_height) == (input_w, input_h)
    assert (fit.pad_x, fit.pad_y) == pad
    assert max(fit.resized) == 640 and fit.resized[0] <= input_w and fit.resized[1] <= input_h


@pytest.mark.parametrize("case", RECT_CASES)
def test_rectangular_letterbox_maps_boxes_back_to_the_original(case):
    (width, height), _, _ = RECT_CASES[case]
    fit = Letterbox.fit(width, height, 640, stride=32)
    original = np.array([[0.0, 0.0, width / 4, height / 3], [width / 2, height / 2, width, height]])
    model_space = original.copy()
    model_space[:, [0, 2]] = original[:, [0, 2]] * fit.scale_x + fit.pad_x
    model_space[:, [1, 3]] = original[:, [1, 3]] * fit.scale_y + fit.pad_y
    assert model_space[:, [0, 2]].max() <= fit.input_width and model_space[:, [1, 3]].max() <= fit.input_height
    np.testing.assert_allclose(fit.to_image(model_space), original, atol=1e-6)


def test_rectangular_letterbox_tensor_is_only_as_tall_as_needed():
    rgb = np.full((100, 200, 3), 255, np.uint8)
    tensor, fit = letterbox(rgb, 64, stride=32)
    assert tensor.shape == (1, 3, 32, 64)
    assert (fit.pad_x, fit.pad_y) == (0, 0) and tensor.min() == pytest.approx(1.0)
    tall = np.full((90, 30, 3), 255, np.uint8)  # resized to 21x64, padded to 32x64
    tensor, fit = letterbox(tall, 64, stride=32)
    assert tensor.shape == (1, 3, 64, 32) and fit.pad_x == 5
    assert tensor[0, :, 0, 0] == pytest.approx(114 / 255) and tensor[0, :, 0, 5] == pytest.approx(1.0)


def test_input_geometry_of_fixed_and_free_size_models():
    meta = {"imgsz": "[640, 640]", "stride": "32"}
    assert _input_geometry([1, 3, 640, 640], meta, Path("m.onnx")) == (640, None)
    assert _input_geometry(["batch", 3, "height", "width"], meta, Path("m.onnx")) == (640, 32)
    assert _input_geometry(["batch", 3, "height", "width"], {"imgsz": "512", "stride": "32"}, Path("m.onnx")) == (512, 32)
    for shape, bad_meta in (([1, 3, 480, 640], meta), (["batch", 3, "height", "width"], {"imgsz": "[640, 640]"}),
                            (["b", 3, "h", "w"], {"imgsz": "0", "stride": "32"}),
                            (["b", 3, "h", "w"], {"imgsz": "640", "stride": "0"}), ([1, 3, 0, 0], meta)):
        with pytest.raises(DetectorError) as info:
            _input_geometry(shape, bad_meta, Path("m.onnx"))
        assert info.value.code == "model_input"


# --- NMS and decoding -------------------------------------------------------------------

def test_nms_keeps_best_of_overlapping_and_separate_boxes():
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60]], float)
    keep = nms(boxes, np.array([0.8, 0.9, 0.5]), iou_threshold=0.5)
    assert keep.tolist() == [1, 2]


def test_nms_drops_a_box_lying_inside_a_better_one_below_the_iou_threshold():
    # A tile's face alone inside its whole box: IoU 0.4, but all of it inside.
    boxes = np.array([[0, 0, 10, 20], [0, 0, 10, 8], [12, 0, 22, 20]], float)
    scores = np.array([0.9, 0.5, 0.8])
    assert nms(boxes, scores, iou_threshold=0.5).tolist() == [0, 2, 1]
    assert nms(boxes, scores, iou_threshold=0.5, cover_threshold=0.8).tolist() == [0, 2]


def test_overlapping_tiles_of_different_codes_give_one_box():
    raw = fake_output([((100, 100, 40, 60), {"5p": 0.9, "6p": 0.3}),
                       ((102, 101, 40, 60), {"6p": 0.7})])
    detections = decode(raw, IDENTITY)
    assert [d.code for d in detections] == ["5p"]


def test_meld_box_survives_over_its_tiles_and_group_classes_are_separate():
    raw = fake_output([
        ((100, 100, 40, 60), {"5p": 0.9}),
        ((120, 100, 120, 60), {"meld": 0.8}),
        ((121, 100, 120, 60), {"kong_concealed": 0.6}),
        ((122, 100, 120, 60), {"meld": 0.5}),  # duplicate of the first meld box
    ])
    detections = decode(raw, IDENTITY)
    assert sorted(d.code for d in detections) == ["5p", "kong_concealed", "meld"]
    assert all(isinstance(d, Detection) for d in detections)


def test_top3_alternatives_are_ordered_probabilities_of_the_tile_classes():
    raw = fake_output([((100, 100, 40, 60), {"1m": 0.2, "2m": 0.7, "3m": 0.4, "meld": 0.65})])
    (tile,) = [d for d in decode(raw, IDENTITY) if d.is_tile]
    assert tile.code == "2m" and tile.confidence == pytest.approx(0.7)
    assert [c for c, _ in tile.alternatives] == ["2m", "3m", "1m"]
    assert [p for _, p in tile.alternatives] == pytest.approx([0.7, 0.4, 0.2])


def test_low_confidence_is_dropped_and_box_is_xyxy_in_image_pixels():
    raw = fake_output([((100, 200, 40, 60), {"7z": 0.9}), ((300, 300, 40, 60), {"1z": 0.1})])
    fit = Letterbox.fit(1280, 1280, 640)
    (only,) = decode(raw, fit, conf_threshold=0.25)
    assert only.code == "7z"
    assert only.box == pytest.approx((160, 340, 240, 460))


def test_boxes_wholly_in_the_padding_are_dropped():
    fit = Letterbox.fit(360, 640, 640, stride=32)  # 12 px of padding left and right
    raw = fake_output([((375, 200, 6, 30), {"3s": 0.9}), ((100, 200, 40, 60), {"4s": 0.8}),
                       ((378, 300, 6, 30), {"meld": 0.9})])
    assert [d.code for d in decode(raw, fit)] == ["4s"]


def test_wrong_output_shape_is_a_detector_error():
    with pytest.raises(DetectorError) as info:
        decode(np.zeros((84, 100), np.float32), IDENTITY)
    assert info.value.code == "model_output"


# --- image loading and bad inputs -------------------------------------------------------

def png_bytes(img: Image.Image) -> bytes:
    buffer = io.BytesIO()
    img.save(buffer, format="PNG")
    return buffer.getvalue()


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares a huge size but holds almost no data."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 16)) + chunk(b"IEND", b"")


NOISE_PNG = png_bytes(Image.fromarray(np.random.default_rng(0).integers(0, 256, (64, 64, 3), np.uint8)))


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"", "empty_file"),
        (b"this is not an image\n", "not_an_image"),
        (png_bytes(Image.new("RGB", (1, 1))), "image_too_small"),
        (png_header_only(20000, 20000), "image_too_large"),
        (NOISE_PNG[: len(NOISE_PNG) // 2], "unreadable_image"),
    ],
    ids=["zero-byte", "text", "1x1", "20000x20000-header", "truncated"],
)
def test_bad_files_give_detector_errors(tmp_path, content, code):
    path = tmp_path / "input.png"
    path.write_bytes(content)
    with pytest.raises(DetectorError) as info:
        load_image(path)
    assert info.value.code == code
    assert str(info.value)


def test_missing_file_is_reported():
    with pytest.raises(DetectorError) as info:
        load_image("/nonexistent/photo.jpg")
    assert info.value.code == "file_missing"


@pytest.mark.parametrize(
    "source, code",
    [(None, "bad_argument"), (5, "bad_argument"), ([1, 2], "bad_argument"),
     (np.zeros((40, 40, 3), object), "not_an_image"), ("x" * 300, "cannot_read"), ("", "file_missing"),
     ("a\x00b.jpg", "bad_argument"), (np.full((40, 40, 3), np.nan), "not_an_image"),
     (-np.ones((40, 40, 3)), "not_an_image"), (np.full((40, 40), 300.0), "not_an_image")],
    ids=["none", "int", "list", "object-array", "name-too-long", "empty-path", "nul-in-name", "nan-array",
         "negative-array", "array-over-255"],
)
def test_what_is_no_image_source_is_a_coded_error(source, code):
    with pytest.raises(DetectorError) as info:
        load_image(source)
    assert info.value.code == code and str(info.value)


def test_a_float_image_a_resampler_overshot_is_clipped_not_refused():
    for low, high, expected in ((-0.1, 1.1, (0, 255)), (-0.2, 255.2, (0, 255)), (0.0, 0.5, (0, 128))):
        image = np.zeros((20, 20, 3))
        image[:10], image[10:] = low, high
        rgb, _ = load_image(image)
        assert (int(rgb.min()), int(rgb.max())) == expected


def test_bytes_like_sources_and_float_pil_images_read_as_their_pixels():
    rgb = np.random.default_rng(1).integers(0, 256, (40, 60, 3), np.uint8)
    data = png_bytes(Image.fromarray(rgb))
    for source in (bytearray(data), memoryview(data)):
        assert np.array_equal(load_image(source)[0], rgb)
    grey = rgb[:, :, 0].astype(np.float32) / 255  # a float image in 0..1, as from a float array
    assert np.array_equal(load_image(Image.fromarray(grey))[0], load_image(grey)[0])
    assert load_image(Image.fromarray(grey))[0].max() == rgb[:, :, 0].max()


def test_a_missing_model_given_by_path_is_named_without_a_training_hint(tmp_path):
    with pytest.raises(DetectorError) as info:
        Detector(tmp_path / "nope.onnx").detect(NOISE_PNG)
    assert info.value.code == "model_missing" and str(info.value) == f"{tmp_path / 'nope.onnx'}: no such model file"


def test_a_folder_is_not_taken_for_a_missing_file(tmp_path):
    with pytest.raises(DetectorError) as info:
        load_image(tmp_path)
    assert info.value.code == "not_a_file" and "folder" in str(info.value)


def test_size_limits_are_ours_not_pillows(tmp_path):
    """Pillow warns of a 'decompression bomb' from 89 MP and refuses from 179 MP; our limit is
    MAX_PIXELS, and a photo over it is told so in our words, with the file's name."""
    import warnings

    below, above = tmp_path / "108mp.png", tmp_path / "200mp.png"
    below.write_bytes(png_header_only(12000, 9000))
    above.write_bytes(png_header_only(20000, 10000))
    with warnings.catch_warnings(), pytest.raises(DetectorError) as info:
        warnings.simplefilter("error")
        load_image(below)
    assert info.value.code == "unreadable_image"  # past the size checks, no pixels to decode
    with pytest.raises(DetectorError) as info:
        load_image(above)
    assert info.value.code == "image_too_large" and str(info.value) == f"{above} has 200 MP; the limit is 150 MP"


def test_a_jpeg_damaged_in_its_scan_data_is_refused_not_read(tmp_path):
    buffer = io.BytesIO()
    Image.effect_noise((400, 300), 60).convert("RGB").save(buffer, "JPEG")
    path = tmp_path / "damaged.jpg"
    path.write_bytes(damaged_in_the_middle(buffer.getvalue()))
    Image.open(path).load()  # Pillow says nothing
    data = path.read_bytes()
    # Also as the caller's own PIL image, read or not, from its file or from memory.
    loaded = Image.open(path)
    loaded.load()
    for source in (path, data, bytearray(data), Image.open(path), loaded, Image.open(io.BytesIO(data))):
        with pytest.raises(DetectorError) as info:
            load_image(source)
        assert info.value.code == "unreadable_image" and "JPEG data is damaged (Corrupt JPEG data" in str(info.value)
        assert len(str(info.value)) < 200 + len(str(path))  # bytes are named, not shown
    assert load_image(Image.open(io.BytesIO(buffer.getvalue())))[0].shape == (300, 400, 3)  # a whole one reads


def test_bytes_some_cameras_pad_before_the_jpeg_end_marker_are_no_damage():
    buffer = io.BytesIO()
    Image.effect_noise((64, 48), 60).convert("RGB").save(buffer, "JPEG")
    whole = buffer.getvalue()
    padded = whole[:-2] + b"\x00" * 16 + whole[-2:]
    assert jpeg_damage(padded) is None
    assert load_image(padded)[0].shape == (48, 64, 3)
    assert jpeg_damage(whole[: len(whole) // 2]) == "Premature end of JPEG file"


def test_a_cut_short_file_is_named_in_the_message(tmp_path):
    path = tmp_path / "cut.png"
    path.write_bytes(NOISE_PNG[: len(NOISE_PNG) // 2])
    with pytest.raises(DetectorError) as info:
        load_image(path)
    assert str(info.value).startswith(f"{path}: cannot decode the image")


@pytest.mark.parametrize(
    "img",
    [
        Image.new("L", (40, 30), 128),
        Image.new("RGBA", (40, 30), (255, 0, 0, 0)),
        Image.new("P", (40, 30)),
        Image.fromarray(np.full((30, 40), 65535, np.uint16)),
    ],
    ids=["grayscale", "rgba", "palette", "16-bit"],
)
def test_unusual_modes_become_rgb_uint8(tmp_path, img):
    path = tmp_path / "mode.png"
    img.save(path)
    rgb, size = load_image(path)
    assert rgb.shape == (30, 40, 3) and rgb.dtype == np.uint8
    assert size == (40, 30)


def test_16_bit_grey_is_rescaled_not_clipped(tmp_path):
    path = tmp_path / "grey16.png"
    Image.fromarray(np.full((20, 20), 32768, np.uint16)).save(path)
    rgb, _ = load_image(path)
    assert int(rgb[0, 0, 0]) == 128


def test_8_bit_grey_widened_to_16_bits_keeps_its_levels():
    rgb, _ = load_image(Image.fromarray(np.full((20, 20), 200, np.uint8)).convert("I;16"))
    assert int(rgb[0, 0, 0]) == 200


def test_transparent_pixels_go_on_the_backdrop(tmp_path):
    path = tmp_path / "rgba.png"
    Image.new("RGBA", (20, 20), (0, 0, 0, 0)).save(path)
    rgb, _ = load_image(path)
    assert rgb[0, 0].tolist() == [BACKDROP] * 3


def test_exif_orientation_turns_the_image_upright(tmp_path):
    path = tmp_path / "rotated.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: rotate 90° clockwise to view
    Image.new("RGB", (60, 20)).save(path, exif=exif)
    rgb, size = load_image(path)
    assert rgb.shape[:2] == (60, 20)
    assert size == (20, 60)
    assert image_size(path) == image_size(path.read_bytes()) == image_size(Image.open(path)) == (20, 60)
    assert image_size(rgb) == (20, 60)


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_a_sideways_tiff_is_turned_and_sized_once(tmp_path, orientation):
    """Pillow itself stands a TIFF upright (size and pixels), which must not be done again."""
    path = tmp_path / "rotated.tif"
    exif = Image.Exif()
    exif[0x0112] = orientation
    Image.new("RGB", (60, 20)).save(path, exif=exif)
    rgb, size = load_image(path)
    upright = (20, 60) if orientation in (6, 8) else (60, 20)
    assert size == image_size(path) == (rgb.shape[1], rgb.shape[0]) == upright


def test_a_photo_with_a_malformed_exif_tag_is_still_turned_upright(tmp_path):
    """Some cameras store a tag with the wrong type; Pillow's exif_transpose then fails (struct.error)."""
    path = tmp_path / "camera.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6
    exif[0x010F] = "Maker"
    raw = exif.tobytes().replace(b"\x01\x0f\x00\x02", b"\x01\x07\x00\x02")  # tag 0x0107, a SHORT, as text
    Image.new("RGB", (60, 20)).save(path, exif=raw)
    rgb, size = load_image(path)
    assert rgb.shape[:2] == (60, 20) and size == image_size(path) == (20, 60)


@pytest.mark.parametrize("suffix", [".heic", ".avif"])
def test_phone_formats_open_upright(tmp_path, suffix):
    """iPhones save HEIC, newer Android phones AVIF; a sideways-stored photo reads upright."""
    from vision.detector import register_phone_formats

    register_phone_formats()  # writing HEIC needs the plugin too
    path = tmp_path / f"phone{suffix}"
    exif = Image.Exif()
    exif[0x0112] = 6
    stored = np.zeros((20, 60, 3), np.uint8)
    stored[:, :30] = 255  # the left half white: after turning clockwise, the top half
    Image.fromarray(stored).save(path, exif=exif.tobytes(), quality=95)  # as a phone writes it
    rgb, size = load_image(path)
    assert size == image_size(path) == (20, 60)
    assert rgb.shape[:2] == (60, 20)
    assert rgb[5, 10].min() > 200 and rgb[55, 10].max() < 60


@pytest.mark.parametrize("degrees", [30.0, -75.0, 90.0])
def test_turned_image_keeps_all_of_it_and_box_through_follows_a_box(degrees):
    import cv2

    from vision.detector import box_through, turned

    image = np.zeros((100, 200, 3), np.uint8)
    image[30:70, 50:90] = 255
    out, matrix = turned(image, degrees)
    ys, xs = np.nonzero(out[:, :, 0] > 127)
    white = (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
    assert box_through(matrix, (50, 30, 90, 70)) == pytest.approx(white, abs=1.5)
    a = np.radians(degrees)
    assert out.shape[:2] == pytest.approx((100 * abs(np.cos(a)) + 200 * abs(np.sin(a)),
                                           200 * abs(np.cos(a)) + 100 * abs(np.sin(a))), abs=1)
    back = box_through(cv2.invertAffineTransform(matrix), white)
    assert back[0] <= 50 + 1 and back[1] <= 30 + 1 and back[2] >= 90 - 1 and back[3] >= 70 - 1


def test_large_jpeg_decodes_reduced_but_reports_original_size(tmp_path):
    path = tmp_path / "big.jpg"
    Image.new("RGB", (4000, 2000), (10, 120, 30)).save(path, quality=70)
    rgb, size = load_image(path, draft_size=640)
    assert size == (4000, 2000)
    assert 640 <= rgb.shape[1] < 4000


@pytest.mark.parametrize("size, draft", [((4000, 3000), 1280), ((3000, 2000), 1280), ((640, 480), 1280),
                                         ((2600, 1950), 640), ((640, 480), None)])
def test_jpegs_decode_by_libjpeg_turbo_to_the_pixels_pillow_decodes(size, draft):
    """Decoded by simplejpeg (which tells damaged data) at the scale Pillow's draft takes."""
    buffer = io.BytesIO()
    Image.effect_noise(size, 40).convert("RGB").save(buffer, "JPEG", quality=85)
    pillow = Image.open(io.BytesIO(buffer.getvalue()))
    if draft:
        pillow.draft("RGB", (draft, draft))
    rgb, original = load_image(buffer.getvalue(), draft_size=draft)
    assert original == size and np.array_equal(rgb, np.asarray(pillow.convert("RGB")))


def test_a_cmyk_jpeg_reads_in_its_own_colours():
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).convert("CMYK").save(buffer, "JPEG")
    rgb, _ = load_image(buffer.getvalue())
    assert rgb.shape == (30, 40, 3) and abs(int(rgb[15, 20, 0]) - 200) < 12 and rgb[15, 20, 1] < 60


def test_an_array_subclass_reads_as_its_array():
    grey = np.full((30, 40), 200, np.uint8)
    assert np.array_equal(load_image(np.matrix(grey))[0], load_image(grey)[0])


def test_array_inputs_of_several_kinds():
    grey16 = np.full((16, 24), 65535, np.uint16)
    assert load_image(grey16)[0].shape == (16, 24, 3)
    floats = np.ones((16, 24, 3), np.float32)
    assert load_image(floats)[0].max() == 255
    with pytest.raises(DetectorError):
        load_image(np.zeros((16, 24, 2), np.uint8))


# --- model loading ----------------------------------------------------------------------

def test_missing_weights_are_reported(tmp_path):
    with pytest.raises(DetectorError) as info:
        Detector(tmp_path / "none.onnx").detect(np.zeros((32, 32, 3), np.uint8))
    assert info.value.code == "model_missing"


def test_corrupt_weights_are_reported(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage" * 100)
    with pytest.raises(DetectorError) as info:
        Detector(bad).detect(np.zeros((32, 32, 3), np.uint8))
    assert info.value.code == "model_corrupt"


needs_model = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="shipped model not built")
# The shipped model finds at least this share of the tiles (right box, right code) in hand
# scenes rendered with training art; models/MODEL_CARD.md records the measured value.
MIN_RENDERED_RECALL = 0.4


@needs_model
def test_shipped_model_is_small_enough():
    assert DEFAULT_MODEL.stat().st_size <= 20 * 1024 * 1024


@pytest.fixture(scope="module")
def fluffy_atlas(tmp_path_factory):
    """The synthetic generator's tile art from fluffystuff (CC0, in ../shared)."""
    import importlib.util
    import sys

    sys.path.insert(0, str(REPO / "datasets"))
    from mjsynth import art

    if not art.FLUFFY_DIR.is_dir() or importlib.util.find_spec("cairosvg") is None:
        pytest.skip("needs ../shared fluffystuff art and cairosvg")
    return art.load_atlas("fluffystuff", tmp_path_factory.mktemp("art"))


@pytest.fixture(scope="module")
def rendered_scenes(fluffy_atlas):
    """Scenes from the synthetic generator with labels."""
    from mjsynth.scene import make_sample

    return [make_sample(np.random.default_rng([11, k]), fluffy_atlas, "hand", 640, 480) for k in range(1, 4)]


def matched_fraction(detections: list[Detection], labels) -> float:
    """Share of labelled boxes found with IoU >= 0.5 and the right class."""
    found = 0
    for label in labels:
        lx1, ly1, lx2, ly2 = label.box
        for d in detections:
            x1, y1, x2, y2 = d.box
            inter = max(0, min(x2, lx2) - max(x1, lx1)) * max(0, min(y2, ly2) - max(y1, ly1))
            union = (x2 - x1) * (y2 - y1) + (lx2 - lx1) * (ly2 - ly1) - inter
            if d.code == label.name and inter / union >= 0.5:
                found += 1
                break
    return found / len(labels)


@needs_model
@pytest.mark.parametrize("hand_photo", [False, True], ids=["any-photo", "hand-photo"])
def test_shipped_model_reads_rendered_scenes(rendered_scenes, hand_photo):
    detector = Detector(hand_photo=hand_photo)
    tile_labels, found = 0, 0.0
    for sample in rendered_scenes:
        detections = detector.detect(sample.image)
        assert all(isinstance(d, Detection) and d.code in CLASS_NAMES for d in detections)
        for d in detections:
            assert 1 <= len(d.alternatives) <= CLASSIFIER_TOP_K and d.alternatives[0] == (d.code, d.confidence)
        tiles = [label for label in sample.labels if label.name in CLASS_NAMES[:42]]
        tile_labels += len(tiles)
        found += matched_fraction(detections, tiles) * len(tiles)
    print(f"rendered-scene recall {found / tile_labels:.2f} (hand photo: {hand_photo})")
    assert found / tile_labels >= MIN_RENDERED_RECALL


@needs_model
@pytest.mark.parametrize("width,height", [(640, 360), (360, 640), (640, 640)], ids=["landscape", "portrait", "square"])
def test_shipped_model_reads_rendered_scenes_of_every_shape(fluffy_atlas, width, height):
    """The shipped model takes rectangular inputs; its boxes land on the tiles of a wide,
    tall or square photo alike (scaled up 1.5x so the mapping back is not the identity)."""
    from dataclasses import replace

    from mjsynth.scene import make_sample

    sample = make_sample(np.random.default_rng([12, width, height]), fluffy_atlas, "hand", width, height)
    photo = np.asarray(Image.fromarray(sample.image).resize((width * 3 // 2, height * 3 // 2)))
    detector = Detector()
    detections = detector.detect(photo)
    assert detector.stride == 32
    tiles = [replace(label, box=tuple(v * 1.5 for v in label.box))
             for label in sample.labels if label.name in CLASS_NAMES[:42]]
    recall = matched_fraction(detections, tiles)
    print(f"{width}x{height} recall {recall:.2f}")
    assert recall >= MIN_RENDERED_RECALL


def test_tiles_look_small_by_the_median_sure_tile_at_the_models_input():
    fit = Letterbox(1920, 1440, 1 / 3, 1 / 3, 0, 0, 640, 480)  # a 1920 px photo at 640 px

    def tiles(*sides, confidence=0.9):
        return [Detection((0, 0, s * 3, s * 4), "5p", confidence) for s in sides]

    assert tiles_look_small(tiles(20, 22, 40), fit)  # 20-22 px at the input: most are small
    assert not tiles_look_small(tiles(20, 40, 42), fit)
    assert not tiles_look_small(tiles(20, 22, confidence=0.1) + tiles(40), fit)  # unsure boxes do not count
    assert not tiles_look_small([Detection((0, 0, 30, 30), "meld", 0.9)], fit)  # no tile at all


def test_tiles_look_large_by_the_median_sure_tile_at_the_models_input_or_when_none_is_sure():
    fit = Letterbox(1920, 1440, 1 / 3, 1 / 3, 0, 0, 640, 480)  # a 1920 px photo at 640 px

    def tiles(*sides, confidence=0.9):
        return [Detection((0, 0, s * 3, s * 4), "5p", confidence) for s in sides]

    assert tiles_look_large(tiles(150, 160, 40), fit)  # a close-up: most tiles 150+ px at the input
    assert not tiles_look_large(tiles(40, 45, 160), fit)  # a hand photographed close
    assert not tiles_look_large(tiles(150, 160, confidence=0.1) + tiles(40), fit)  # unsure boxes do not count
    assert tiles_look_large(tiles(40, confidence=0.1), fit)  # nothing found surely
    assert tiles_look_large([Detection((0, 0, 30, 30), "meld", 0.9)], fit)  # no tile at all


def test_merged_readings_keep_the_surer_box_of_a_tile_and_every_meld_box():
    first = [Detection((0, 0, 30, 40), "5p", 0.6), Detection((0, 0, 95, 40), "meld", 0.8)]
    again = [Detection((1, 1, 31, 41), "5p", 0.9), Detection((70, 0, 100, 40), "7z", 0.5),
             Detection((4, 4, 28, 38), "back", 0.3)]  # inside the 5p's box: its duplicate
    assert merged(first + again) == [again[0], first[1], again[1]]
    assert merged([]) == []


def test_looks_like_a_hand_by_the_count_and_size_of_its_sure_tiles():
    def tiles(count, side=40, confidence=0.9):
        return [Detection((0, 0, side * 3 / 4, side), "5p", confidence) for _ in range(count)]

    assert looks_like_a_hand(tiles(14), IDENTITY)
    assert looks_like_a_hand(tiles(1), IDENTITY)  # a close-up of one tile
    assert not looks_like_a_hand(tiles(31), IDENTITY)  # more than one hand: a table
    assert not looks_like_a_hand(tiles(14, side=20), IDENTITY)  # small tiles: a table seen from afar
    assert looks_like_a_hand(tiles(14) + tiles(30, confidence=0.1), IDENTITY)  # unsure boxes do not count


@needs_model
def test_detect_reads_a_hand_with_the_upright_model_and_a_table_with_the_tile_model(fluffy_atlas, monkeypatch):
    from mjsynth.scene import make_sample
    from vision.classifier import TileClassifier
    from vision.demo_cli import SAMPLE_IMAGE

    asked = []
    read = TileClassifier.probabilities
    monkeypatch.setattr(TileClassifier, "probabilities",
                        lambda self, rgb, boxes, upright=True: asked.append(upright) or read(self, rgb, boxes, upright))
    detector = Detector()
    detector.detect(str(SAMPLE_IMAGE))
    table = make_sample(np.random.default_rng([13, 4]), fluffy_atlas, "table", 1280, 960)
    detector.detect(table.image)
    assert asked == [True, False]
    # A photo of one hand reads alike whether or not the caller says it is one.
    assert detector.detect(str(SAMPLE_IMAGE)) == Detector(hand_photo=True).detect(str(SAMPLE_IMAGE))


@needs_model
def test_tables_whose_tiles_look_small_are_read_again_larger(fluffy_atlas, monkeypatch):
    """Whole tables at 1280 px: their tiles are under SMALL_TILES px at the model's 640 px input,
    so each photo is read again at FINE_SCALE, which finds more of them over the first eight such
    tables of a seed (one table can lose a tile or two to the merge)."""
    import vision.detector as detector_module
    from mjsynth.scene import make_sample

    detector = Detector()
    detector.load()
    found = {"once": 0.0, "again larger": 0.0}
    tables = 0
    for k in range(40):
        sample = make_sample(np.random.default_rng([13, k]), fluffy_atlas, "table", 1280, 960)
        if not tiles_look_small(*detector._boxes_at(sample.image, 1280, 960, detector.imgsz)):
            continue
        tiles = [label for label in sample.labels if label.name in CLASS_NAMES[:43]]
        for way, small_tiles in (("again larger", detector_module.SMALL_TILES), ("once", 0)):
            monkeypatch.setattr(detector_module, "SMALL_TILES", small_tiles)
            found[way] += matched_fraction(detector.detect(sample.image), tiles)
        monkeypatch.undo()
        tables += 1
        if tables == 8:
            break
    print(f"table recall over {tables} tables: read once {found['once'] / tables:.3f}, "
          f"again larger {found['again larger'] / tables:.3f}")
    assert tables == 8 and found["again larger"] > found["once"]


@needs_model
def test_a_tile_photographed_close_is_found_by_reading_the_photo_again_smaller(fluffy_atlas, monkeypatch):
    """A tile filling half the frame (a rendered hand's middle tile, cut out with a quarter of
    its length around it and enlarged to 640 px) looks large, so the photo is read again
    COARSE_SCALE times as large: the model, which misses many such tiles, finds more of them."""
    import vision.detector as detector_module
    from mjsynth.scene import make_sample

    detector = Detector()
    found = {"once": 0, "again smaller": 0}
    for k in range(12):
        sample = make_sample(np.random.default_rng([14, k]), fluffy_atlas, "hand", 640, 480)
        tiles = [label for label in sample.labels if label.name in CLASS_NAMES[:42]]
        x1, y1, x2, y2 = tiles[len(tiles) // 2].box
        half = 0.75 * max(x2 - x1, y2 - y1)
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        frame = (cx - half * 4 / 3, cy - half, cx + half * 4 / 3, cy + half)
        scale = 640 / (frame[2] - frame[0])
        photo = np.asarray(Image.fromarray(sample.image).crop(tuple(round(v) for v in frame)).resize((640, 480)))
        tile = Detection(((x1 - frame[0]) * scale, (y1 - frame[1]) * scale,
                          (x2 - frame[0]) * scale, (y2 - frame[1]) * scale), "5p", 1.0)
        found["again smaller"] += any(d.is_tile and iou(d, tile) >= 0.5 for d in detector.detect(photo))
        monkeypatch.setattr(detector_module, "tiles_look_large", lambda *_: False)
        found["once"] += any(d.is_tile and iou(d, tile) >= 0.5 for d in detector.detect(photo))
        monkeypatch.undo()
    print(f"tiles found of 12 close-ups: read once {found['once']}, again smaller {found['again smaller']}")
    assert found["again smaller"] > found["once"]


@needs_model
def test_the_smaller_reading_adds_tiles_without_reboxing_the_sure_ones(monkeypatch):
    """A close-up read at both sizes (the model's boxes faked, the detector's own codes kept):
    a box of the smaller reading over a sure tile of the first is that tile again and is left
    out; an unsure one loses to it; a tile only it finds joins; its meld boxes do not."""
    detector = Detector(classifier_path=None)
    detector.load()
    first = [Detection((0, 0, 150, 200), "5p", 0.5), Detection((400, 0, 550, 200), "back", 0.1)]
    smaller = [Detection((10, 5, 160, 210), "6p", 0.9),  # the 5p again (IoU 0.8), surer
               Detection((395, 0, 555, 205), "3s", 0.8),  # the unsure box's tile, surer
               Detection((200, 250, 350, 450), "7z", 0.6),  # a tile the first reading missed
               Detection((0, 0, 560, 210), "meld", 0.7)]
    monkeypatch.setattr(detector, "_boxes_at", lambda rgb, w, h, size: (
        first if size == detector.imgsz else smaller, Letterbox.fit(w, h, size, detector.stride)))
    kept = detector.detect_set(np.zeros((480, 640, 3), np.uint8)).kept
    assert sorted((d.code, d.box) for d in kept) == sorted(
        (d.code, d.box) for d in (first[0], smaller[1], smaller[2]))


@needs_model
def test_a_photo_showing_no_tile_is_read_again_smaller_unless_close_ups_are_left_out(monkeypatch):
    detector = Detector()
    detector.load()
    sizes = []
    boxes_at = detector._boxes_at
    monkeypatch.setattr(detector, "_boxes_at", lambda rgb, w, h, size: sizes.append(size) or boxes_at(rgb, w, h, size))
    felt = np.full((480, 640, 3), (40, 100, 60), np.uint8)
    assert not detector.detect_set(felt).kept and sizes == [640, 384]
    sizes.clear()
    assert not detector.detect_set(felt, close_up=False).kept and sizes == [640]


@needs_model
def test_a_photo_with_the_pixels_can_be_read_again_at_the_other_size(rendered_scenes):
    image = rendered_scenes[0].image
    assert Detector().detect_set(image).other_size is None  # 640 px: nothing to read larger
    large = np.asarray(Image.fromarray(image).resize((1280, 960)))
    found = Detector().detect_set(large)
    again = found.other_size()
    assert again.kept and all(isinstance(d, Detection) for d in again.kept)
    assert again.other_size is None and [d.box for d in again.kept] != [d.box for d in found.kept]


@needs_model
def test_the_other_size_reads_only_the_part_around_the_tiles_and_finds_what_the_whole_photo_gives(fluffy_atlas):
    from mjsynth.scene import make_sample

    def spread(scene) -> float:  # the share of the photo the tiles span
        x0, y0, x1, y1 = (f(lab.box[k] for lab in scene.labels) for k, f in enumerate((min, min, max, max)))
        return (x1 - x0) * (y1 - y0) / (scene.image.shape[0] * scene.image.shape[1])

    # One with table around its tiles, for a part of the photo to be read.
    scene = min((make_sample(np.random.default_rng([11, k]), fluffy_atlas, "hand", 640, 480) for k in range(1, 9)),
                key=spread)
    large = np.asarray(Image.fromarray(scene.image).resize((1280, 960)))
    detector = Detector()
    kept = detector.detect_set(large).kept
    fine = round(detector.imgsz * FINE_SCALE)
    whole = [d for d in detector._boxes_at(large, 1280, 960, fine)[0] if d.is_tile and d.confidence >= DEFAULT_CONF]
    read, boxes_at = [], detector._boxes_at
    detector._boxes_at = lambda rgb, *rest: read.append(rgb.shape[:2]) or boxes_at(rgb, *rest)
    around = detector._boxes_around(large, 1280, 960, fine, kept)
    assert read[0][0] * read[0][1] < 1280 * 960  # a part of the photo, not all of it
    # The same tiles boxed, with the same codes wherever the whole photo reads them surely (the
    # detector's own class for a tile it reads unsurely can differ with the framing; the crop
    # classifier reads the codes at run time).
    assert whole and all(any(iou(a, d) >= 0.8 and (a.code == d.code or d.confidence < 0.8) for a in around)
                         for d in whole)


def test_face_gains_take_the_tile_faces_bright_pixels_to_white():
    from vision.detector import FACE_WHITE, face_gains

    photo = np.zeros((100, 200, 3), np.uint8)
    photo[20:60, 30:60] = (200, 160, 100)  # a warm-lit face on a black table
    tile = Detection((30.0, 20.0, 60.0, 60.0), "1m", 1.0)
    assert face_gains(photo, [tile]) == pytest.approx(FACE_WHITE / np.array([200, 160, 100]))
    # Boxes in a frame twice the decoded photo's size are scaled into it.
    assert face_gains(photo, [Detection((60.0, 40.0, 120.0, 120.0), "1m", 1.0)], 0.5, 0.5) == pytest.approx(
        FACE_WHITE / np.array([200, 160, 100]))
    assert face_gains(photo, []) == pytest.approx(np.ones(3))


@needs_model
def test_a_photo_in_a_warm_light_can_be_read_again_from_the_same_boxes_balanced():
    from vision.demo_cli import SAMPLE_IMAGE
    from vision.detector import face_gains

    detector = Detector(hand_photo=True)
    sample = np.asarray(Image.open(SAMPLE_IMAGE).convert("RGB"), np.float32)
    read = {d.box: d.code for d in detector.detect(sample)}
    neutral = np.clip(sample * face_gains(sample, detector.detect(sample)), 0, 255)
    assert detector.detect_set(neutral.astype(np.uint8)).in_balanced_light() is None  # faces as in training
    warm = (neutral * (1.0, 0.65, 0.3)).astype(np.uint8)  # a candle-warm lamp: blue over 3 times down
    found = detector.detect_set(warm)
    again = found.in_balanced_light()
    assert [d.box for d in again.kept + again.rejected] == [d.box for d in found.kept + found.rejected]

    def as_in_the_sample(found):
        return sum(any(abs(d.box[0] - box[0]) < 5 and d.code == code for box, code in read.items()) for d in found.kept)

    assert as_in_the_sample(found) < as_in_the_sample(again) == len(read) == 14


def test_tiles_half_in_shadow_are_lit_each_by_its_own_light():
    from vision.detector import FACE_WHITE, evenly_lit, tile_lights, unevenly_lit

    photo = np.zeros((100, 400, 3), np.uint8)
    tiles = [Detection((20.0 + 40 * k, 20.0, 50.0 + 40 * k, 60.0), "1m", 1.0) for k in range(8)]
    for k, tile in enumerate(tiles):
        x1, y1, x2, y2 = map(int, tile.box)
        photo[y1:y2, x1:x2] = (220, 215, 200) if k < 5 else (90, 92, 100)  # the last three in a bluish shade
    assert unevenly_lit(tile_lights(photo, tiles)) and not unevenly_lit(tile_lights(photo, tiles[:5]))
    even = evenly_lit(photo, tiles)
    assert not unevenly_lit(tile_lights(even, tiles))
    assert tile_lights(even, tiles)[[0, 7]] == pytest.approx(np.full((2, 3), FACE_WHITE), abs=2.0)  # far from the edge
    assert (even[80:] == 0).all()  # a black table stays black


@needs_model
def test_a_photo_with_a_shadow_over_part_of_the_hand_is_read_again_lit_evenly():
    from vision.demo_cli import SAMPLE_IMAGE
    from vision.pipeline import read_photo

    detector = Detector(hand_photo=True)
    sample = np.asarray(Image.open(SAMPLE_IMAGE).convert("RGB"), np.float32)
    read = {d.box: d.code for d in detector.detect(sample)}
    shaded = sample.copy()
    shaded[:, sample.shape[1] // 2:] *= (0.18, 0.19, 0.24)  # the right half of the hand in a deep, bluish shade
    shaded = shaded.astype(np.uint8)
    found = detector.detect_set(shaded)

    def as_in_the_sample(found):
        return sum(any(abs(d.box[0] - box[0]) < 5 and d.code == code for box, code in read.items()) for d in found.kept)

    assert as_in_the_sample(found) < as_in_the_sample(found.in_balanced_light())
    result = read_photo(shaded, context={"seat_wind": "S"})
    assert result.hand["winning_tile"] == "9p" and any("unevenly lit" in w for w in result.warnings)


@needs_model
def test_the_sample_cut_out_of_its_photo_reads_its_own_hand_with_no_reflection(tmp_path):
    """A background-removal app's PNG, transparent beyond the tiles: on white, the white beside
    the tiles read as a flash's reflection and the blank White dragons as face-down tiles."""
    from vision.demo_cli import SAMPLE_FACTS, SAMPLE_IMAGE
    from vision.pipeline import read_photo

    sample = np.asarray(Image.open(SAMPLE_IMAGE).convert("RGBA")).copy()
    opaque = np.zeros(sample.shape[:2], bool)
    for d in Detector(hand_photo=True).detect(sample[:, :, :3]):
        x1, y1, x2, y2 = (round(v) for v in d.box)
        opaque[max(0, y1 - 6):y2 + 6, max(0, x1 - 6):x2 + 6] = True
    sample[:, :, 3] = np.where(opaque, 255, 0)
    path = tmp_path / "cut-out.png"
    Image.fromarray(sample).save(path)
    result = read_photo(path, context={"seat_wind": "S"})
    facts = json.loads(SAMPLE_FACTS.read_text())["hand"]
    assert result.error is None and [result.hand[k] for k in ("concealed", "melds", "winning_tile")] == [
        facts[k] for k in ("concealed", "melds", "winning_tile")]
    assert result.confidence >= 0.5 and not any("reflection" in w for w in result.warnings)


def test_tile_sharpness_falls_as_the_photo_blurs_and_sharpening_raises_it():
    import cv2

    from vision.detector import BLURRED, sharpened, tile_sharpness

    photo, tiles = _tiles_on_a_table()
    blurred = cv2.GaussianBlur(photo, (0, 0), 20.0)  # far: the tiles' own edges stay the longest
    assert tile_sharpness(photo, tiles) >= BLURRED > tile_sharpness(blurred, tiles)
    assert tile_sharpness(sharpened(blurred), tiles) > tile_sharpness(blurred, tiles)
    # Boxes in a frame twice the photo's size are scaled into it; no tile boxes: nothing blurred.
    doubled = [replace(d, box=tuple(2 * v for v in d.box)) for d in tiles]
    assert tile_sharpness(photo, doubled, 0.5, 0.5) == pytest.approx(tile_sharpness(photo, tiles))
    assert tile_sharpness(photo, []) == float("inf")


def _tiles_on_a_table() -> tuple[np.ndarray, list[Detection]]:
    """Eight tiles with crisp strokes of random sizes on a dark table, and their boxes."""
    rng = np.random.default_rng(8)
    photo = np.full((400, 640, 3), 40, np.uint8)
    tiles = []
    for k in range(8):
        x = 16 + 78 * k
        photo[120:280, x:x + 70] = 230
        for _ in range(12):
            y0, x0 = rng.integers(130, 260), rng.integers(x + 4, x + 56)
            photo[y0:y0 + rng.integers(2, 9), x0:x0 + rng.integers(2, 12)] = rng.integers(0, 120, 3)
        tiles.append(Detection((float(x), 120.0, x + 70.0, 280.0), "1m", 1.0))
    return photo, tiles


def _flash(photo: np.ndarray, centre: tuple[int, int], radius: int) -> np.ndarray:
    """The photo with a reflection clipped to white in a disc, soft beyond it (a flash in the glaze)."""
    yy, xx = np.mgrid[:photo.shape[0], :photo.shape[1]]
    glow = np.clip(1.6 * np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / radius ** 2), 0, 1)[..., None]
    return (255 - (255 - photo.astype(float)) * (1 - glow)).round().astype(np.uint8)


def test_a_reflection_washes_out_the_tiles_under_it_and_a_box_is_given_to_a_tile_it_hides():
    from vision.detector import GLARE_SHARE, hidden_tiles, reflections, washed_share

    photo, tiles = _tiles_on_a_table()
    assert reflections(photo, tiles) is None  # as taken: no clipped patch
    flashed = _flash(photo, (16 + 78 * 2 + 35, 200), 40)  # over the third tile
    mask = reflections(flashed, tiles)
    assert mask is not None and mask.shape == photo.shape[:2]
    assert [washed_share(mask, d.box) >= GLARE_SHARE for d in tiles] == [k == 2 for k in range(8)]
    assert hidden_tiles(mask, tiles) == []  # the washed-out tile has its box
    # The detector lost the tile under the reflection: a box goes in the gap it leaves, any face.
    missing = tiles[:2] + tiles[3:]
    (box,) = hidden_tiles(mask, missing)
    assert box.box == pytest.approx(tiles[2].box, abs=4)
    assert len(box.alternatives) == 34 and len({p for _, p in box.alternatives}) == 1
    # In a frame twice the photo's size, the boxes scale into the mask.
    doubled = [replace(d, box=tuple(2 * v for v in d.box)) for d in missing]
    (box,) = hidden_tiles(mask, doubled, 0.5, 0.5)
    assert box.box == pytest.approx(tuple(2 * v for v in tiles[2].box), abs=8)
    # A reflection on the table below the tiles washes none out and hides none.
    below = reflections(_flash(photo, (320, 395), 80), tiles)
    assert below is not None and not any(washed_share(below, d.box) for d in tiles)
    assert hidden_tiles(below, tiles) == []
    # A small glint is no reflection; nor is a photo overexposed all over.
    assert reflections(_flash(photo, (16 + 78 * 2 + 35, 200), 15), tiles) is None
    assert reflections(np.full_like(photo, 255), tiles) is None


def test_shake_is_found_in_the_cepstrum_and_undone():
    import cv2

    from vision.detector import shake, smear_kernel, unshaken

    photo, tiles = _tiles_on_a_table()
    shaken = cv2.filter2D(photo, -1, smear_kernel(13, 30.0), borderType=cv2.BORDER_REFLECT)
    length, angle = shake(shaken, tiles)
    assert abs(length - 13) <= 1 and abs(angle - 30.0) <= 6
    assert shake(photo, tiles) is None  # as taken: no clear smear
    faces = (slice(120, 280), slice(16, 16 + 78 * 8))
    error = lambda image: np.abs(image[faces].astype(float) - photo[faces]).mean()  # noqa: E731
    assert error(unshaken(shaken, length, angle)) < 0.8 * error(shaken)
    assert unshaken(shaken, length, angle).shape == shaken.shape
    assert shake(shaken, []) is None  # no tile boxes: nothing to look at


@needs_model
def test_a_shaken_photo_can_be_read_again_unshaken():
    import cv2

    from vision.demo_cli import SAMPLE_IMAGE
    from vision.detector import smear_kernel

    detector = Detector(hand_photo=True)
    sample = np.asarray(Image.open(SAMPLE_IMAGE).convert("RGB"))
    read = {d.box: d.code for d in detector.detect(sample)}
    assert detector.detect_set(sample).unshaken() is None  # no shake
    found = detector.detect_set(cv2.filter2D(sample, -1, smear_kernel(21, 100.0)))
    again = found.unshaken()
    # The same boxes, read by the classifier alone, with no further copies of their own.
    assert sorted(d.box for d in again.kept + again.rejected) == sorted(d.box for d in found.kept + found.rejected)
    assert (again.other_size, again.in_balanced_light, again.unshaken, again.sharpened) == (None,) * 4

    def as_in_the_sample(found):
        return sum(any(abs(d.box[0] - box[0]) < 5 and d.code == code for box, code in read.items()) for d in found.kept)

    assert as_in_the_sample(found) + 3 <= as_in_the_sample(again) <= len(read) == 14


@needs_model
@pytest.mark.parametrize("tile", [1, 9])
def test_a_tile_washed_out_by_a_flash_takes_the_face_that_makes_the_hand_win(tile):
    """The bundled sample with a flash mirrored on one tile: read as it looks, a wrong hand wins;
    with the washed-out tile free to take any face, the sample's own hand."""
    from vision.demo_cli import SAMPLE_FACTS, SAMPLE_IMAGE
    from vision.pipeline import read_photo

    detector = Detector(hand_photo=True)
    sample = np.asarray(Image.open(SAMPLE_IMAGE).convert("RGB"))
    assert detector.detect_set(sample).deglared() is None  # no reflection
    x1, y1, x2, y2 = sorted((d.box for d in detector.detect(sample) if d.is_tile), key=lambda b: b[0])[tile]
    flashed = _flash(sample, (round((x1 + x2) / 2), round((y1 + y2) / 2)), round(min(x2 - x1, y2 - y1) / 2))
    facts = json.loads(SAMPLE_FACTS.read_text())
    as_it_looks = read_photo(flashed, detect=lambda image: replace(detector.detect_set(image), deglared=None))
    assert as_it_looks.error is None and as_it_looks.hand["concealed"] != facts["hand"]["concealed"]
    result = read_photo(flashed, detect=detector.detect_set)
    assert result.error is None and result.hand["concealed"] == facts["hand"]["concealed"]
    assert any("a reflection (a flash or a lamp) washed out" in w for w in result.warnings)


@needs_model
def test_a_blurred_photo_can_be_read_again_sharpened():
    import cv2

    from vision.demo_cli import SAMPLE_IMAGE

    detector = Detector(hand_photo=True)
    sample = np.asarray(Image.open(SAMPLE_IMAGE).convert("RGB"))
    assert detector.detect_set(sample).sharpened() is None  # its tiles look sharp
    blurred = cv2.GaussianBlur(sample, (0, 0), 5.0)
    found = detector.detect_set(blurred)
    again = found.sharpened()
    assert again is not None and again.kept and all(d.box[2] <= 1280 and d.box[3] <= 960 for d in again.kept)
    # Read anew at one size, with no further copies of its own.
    assert (again.other_size, again.in_balanced_light, again.unshaken, again.sharpened) == (None,) * 4


@needs_model
@pytest.mark.parametrize("mode", ["L", "RGBA", "I;16"])
def test_shipped_model_takes_unusual_image_modes(tmp_path, rendered_scenes, mode):
    image = Image.fromarray(rendered_scenes[0].image)
    if mode == "I;16":
        image = Image.fromarray(np.asarray(image.convert("L"), np.uint16) * 257)
    else:
        image = image.convert(mode)
    path = tmp_path / "scene.png"
    image.save(path)
    detections = Detector().detect(path)
    assert detections and all(isinstance(d, Detection) for d in detections)


@pytest.mark.slow
def test_training_runs_and_ships_a_loadable_model(tmp_path):
    """One tiny epoch end to end: render, train from the model YAML, export, detect."""
    import sys

    sys.path.insert(0, str(REPO / "datasets"))
    from mjsynth import art
    from mjsynth.dataset import SynthConfig, generate

    from vision.cli import main

    cache = tmp_path / "art"
    art.build_atlas("fluffystuff", cache)
    data = tmp_path / "synth"
    generate(SynthConfig(out=data, count=8, seed=3, val_fraction=0.25, sources=("fluffystuff",),
                         imgsz=320, cache=cache), progress=False)
    onnx_path = tmp_path / "model" / "tiles.onnx"
    code = main(["train", "--data", str(data / "data.yaml"), "--init", "scratch", "--epochs", "1",
                 "--imgsz", "160", "--batch", "4", "--project", str(tmp_path / "runs"),
                 "--out", str(onnx_path)])
    assert code == 0
    assert onnx_path.is_file() and onnx_path.with_suffix(".pt").is_file()
    detections = Detector(onnx_path, conf_threshold=0.0001).detect(next((data / "images" / "val").iterdir()))
    assert all(isinstance(d, Detection) for d in detections)


def _run_train_gpu_sh(tmp_path: Path, timeout: int, **env: str):
    """`datasets/train_gpu.sh 150 cpu` with its outputs under tmp_path and this Python first on
    PATH (the script calls python3), `env` added to the environment."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "OUT": str(tmp_path / "out"), "MJLENS_GPU_DATA": str(tmp_path / "data"),
           "MJLENS_GPU_RUNS": str(tmp_path / "runs"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", **env}
    return subprocess.run(["bash", "datasets/train_gpu.sh", "150", "cpu"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_gpu_training_script_dry_run_on_cpu(tmp_path):
    """datasets/train_gpu.sh end to end at a tiny scale: render, fine-tune the shipped
    checkpoint, leave the weights and the log where the device tool fetches them."""
    pytest.importorskip("ultralytics")
    from datasets.mjsynth.art import SOURCES, available_sources

    if available_sources() != list(SOURCES) or not DEFAULT_MODEL.with_suffix(".pt").is_file():
        pytest.skip("needs every art source's atlas (datasets/fetch_art.py) and models/mjlens-tiles.pt")
    done = _run_train_gpu_sh(tmp_path, 600, MJLENS_GPU_SCALE="0.003")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out = tmp_path / "out"
    assert (out / "last.pt").stat().st_size > 1_000_000
    assert (out / "results.csv").read_text().startswith("epoch,")
    log = (out / "train.log").read_text()
    assert "training for" in done.stdout and "rendered in" in log and "Starting training" in log and "done in" in log


def test_gpu_training_script_stops_when_an_atlas_is_missing(tmp_path):
    """A lease rendering without one art source would read that art worse, warned only in its log."""
    pytest.importorskip("ultralytics")
    done = _run_train_gpu_sh(tmp_path, 120, MJLENS_ART_CACHE=str(tmp_path / "art"))
    assert done.returncode == 1
    assert "train_gpu.sh: no atlas for " in done.stderr and "kmahjongg-jade" in done.stderr
    assert not (tmp_path / "data" / "mix").exists()


@pytest.mark.parametrize(
    "names, elem, shape, code",
    [(None, "FLOAT16", ["b", 3, "h", "w"], "model_input"), ("list", "FLOAT", ["b", 3, "h", "w"], "model_classes"),
     ("{unparsable", "FLOAT", ["b", 3, "h", "w"], "model_classes"), (None, "FLOAT", [1, 3], "model_input")],
    ids=["float16-input", "names-a-list", "names-unparsable", "two-dimensional-input"],
)
def test_weights_that_are_no_detector_are_a_coded_error(tmp_path, names, elem, shape, code):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["images"], ["output0"])], "g",
                              [helper.make_tensor_value_info("images", getattr(TensorProto, elem), shape)],
                              [helper.make_tensor_value_info("output0", getattr(TensorProto, elem), shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    written = {None: str(dict(enumerate(CLASS_NAMES))), "list": str(list(CLASS_NAMES))}.get(names, names)
    for key, value in (("names", written), ("imgsz", "[640, 640]"), ("stride", "32")):
        model.metadata_props.add(key=key, value=value)
    path = tmp_path / "not-a-detector.onnx"
    onnx.save(model, str(path))
    with pytest.raises(DetectorError) as info:
        Detector(path, classifier_path=None).detect(np.zeros((64, 64, 3), np.uint8))
    assert info.value.code == code


def test_peer_weights_reproduce_the_peer_onnx_and_map_onto_our_classes():
    pytest.importorskip("mahjong_detector")
    pytest.importorskip("ultralytics")
    import onnx
    import torch

    from datasets.init_from_peer import (
        PEER_TO_OURS, extend_class_head, load_peer_weights, max_output_difference, peer_class_names,
        peer_onnx_path,
    )

    onnx_model = onnx.load(str(peer_onnx_path()))
    names = peer_class_names(onnx_model)
    assert set(names) == PEER_TO_OURS.keys()
    peer = load_peer_weights(onnx_model, nc=len(names))
    box_diff, class_diff = max_output_difference(peer, peer_onnx_path())
    assert box_diff < 1e-3 and class_diff < 1e-3
    ours = extend_class_head(peer, names)
    final = f"model.{len(ours.model) - 1}.cv3.0.2.weight"
    assert torch.equal(ours.state_dict()[final][CLASS_NAMES.index("7z")],
                       peer.state_dict()[final][names.index("chun")])
    assert ours.names == dict(enumerate(CLASS_NAMES))


@needs_model
@pytest.mark.parametrize("mode", [[], ["--hand-photo"]], ids=["any-photo", "hand-photo"])
def test_detect_command_lists_the_sample_hands_tiles_as_json(capsys, mode):
    from vision.cli import main

    sample = Path(__file__).resolve().parent.parent / "samples" / "demo-hand.jpg"
    assert main(["detect", str(sample), "--json", *mode]) == 0
    found = json.loads(capsys.readouterr().out)
    tiles = [d for d in found if d["code"] in CLASS_NAMES[:43]]
    assert len(tiles) >= 14 and all(d["alternatives"][0][0] == d["code"] for d in tiles)


@needs_model
def test_detect_commands_conf_keeps_the_boxes_shown_at_least_that_sure(capsys):
    from vision.cli import main

    sample = Path(__file__).resolve().parent.parent / "samples" / "demo-hand.jpg"
    assert main(["detect", str(sample), "--json"]) == 0
    every = json.loads(capsys.readouterr().out)
    assert main(["detect", str(sample), "--json", "--conf", "0.95"]) == 0
    sure = json.loads(capsys.readouterr().out)
    assert [d["confidence"] for d in sure] == sorted((d["confidence"] for d in every if d["confidence"] >= 0.95),
                                                     reverse=True)


@needs_model
def test_detect_command_says_where_the_annotated_image_went_as_photo_does(tmp_path, capsys):
    from vision.cli import main

    sample = Path(__file__).resolve().parent.parent / "samples" / "demo-hand.jpg"
    out = tmp_path / "seen.png"
    assert main(["detect", str(sample), "--annotate", str(out)]) == 0
    assert capsys.readouterr().out.endswith(f"annotated image: {out}\n") and out.is_file()
    assert main(["detect", str(sample), "--annotate", str(out), "--json"]) == 0
    json.loads(capsys.readouterr().out)  # JSON alone on stdout


@needs_model
def test_detect_command_draws_a_photo_of_small_tiles_enlarged(tmp_path, capsys):
    from PIL import Image

    from vision.cli import main

    sample = Image.open(Path(__file__).resolve().parent.parent / "samples" / "demo-hand.jpg")
    small = tmp_path / "small.jpg"
    sample.resize((256, 192), Image.Resampling.LANCZOS).save(small, quality=90)
    out = tmp_path / "seen.png"
    assert main(["detect", str(small), "--annotate", str(out)]) == 0
    said = capsys.readouterr().out.splitlines()[-1]
    assert said.startswith(f"annotated image: {out} (drawn ") and said.endswith(" times its size: its tiles are small)")
    zoom = float(said.split("(drawn ")[1].split()[0])
    width, height = Image.open(out).size
    assert 2 <= zoom <= 4 and width / 256 == pytest.approx(zoom, abs=0.05)
    assert width / height == pytest.approx(4 / 3, 0.01)


@pytest.mark.parametrize("argv", [["--annotate", "out.txt"], ["--conf", "2"], ["--conf", "nan"]])
def test_detect_command_refuses_bad_options_with_exit_2(tmp_path, capsys, argv):
    from vision.cli import main

    argv = [str(tmp_path / a) if a == "out.txt" else a for a in argv]
    try:
        code = main(["detect", str(tmp_path / "photo.jpg"), *argv])
    except SystemExit as exc:  # argparse refuses the value
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and ("out.txt" in err or "is not a number above 0 and below 1" in err)


def test_detect_command_refuses_a_file_that_is_no_image(tmp_path, capsys):
    from vision.cli import main

    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo")
    assert main(["detect", str(bad), "--json"]) == 2
    assert json.loads(capsys.readouterr().out) == {
        "ok": False, "error": {"code": "not_an_image", "message": f"{bad}: not an image file Pillow can read"},
    }


def test_an_image_cut_short_before_pillow_can_tell_its_format_is_damaged_not_another_kind_of_file():
    import io

    buffer = io.BytesIO()
    Image.new("RGB", (50, 40)).save(buffer, "PNG")
    for damaged in (buffer.getvalue()[:33], buffer.getvalue()[:12] + b"\x00" * 40):
        with pytest.raises(DetectorError) as info:
            load_image(damaged)
        assert info.value.code == "unreadable_image"
    with pytest.raises(DetectorError) as info:
        load_image(b"just some words, no picture")
    assert info.value.code == "not_an_image"


def test_an_output_name_too_long_is_a_problem_named_not_an_exception(tmp_path):
    from vision.outputs import write_problem

    assert write_problem(tmp_path / ("x" * 300 + ".png")) == "File name too long"  # the caller names the path


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="needs /dev/null")
def test_a_device_is_no_image_file():
    # a pipe given as the photo would block the decoder forever; a device is refused the same way
    with pytest.raises(DetectorError) as info:
        load_image("/dev/null")
    assert info.value.code == "not_a_file" and "a device or a pipe" in str(info.value)


def test_a_decoder_message_stays_on_one_line():
    # pillow-heif ends its words in a line break, which split `mjlens photo`'s one-line error
    from vision.detector import _unreadable

    assert "\n" not in str(_unreadable("cut.heic", ValueError("Unexpected end of file\n")))


@needs_model
def test_onnx_runtime_sends_no_usage_reports_and_says_nothing_where_home_is_unwritable(tmp_path):
    """A service user's home it cannot write: ONNX Runtime's telemetry would warn on every run."""
    import os
    import subprocess
    import sys

    home = tmp_path / "not-a-folder"
    home.write_text("")
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"))
    done = subprocess.run([sys.executable, "-c", "from vision.detector import DEFAULT_MODEL, cpu_session; "
                           "cpu_session(DEFAULT_MODEL); import os; print(os.environ['ORT_DISABLE_TELEMETRY'])"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "1\n", "")
