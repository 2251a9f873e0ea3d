"""Footage throughput: seconds of video processed per second of wall time at 2 samples/s.

Videos are assembled from rendered hand scenes (tests/footage_scenes.py: empty table, hand laid
out, hand held, tiles pushed away; 10 s each, 1080p at 30 fps by default). The peer is real time (ratio 1.0, the
issue's target); decoding alone is measured in the same run to show where the time goes.

    python benchmarks/bench_footage.py [--videos 3] [--size 1920x1080] [--fps 30] [--engine local|ray]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.footage_scenes import same_tiles, write_match_video  # noqa: E402
from vision.argtypes import whole  # noqa: E402

EVERY = 0.5  # 2 samples per second


def frame_size(text: str) -> tuple[int, int]:
    """`WxH` as (width, height), each from 64 to 7680 pixels."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() and 64 <= int(p) <= 7680 for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r} is not WxH with each side from 64 to 7680, e.g. 1920x1080")
    return int(parts[0]), int(parts[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--videos", type=whole(1), default=3)
    parser.add_argument("--size", type=frame_size, default=(1920, 1080), help="frame size WxH (default 1920x1080)")
    parser.add_argument("--fps", type=whole(1, 240), default=30, help="frames per second of the videos (default 30)")
    parser.add_argument("--engine", choices=("local", "ray"), default="local")
    args = parser.parse_args()
    width, height = args.size

    from vision.footage import FootageSettings, iter_frames, run_local, run_ray
    from vision.pipeline import read_photo

    settings = FootageSettings(every=EVERY)
    with tempfile.TemporaryDirectory() as tmp:
        videos = [write_match_video(Path(tmp) / f"match{i}.mp4", seed=100 + i, width=width, height=height,
                                    fps=args.fps)
                  for i in range(args.videos)]
        paths = [v.path for v in videos]
        read_photo(next(iter_frames(paths[0], EVERY, []))[2][:, :, ::-1].copy())  # load the detector first

        start = time.perf_counter()
        samples = sum(1 for p in paths for _ in iter_frames(p, EVERY, []))
        decode_s = time.perf_counter() - start

        start = time.perf_counter()
        if args.engine == "ray":
            timelines = run_ray(paths, settings, progress=False)
        else:
            timelines = run_local(paths, settings, progress=False)
        wall = time.perf_counter() - start

    video_s = sum(v.duration for v in videos)
    right = sum(1 for v, t in zip(videos, timelines)
                if len(t.events) == 1 and same_tiles(t.events[0].hand, v.hand)
                and abs(t.events[0].time - v.appears) <= EVERY)
    print(f"{len(videos)} videos, {video_s:.0f} s of {width}x{height} {args.fps} fps video at {1 / EVERY:g} samples/s "
          f"({samples} samples), engine {args.engine}")
    print(f"wall time {wall:.1f} s: decoding alone {decode_s:.1f} s, reading {wall - decode_s:.1f} s "
          f"({(wall - decode_s) / samples * 1000:.0f} ms per sample)")
    print(f"throughput: {video_s / wall:.2f} s of video per wall second = {video_s / wall:.2f}x real time "
          f"(target >= 1.0)")
    print(f"videos with exactly one event, right hand, time within {EVERY} s: {right}/{len(videos)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
