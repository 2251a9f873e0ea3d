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
