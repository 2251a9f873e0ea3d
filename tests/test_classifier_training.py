"""The crop classifiers' training augmentation (datasets/train_classifier.py)."""

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "datasets"))
import train_classifier  # noqa: E402

RED = np.zeros((64, train_classifier.STORE_SIZE, train_classifier.STORE_SIZE, 3), np.uint8)
RED[..., 0] = 220


def test_augment_gives_network_sized_crops_in_range_and_repeats_for_a_seed():
    first = train_classifier.augment(RED, torch.Generator().manual_seed(1))
    again = train_classifier.augment(RED, torch.Generator().manual_seed(1))
    size = train_classifier.INPUT_SIZE
    assert first.shape == (64, 3, size, size) and torch.equal(first, again)
    assert first.min() >= 0 and first.max() <= 255


def test_swapped_inks_move_red_to_other_channels_in_some_crops_only(monkeypatch):
    monkeypatch.setattr(train_classifier, "SWAP_INKS", 0.5)
    out = train_classifier.augment(RED, torch.Generator().manual_seed(2), turns=(0,))
    strongest = out.mean(dim=(2, 3)).argmax(dim=1)
    assert 0 < (strongest != 0).sum() < len(RED)


@pytest.mark.parametrize("shipped", ["mjlens-flower-classifier.onnx", "mjlens-upright-classifier.onnx"])
def test_a_shipped_model_loads_back_for_fine_tuning(shipped):
    # The float flower model comes back exactly; the int8 upright one up to its activations' rounding.
    from vision.classifier import TileClassifier

    path = Path(__file__).resolve().parent.parent / "models" / shipped
    crops = np.random.default_rng(0).integers(0, 256, (16, 3, 64, 64), dtype=np.uint8)
    model = train_classifier.weights_from_onnx(path).eval()
    with torch.no_grad():
        recovered = torch.softmax(model(torch.from_numpy(crops)), dim=1).numpy()
    shipped_out = TileClassifier(path, None, None).run_batch(crops)
    assert np.abs(recovered - shipped_out).max() < (1e-4 if "flower" in shipped else 0.1)
    assert (recovered.argmax(1) == shipped_out.argmax(1)).mean() >= 0.9


def test_training_without_its_rendered_scenes_names_the_missing_set(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(train_classifier, "CACHE", tmp_path)
    code = train_classifier.main(["train", "--kind", "upright", "--hand-sets", "synth-hand-x", "--epochs", "1",
                                  "--run-dir", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2
    assert f"no rendered train scenes in {tmp_path / 'synth-hand-x'}" in err and "datasets/synth.py" in err
    assert "Traceback" not in err
