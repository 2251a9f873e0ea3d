"""`mjlens train` helpers that run without training."""

import argparse
from types import SimpleNamespace

from vision import train_cli


def test_results_csv_read_without_polars(tmp_path):
    csv = tmp_path / "results.csv"
    csv.write_text("epoch,time,train/box_loss,metrics/mAP50(B)\n"
                   "1,33.65,1.0986,0\n"
                   "2,50.18,0.9981,0.631\n")
    rows = train_cli._read_results_csv_without_polars(SimpleNamespace(csv=csv))
    assert rows == {"epoch": [1.0, 2.0], "time": [33.65, 50.18],
                    "train/box_loss": [1.0986, 0.9981], "metrics/mAP50(B)": [0.0, 0.631]}


def test_results_csv_missing_or_empty_reads_as_nothing(tmp_path):
    assert train_cli._read_results_csv_without_polars(SimpleNamespace(csv=tmp_path / "none.csv")) == {}
    (tmp_path / "empty.csv").write_text("")
    assert train_cli._read_results_csv_without_polars(SimpleNamespace(csv=tmp_path / "empty.csv")) == {}


def test_gpu_run_arguments():
    parser = argparse.ArgumentParser()
    train_cli.add_arguments(parser)
    args = parser.parse_args(["--data", "d.yaml", "--device", "0", "--cache", "ram", "--no-val"])
    assert (args.device, args.cache, args.no_val) == ("0", "ram", True)
    defaults = parser.parse_args([])
    assert (defaults.device, defaults.cache, defaults.no_val) == ("cpu", None, False)


def _scene_set(root, split, sources):
    """A generator-shaped folder: images/<split>/*.jpg with meta/<split>/*.json naming the art."""
    import json

    (root / "images" / split).mkdir(parents=True, exist_ok=True)
    (root / "meta" / split).mkdir(parents=True, exist_ok=True)
    for n, source in enumerate(sources):
        (root / "images" / split / f"{n}.jpg").write_bytes(b"")
        (root / "meta" / split / f"{n}.json").write_text(json.dumps({"source": source}))


def test_derived_dataset_takes_several_train_folders_and_leaves_out_the_holdout(tmp_path):
    import yaml

    _scene_set(tmp_path / "mix", "train", ["fluffystuff", "gnome-smooth", "camerash"])
    _scene_set(tmp_path / "real", "train", ["camerash", "camerash"])
    _scene_set(tmp_path / "mix", "val", ["fluffystuff", "gnome-smooth", "fluffystuff"])
    data = tmp_path / "data.yaml"
    data.write_text(yaml.safe_dump({"path": str(tmp_path), "train": ["mix/images/train", "real/images/train"],
                                    "val": "mix/images/val", "names": {0: "1m"}}))
    derived = yaml.safe_load(train_cli._derived_dataset(data, tmp_path / "run", 1, "gnome-smooth").read_text())
    train = open(derived["train"]).read().split()
    assert [p.split(str(tmp_path))[1] for p in train] == [
        "/mix/images/train/0.jpg", "/mix/images/train/2.jpg", "/real/images/train/0.jpg", "/real/images/train/1.jpg"]
    assert open(derived["val"]).read().split() == [str(tmp_path / "mix" / "images" / "val" / "0.jpg")]
