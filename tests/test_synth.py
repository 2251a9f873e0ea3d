"""The synthetic scene generator (datasets/): determinism, exact label boxes, dataset
layout, valid ground-truth hands, held-out art. Uses only fluffystuff (CC0, in ../shared),
rasterised into a temporary cache, so no Debian download is needed."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

DATASETS = Path(__file__).resolve().parents[1] / "datasets"
sys.path.insert(0, str(DATASETS))

from mjsynth import art  # noqa: E402
from mjsynth.codes import CLASS_NAMES  # noqa: E402
from mjsynth.dataset import SynthConfig, generate, is_val, resolve_sources  # noqa: E402
from mjsynth.hands import random_winning_hand  # noqa: E402
from mjsynth.layouts import LAYOUTS, hand_layout, random_tile_size  # noqa: E402
from mjsynth.render import render  # noqa: E402
from mjsynth.scene import _boxes, make_sample, restrict_to_atlas  # noqa: E402

@pytest.mark.parametrize("fraction", [0.1, 0.25, 0.4, 0.7, 1.0])
def test_the_validation_split_is_the_fraction_asked_for_and_starts_at_image_0(fraction):
    """Every round(1 / fraction)-th image was validation: 0.7 put every image there, 0.4 half."""
    val = [i for i in range(1000) if is_val(i, fraction)]
    assert len(val) == round(1000 * fraction) and val[0] == 0
    if fraction in (0.1, 0.25):
        assert val == list(range(0, 1000, round(1 / fraction)))


def _can_rasterise() -> bool:
    try:
        import cairosvg  # noqa: F401  (needs the system cairo library too)
    except (ImportError, OSError):
        return False
    return True


pytestmark = pytest.mark.skipif(
    not art.FLUFFY_DIR.is_dir() or not _can_rasterise(),
    reason="needs ../shared fluffystuff art and cairosvg (with libcairo) to rasterise it")


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("art")
    art.build_atlas("fluffystuff", path)
    return path


@pytest.fixture(scope="module")
def atlas(cache):
    return art.load_atlas("fluffystuff", cache)


def _config(out: Path, cache: Path, **kw) -> SynthConfig:
    base = dict(count=6, seed=3, val_fraction=0.34, sources=("fluffystuff",), cache=cache)
    return SynthConfig(out, **{**base, **kw})


def _digest(folder: Path) -> dict[str, str]:
    """Hash of every file but synth.json (which records the output folder's name)."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "synth.json"}


def test_fluffystuff_atlas_maps_all_34_playing_tiles(atlas):
    assert not atlas.opaque
    assert sorted(atlas.codes) == sorted(c for c in CLASS_NAMES[:34])
    assert len(atlas.faces["5m"]) == 2  # the red five is a second 5m face
    assert all(f.shape == (art.FACE_H, art.FACE_W, 4) for v in atlas.faces.values() for f in v)


def test_same_seed_gives_identical_files_and_other_seed_differs(tmp_path, cache):
    a = generate(_config(tmp_path / "a", cache), progress=False)
    generate(_config(tmp_path / "b", cache), progress=False)
    generate(_config(tmp_path / "c", cache, seed=4), progress=False)
    assert a["images"] == 6
    da, db, dc = (_digest(tmp_path / x) for x in "abc")
    labels = [k for k in da if k.startswith("labels/")]
    assert len(labels) == 6 and da == db
    assert any(da[k] != dc.get(k.replace("3_", "4_")) for k in da if k.startswith("images/"))


@pytest.mark.slow
def test_worker_count_does_not_change_output(tmp_path, cache):
    generate(_config(tmp_path / "one", cache, workers=1), progress=False)
    generate(_config(tmp_path / "two", cache, workers=2), progress=False)
    assert _digest(tmp_path / "one") == _digest(tmp_path / "two")


def test_dataset_layout_and_yaml_names(tmp_path, cache):
    out = tmp_path / "ds"
    generate(_config(out, cache), progress=False)
    yaml = (out / "data.yaml").read_text()
    names = re.findall(r"^\s+(\d+): '([^']*)'$", yaml, re.M)
    assert [int(i) for i, _ in names] == list(range(len(CLASS_NAMES)))
    assert tuple(n for _, n in names) == CLASS_NAMES
    assert "train: images/train" in yaml and "val: images/val" in yaml
    for split in ("train", "val"):
        stems = {p.stem for p in (out / "images" / split).glob("*.jpg")}
        assert stems, split
        assert stems == {p.stem for p in (out / "labels" / split).glob("*.txt")}
        assert stems == {p.stem for p in (out / "meta" / split).glob("*.json")}


def test_label_boxes_hug_the_drawn_tiles(atlas):
    """On a flat background every non-background pixel belongs to a tile, and each
    tile's id-buffer box is exactly the box of the pixels drawn for it."""
    for k in range(8):
        rng = np.random.default_rng([11, k])
        size = random_tile_size(rng)
        layout = LAYOUTS["closeup"](rng, size)
        layout.tiles = layout.tiles[:1]
        restrict_to_atlas(rng, layout, atlas)
        r = render(rng, layout, atlas, size, 320, 240, plain_background=(255, 0, 255))
        # the id buffer marks pixels at least about half covered; on magenta that is a
        # channel difference of ~100 for any tile colour (anti-aliased edges are softer)
        drawn = np.abs(r.image - np.array([255, 0, 255], np.float32)).max(2) > 100
        ys, xs = np.nonzero(drawn)
        boxes, counts, _ = _boxes(r.ids, 1)
        assert counts[0] > 0
        x0, y0, x1, y1 = boxes[0]
        assert abs(xs.min() - x0) <= 1 and abs(ys.min() - y0) <= 1
        assert abs(xs.max() + 1 - x1) <= 1 and abs(ys.max() + 1 - y1) <= 1


def test_a_face_the_frame_cuts_in_half_gets_no_code(atlas, monkeypatch):
    """A tile's code is labelled only when most of its face shows; the frame's edge hides a
    face as surely as another tile does."""
    from mjsynth import render as render_module, scene

    def one_face_up_tile(rng, size):
        layout = LAYOUTS["closeup"](rng, size)
        layout.tiles = [t for t in layout.tiles if t.face_up][:1]
        return layout

    shift = {"x": 0.0}

    def camera_shifted_by(*args, **kwargs):
        cam = place_camera(*args, **kwargs)
        cam.cx += shift["x"]
        return cam

    place_camera = render_module.place_camera
    monkeypatch.setitem(scene.LAYOUTS, "one", one_face_up_tile)
    monkeypatch.setattr(render_module, "place_camera", camera_shifted_by)
    read = 0
    for k in range(8):
        shift["x"] = 0.0
        whole = make_sample(np.random.default_rng([8, k]), atlas, "one", 320, 240)
        tile = whole.meta["tiles"][0] if whole.meta["tiles"] else None
        if tile is None or tile["code"] != tile["true_code"]:  # too small, or seen from behind
            continue
        read += 1
        x0, _, x1, _ = tile["box"]
        shift["x"] = -(x0 + x1) / 2  # the tile's centre on the frame's left edge
        cut = make_sample(np.random.default_rng([8, k]), atlas, "one", 320, 240)
        assert all(t["code"] == "back" for t in cut.meta["tiles"])
    assert read >= 3


@pytest.mark.parametrize("kind", ["hand", "table", "closeup"])
def test_labels_lie_in_the_image_and_match_meta(atlas, kind):
    labelled = 0
    for k in range(3):
        s = make_sample(np.random.default_rng([5, k]), atlas, kind, 480, 360)
        h, w = s.image.shape[:2]
        assert (w, h) == (480, 360) and s.meta["layout"] == kind
        tile_labels = [lab for lab in s.labels if lab.name not in ("meld", "kong_concealed")]
        assert len(tile_labels) == len(s.meta["tiles"])
        labelled += len(tile_labels)
        for lab, t in zip(tile_labels, s.meta["tiles"]):
            x0, y0, x1, y1 = lab.box
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
            assert lab.name == t["code"] and t["box"] == [round(v, 1) for v in lab.box]
            assert t["code"] == "back" or t["code"] == t["true_code"]
            assert t["rotation"] in (0, 90, 180, 270)
        assert all(lab.name in CLASS_NAMES for lab in s.labels)
    assert labelled > 0  # a close-up may cut its one tile in half: then nothing is labelled


def test_hand_meta_is_the_drawn_winning_hand(atlas):
    complete = 0
    for k in range(6):
        s = make_sample(np.random.default_rng([9, k]), atlas, "hand", 640, 480)
        hand = s.meta["hand"]
        tiles = hand["concealed"] + [hand["winning_tile"]]
        tiles += [t for m in hand["melds"] for t in m["tiles"]]
        assert len(hand["concealed"]) + 1 + sum(min(len(m["tiles"]), 3) for m in hand["melds"]) == 14
        assert all(tiles.count(c) <= 4 for c in tiles)
        assert not hand["flowers"]  # fluffystuff has no flower art, so none are drawn
        drawn = sorted(t["true_code"] for t in s.meta["tiles"] if t["role"] != "other")
        assert set(drawn) <= set(tiles)
        # A stacked kong's fourth tile lies hidden under its top one, unlabelled.
        hidden = [next(t["true_code"] for t in s.meta["tiles"] if t["group"] == i)
                  for i, g in enumerate(s.meta["groups"]) if g["stacked"]]
        if s.meta["hand_complete"]:  # the photo shows exactly the hand's tiles
            assert sorted(drawn + hidden) == sorted(tiles + hand["flowers"])
            complete += 1
    assert complete > 0


def test_a_stacked_kong_labels_its_three_tiles_in_view_and_counts_the_fourth_as_hidden(atlas, monkeypatch):
    from mjsynth import layouts

    monkeypatch.setattr(layouts, "STACKED_EXPOSED_KONGS", 1.0)
    monkeypatch.setattr(layouts, "STACKED_CONCEALED_KONGS", 1.0)
    seen = 0
    for k in range(60):
        s = make_sample(np.random.default_rng([11, k]), atlas, "hand", 640, 480)
        stacked = [g for g in s.meta["groups"] if g["stacked"]]
        if not stacked or not s.meta["hand_complete"]:
            continue
        hand = s.meta["hand"]
        size = len(hand["concealed"]) + 1 + sum(len(m["tiles"]) for m in hand["melds"])
        labelled = [t for t in s.meta["tiles"] if t["role"] != "other"]
        assert len(labelled) == size - len(stacked)  # the fourth tile lies under the middle one
        assert all(t["role"] != "under" for t in labelled)
        for g in stacked:
            shown = sorted((t for t in labelled if t["group"] == g["id"]), key=lambda t: t["box"][0])
            assert len(shown) == 3 and len({t["true_code"] for t in shown}) == 1
            faces = ["B" if t["code"] == "back" else "U" for t in shown]
            assert faces == (["B", "U", "B"] if g["concealed"] else ["U"] * 3)
        seen += 1
    assert seen >= 2
    size = random_tile_size(np.random.default_rng(0))
    drawn = (layouts.hand_layout(np.random.default_rng([12, k]), size) for k in range(60))
    layout = next(lay for lay in drawn if any(t.role == "under" for t in lay.tiles))
    for under in (t for t in layout.tiles if t.role == "under"):
        top = next(t for t in layout.tiles if t.group == under.group and t.pose.centre[2] > size.d)
        assert top.pose.centre[2] == pytest.approx(under.pose.centre[2] + size.d)
        assert np.linalg.norm(top.pose.centre[:2] - under.pose.centre[:2]) < size.w / 4


def _reach_along_x(pose, size) -> float:
    """Half the x extent of a tile's box in `pose`."""
    return abs(pose.u[0]) * size.w / 2 + abs(pose.v[0]) * size.h / 2 + abs(pose.n[0]) * size.d / 2


def test_hand_rows_are_laid_untidily_with_every_tile_clear_of_the_next():
    """Nobody lines tiles up exactly: a concealed row's tiles lie a little off its line and turned,
    each still clear of its neighbour, and the winning tile still set apart."""
    size = random_tile_size(np.random.default_rng(0))
    turns, offsets = [], []
    for k in range(40):
        layout = hand_layout(np.random.default_rng([14, k]), size)
        row = [t for t in layout.tiles if t.role == "concealed"]
        for a, b in zip(row, row[1:]):
            assert a.pose.centre[0] + _reach_along_x(a.pose, size) <= b.pose.centre[0] - _reach_along_x(b.pose, size)
        win = next(t for t in layout.tiles if t.role == "winning")
        set_apart = win.pose.centre[0] - _reach_along_x(win.pose, size) - row[-1].pose.centre[0] - _reach_along_x(row[-1].pose, size)
        assert set_apart >= 0.2 * size.w
        turns += [np.arctan2(t.pose.u[1], t.pose.u[0]) for t in row]
        offsets.append(np.ptp([t.pose.centre[1] for t in row]) / size.d)
    assert 0.03 < np.max(np.abs(turns)) < 0.25
    assert np.median(offsets) > 0.01


def _scoring_rules() -> str | None:
    try:
        from scoring import available_rulesets
    except ImportError:
        return None
    # Both accept every hand shape we generate (Shanghai old-style has no seven pairs).
    return next((r for r in ("mcr", "sihai") if r in available_rulesets()), None)


def test_generated_hands_are_complete_winning_hands():
    rules = _scoring_rules()
    if rules is None:
        pytest.skip("scoring/ has no rule set yet to check the hands against")
    from scoring import score_json

    for k in range(300):
        hand = random_winning_hand(np.random.default_rng([13, k])).to_json()
        result = score_json(hand, rules=rules)
        assert result["ok"], (hand, result)
        assert result.get("reason") != "not_winning", (hand, result)


def test_meld_photos_hold_winning_hands_of_exposed_pungs_and_kongs_many_laid_stacked():
    from mjsynth.hands import meld_heavy_hand

    from scoring import score_json

    for k in range(100):
        hand = meld_heavy_hand(np.random.default_rng([14, k])).to_json()
        result = score_json(hand, rules="mcr")
        assert result["ok"] and result["winning"], (hand, result)
        assert sum(not m["concealed"] for m in hand["melds"]) >= 2
        assert all(m["kind"] in ("pung", "kong") for m in hand["melds"])
    size = random_tile_size(np.random.default_rng(0))
    groups = [g for k in range(40) for g in LAYOUTS["melds"](np.random.default_rng([15, k]), size).groups]
    kongs = [g for g in groups if g.kind == "kong" and not g.concealed]
    assert len(kongs) >= 20 and 0.4 <= sum(g.stacked for g in kongs) / len(kongs) <= 0.8


def test_holdout_source_is_never_drawn(tmp_path, cache):
    sources = resolve_sources(SynthConfig(tmp_path, 1, cache=cache, holdout_source="fluffystuff"))
    assert "fluffystuff" not in sources
    out = tmp_path / "ds"
    generate(_config(out, cache, sources=("fluffystuff", "camerash"), holdout_source="camerash",
                     count=4), progress=False)
    metas = [json.loads(p.read_text()) for p in out.glob("meta/*/*.json")]
    assert len(metas) == 4 and {m["source"] for m in metas} == {"fluffystuff"}
    with pytest.raises(art.ArtError) as e:
        resolve_sources(SynthConfig(tmp_path, 1, sources=("fluffystuff",), cache=cache,
                                    holdout_source="fluffystuff"))
    assert e.value.code == "no_sources"


def test_jade_carvings_are_inked_dark_and_keep_their_shape():
    # A white carving with a grey groove, on transparency, as the jade set draws its symbols.
    symbol = np.zeros((8, 8, 4), np.uint8)
    symbol[2:6, 2:6] = (255, 255, 255, 255)
    symbol[3, 3, :3] = 128
    out = art.inked(symbol, (25, 85, 55))
    assert (out[..., 3] == symbol[..., 3]).all()
    assert out[2, 2, :3].max() < 80  # the carving is now dark ink
    assert out[3, 3, :3].sum() > out[2, 2, :3].sum()  # the groove still shows


def test_camerash_split_is_a_stable_quarter():
    if not art.CAMERASH_DIR.is_dir():
        pytest.skip("camerash crops not in ../shared")
    crops = art.camerash_crops()
    held = [c for c in crops if c.held_out]
    assert 0.18 < len(held) / len(crops) < 0.32
    assert {c.code for c in crops} == set(CLASS_NAMES[:42])
    assert art.is_held_out_crop("1.jpg") == art.is_held_out_crop("1.jpg")


def test_camerash_labels_map_to_codes():
    assert art.camerash_code("dots-5") == "5p"
    assert art.camerash_code("honors-east") == "1z"
    assert art.camerash_code("honors-white") == "5z"
    assert art.camerash_code("bonus-plum") == "5f"
    with pytest.raises(art.ArtError):
        art.camerash_code("jokers-1")


@pytest.mark.parametrize("argv, code", [
    (["--layouts", "hand,poker"], "bad_layout"),
    (["--layouts", ",,,"], "bad_layout"),
    (["--sources", "fluffystuff,fluffystuff"], "bad_argument"),  # it drew fluffystuff twice as often
    (["--count", "0"], "bad_argument"),
    (["--val-fraction", "1.5"], "bad_argument"),
    (["--sources", "nosuchart"], "unknown_source"),
    (["--holdout-source", "nosuchart"], "unknown_source"),
    (["--seed", "-1"], "bad_argument"),  # numpy's generator takes no negative seed
    (["--seed", "1" + "0" * 300], "bad_argument"),  # image names too long for the file system
    (["--imgsz", "60000"], "bad_argument"),  # tens of GB for one image
    (["--imgsz", "4097"], "bad_argument"),
    (["--workers", "100000000000"], "bad_argument"),  # it hung, each worker loading every atlas
    (["--val-fraction", "1e-320"], "bad_argument"),  # 1 / fraction overflowed after the folders were made
])
def test_cli_rejects_bad_arguments_with_a_code(tmp_path, cache, capsys, argv, code):
    from mjsynth.cli import main

    base = ["--out", str(tmp_path / "ds"), "--count", "2", "--cache", str(cache)]
    assert main(base + argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mjlens synth: ") and err.endswith(f" [{code}]\n")
    assert not (tmp_path / "ds").exists()  # nothing half-written


def test_cli_names_what_is_wrong_with_the_layouts(tmp_path, cache, capsys):
    from mjsynth.cli import main

    for layouts, said in (("hand,poker", "unknown layouts poker"), (",,,", "no layout given")):
        assert main(["--out", str(tmp_path / "ds"), "--count", "2", "--cache", str(cache), "--layouts", layouts]) == 2
        assert capsys.readouterr().err == (f"mjlens synth: {said}; choose from hand, table, closeup [bad_layout]\n")


def test_cli_refuses_an_empty_out_which_would_be_the_working_folder(tmp_path, cache, capsys, monkeypatch):
    from mjsynth.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["--out", "", "--count", "1", "--cache", str(cache)]) == 2
    assert capsys.readouterr().err == "mjlens synth: --out is empty; name the dataset folder to write [bad_argument]\n"
    assert not any(tmp_path.iterdir())


def test_cli_warns_when_all_available_is_not_all_the_sources(tmp_path, capsys):
    from mjsynth.cli import main

    assert main(["--out", str(tmp_path / "ds"), "--count", "1", "--cache", str(tmp_path / "no-art-here"),
                 "--holdout-source", "drawn"]) == 0
    err = capsys.readouterr().err
    assert "mjlens synth: warning: art source(s) kmahjongg-default," in err and "drawn" not in err.split("warning")[1]


def test_cli_names_only_the_arguments_out_of_range(tmp_path, cache, capsys):
    from mjsynth.cli import main

    assert main(["--out", str(tmp_path / "ds"), "--count", "0", "--seed", "-1", "--cache", str(cache)]) == 2
    assert capsys.readouterr().err == ("mjlens synth: need 1 <= --count <= 10,000,000, 0 <= --seed <= "
                                       "9223372036854775807 [bad_argument]\n")


def test_debian_source_without_atlas_says_how_to_get_it(tmp_path):
    with pytest.raises(art.ArtError) as e:
        art.load_atlas("gnome-smooth", tmp_path)
    assert e.value.code == "atlas_missing" and "fetch_art.py" in str(e.value)


def test_resume_keeps_finished_images_and_completes_the_rest(tmp_path, cache):
    full = tmp_path / "full"
    generate(_config(full, cache), progress=False)
    part = tmp_path / "part"
    generate(_config(part, cache, count=3), progress=False)
    marker = next(part.glob("images/*/*.jpg"))
    marker.write_bytes(b"kept")  # a finished image must not be rendered again
    generate(_config(part, cache, resume=True), progress=False)
    got, want = _digest(part), _digest(full)
    key = marker.relative_to(part).as_posix()
    assert got.pop(key) != want.pop(key)
    assert got == want


@pytest.mark.parametrize("option, where", [
    ("--out", "afile"),
    ("--out", "afile/sub"),
    pytest.param("--out", "/proc/mjlens-synth", marks=pytest.mark.skipif(
        not Path("/proc/self").is_dir(), reason="needs Linux /proc, where nothing can be made")),
    ("--cache", "afile"),
])
def test_cli_refuses_an_out_or_cache_that_cannot_be_a_folder(tmp_path, cache, capsys, option, where):
    from mjsynth.cli import main

    (tmp_path / "afile").write_text("kept")
    folders = {"--out": tmp_path / "ds", "--cache": cache, option: tmp_path / where}
    argv = ["--out", str(folders["--out"]), "--cache", str(folders["--cache"]), "--count", "1",
            "--sources", "fluffystuff", "--imgsz", "64"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mjlens synth: {option} {tmp_path / where} ") and err.count("\n") == 1
    assert err.endswith(" [bad_folder]\n")
    assert (tmp_path / "afile").read_text() == "kept" and not (tmp_path / "ds").exists()


def _synth_argv(out: Path, cache: Path, *extra: str) -> list[str]:
    return ["--out", str(out), "--cache", str(cache), "--sources", "fluffystuff", "--seed", "7",
            "--imgsz", "96", *extra]


def test_resume_refuses_a_folder_rendered_with_other_arguments(tmp_path, cache, capsys):
    from mjsynth.cli import main

    out = tmp_path / "ds"
    assert main(_synth_argv(out, cache, "--count", "2")) == 0
    before = _digest(out)
    other = ["--count", "3", "--resume", "--val-fraction", "0.5", "--layouts", "hand", "--imgsz", "64"]
    capsys.readouterr()
    assert main(_synth_argv(out, cache, *other)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mjlens synth: --out {out} was rendered with other arguments: ")
    assert err.endswith(" [resume_mismatch]\n")
    assert "--imgsz 96 (now 64)" in err and "--val-fraction 0.1 (now 0.5)" in err
    assert "--layouts hand,table,closeup (now hand)" in err and "--seed" not in err
    assert _digest(out) == before and json.loads((out / "synth.json").read_text())["config"]["imgsz"] == 96
    assert main(_synth_argv(out, cache, "--count", "3", "--imgsz", "64")) == 2  # nor without --resume
    assert capsys.readouterr().err.endswith(" [out_not_empty]\n") and _digest(out) == before
    # the same arguments and a larger count extend the dataset, keeping what is there
    assert main(_synth_argv(out, cache, "--count", "3", "--resume")) == 0
    after = _digest(out)
    assert {k: after[k] for k in before} == before and len(after) == len(before) + 3
    assert json.loads((out / "synth.json").read_text())["images"] == 3


def test_resume_checks_an_interrupted_run_against_its_arguments(tmp_path, cache, capsys, monkeypatch):
    from mjsynth import dataset
    from mjsynth.cli import main

    render_one = dataset.render_one

    def interrupted_at_the_second_image(config, sources, index):
        if index == 1:
            raise RuntimeError("interrupted")
        return render_one(config, sources, index)

    out = tmp_path / "ds"
    monkeypatch.setattr(dataset, "render_one", interrupted_at_the_second_image)
    with pytest.raises(RuntimeError):
        main(_synth_argv(out, cache, "--count", "2"))
    monkeypatch.undo()
    capsys.readouterr()
    assert main(_synth_argv(out, cache, "--count", "2", "--resume", "--seed", "8")) == 2
    err = capsys.readouterr().err
    assert err.endswith(" [resume_mismatch]\n") and "--seed 7 (now 8)" in err
    (out / "synth.json").unlink()  # e.g. rendered before synth.json was written first
    assert main(_synth_argv(out, cache, "--count", "2", "--resume")) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mjlens synth: --out {out} has images but no readable synth.json")
    assert err.endswith(" [resume_mismatch]\n")
    assert main(_synth_argv(out, cache, "--count", "2")) == 2  # nor is it rendered over without --resume
    err = capsys.readouterr().err
    assert err.startswith(f"mjlens synth: --out {out} already holds a dataset")
    assert err.endswith(" [out_not_empty]\n")


@pytest.mark.parametrize("argv, message", [
    (["--count", "0"], "argument --count: '0' is not a whole number >= 1"),
    (["--source", "nope"], "argument --source: invalid choice: 'nope'"),
    (["--imgsz", "10"], "argument --imgsz: '10' is not a whole number from 64 to 4096"),
])
def test_bench_synth_refuses_bad_arguments(capsys, argv, message):
    sys.path.insert(0, str(DATASETS.parent / "benchmarks"))
    from bench_synth import main

    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_bench_synth_says_when_an_atlas_is_missing(capsys, monkeypatch):
    sys.path.insert(0, str(DATASETS.parent / "benchmarks"))
    from bench_synth import main

    def missing(source):
        raise art.ArtError("atlas_missing", f"no atlas for {source!r}")

    monkeypatch.setattr(art, "load_atlas", missing)
    assert main(["--source", "gnome-smooth", "--count", "1"]) == 2
    err = capsys.readouterr().err  # the prog is argparse's, the script's name as it was run
    assert err.endswith(": no atlas for 'gnome-smooth' [atlas_missing]\n") and err.count("\n") == 1


@pytest.mark.parametrize("option", ["--hands", "--rounds", "--repeats", "--distinct-repeated"])
def test_bench_scoring_refuses_zero_counts(capsys, option):
    sys.path.insert(0, str(DATASETS.parent / "benchmarks"))
    from bench_scoring import main

    with pytest.raises(SystemExit) as e:
        main([option, "0"])
    assert e.value.code == 2 and f"argument {option}: '0' is not a whole number >= 1" in capsys.readouterr().err


def test_hand_photos_are_mostly_landscape(atlas):
    """A hand is a long row, so its photos are taken mostly landscape, as synth's hand layouts."""
    from mjsynth.dataset import hand_photo_jpeg

    sizes = [hand_photo_jpeg(atlas, 5, k, 320)[1] for k in range(20)]
    assert sum(m["width"] < m["height"] for m in sizes) <= 6


def test_a_photo_taken_askew_keeps_its_tiles_with_their_own_boxes(atlas):
    """The camera rolled 30 degrees: the same tiles are labelled, each box centred where the
    level photo's box centre turns to, and tight round the tilted tile: within the box round the
    level box's turned corners (what turning a labelled photo afterwards gives), and smaller."""
    from mjsynth.dataset import hand_photo_jpeg

    from vision.detector import box_through, turned

    def area(box):
        return (box[2] - box[0]) * (box[3] - box[1])

    shrink = []
    for k in range(4):
        _, level = hand_photo_jpeg(atlas, 8, k, 480)
        _, askew = hand_photo_jpeg(atlas, 8, k, 480, roll=30.0)
        _, matrix = turned(np.zeros((level["height"], level["width"], 3), np.uint8), 30.0)
        assert (askew["width"], askew["height"]) > (level["width"], level["height"])
        assert [t["code"] for t in askew["tiles"]] == [t["code"] for t in level["tiles"]]
        for a, t in zip(askew["tiles"], level["tiles"]):
            around = box_through(matrix, t["box"])
            centre = np.mean(np.reshape(around, (2, 2)), axis=0)
            side = min(around[2] - around[0], around[3] - around[1])
            assert np.hypot(*(np.mean(np.reshape(a["box"], (2, 2)), axis=0) - centre)) < 0.2 * side
            assert around[0] - 2 <= a["box"][0] and a["box"][2] <= around[2] + 2
            assert around[1] - 2 <= a["box"][1] and a["box"][3] <= around[3] + 2
            shrink.append(area(a["box"]) / area(around))
    assert np.mean(shrink) < 0.85


def test_an_out_folder_holding_another_dataset_is_refused_not_mixed_into(tmp_path, cache, capsys):
    from mjsynth.cli import main

    other = tmp_path / "other"
    (other / "images" / "train").mkdir(parents=True)
    (other / "images" / "train" / "mine.jpg").write_bytes(b"mine")
    (other / "data.yaml").write_text("train: images/train\n")
    assert main(["--out", str(other), "--count", "2", "--cache", str(cache)]) == 2
    assert capsys.readouterr().err.endswith(" [out_not_empty]\n")
    assert sorted(p.name for p in other.rglob("*")) == ["data.yaml", "images", "mine.jpg", "train"]
    assert (other / "data.yaml").read_text() == "train: images/train\n"


def test_an_interrupted_run_says_how_to_continue(tmp_path, cache, capsys, monkeypatch):
    import mjsynth.cli

    def interrupted(config, progress=True):
        raise KeyboardInterrupt

    monkeypatch.setattr(mjsynth.cli, "generate", interrupted)
    assert mjsynth.cli.main(["--out", str(tmp_path / "ds"), "--count", "2", "--cache", str(cache)]) == 130
    assert capsys.readouterr().err.endswith("the same command with --resume continues [interrupted]\n")


def test_resume_with_a_smaller_count_is_refused(tmp_path, cache):
    out = tmp_path / "ds"
    generate(_config(out, cache, count=4), progress=False)
    with pytest.raises(art.ArtError) as e:
        generate(_config(out, cache, count=2, resume=True), progress=False)
    assert e.value.code == "resume_mismatch" and "already holds 4 images" in str(e.value)
