"""Match videos assembled from one rendered hand scene, with a known hand and a known time.

The renderer's id buffer says which pixels belong to which tile, so one render gives every
phase of a deal at the same camera: the empty table (tiles inpainted away), the hand being laid
out (a growing subset of tiles), the finished hand held still, and the tiles pushed away (the
tile layer sliding out of the frame). Used by the footage tests and the throughput benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

FPS = 10
HAND_APPEARS_S = 4.0  # the finished hand is complete from this time on
# (phase, seconds, parameter): tiles shown (fraction of the hand) or tile-layer shift (of width)
TIMELINE = (
    ("empty", 2.0, 0.0),
    ("laying", 0.5, 0.25), ("laying", 0.5, 0.5), ("laying", 0.5, 0.75), ("laying", 0.5, 0.9),
    ("hand", 3.0, 1.0),
    ("pushed", 0.5, 0.1), ("pushed", 0.5, 0.25), ("pushed", 0.5, 0.45), ("pushed", 0.5, 0.7),
    ("empty", 1.0, 0.0),
)


@dataclass(frozen=True)
class MatchVideo:
    path: Path
    hand: dict  # the rendered hand (JSON hand schema, with its context)
    appears: float  # seconds: when the finished hand is first complete
    duration: float


MIN_HAND_WIDTH = 0.45  # of the frame: a hand filmed from further away is too small to read


def render_hand_scene(seed: int, width: int = 960, height: int = 720):
    """(RGB uint8 image, per-pixel tile index or -1, hand) of one rendered winning hand.

    Renders seed, seed+1, ... until the hand spans MIN_HAND_WIDTH of the frame, as a camera
    filming a table would be framed.
    """
    from datasets.mjsynth.art import load_atlas
    from datasets.mjsynth.layouts import hand_layout, random_tile_size
    from datasets.mjsynth.render import render

    atlas = load_atlas("kmahjongg-default")
    for attempt in range(seed, seed + 50):
        rng = np.random.default_rng(attempt)
        size = random_tile_size(rng)
        layout = hand_layout(rng, size)
        rendered = render(rng, layout, atlas, size, width, height)
        tiles = np.where(rendered.ids >= 0, rendered.ids >> 1, -1)  # ids: 2i body, 2i+1 face
        columns = np.flatnonzero((tiles >= 0).any(axis=0))
        if len(columns) and columns[-1] - columns[0] >= MIN_HAND_WIDTH * width:
            image = np.clip(rendered.image, 0, 255).astype(np.uint8)
            return image, tiles, layout.hand
    raise RuntimeError(f"no well-framed hand among seeds {seed}..{seed + 49}")


def phase_frames(image: np.ndarray, ids: np.ndarray) -> dict[tuple[str, float], np.ndarray]:
    """One RGB frame per timeline step."""
    import cv2

    tiles = ids >= 0
    mask = cv2.dilate(tiles.astype(np.uint8), np.ones((5, 5), np.uint8))
    empty = cv2.inpaint(image, mask, 5, cv2.INPAINT_TELEA)
    count = int(ids.max()) + 1
    frames = {}
    for phase, _, value in TIMELINE:
        frame = empty.copy()
        if phase == "laying":
            shown = np.isin(ids, np.arange(int(count * value)))
            frame[shown] = image[shown]
        elif phase == "hand":
            frame[tiles] = image[tiles]
        elif phase == "pushed":
            shift = int(image.shape[1] * value)
            moved = np.zeros_like(tiles)
            moved[:, shift:] = tiles[:, : tiles.shape[1] - shift]
            frame[moved] = np.roll(image, shift, axis=1)[moved]
        frames[(phase, value)] = frame
    return frames


def write_match_video(path: Path, seed: int, width: int = 960, height: int = 720) -> MatchVideo:
    import cv2

    image, ids, hand = render_hand_scene(seed, width, height)
    frames = phase_frames(image, ids)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (width, height))
    total = 0
    for phase, seconds, value in TIMELINE:
        bgr = cv2.cvtColor(frames[(phase, value)], cv2.COLOR_RGB2BGR)
        for _ in range(round(seconds * FPS)):
            writer.write(bgr)
            total += 1
    writer.release()
    return MatchVideo(Path(path), hand, HAND_APPEARS_S, total / FPS)


def same_tiles(a: dict, b: dict) -> bool:
    """Two JSON hands hold the same tiles in the same melds (context aside)."""
    from vision.footage import hand_key

    return hand_key(a) == hand_key(b)


def record_readings(video: MatchVideo, every: float = 0.5) -> dict:
    """The photo pipeline's answer for every sample of `video`, trimmed to what the tracker reads.

    Stored in tests/data so the fast footage test replays real pipeline output without the
    detector: `python -m tests.footage_scenes tests/data/footage_readings.json`.
    """
    from vision.footage import iter_frames
    from vision.pipeline import read_photo

    samples = []
    for time, index, frame in iter_frames(video.path, every, []):
        photo = read_photo(np.ascontiguousarray(frame[:, :, ::-1])).to_json()
        samples.append({"time": time, "index": index,
                        "photo": {k: photo[k] for k in ("hand", "score", "confidence")}})
    return {"hand": video.hand, "appears": video.appears, "every": every, "samples": samples}


if __name__ == "__main__":
    import json
    import sys
    import tempfile

    out = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        recorded = record_readings(write_match_video(Path(tmp) / "match.mp4", seed=1))
    out.write_text(json.dumps(recorded, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{out}: {len(recorded['samples'])} samples")
