"""`mjlens train` helpers that run without training."""

import argparse
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

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


def _data_files(tmp_path):
    (tmp_path / "broken.yaml").write_text("train: [images/train\n")
    (tmp_path / "binary.yaml").write_bytes(b"\x80\x81\xfe")
    (tmp_path / "notes.txt").write_text("just some words")
    (tmp_path / "no_val.yaml").write_text("train: images/train\nnames: {0: '1m'}\n")
    return {"missing": (tmp_path / "nope.yaml", "is not a file"),
            "folder": (tmp_path, "is not a file"),
            "broken": (tmp_path / "broken.yaml", "is not a readable YAML file"),
            "binary": (tmp_path / "binary.yaml", "is not a readable YAML file"),
            "not_a_mapping": (tmp_path / "notes.txt", "is not a YOLO dataset YAML: it has no train or val key"),
            "no_val": (tmp_path / "no_val.yaml", "is not a YOLO dataset YAML: it has no val key")}


@pytest.mark.parametrize("case", ["missing", "folder", "broken", "binary", "not_a_mapping", "no_val"])
def test_a_data_file_ultralytics_cannot_read_is_refused_before_training(tmp_path, capsys, monkeypatch, case):
    from vision.cli import main

    def no_training(args, data):
        raise AssertionError("training started")

    monkeypatch.setattr(train_cli, "train", no_training)
    data, why = _data_files(tmp_path)[case]
    assert main(["train", "--data", str(data), "--project", str(tmp_path / "runs"), "--no-ship"]) == 2
    assert capsys.readouterr().err == f"mjlens train: --data {data} {why} [bad_data]\n"
    assert not (tmp_path / "runs").exists()


def test_errors_are_snake_case_codes_in_the_common_format(tmp_path, capsys, monkeypatch):
    from vision.cli import main

    assert main(["train"]) == 2
    assert capsys.readouterr().err == "mjlens train: --data is required unless --resume or --ship-from [no_data]\n"
    missing = tmp_path / "none.pt"
    assert main(["train", "--ship-from", str(missing)]) == 2
    assert capsys.readouterr().err == f"mjlens train: --ship-from {missing} is not a file [no_checkpoint]\n"

    assert main(["train", "--resume", "--project", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (f"mjlens train: nothing to resume: {tmp_path / 'tiles' / 'weights' / 'last.pt'} "
                                       "does not exist [no_checkpoint]\n")

    def failing(args, data):
        raise FileNotFoundError("no train images left")

    monkeypatch.setattr(train_cli, "train", failing)
    assert main(["train", "--data", str(_yolo_yaml(tmp_path / "data.yaml")), "--project", str(tmp_path),
                 "--no-ship"]) == 1
    assert capsys.readouterr().err == "mjlens train: no train images left [train_failed]\n"


def test_checkpoints_and_outputs_are_checked_before_ultralytics_loads(tmp_path, capsys, monkeypatch):
    from vision.cli import main

    monkeypatch.setattr(train_cli, "train", lambda args, data: pytest.fail("training started"))
    notes = tmp_path / "notes.json"
    notes.write_text("{}")
    data = _yolo_yaml(tmp_path / "data.yaml")
    for argv, message in [
        (["--ship-from", str(tmp_path)], f"--ship-from {tmp_path} is not a file [no_checkpoint]"),
        (["--ship-from", str(notes)], f"--ship-from {notes} is not an ultralytics .pt checkpoint [no_checkpoint]"),
        (["--data", str(data), "--init", str(tmp_path / "none.pt")], f"--init {tmp_path / 'none.pt'} is not a file [bad_data]"),
        (["--data", str(data), "--out", str(notes / "x.onnx")], f"cannot write --out {notes / 'x.onnx'}: "),
    ]:
        assert main(["train", *argv]) == 2, argv
        assert capsys.readouterr().err.startswith(f"mjlens train: {message}"), argv


def test_a_file_that_is_no_checkpoint_is_a_coded_error(tmp_path, capsys):
    pytest.importorskip("ultralytics")
    from vision.cli import main

    garbage = tmp_path / "weights.pt"
    garbage.write_bytes(b"{not a pickle")
    assert main(["train", "--ship-from", str(garbage), "--out", str(tmp_path / "out.onnx")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mjlens train: --ship-from {garbage} is not an ultralytics checkpoint (")
    assert err.endswith("[no_checkpoint]\n")
    assert not (tmp_path / "out.onnx").exists()


@pytest.mark.parametrize("option, value, message", [
    ("--epochs", "0", "'0' is not a whole number >= 1"),
    ("--epochs", "-1", "'-1' is not a whole number >= 1"),
    ("--epochs", "ten", "'ten' is not a whole number >= 1"),
    ("--hours", "-1", "'-1' is not a finite number above 0"),
    ("--hours", "nan", "'nan' is not a finite number above 0"),
    ("--imgsz", "0", "'0' is not a whole number >= 32"),
    ("--fraction", "0", "'0' is not a number above 0 and at most 1"),
    ("--fraction", "1.5", "'1.5' is not a number above 0 and at most 1"),
    ("--fraction", "nan", "'nan' is not a number above 0 and at most 1"),
    ("--lr0", "0", "'0' is not a finite number above 0"),
    ("--workers", "-1", "'-1' is not a whole number >= 0"),
    ("--val-images", "-1", "'-1' is not a whole number >= 0"),
    ("--batch", "0", "'0' is not -1 (AutoBatch) or a whole number >= 1"),
    ("--batch", "-2", "'-2' is not a whole number >= -1"),
])
def test_bad_numbers_are_refused_by_the_option_parser(capsys, option, value, message):
    from vision.cli import main

    with pytest.raises(SystemExit) as e:
        main(["train", "--data", "d.yaml", f"{option}={value}"])
    assert e.value.code == 2
    assert f"argument {option}: {message}" in capsys.readouterr().err


def test_good_numbers_pass_the_option_parser():
    parser = argparse.ArgumentParser()
    train_cli.add_arguments(parser)
    args = parser.parse_args(["--epochs", "3", "--hours", "0.5", "--imgsz", "320", "--fraction", "1",
                              "--lr0", "0.0015", "--workers", "0", "--val-images", "0"])
    assert (args.epochs, args.hours, args.imgsz, args.fraction, args.lr0, args.workers, args.val_images) == (
        3, 0.5, 320, 1.0, 0.0015, 0, 0)


def _yolo_yaml(path, names=None):
    import yaml

    from vision.detections import CLASS_NAMES

    path.write_text(yaml.safe_dump({"train": "images/train", "val": "images/val",
                                    "names": dict(enumerate(names or CLASS_NAMES))}))
    return path


def test_a_dataset_of_other_classes_is_refused_before_training(tmp_path, capsys, monkeypatch):
    from vision.cli import main

    monkeypatch.setattr(train_cli, "train", lambda args, data: pytest.fail("training started"))
    data = _yolo_yaml(tmp_path / "data.yaml", ["one-man", "2m"])
    assert main(["train", "--data", str(data), "--no-ship"]) == 2
    assert capsys.readouterr().err.endswith("its names are not vision.detections.CLASS_NAMES "
                                            "(1m ... 8f, back, meld, kong_concealed) [bad_data]\n")


def test_a_relative_dataset_path_lists_images_ultralytics_can_find(tmp_path, monkeypatch):
    import yaml

    _scene_set(tmp_path / "set", "train", ["fluffystuff", "gnome-smooth"])
    _scene_set(tmp_path / "set", "val", ["fluffystuff"])
    (tmp_path / "set" / "data.yaml").write_text(yaml.safe_dump({"train": "images/train", "val": "images/val"}))
    monkeypatch.chdir(tmp_path)  # the YAML as `mjlens synth` writes it: no path key, given relative
    derived = yaml.safe_load(train_cli._derived_dataset(Path("set/data.yaml"), tmp_path / "run", 0,
                                                        "gnome-smooth").read_text())
    assert open(derived["train"]).read().split() == [str(tmp_path / "set" / "images" / "train" / "0.jpg")]


def test_a_relative_project_is_made_absolute_before_ultralytics_sees_it(tmp_path, monkeypatch):
    from vision.cli import main

    seen = []
    monkeypatch.setattr(train_cli, "train", lambda args, data: seen.append(args.project) or tmp_path / "none.pt")
    monkeypatch.chdir(tmp_path)
    main(["train", "--data", str(_yolo_yaml(tmp_path / "data.yaml")), "--project", "runs", "--no-ship"])
    assert seen == [tmp_path / "runs"]


def test_resuming_a_finished_run_is_refused(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("ultralytics")
    from vision.cli import main

    weights = tmp_path / "runs" / "done" / "weights"
    weights.mkdir(parents=True)
    torch.save({"epoch": -1, "optimizer": None}, weights / "last.pt")  # as ultralytics leaves a finished run
    assert main(["train", "--resume", "--project", str(tmp_path / "runs"), "--name", "done", "--no-ship"]) == 2
    assert "finished its training; to train it further, start a new run with --init" in capsys.readouterr().err


@pytest.mark.parametrize("out, message", [
    ("model.pt", "must end in .onnx"),
    ("weights/last.onnx", "would write its stripped .pt over --ship-from"),
])
def test_shipping_never_writes_over_a_resumable_checkpoint_or_to_a_non_onnx_name(tmp_path, capsys, out, message):
    torch = pytest.importorskip("torch")
    from vision.cli import main

    (tmp_path / "weights").mkdir()
    checkpoint = tmp_path / "weights" / "last.pt"
    torch.save({"epoch": 3, "optimizer": {"state": {}}}, checkpoint)  # a run's, as it trains
    before = checkpoint.read_bytes()
    assert main(["train", "--ship-from", str(checkpoint), "--out", str(tmp_path / out)]) == 2
    assert message in capsys.readouterr().err and checkpoint.read_bytes() == before


def test_a_shipped_checkpoint_is_exported_again_beside_itself(tmp_path, monkeypatch):
    """The model card's re-export, --ship-from models/mjlens-tiles.pt --out models/mjlens-tiles.onnx:
    the checkpoint is stripped already, so writing it again loses nothing."""
    torch = pytest.importorskip("torch")
    from vision.cli import main

    checkpoint = tmp_path / "mjlens-tiles.pt"
    torch.save({"epoch": -1, "optimizer": None}, checkpoint)
    shipped = []
    monkeypatch.setattr(train_cli, "ship", lambda ckpt, out, imgsz: shipped.append((ckpt, out)) or (
        out.write_bytes(b"onnx") and out, ckpt))
    assert main(["train", "--ship-from", str(checkpoint), "--out", str(tmp_path / "mjlens-tiles.ONNX")]) == 0
    assert shipped == [(checkpoint, tmp_path / "mjlens-tiles.ONNX")]


def test_an_init_file_that_is_no_checkpoint_is_a_coded_error(tmp_path, capsys):
    pytest.importorskip("ultralytics")
    from vision.cli import main

    garbage = tmp_path / "weights.pt"
    garbage.write_bytes(b"{not a pickle")
    assert main(["train", "--data", str(_yolo_yaml(tmp_path / "data.yaml")), "--init", str(garbage),
                 "--project", str(tmp_path / "runs"), "--no-ship"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mjlens train: --init {garbage} is not an ultralytics checkpoint (")
    assert err.endswith("[bad_data]\n") and not (tmp_path / "runs").exists()


def test_an_interrupted_training_says_how_to_resume(tmp_path, capsys, monkeypatch):
    from vision.cli import main

    def interrupted(args, data):
        raise KeyboardInterrupt

    monkeypatch.setattr(train_cli, "train", interrupted)
    assert main(["train", "--data", str(_yolo_yaml(tmp_path / "data.yaml")), "--project", str(tmp_path),
                 "--name", "r", "--no-ship"]) == 130
    assert capsys.readouterr().err.endswith(f"continue the run with --resume --project {tmp_path} --name r [interrupted]\n")


@pytest.mark.parametrize("device", ["0", "0,1", "cuda:0", "-1"])
def test_a_cuda_device_on_a_machine_without_one_is_refused_before_ultralytics_loads(tmp_path, capsys, monkeypatch,
                                                                                  device):
    torch = pytest.importorskip("torch")
    from vision.cli import main

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(train_cli, "train", lambda args, data: pytest.fail("training started"))
    assert main(["train", "--data", str(_yolo_yaml(tmp_path / "data.yaml")), "--device", device, "--no-ship"]) == 2
    assert capsys.readouterr().err == (f"mjlens train: --device {device}: this machine has no CUDA device; "
                                       "train with --device cpu [bad_device]\n")


@pytest.mark.parametrize("device", ["gpu", "0,x", "cuda:"])
def test_a_name_that_is_no_device_is_refused_before_ultralytics_loads(tmp_path, capsys, monkeypatch, device):
    from vision.cli import main

    monkeypatch.setattr(train_cli, "train", lambda args, data: pytest.fail("training started"))
    assert main(["train", "--data", str(_yolo_yaml(tmp_path / "data.yaml")), "--device", device, "--no-ship"]) == 2
    assert capsys.readouterr().err == (f"mjlens train: --device {device}: not a device; name cpu, mps or CUDA "
                                       "devices by index (0, or 0,1) [bad_device]\n")


def test_a_dataset_whose_train_split_holds_no_images_is_refused_before_training(tmp_path, capsys, monkeypatch):
    """As `synth --val-fraction 1` renders it: every image in val."""
    from vision.cli import main

    (tmp_path / "images" / "train").mkdir(parents=True)
    (tmp_path / "images" / "val").mkdir()
    Image.new("RGB", (8, 8)).save(tmp_path / "images" / "val" / "a.jpg")
    monkeypatch.setattr(train_cli, "train", lambda args, data: pytest.fail("training started"))
    assert main(["train", "--data", str(_yolo_yaml(tmp_path / "data.yaml")), "--no-ship"]) == 2
    assert capsys.readouterr().err == (f"mjlens train: --data {tmp_path / 'data.yaml'}: its train split holds no "
                                       f"images ({tmp_path / 'images' / 'train'}) [bad_data]\n")


def test_ultralytics_messages_are_told_in_one_line_without_terminal_colours(tmp_path, capsys, monkeypatch):
    from vision.cli import main

    def failing(args, data):
        raise ValueError("\x1b[34m\x1b[1mtrain: \x1b[0mError loading data from x\nSee https://docs.ultralytics.com")

    monkeypatch.setattr(train_cli, "train", failing)
    assert main(["train", "--data", str(_yolo_yaml(tmp_path / "data.yaml")), "--no-ship"]) == 1
    assert capsys.readouterr().err == "mjlens train: train: Error loading data from x [train_failed]\n"


@pytest.mark.parametrize("device", ["mps", "CPU", ""])
def test_the_other_devices_ultralytics_knows_reach_it(tmp_path, monkeypatch, device):
    seen = []
    monkeypatch.setattr(train_cli, "train", lambda args, data: seen.append(args.device) or tmp_path / "none.pt")
    from vision.cli import main

    main(["train", "--data", str(_yolo_yaml(tmp_path / "data.yaml")), "--device", device, "--no-ship"])
    assert seen == [device]


def test_a_holdout_source_the_dataset_lacks_is_warned_of_and_training_goes_on(tmp_path, capsys, monkeypatch):
    """A misspelt source, or one the dataset was rendered without (synth --holdout-source): a
    warning, as a set rendered without it is a right place to hold it out of."""
    import yaml

    from vision.cli import main

    trained = []
    monkeypatch.setattr(train_cli, "train", lambda args, data: trained.append(data) or tmp_path / "none.pt")
    _scene_set(tmp_path / "mix", "train", ["fluffystuff", "camerash"])
    _scene_set(tmp_path / "mix", "val", ["fluffystuff"])
    data = _yolo_yaml(tmp_path / "data.yaml")
    spec = yaml.safe_load(data.read_text())
    data.write_text(yaml.safe_dump({**spec, "path": str(tmp_path), "train": "mix/images/train", "val": "mix/images/val"}))
    assert main(["train", "--data", str(data), "--holdout-source", "gnome-smoth", "--project", str(tmp_path / "runs"),
                 "--no-ship"]) == 0
    assert ("mjlens train: warning: --holdout-source gnome-smoth: no image of the dataset was rendered from it; "
            "none held out") in capsys.readouterr().err
    assert trained == [tmp_path / "runs" / "tiles" / "data.yaml"]
