"""Footage end to end on videos assembled from rendered scenes (tests/footage_scenes.py).

The fast test replays the photo pipeline's recorded answers for such a video (so it needs no
detector); the slow ones run the detector on freshly written videos, locally and with Ray.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.footage_scenes import same_tiles, write_match_video
from vision.footage import FootageSettings, events_from_readings, process_video, reading_from_photo, run_local

RECORDED = Path(__file__).resolve().parent / "data" / "footage_readings.json"
EVERY = 0.5
READABLE_SEEDS = range(1, 7)


def test_recorded_pipeline_readings_give_exactly_one_event_at_the_right_time():
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    settings = FootageSettings(every=recorded["every"])
    readings = [reading_from_photo(s["time"], s["photo"], settings.min_confidence)
                for s in recorded["samples"]]
    events = events_from_readings("match.mp4", readings, settings)
    assert len(events) == 1
    assert same_tiles(events[0].hand, recorded["hand"])
    assert abs(events[0].time - recorded["appears"]) <= recorded["every"]
    assert events[0].score["ok"] and events[0].score["winning"]


def readable_match_video(tmp_path: Path):
    """The first of a few rendered match videos whose finished hand the shipped detector reads
    from a still frame; skip if it reads none. This test is about the video path around the
    detector (the footage logic itself is tested above and in test_footage.py; reading accuracy
    in the pipeline's own tests and benchmarks)."""
    import cv2
    import numpy as np

    from vision.pipeline import read_photo

    for seed in READABLE_SEEDS:
        video = write_match_video(tmp_path / f"match{seed}.mp4", seed=seed)
        capture = cv2.VideoCapture(str(video.path))
        capture.set(cv2.CAP_PROP_POS_MSEC, (video.appears + 1.0) * 1000)
        ok, frame = capture.read()
        capture.release()
        assert ok
        hand = read_photo(np.ascontiguousarray(frame[:, :, ::-1])).hand
        if hand is not None and same_tiles(hand, video.hand):
            return video
    pytest.skip(f"the shipped detector reads none of the rendered hands of seeds {READABLE_SEEDS}")


@pytest.mark.slow
def test_rendered_match_video_gives_one_event_with_an_annotated_frame(tmp_path):
    video = readable_match_video(tmp_path)
    timeline = process_video(video.path, FootageSettings(every=EVERY), frames_dir=tmp_path / "frames",
                             progress=False)
    assert timeline.error is None
    assert timeline.samples == int(video.duration / EVERY)
    assert len(timeline.events) == 1
    event = timeline.events[0]
    assert same_tiles(event.hand, video.hand)
    assert abs(event.time - video.appears) <= EVERY
    assert Path(event.frame).is_file() and Path(event.frame).parent == tmp_path / "frames"


@pytest.mark.slow
def test_ray_engine_gives_the_same_timelines_as_local(tmp_path):
    pytest.importorskip("ray", reason="the footage extra (ray) is not installed")
    from vision.footage import run_ray

    paths = [write_match_video(tmp_path / f"match{seed}.mp4", seed=seed).path for seed in (1, 2)]
    settings = FootageSettings(every=EVERY)
    local = run_local(paths, settings, progress=False)
    remote = run_ray(paths, settings, progress=False)
    assert [[e.to_json() for e in t.events] for t in remote] == [[e.to_json() for e in t.events] for t in local]
    assert [(t.video, t.samples, t.duration, t.error) for t in remote] == \
        [(t.video, t.samples, t.duration, t.error) for t in local]
