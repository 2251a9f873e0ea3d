"""The photo benchmark's switches (no model needed)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
pytest.importorskip("cairosvg", reason="the benchmark imports the scene generator (pip install -e '.[test]')")

import bench_photo  # noqa: E402
from bench_photo import EXTRA_READINGS, pared  # noqa: E402

from vision.detections import Detection, DetectionSet  # noqa: E402


def test_without_leaves_out_only_the_readings_named():
    def reading():
        return None

    found = DetectionSet((Detection((0, 0, 10, 14), "1m", 0.9),), other_size=reading, in_balanced_light=reading,
                         unshaken=reading, sharpened=reading)
    pared_set = pared(found, frozenset({"other-size", "sharpened", "level"}))
    assert pared_set.other_size is None and pared_set.sharpened is None
    assert pared_set.in_balanced_light is reading and pared_set.unshaken is reading
    assert pared_set.kept == found.kept
    assert pared(found, frozenset()) == found and pared(found, frozenset()).other_size is reading
    assert set(EXTRA_READINGS) == {"other-size", "balanced", "unshaken", "sharpened", "deglared", "level"}


@pytest.mark.parametrize("argv, message", [
    (["--imgsz", "0"], "'0' is not a whole number from 64 to 4096"),
    (["--blur", "-1"], "'-1' is not a finite number at least 0"),
    (["--count", "-3"], "'-3' is not a whole number >= 1"),
    (["--latency", "-1"], "'-1' is not a whole number >= 1"),
    (["--tilt", "200"], "'200' is not a number at least 0 and at most 180"),
    (["--shrink", "0.01"], "'0.01' is not a number at least 0.05 and at most 1"),
    (["--shrink", "1.5"], "'1.5' is not a number at least 0.05 and at most 1"),
    (["--shrink", "nan"], "'nan' is not a number at least 0.05 and at most 1"),
    (["--glare", "-1"], "'-1' is not a number at least 0 and at most 4"),
    (["--shadow", "0"], "'0' is not a number at least 0.05 and at most 1"),
    (["--rules", "bogus"], "invalid choice: 'bogus'"),
    (["--model", "nonexist.onnx"], "'nonexist.onnx' is not a file"),
    (["--canvas", "20001"], "'20001' is not a whole number from 0 to 20000"),
    (["--cutout", "--canvas", "4032"], "--cutout and --canvas cannot be combined"),
])
def test_bad_arguments_are_refused_before_any_photo_is_rendered(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        bench_photo.main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_no_blur_and_no_tilt_are_allowed():
    from vision.argtypes import number

    assert number(0, low_allowed=True)("0") == 0.0
    with pytest.raises(argparse.ArgumentTypeError):
        number(0)("0")


def test_an_output_it_cannot_write_is_refused_before_any_photo_is_rendered(tmp_path, capsys):
    assert bench_photo.main(["--json-out", str(tmp_path), "--count", "1", "--semi-real", "0", "--no-model"]) == 2
    assert capsys.readouterr().err.endswith(" [bad_output_path]\n")


def test_art_not_fetched_yet_is_one_coded_line_before_the_model_loads(tmp_path, capsys, monkeypatch):
    from datasets.mjsynth.art import load_atlas

    monkeypatch.setattr(bench_photo, "load_atlas", lambda source: load_atlas(source, cache=tmp_path))  # a fresh checkout
    assert bench_photo.main(["--count", "1", "--semi-real", "0", "--model", __file__]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bench_photo: no atlas for 'gnome-smooth'") and "fetch_art.py" in err
    assert err.endswith(" [atlas_missing]\n") and "Traceback" not in err


@pytest.mark.parametrize("clockwise", [False, True])
def test_a_photo_turned_a_quarter_keeps_its_boxes_on_its_tiles(clockwise):
    import cv2
    import numpy as np

    image = np.zeros((60, 100, 3), np.uint8)
    image[10:30, 70:90] = 255  # a tile near the top right corner
    meta = {"width": 100, "height": 60, "tiles": [{"code": "1m", "box": [70.0, 10.0, 90.0, 30.0]}], "groups": []}
    jpeg, turned = bench_photo.turned_a_quarter(cv2.imencode(".png", image)[1].tobytes(), meta, clockwise)
    photo = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert photo.shape == (100, 60) and (turned["width"], turned["height"]) == (60, 100)
    x1, y1, x2, y2 = (int(v) for v in turned["tiles"][0]["box"])
    assert photo[y1 + 2:y2 - 2, x1 + 2:x2 - 2].min() > 200 and photo.sum() < 1.2 * 255 * 400
    assert meta["tiles"][0]["box"] == [70.0, 10.0, 90.0, 30.0]  # the photo as rendered is left alone


def test_a_photo_shrunk_keeps_its_boxes_on_its_tiles():
    import cv2
    import numpy as np

    image = np.zeros((60, 100, 3), np.uint8)
    image[10:30, 70:90] = 255
    meta = {"width": 100, "height": 60, "tiles": [{"code": "1m", "box": [70.0, 10.0, 90.0, 30.0]}],
            "groups": [{"box": [60.0, 0.0, 100.0, 40.0]}]}
    jpeg, small = bench_photo.shrunk(cv2.imencode(".png", image)[1].tobytes(), meta, 0.5)
    photo = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert photo.shape == (30, 50) and (small["width"], small["height"]) == (50, 30)
    assert small["tiles"][0]["box"] == [35.0, 5.0, 45.0, 15.0] and small["groups"][0]["box"] == [30.0, 0.0, 50.0, 20.0]
    assert photo[6:14, 36:44].min() > 200 and photo[20:, :30].max() < 40
    assert meta["tiles"][0]["box"] == [70.0, 10.0, 90.0, 30.0]


def test_a_reflection_clips_a_hand_tile_to_white_at_its_core():
    import cv2
    import numpy as np

    image = np.full((120, 200, 3), 40, np.uint8)
    image[40:80, 20:50] = image[40:80, 140:170] = 180  # a hand tile, and a tile of no hand
    meta = {"tiles": [{"code": "1m", "role": "concealed", "box": [20.0, 40.0, 50.0, 80.0]},
                      {"code": "2m", "role": "wall", "box": [140.0, 40.0, 170.0, 80.0]}]}
    png = cv2.imencode(".png", image)[1].tobytes()
    jpeg = bench_photo.reflected(png, meta, 1.0, np.random.default_rng(3))
    assert jpeg == bench_photo.reflected(png, meta, 1.0, np.random.default_rng(3))  # as its seed draws it
    photo = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert photo[40:80, 20:50].min(axis=2).max() >= 250  # white at the core, on the hand's tile
    assert photo[:, 120:].max() < 200 and photo[:, 120:].min(axis=2).max() < 250  # the other tile as it was


def test_a_shadow_darkens_part_of_the_hand_and_leaves_the_rest_as_it_was():
    import cv2
    import numpy as np

    image = np.full((100, 400, 3), 200, np.uint8)
    meta = {"tiles": [{"code": "1m", "role": "concealed", "box": [20.0 + 40 * k, 30.0, 50.0 + 40 * k, 70.0]}
                      for k in range(9)]}
    png = cv2.imencode(".png", image)[1].tobytes()
    jpeg = bench_photo.shadowed(png, meta, 0.4, np.random.default_rng(5))
    assert jpeg == bench_photo.shadowed(png, meta, 0.4, np.random.default_rng(5))  # as its seed draws it
    grey = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)[30:70, 20:370]
    lights = [grey[:, 40 * k:40 * k + 30].mean() for k in range(9)]
    assert min(lights) < 0.5 * 200 and max(lights) > 0.95 * 200  # some tiles shaded, some as they were


def test_a_cut_out_photo_is_opaque_over_the_hand_and_transparent_beyond_it():
    import cv2
    import numpy as np

    image = np.full((120, 200, 3), 90, np.uint8)
    meta = {"tiles": [{"code": "1m", "role": "concealed", "box": [20.0, 40.0, 50.0, 80.0]},
                      {"code": "2m", "role": "wall", "box": [140.0, 40.0, 170.0, 80.0]}]}
    png = bench_photo.cut_out(cv2.imencode(".png", image)[1].tobytes(), meta)
    photo = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    assert photo.shape == (120, 200, 4) and (photo[:, :, :3] == 90).all()
    alpha = photo[:, :, 3]
    assert alpha[40:80, 20:50].min() == 255 and min(alpha[36, 35], alpha[60, 17]) > 128  # its face and body
    assert alpha[:30].max() == 0 and alpha[:, 60:].max() == 0  # the table, and a tile of no hand


def test_a_photo_on_a_canvas_keeps_its_boxes_on_its_tiles_where_it_was_placed():
    import cv2
    import numpy as np

    image = np.full((60, 100, 3), 30, np.uint8)
    image[20:40, 40:60] = 250  # a tile in the middle
    meta = {"width": 100, "height": 60, "tiles": [{"code": "1m", "box": [40.0, 20.0, 60.0, 40.0]}],
            "groups": [{"box": [35.0, 15.0, 65.0, 45.0]}]}
    png = cv2.imencode(".png", image)[1].tobytes()
    jpeg, placed = bench_photo.on_canvas(png, meta, 400, np.random.default_rng(9))
    assert jpeg == bench_photo.on_canvas(png, meta, 400, np.random.default_rng(9))[0]  # as its seed draws it
    photo = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert photo.shape == (300, 400) and (placed["width"], placed["height"]) == (400, 300)
    x1, y1, x2, y2 = (int(v) for v in placed["tiles"][0]["box"])
    assert (x2 - x1, y2 - y1) == (20, 20) and photo[y1 + 2:y2 - 2, x1 + 2:x2 - 2].min() > 200
    assert placed["groups"][0]["box"] == [x1 - 5, y1 - 5, x2 + 5, y2 + 5]
    assert meta["tiles"][0]["box"] == [40.0, 20.0, 60.0, 40.0]  # the photo as rendered is left alone
