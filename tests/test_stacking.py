"""The stack model (vision/stacking.py): its crop, its errors, the detector's cached probe, and
the shipped weights on rendered meld photos."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detection
from vision.stacking import DEFAULT_MODEL, INPUT_SIZE, StackModel, StackModelError, context_crop


def test_the_crop_holds_the_box_with_its_neighbours_edges_around_it():
    image = np.zeros((300, 400, 3), np.uint8)
    image[100:180, 150:210] = 255  # a 60 x 80 tile
    crop = context_crop(image, (150, 100, 210, 180))
    assert crop.shape == (INPUT_SIZE, INPUT_SIZE, 3) and crop.dtype == np.uint8
    middle = INPUT_SIZE // 2
    assert crop[middle, middle].min() == 255
    # 0.6 of the box's width beside it and 0.5 of its height above and below
    assert crop[middle, 12].max() == 0 and crop[middle, INPUT_SIZE - 12].max() == 0
    assert crop[10, middle].max() == 0 and crop[INPUT_SIZE - 10, middle].max() == 0


def test_a_box_at_the_photos_edge_repeats_the_border():
    image = np.full((100, 100, 3), 90, np.uint8)
    crop = context_crop(image, (0, 0, 40, 50))
    assert (crop == 90).all()


@pytest.mark.parametrize("content, code", [(None, "model_missing"), (b"not an onnx file", "model_corrupt")])
def test_missing_or_corrupt_weights_are_reported(tmp_path, content, code):
    weights = tmp_path / "stack.onnx"
    if content is not None:
        weights.write_bytes(content)
    with pytest.raises(StackModelError) as err:
        StackModel(weights).on_a_tile(np.zeros((50, 50, 3), np.uint8), [(0, 0, 10, 10)])
    assert err.value.code == code and str(weights) in err.value.message


needs_model = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="shipped stack model not built")


@needs_model
def test_no_boxes_ask_nothing_and_the_model_is_small():
    assert StackModel().on_a_tile(np.zeros((50, 50, 3), np.uint8), []).shape == (0,)
    assert DEFAULT_MODEL.stat().st_size <= 1024 * 1024


@needs_model
def test_the_detectors_probe_reads_each_box_once(monkeypatch):
    from vision.detector import Detector

    detector = Detector(hand_photo=True)
    calls = []
    real = detector._stack_model.on_a_tile
    monkeypatch.setattr(detector._stack_model, "on_a_tile", lambda rgb, boxes: calls.append(len(boxes)) or real(rgb, boxes))
    probe = detector._stack_probe(np.zeros((200, 300, 3), np.uint8), 600, 400)  # decoded at half size
    a, b = Detection((10, 10, 60, 80), "1m", 1.0), Detection((100, 10, 150, 80), "1m", 1.0)
    first = probe([a, b])
    assert probe([b, a, a]) == [first[1], first[0], first[0]]
    assert calls == [2] and all(0.0 <= p <= 1.0 for p in first)


# Of the middle tiles of three-tile melds in ten rendered fluffystuff meld photos (training art,
# seeds [31, k]), grouped from the shipped detector's boxes as the product reads them and from the
# labelled boxes, the stack model saw 22 of 22 stacked kongs' top tiles at vision.reader.ON_A_TILE
# and took 0 of 24 pungs' middle tiles for one (2026-12-05).
MIN_STACKS_SEEN = 0.75
MAX_PUNGS_TAKEN = 0.1


@needs_model
def test_the_shipped_model_tells_stacked_kongs_from_pungs_in_rendered_meld_photos(fluffystuff_atlas):
    from mjsynth.dataset import hand_photo_jpeg
    from train_stack import photo_crops

    from vision.detector import Detector
    from vision.reader import ON_A_TILE

    detector = Detector(hand_photo=True)
    crops, labels = [], []
    for k in range(10):
        for crop, label in photo_crops(*hand_photo_jpeg(fluffystuff_atlas, 31, k, 960, layout="melds"), detector):
            crops.append(crop)
            labels.append(label)
    seen = StackModel().read(np.stack(crops))
    labels = np.array(labels)
    stacks, pungs = seen[labels == 1], seen[labels == 0]
    print(f"stacks seen {(stacks >= ON_A_TILE).sum()}/{len(stacks)}, pungs taken {(pungs >= ON_A_TILE).sum()}/{len(pungs)}")
    assert len(stacks) >= 4 and len(pungs) >= 4
    assert (stacks >= ON_A_TILE).mean() >= MIN_STACKS_SEEN and (pungs >= ON_A_TILE).mean() <= MAX_PUNGS_TAKEN


@needs_model
def test_a_corrupt_stack_model_fails_the_photo_as_bad_input(tmp_path):
    from vision.detector import Detector
    from vision.photo_errors import PhotoError
    from vision.pipeline import read_photo

    bad = tmp_path / "stack.onnx"
    bad.write_bytes(b"not an onnx file")
    detector = Detector(hand_photo=True)
    detector._stack_model = StackModel(bad)
    photo = np.full((480, 640, 3), 200, np.uint8)
    with pytest.raises(PhotoError) as err:
        read_photo(photo, detect=detector.detect_set)
    assert err.value.kind == "bad_input" and err.value.code == "model_corrupt" and str(bad) in err.value.message
