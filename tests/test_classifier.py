"""Second-stage tile classifier: crops, top-k readings, combination, shipped weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.classifier import (CLASSES, DEFAULT_FLOWER_MODEL, DEFAULT_MODEL, DEFAULT_UPRIGHT_MODEL, FLOWER_CHECK,
                               INPUT_SIZE, NOT_A_TILE, READINGS, TOP_K, ClassifierError, TileClassifier, combine,
                               crop_box, preprocess, reread, top_k)
from vision.detections import MELD_EXPOSED, Detection

REPO = Path(__file__).resolve().parent.parent


def test_preprocess_gives_one_uint8_nchw_crop_per_box():
    rgb = np.random.default_rng(0).integers(0, 255, (120, 200, 3), dtype=np.uint8)
    batch = preprocess(rgb, [(10, 10, 40, 50), (150, 20, 200, 120), (0, 0, 200, 120)])
    assert batch.shape == (3, 3, INPUT_SIZE, INPUT_SIZE) and batch.dtype == np.uint8
    assert preprocess(rgb, []).shape == (0, 3, INPUT_SIZE, INPUT_SIZE)


def test_crop_keeps_the_tile_centred_and_pads_with_the_border():
    rgb = np.zeros((40, 40, 3), np.uint8)
    rgb[:, :20] = 255  # left half white: a box over the whole image stays half white
    crop = crop_box(rgb, (0, 0, 40, 40), 1.5, 30)
    assert crop[:, :14].min() == 255 and crop[:, 16:].max() == 0


@pytest.mark.parametrize("box", [(10, 10, 10, 30), (500, 500, 520, 530)])
def test_empty_or_outside_boxes_are_classifier_errors(box):
    with pytest.raises(ClassifierError) as err:
        crop_box(np.zeros((40, 40, 3), np.uint8), box, 1.1, INPUT_SIZE)
    assert err.value.code == "bad_box"


def test_grey_image_is_refused_clearly():
    with pytest.raises(ClassifierError) as err:
        preprocess(np.zeros((40, 40), np.uint8), [(0, 0, 10, 10)])
    assert err.value.code == "bad_image"


def test_top_k_is_sorted_and_probabilities_sum_to_at_most_one():
    probs = np.random.default_rng(1).dirichlet(np.ones(len(CLASSES)), size=5)
    for reading, row in zip(top_k(probs), probs):
        values = [p for _, p in reading.top]
        assert len(values) == TOP_K and values == sorted(values, reverse=True)
        assert sum(values) <= 1 + 1e-6 and reading.confidence == pytest.approx(row[:READINGS].max())


def test_improbable_alternatives_are_left_out():
    row = np.full(len(CLASSES), 1e-5)
    row[CLASSES.index("5p")], row[CLASSES.index("6p")], row[CLASSES.index("3p")] = 0.9, 0.05, 0.002
    assert [code for code, _ in top_k(row[None])[0].top] == ["5p", "6p", "3p"]
    flat = np.full(len(CLASSES), 1e-6)
    flat[CLASSES.index("1z")] = 1e-4  # even a hopeless box keeps its best reading
    assert [code for code, _ in top_k(flat[None])[0].top] == ["1z"]


def test_not_a_tile_is_never_a_reading():
    probs = np.full((1, len(CLASSES)), 0.01)
    probs[0, CLASSES.index(NOT_A_TILE)] = 0.6
    assert NOT_A_TILE not in [code for code, _ in top_k(probs)[0].top]


class FixedClassifier(TileClassifier):
    """The real reread path over given probabilities: one row per tile box, in order."""

    def __init__(self, rows):
        super().__init__()
        self.rows = np.array(rows, dtype=np.float32)

    def probabilities(self, rgb, boxes, upright=True):
        assert len(boxes) == len(self.rows)
        return self.rows


def one_hot(code: str, p: float = 0.9) -> list[float]:
    row = [(1 - p) / (len(CLASSES) - 1)] * len(CLASSES)
    row[CLASSES.index(code)] = p
    return row


def test_reread_sets_apart_boxes_that_hold_no_tile_and_keeps_group_boxes():
    detections = [Detection((0, 0, 10, 14), "1m", 0.3), Detection((10, 0, 20, 14), "2m", 0.2),
                  Detection((0, 0, 30, 14), MELD_EXPOSED, 0.8)]
    no_tile = one_hot(NOT_A_TILE, 0.6)
    no_tile[CLASSES.index("7s")] = 0.3
    classifier = FixedClassifier([one_hot("5p"), no_tile])
    out = reread(classifier, np.zeros((20, 40, 3), np.uint8), detections)
    assert [d.code for d in out.kept] == ["5p", MELD_EXPOSED]
    assert out.kept[0].not_a_tile == pytest.approx(0.1 / (len(CLASSES) - 1))
    # The rejected box keeps its place and reads as the tile it most resembles.
    assert [(d.box, d.code) for d in out.rejected] == [((10, 0, 20, 14), "7s")]
    assert out.rejected[0].not_a_tile == pytest.approx(0.6)


def test_product_combines_both_opinions():
    probs = np.full(len(CLASSES), 0.01)
    probs[CLASSES.index("3m")], probs[CLASSES.index("8m")] = 0.45, 0.4
    probs /= probs.sum()
    detector = [("8m", 0.6), ("3m", 0.2), ("5m", 0.1)]
    assert combine(detector, probs, "classifier").code == "3m"
    product = combine(detector, probs, "product")
    assert product.code == "8m" and sum(p for _, p in product.top) <= 1 + 1e-6
    with pytest.raises(ClassifierError):
        combine(detector, probs, "vote")


def test_product_leaves_which_flower_to_the_classifier_and_bounds_unlisted_codes():
    probs = np.full(len(CLASSES), 0.01)
    probs[CLASSES.index("5f")], probs[CLASSES.index("2f")], probs[CLASSES.index("9p")] = 0.5, 0.3, 0.15
    probs /= probs.sum()
    # The detector is sure of 2f, but which flower is the classifier's call.
    flower = combine([("2f", 0.9), ("5z", 0.1), ("1m", 0.05)], probs, "product")
    assert [code for code, _ in flower.top[:2]] == ["5f", "2f"]
    # 9p, unlisted, scores as the lowest listed code: the classifier's order among such codes stays.
    others = combine([("1m", 0.3), ("2m", 0.2), ("3m", 0.2)], probs, "product")
    ranks = [code for code, _ in others.top]
    assert ranks.index("5f") < ranks.index("2f") < ranks.index("9p")


class StubModel(TileClassifier):
    """One model that reads every crop as `upright`, and as `turned` in every second run (when
    run both ways round, the half-turned crops)."""

    def __init__(self, upright: str, turned: str):
        super().__init__(DEFAULT_MODEL, None, None)
        self.upright, self.turned, self.seen = upright, turned, []

    def run_batch(self, batch):
        self.seen.append(batch.copy())
        code = self.upright if len(self.seen) % 2 else self.turned
        return np.array([one_hot(code, 0.8)] * len(batch), np.float32)


def test_the_flower_model_splits_only_a_likely_flowers_flower_share():
    flower, suit = one_hot("3f", 0.5), one_hot("5p", 0.95)
    flower[CLASSES.index("4f")] = 0.3  # 3f or 4f: 0.8 of the row is some flower
    rows = np.array([flower, suit], np.float32)
    batch = np.random.default_rng(0).integers(0, 255, (2, 3, INPUT_SIZE, INPUT_SIZE), dtype=np.uint8)
    model = StubModel("4f", "4f")
    out = model.which_flower(batch, rows)
    flowers = [CLASSES.index(f"{k}f") for k in range(1, 9)]
    assert out[0, flowers].sum() == pytest.approx(rows[0, flowers].sum())  # as likely a flower as before
    assert CLASSES[out[0].argmax()] == "4f" and out[0, CLASSES.index("5p")] == rows[0, CLASSES.index("5p")]
    assert np.array_equal(out[1], rows[1])  # no flower: untouched, and not even cropped for the model
    assert len(model.seen) == 2 and len(model.seen[0]) == 1
    assert np.array_equal(model.seen[1][0], batch[0][:, ::-1, ::-1])  # also read turned half round
    assert rows[1, flowers].sum() < FLOWER_CHECK


def test_upright_and_half_turned_readings_are_averaged():
    row = one_hot("2f", 0.9)
    out = StubModel("2f", "7f").which_flower(np.zeros((1, 3, INPUT_SIZE, INPUT_SIZE), np.uint8),
                                                     np.array([row], np.float32))
    assert out[0, CLASSES.index("2f")] == pytest.approx(out[0, CLASSES.index("7f")], rel=1e-5)


def test_only_crops_read_unsurely_are_read_again_turned():
    class Sure(StubModel):
        def run_batch(self, batch):
            self.seen.append(batch.copy())
            return np.array([one_hot("3s", 0.95), one_hot("3s", 0.6)][:len(batch)], np.float32)

    model = Sure("3s", "3s")
    batch = np.random.default_rng(2).integers(0, 255, (2, 3, INPUT_SIZE, INPUT_SIZE), dtype=np.uint8)
    model.both_ways(batch)
    assert [len(b) for b in model.seen] == [2, 1]
    assert np.array_equal(model.seen[1][0], batch[1][:, ::-1, ::-1])


def test_tiles_lying_sideways_go_to_the_tile_model_the_rest_to_the_upright_model():
    tiles, upright = StubModel("1z", "1z"), StubModel("5p", "5p")
    tiles._upright = upright
    boxes = [(0, 0, 20, 28), (30, 0, 50, 28), (60, 0, 88, 20)]  # the third lies sideways
    probs = tiles.probabilities(np.zeros((40, 100, 3), np.uint8), boxes)
    assert [CLASSES[i] for i in probs.argmax(axis=1)] == ["5p", "5p", "1z"]
    assert [len(b) for b in tiles.seen] == [1] and [len(b) for b in upright.seen] == [2, 2]
    assert np.array_equal(upright.seen[1], upright.seen[0][:, :, ::-1, ::-1])  # both ways round


def test_missing_weights_are_reported(tmp_path):
    with pytest.raises(ClassifierError) as err:
        TileClassifier(tmp_path / "none.onnx").classify(np.zeros((20, 20, 3), np.uint8), [(0, 0, 5, 5)])
    assert err.value.code == "model_missing"


def test_corrupt_weights_are_reported(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not an onnx file")
    with pytest.raises(ClassifierError) as err:
        TileClassifier(bad).classify(np.zeros((20, 20, 3), np.uint8), [(0, 0, 5, 5)])
    assert err.value.code == "model_corrupt"


needs_model = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="shipped classifier not built")
# Shares of the tiles of five rendered fluffystuff hand scenes (training art, small tiles
# in 640x480) the shipped classifier reads right from their true boxes, top-1 and within
# its top 3; measured 55/69 and 65/69 (models/CLASSIFIER_CARD.md).
MIN_RENDERED_TOP1 = 0.7
MIN_RENDERED_TOP3 = 0.9


# The held-out quarter of the real camerash crops (../shared; datasets/mjsynth/art.is_held_out_crop),
# which no model trained on, read whole: 176 crops, top-1 0.932 / 0.938 (tile / upright model),
# top-3 0.955 both (2026-12-02).
MIN_HELD_OUT_TOP1 = 0.9
MIN_HELD_OUT_TOP3 = 0.93


@needs_model
@pytest.mark.parametrize("upright", [False, True], ids=["tile-model", "upright-model"])
def test_shipped_classifier_reads_real_crops_it_never_trained_on(upright):
    import sys

    from PIL import Image

    sys.path.insert(0, str(REPO / "datasets"))
    from mjsynth import art

    try:
        crops = [c for c in art.camerash_crops() if c.held_out]
    except art.ArtError:
        pytest.skip("needs the real tile crops in ../shared/data/tile-crops")
    classifier = TileClassifier()
    top1 = top3 = 0
    for crop in crops:
        rgb = np.array(Image.open(crop.path).convert("RGB"))
        probs = classifier.probabilities(rgb, [(0, 0, rgb.shape[1], rgb.shape[0])], upright)[0]
        best = [CLASSES[i] for i in np.argsort(-probs)[:3]]
        top1 += best[0] == crop.code
        top3 += crop.code in best
    assert len(crops) > 100
    assert top1 / len(crops) >= MIN_HELD_OUT_TOP1 and top3 / len(crops) >= MIN_HELD_OUT_TOP3, (top1, top3, len(crops))


@needs_model
def test_shipped_classifiers_are_small_enough():
    assert DEFAULT_MODEL.stat().st_size <= 2 * 1024 * 1024
    assert DEFAULT_FLOWER_MODEL.stat().st_size <= 2 * 1024 * 1024
    assert DEFAULT_UPRIGHT_MODEL.stat().st_size <= 2 * 1024 * 1024


@needs_model
def test_shipped_classifier_reads_rendered_fluffystuff_tiles(fluffystuff_atlas):
    from mjsynth.scene import make_sample

    atlas = fluffystuff_atlas
    classifier = TileClassifier()
    top1 = top3 = total = 0
    for k in range(1, 6):
        sample = make_sample(np.random.default_rng([21, k]), atlas, "hand", 640, 480)
        tiles = [label for label in sample.labels if label.name in CLASSES]
        readings = classifier.classify(sample.image, [label.box for label in tiles])
        top1 += sum(r.code == label.name for r, label in zip(readings, tiles))
        top3 += sum(label.name in [code for code, _ in r.top[:3]] for r, label in zip(readings, tiles))
        total += len(tiles)
    print(f"rendered fluffystuff tiles read right: top-1 {top1}/{total}, top-3 {top3}/{total}")
    assert total and top1 / total >= MIN_RENDERED_TOP1 and top3 / total >= MIN_RENDERED_TOP3
