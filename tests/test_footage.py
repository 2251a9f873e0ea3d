"""Footage timeline: the stability rules (no duplicates, no phantoms) and video decoding errors.

The tracker tests feed sequences of readings such as the photo pipeline produces for a table
being played on; the decoding tests write real little videos with OpenCV.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.footage import (Decoded, FootageSettings, HandTracker, Reading, VideoTimeline, events_from_readings,
                            frame_name, iter_frames, process_video, video_problem)
from vision.reader import hand_key

HAND_A = {"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "5p"],
          "melds": [], "winning_tile": "5p", "flowers": []}
HAND_B = {"concealed": ["2s", "3s", "4s", "6p", "7p", "8p", "9m", "9m", "5z", "5z"],
          "melds": [{"kind": "pung", "tiles": ["1z", "1z", "1z"], "concealed": False}],
          "winning_tile": "5z", "flowers": ["2f"]}
EVERY = 0.5


def readings(pattern: str) -> list[Reading]:
    """One reading per character, EVERY seconds apart: A/B a complete hand, '.' no winning hand."""
    hands = {"A": HAND_A, "B": HAND_B, ".": None}
    return [Reading(time=i * EVERY, hand=hands[c], score={"ok": True, "winning": True} if hands[c] else None,
                    confidence=0.9 if hands[c] else 0.0)
            for i, c in enumerate(pattern)]


def events(pattern: str, **settings):
    return events_from_readings("match.mp4", readings(pattern), FootageSettings(every=EVERY, **settings))


def test_hand_laid_out_held_and_pushed_away_gives_one_event_at_its_first_sample():
    # empty table, hand being laid out (partial readings), finished hand, tiles pushed away
    found = events("......" + "...." + "AAAAAAAA" + "......")
    assert [(e.time, e.hand) for e in found] == [(10 * EVERY, HAND_A)]
    assert found[0].samples == 3 and found[0].confidence == pytest.approx(0.9)


def test_flicker_inside_a_held_hand_gives_no_duplicate():
    assert len(events("AAA.AA.AAAA.A.AAA")) == 1


def test_hand_seen_for_fewer_samples_than_required_is_no_event():
    assert events("..AA..B.BB..") == []


def test_two_different_hands_give_two_events_in_order():
    found = events("AAAA......BBBB")
    assert [e.hand for e in found] == [HAND_A, HAND_B]
    assert [e.time for e in found] == [0.0, 10 * EVERY]


def test_same_hand_again_after_the_table_was_cleared_is_a_new_event():
    assert len(events("AAAA" + "." * 3 + "AAAA")) == 1  # briefly hidden: the same showing
    assert len(events("AAAA" + "." * 8 + "AAAA")) == 2  # gone long enough: a new deal


def test_stable_samples_setting_is_respected():
    assert events("AA.AA", stable_samples=2)[0].time == 0.0
    assert events("AA.AA", stable_samples=3) == []


def test_hand_key_ignores_tile_and_meld_order():
    shuffled = dict(HAND_B, concealed=list(reversed(HAND_B["concealed"])),
                    melds=[{"kind": "pung", "tiles": ["1z"] * 3, "concealed": False}])
    assert hand_key(shuffled) == hand_key(HAND_B)
    assert hand_key(HAND_A) != hand_key(dict(HAND_A, winning_tile="2p"))


def test_tracker_reports_the_run_that_became_stable():
    tracker = HandTracker(stable_samples=2, forget_samples=4)
    outputs = [tracker.feed(r) for r in readings("A.AAA")]
    assert [o is not None for o in outputs] == [False, False, False, True, False]
    assert [r.time for r in outputs[3]] == [1.0, 1.5]


def write_video(path, seconds: float, fps: int = 10, fourcc: str = "MJPG"):
    import cv2

    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), fps, (64, 48))
    for i in range(int(seconds * fps)):
        writer.write(np.full((48, 64, 3), (i * 3) % 256, np.uint8))
    writer.release()


@pytest.mark.parametrize("fourcc,suffix", [("MJPG", ".avi"), ("mp4v", ".mp4")])
def test_frames_are_sampled_at_the_requested_interval(tmp_path, fourcc, suffix):
    video = tmp_path / f"v{suffix}"
    write_video(video, seconds=3, fourcc=fourcc)
    errors: list[dict] = []
    samples = [(t, i) for t, i, _ in iter_frames(video, 0.5, errors)]
    assert errors == []
    assert samples == [(k * 0.5, k * 5) for k in range(6)]


def test_truncated_video_gives_partial_samples_and_a_clear_error(tmp_path):
    video = tmp_path / "cut.avi"
    write_video(video, seconds=6)
    data = video.read_bytes()
    video.write_bytes(data[: len(data) // 2])
    errors: list[dict] = []
    samples = list(iter_frames(video, 0.5, errors))
    assert 0 < len(samples) < 12
    assert [e["code"] for e in errors] == ["truncated_video"]
    assert "cut short" in errors[0]["message"]


@pytest.mark.parametrize("content", [b"", b"not a video at all" * 100])
def test_unreadable_file_is_an_error_not_a_hang(tmp_path, content):
    video = tmp_path / "bad.mp4"
    video.write_bytes(content)
    errors: list[dict] = []
    assert list(iter_frames(video, 0.5, errors)) == []
    assert errors[0]["code"] == "unreadable_video"


def test_cli_reports_a_corrupt_video_with_exit_code_and_partial_timeline(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 5000)
    out = tmp_path / "timeline.jsonl"
    proc = subprocess.run([sys.executable, "-m", "vision.cli", "footage", str(bad), "--out", str(out), "--no-progress"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "cannot be opened" in proc.stderr and "Traceback" not in proc.stderr
    # nothing was read from it, so there is no partial timeline to speak of
    assert proc.stderr.rstrip().endswith("damaged or cut short [unreadable_video]")
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records == [{"video": str(bad), "time": 0.0,
                        "error": {"code": "unreadable_video", "message": records[0]["error"]["message"]}}]


def test_cli_rejects_bad_arguments_clearly(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "vision.cli", "footage", str(tmp_path / "missing.mp4"),
                           "--every", "0"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"mjlens footage: {tmp_path / 'missing.mp4'}: no such file [file_missing]",
        "mjlens footage: --every must be a positive number of seconds, at least 0.001 [bad_argument]",
    ]


def test_cli_rejects_a_bad_wind_before_reading_any_video(tmp_path):
    video = tmp_path / "v.avi"
    write_video(video, seconds=1)
    proc = subprocess.run([sys.executable, "-m", "vision.cli", "footage", str(video), "--seat", "X"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "seat_wind" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("mjlens footage: ") and proc.stderr.endswith(" [bad_wind]\n")


def test_a_misreading_of_the_hand_still_on_the_table_is_no_second_event():
    found = events("AAAA" + "BBBB" + "AAAA" + "." * 6 + "BBB")
    assert [e.hand for e in found] == [HAND_A, HAND_B]
    assert found[1].time == 18 * EVERY


@pytest.mark.parametrize("address", ["127.0.0.1:1", "ray://127.0.0.1:1", "nonsense"])
def test_unreachable_ray_address_fails_fast_with_a_clear_message(address):
    from vision.footage import ClusterUnreachable, check_reachable

    with pytest.raises(ClusterUnreachable) as caught:
        check_reachable(address, timeout_s=2)
    assert address in str(caught.value)


def test_a_frame_whose_hand_does_not_read_is_not_read_again_at_the_other_size(monkeypatch):
    import vision.detector
    from tests.synthetic_boxes import RowSpec, row_detections
    from vision.detections import DetectionSet
    from vision.footage import read_frame

    def unwanted():
        raise AssertionError("a footage frame was read again at the other size")

    def detect_hand(image, close_up=True):
        assert not close_up, "a footage frame would be read again smaller where it shows no tile"
        return DetectionSet(tuple(short), other_size=unwanted)

    short = row_detections(RowSpec(["1m", "2m", "3m", "4m", "5m"]))  # no hand: 5 tiles
    monkeypatch.setattr(vision.detector, "detect_hand", detect_hand)
    reading = read_frame(np.zeros((700, 1000, 3), np.uint8), FootageSettings(), time=1.0)
    assert reading.hand is None


def footage(*arguments) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vision.cli", "footage", *map(str, arguments), "--no-progress"],
                          capture_output=True, text=True, timeout=120)


def test_every_bad_argument_is_reported_in_one_run(tmp_path):
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"")
    run = footage(video, "--stable", "0", "--seat", "Q", "--rules", "nope")
    assert run.returncode == 2
    codes = [line.rsplit("[", 1)[1] for line in run.stderr.splitlines()]
    assert codes == ["empty_file]", "unknown_rules]", "bad_argument]", "bad_wind]"], run.stderr
    run = footage(video, "--stable", "0", "--seat", "Q", "--rules", "sihai", "--option", "edition=Z")
    codes = [line.rsplit("[", 1)[1] for line in run.stderr.splitlines()]
    assert codes == ["empty_file]", "bad_argument]", "bad_wind]", "bad_option]"], run.stderr


@pytest.mark.parametrize("every", [0, -1, float("nan"), float("inf"), 1e-320])
def test_every_must_be_a_finite_sensible_number_of_seconds(every):
    with pytest.raises(ValueError, match="--every must be a positive number of seconds"):
        FootageSettings(every=every)


def test_stable_setting_error_names_the_option():
    with pytest.raises(ValueError, match="^--stable must be a whole number, at least 1$"):
        FootageSettings(stable_samples=0)


def test_cli_rejects_a_folder_and_an_endless_interval_before_reading(tmp_path):
    folder = tmp_path / "match.mp4"
    folder.mkdir()
    proc = footage(folder, "--every", "inf")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{folder}: is a folder, not a video file" in proc.stderr and "no such file" not in proc.stderr
    assert "--every must be a positive number of seconds" in proc.stderr


@pytest.mark.parametrize("option,target,message", [
    ("--out", "folder.jsonl", "--out {} is a folder"),
    ("--out", "afile/timeline.jsonl", "cannot write --out {}"),  # its folder would have to be a file
    ("--frames-dir", "afile", "--frames-dir {} is a file"),
])
def test_cli_refuses_outputs_it_cannot_write_before_reading_any_video(tmp_path, option, target, message):
    (tmp_path / "folder.jsonl").mkdir()
    (tmp_path / "afile").write_text("")
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 5000)  # read, it would give "cannot be opened" and exit 3
    proc = footage(bad, option, tmp_path / target)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("mjlens footage: " + message.format(tmp_path / target))
    assert proc.stderr.endswith(" [bad_output_path]\n")
    assert "cannot be opened" not in proc.stderr and "Traceback" not in proc.stderr


def test_cli_creates_missing_output_folders(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 5000)
    out = tmp_path / "new" / "day1" / "timeline.jsonl"
    proc = footage(bad, "--out", out, "--frames-dir", tmp_path / "frames" / "day1")
    assert proc.returncode == 3, proc.stderr
    assert json.loads(out.read_text())["error"]["code"] == "unreadable_video"
    assert (tmp_path / "frames" / "day1").is_dir()


def test_frames_of_videos_with_the_same_name_do_not_overwrite_each_other(tmp_path, monkeypatch):
    from dataclasses import replace

    from PIL import Image

    import vision.annotate

    monkeypatch.setattr(vision.annotate, "annotate", lambda rgb, result: Image.fromarray(rgb))  # no detector here
    videos = ["day1/table.mp4", "day2/table.mp4", "day1/table.avi"]
    frames = []
    for shade, video in enumerate(videos):
        rgb = np.full((48, 64, 3), 80 * shade, np.uint8)
        shown = [replace(r, payload=(rgb, None)) for r in readings("AAA")]
        [event] = events_from_readings(video, shown, FootageSettings(every=EVERY), tmp_path)
        frames.append(event.frame)
    assert len(set(frames)) == 3 and sorted(p.name for p in tmp_path.iterdir()) == sorted(Path(f).name for f in frames)
    for shade, frame in enumerate(frames):  # each still shows its own video's frame
        assert abs(np.asarray(Image.open(frame)).mean() - 80 * shade) < 2
    # readable and the same in every run
    assert frame_name("day1/table.mp4", 1.5) == frame_name("day1/table.mp4", 1.5)
    assert frame_name("day1/table.mp4", 1.5).startswith("table-")
    assert frame_name("day1/table.mp4", 1.5).endswith("_00001.500s.jpg")
    # the same name given from another folder is another video
    assert frame_name("table.mp4", 1.5) != frame_name(str(Path("..") / "table.mp4"), 1.5)


def test_duration_is_the_video_read_not_the_last_sample_time(tmp_path, monkeypatch):
    import vision.footage

    video = tmp_path / "v.avi"
    write_video(video, seconds=4)
    decoded = Decoded()
    assert [t for t, _, _ in iter_frames(video, 0.5, [], decoded)][-1] == 3.5
    assert (decoded.seconds, decoded.samples) == (pytest.approx(4.0), 8)
    monkeypatch.setattr(vision.footage, "read_frame", lambda frame, settings, time: Reading(time, None, None, 0.0))
    timeline = vision.footage.process_video(video, FootageSettings(every=0.5), progress=False)
    assert (timeline.samples, timeline.duration, timeline.error) == (8, pytest.approx(4.0), None)


def test_a_hand_read_below_the_minimum_confidence_is_no_hand():
    from vision.footage import reading_from_photo

    photo = {"hand": HAND_A, "score": {"ok": True, "winning": True, "total": 8}, "confidence": 0.3}
    assert reading_from_photo(1.0, photo, min_confidence=0.2).hand == HAND_A
    unsure = reading_from_photo(1.0, photo, min_confidence=0.5)
    assert unsure.hand is None and unsure.score is None and unsure.confidence == pytest.approx(0.3)


def test_an_events_confidence_is_the_lowest_of_its_run():
    run = [Reading(time=t, hand=HAND_A, score={"ok": True, "winning": True}, confidence=c)
           for t, c in ((0.0, 0.9), (0.5, 0.4), (1.0, 0.7))]
    (event,) = events_from_readings("match.mp4", run, FootageSettings(every=EVERY))
    assert event.confidence == pytest.approx(0.4) and event.time == 0.0


def test_the_csv_timeline_holds_each_events_score_and_each_videos_error(tmp_path):
    import csv

    from vision.footage import FootageEvent, VideoTimeline
    from vision.footage_cli import CSV_COLUMNS, _write

    score = {"total": 26, "minimum_met": True,
             "fans": [{"zh": "清龙", "en": "Pure Straight", "points": 16, "count": 1},
                      {"zh": "四归一", "en": "Tile Hog", "points": 2, "count": 2}]}
    event = FootageEvent(video="a.mp4", time=12.5, hand=HAND_A, score=score, confidence=0.61, samples=3, frame=None)
    timelines = [VideoTimeline("a.mp4", 30.0, 60, (event,)),
                 VideoTimeline("b.mp4", 4.0, 8, (), {"code": "decode_failed", "message": "stopped at frame 96"})]
    out = tmp_path / "timeline.csv"
    _write(timelines, out)
    with out.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert {k: rows[0][k] for k in ("video", "time", "total", "minimum_met", "fans", "confidence")} == {
        "video": "a.mp4", "time": "12.5", "total": "26", "minimum_met": "True",
        "fans": "清龙 Pure Straight 16; 四归一 Tile Hog 4", "confidence": "0.61"}
    assert json.loads(rows[0]["hand"]) == HAND_A
    assert (rows[1]["video"], rows[1]["time"], rows[1]["error"], rows[1]["total"]) == ("b.mp4", "4.0", "stopped at frame 96 [decode_failed]", "")


def test_rule_set_options_reach_every_frames_reading(monkeypatch):
    import vision.pipeline
    from vision.footage import read_frame

    seen = []

    def reading(image, **kwargs):
        seen.append((kwargs["rules"], kwargs["options"]))
        return vision.pipeline.PhotoResult()

    monkeypatch.setattr(vision.pipeline, "read_photo", reading)
    settings = FootageSettings(rules="sihai", options={"edition": "B", "level": "II"})
    read_frame(np.zeros((48, 64, 3), np.uint8), settings, time=0.0)
    assert seen == [("sihai", {"edition": "B", "level": "II"})]


def test_a_bad_rule_set_option_is_refused_with_the_other_arguments(tmp_path):
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"not a video")
    run = footage(video, "--rules", "sihai", "--option", "edition=Z", "--stable", "0")
    assert run.returncode == 2
    assert [line.rsplit("[", 1)[1] for line in run.stderr.splitlines()] == ["bad_argument]", "bad_option]"]


def test_a_video_given_twice_is_refused_not_counted_twice(tmp_path):
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"not a video, but a file")
    (tmp_path / "link.mp4").symlink_to(video)
    run = footage(video, tmp_path / "link.mp4", video)
    assert run.returncode == 2
    assert run.stderr.splitlines()[-2:] == [
        f"mjlens footage: {tmp_path / 'link.mp4'}: the same file as {video}, given before; each video is read once "
        "[bad_argument]",
        f"mjlens footage: {video}: the same file as {video}, given before; each video is read once [bad_argument]"]


def test_a_video_whose_name_is_not_utf8_is_refused_not_a_crash(tmp_path):
    # OpenCV crashes the whole process (a segfault) on such a name, losing every video's events.
    odd = tmp_path / os.fsdecode(b"caf\xe9.mp4")
    write_video(tmp_path / "cafe.mp4", seconds=1)  # OpenCV cannot write it under that name either
    (tmp_path / "cafe.mp4").rename(odd)
    proc = subprocess.run([sys.executable, "-m", "vision.cli", "footage", os.fsencode(odd), "--no-progress"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.endswith(" [bad_file_name]\n"), proc.stderr
    timeline = process_video(odd, FootageSettings(), progress=False)
    assert timeline.error["code"] == "bad_file_name" and not timeline.events


@pytest.mark.parametrize("make, code", [
    (lambda tmp: tmp / ("x" * 300 + ".mp4"), "cannot_read"),  # a name too long
    (lambda tmp: Path("/dev/null"), "not_a_file"),
    (lambda tmp: tmp, "not_a_file"),
    (lambda tmp: tmp / "none.mp4", "file_missing"),
])
def test_what_no_video_file_can_be_is_named_before_opencv_opens_it(tmp_path, make, code):
    assert video_problem(make(tmp_path))["code"] == code


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_cli_refuses_a_frames_folder_it_cannot_write_in_before_reading(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 5000)
    proc = footage(bad, "--frames-dir", "/proc/self")  # a folder, but no file can be made in it, even by root
    assert proc.returncode == 2 and "cannot write in --frames-dir /proc/self" in proc.stderr
    assert proc.stderr.endswith(" [bad_output_path]\n") and "Traceback" not in proc.stderr
    with pytest.raises(ValueError, match="cannot write in --frames-dir"):
        process_video(bad, FootageSettings(), frames_dir="/proc/self", progress=False)


def test_cli_refuses_output_names_too_long_with_a_code(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 5000)
    for option, name in (("--out", "x" * 300 + ".jsonl"), ("--frames-dir", "x" * 300)):
        proc = footage(bad, option, tmp_path / name)
        assert proc.returncode == 2 and proc.stderr.endswith(" [bad_output_path]\n"), proc.stderr


def test_cli_reports_a_missing_model_once_before_reading_any_video(tmp_path, monkeypatch, capsys):
    import vision.detector
    from vision.cli import main

    monkeypatch.setattr(vision.detector, "_HAND_DETECTOR",
                        vision.detector.Detector(tmp_path / "none.onnx", hand_photo=True))
    videos = [tmp_path / "a.mp4", tmp_path / "b.mp4"]
    for v in videos:
        v.write_bytes(b"\x00" * 5000)
    assert main(["footage", *map(str, videos), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.endswith(" [model_missing]\n")


def _timeline(video, samples=10):
    return VideoTimeline(video=str(video), duration=samples * 0.5, samples=samples, events=())


def _without_model(monkeypatch):
    """The up-front model check passes without loading the model (videos are faked here)."""
    import vision.detector

    monkeypatch.setattr(vision.detector, "hand_detector", lambda: type("Loaded", (), {"load": lambda self: None})())


def test_cli_interrupted_writes_the_videos_done_and_exits_130(tmp_path, monkeypatch, capsys):
    import vision.footage
    from vision.cli import main

    done = []

    def process(video, *args, **kwargs):
        if done:
            raise KeyboardInterrupt
        done.append(video)
        return replace(_timeline(video), error={"code": "truncated_video", "message": "cut short"})

    monkeypatch.setattr(vision.footage, "process_video", process)
    _without_model(monkeypatch)
    videos = [tmp_path / "a.mp4", tmp_path / "b.mp4"]
    for v in videos:
        v.write_bytes(b"\x00" * 5000)
    out = tmp_path / "timeline.jsonl"
    assert main(["footage", *map(str, videos), "--no-progress", "--out", str(out)]) == 130
    assert [json.loads(line)["video"] for line in out.read_text().splitlines()] == [str(videos[0])]
    assert capsys.readouterr().err.endswith("interrupted after 1 of 2 video(s); the timeline holds the videos "
                                            "read to the end [interrupted]\n")


def test_cli_says_when_a_video_was_too_short_to_confirm_any_hand(tmp_path, monkeypatch, capsys):
    import vision.footage
    from vision.cli import main

    monkeypatch.setattr(vision.footage, "process_video", lambda video, *a, **k: _timeline(video, samples=1))
    _without_model(monkeypatch)
    video = tmp_path / "still.mp4"
    video.write_bytes(b"\x00" * 5000)
    assert main(["footage", str(video), "--no-progress"]) == 0
    assert f"{video}: only 1 sample(s), fewer than the 3 a hand must be read on" in capsys.readouterr().err


@pytest.mark.parametrize("settings", [dict(stable_samples=2.5), dict(stable_samples=True), dict(every="0.5"),
                                      dict(forget_seconds=0), dict(forget_seconds="3")])
def test_settings_of_the_wrong_type_are_refused(settings):
    with pytest.raises(ValueError):
        FootageSettings(**settings)


@pytest.mark.parametrize("every", [0.1, 0.5])
def test_an_arm_passing_over_the_hand_is_no_second_event_however_often_it_samples(every):
    """The hand shown for 4 s, hidden for 1 s, shown again: one event at any sampling rate (at one
    sample every 0.1 s the hidden second was 10 samples, once more than the 6 that meant the tiles
    had been pushed away)."""
    per_second = round(1 / every)
    shown, hidden = HAND_A, None
    readings = [Reading(k * every, hand, {"total": 10} if hand else None, 0.9)
                for k, hand in enumerate([shown] * 4 * per_second + [hidden] * per_second + [shown] * 4 * per_second)]
    assert len(events_from_readings("v", readings, FootageSettings(every=every))) == 1


def test_a_bracketed_ipv6_address_is_dialled_without_its_brackets():
    from vision.footage import ClusterUnreachable, check_reachable

    with pytest.raises(ClusterUnreachable) as info:
        check_reachable("[::1]:1", timeout_s=1.0)  # refused at once
    assert str(info.value).startswith("no Ray cluster answers at [::1]:1 (")
    assert "not known" not in str(info.value)  # with its brackets, "[::1]" was looked up as a host name
