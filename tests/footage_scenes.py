"""Match videos assembled from one rendered hand scene, with a known hand and a known time.

The renderer's id buffer says which pixels belong to which tile, so one render gives every
phase of a deal at the same camera: the empty table (tiles inpainted away), the hand being laid
out (a growing subset of tiles), the finished hand held still, and the tiles pushed away (the
tile layer sliding out of the frame). The same buffer gives each frame's true tile boxes, which
`record_readings` can feed to the pipeline in place of the detector. Used by the footage tests
and the throughput benchmark.
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
MIN_HAND_WIDTH = 0.45  # of the frame: a hand filmed from further away is too small to read


@dataclass(frozen=True)
class Scene:
    image: np.ndarray  # RGB uint8
    ids: np.ndarray  # the renderer's buffer: -1 table, 2i body of tile i, 2i+1 face of tile i
    codes: tuple[str, ...]  # true code of tile i
    groups: tuple[tuple[int, ...], ...]  # tile indices of each meld / concealed kong
    concealed_groups: tuple[bool, ...]
    reveal: tuple[int, ...]  # tile indices in the order a player lays them down
    hand: dict  # JSON hand schema, with its context


@dataclass(frozen=True)
class MatchVideo:
    path: Path
    hand: dict  # the rendered hand (JSON hand schema, with its context)
    appears: float  # seconds: when the finished hand is first complete
    duration: float
    seed: int  # the seed that rendered it (after skipping badly framed ones)


def render_hand_scene(seed: int, width: int = 960, height: int = 720) -> tuple[Scene, int]:
    """A rendered winning hand and the seed used.

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
        columns = np.flatnonzero((rendered.ids >= 0).any(axis=0))
        if len(columns) and columns[-1] - columns[0] >= MIN_HAND_WIDTH * width:
            groups = tuple(tuple(i for i, t in enumerate(layout.tiles) if t.group == g.id) for g in layout.groups)
            # Flowers and melds lie open during play; the concealed tiles go down at the win,
            # the winning tile last.
            rank = {"flower": 0, "meld": 1, "kong": 1, "concealed": 2, "winning": 3}
            reveal = tuple(sorted(range(len(layout.tiles)), key=lambda i: rank.get(layout.tiles[i].role, 2)))
            scene = Scene(np.clip(rendered.image, 0, 255).astype(np.uint8), rendered.ids.astype(np.int32),
                          tuple(t.true_code for t in layout.tiles), groups,
                          tuple(g.concealed for g in layout.groups), reveal, layout.hand)
            return scene, attempt
    raise RuntimeError(f"no well-framed hand among seeds {seed}..{seed + 49}")


def phase_frames(scene: Scene) -> dict[tuple[str, float], tuple[np.ndarray, np.ndarray]]:
    """(RGB frame, id buffer of that frame) per timeline step."""
    import cv2

    image, ids = scene.image, scene.ids
    tiles = ids >= 0
    mask = cv2.dilate(tiles.astype(np.uint8), np.ones((5, 5), np.uint8))
    empty = cv2.inpaint(image, mask, 5, cv2.INPAINT_TELEA)
    frames = {}
    for phase, _, value in TIMELINE:
        frame, frame_ids = empty.copy(), np.full_like(ids, -1)
        if phase == "laying":
            shown = tiles & np.isin(ids >> 1, scene.reveal[: int(len(scene.codes) * value)])
        elif phase == "hand":
            shown = tiles
        elif phase == "pushed":
            shift = int(image.shape[1] * value)
            shown = np.zeros_like(tiles)
            shown[:, shift:] = tiles[:, : tiles.shape[1] - shift]
            image_src, ids_src = np.roll(image, shift, axis=1), np.roll(ids, shift, axis=1)
            frame[shown], frame_ids[shown] = image_src[shown], ids_src[shown]
            frames[(phase, value)] = (frame, frame_ids)
            continue
        else:
            shown = np.zeros_like(tiles)
        frame[shown], frame_ids[shown] = image[shown], ids[shown]
        frames[(phase, value)] = (frame, frame_ids)
    return frames


def true_detections(scene: Scene, frame_ids: np.ndarray) -> list:
    """What a perfect detector reports for a frame: each visible tile's box and code (`back` when
    its face is hidden), and a grouping box around each meld entirely in view."""
    from vision.detections import BACK, KONG_CONCEALED, MELD_EXPOSED, Detection

    boxes: dict[int, tuple[float, float, float, float]] = {}
    detections = []
    for tile in np.unique(frame_ids[frame_ids >= 0] >> 1):
        ys, xs = np.nonzero(frame_ids >> 1 == tile)
        box = (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))
        face_shown = bool(np.any(frame_ids == 2 * tile + 1))
        code = scene.codes[tile] if face_shown else BACK
        boxes[int(tile)] = box
        detections.append(Detection(box, code, 0.95, ((code, 0.95),)))
    for members, concealed in zip(scene.groups, scene.concealed_groups):
        if members and all(i in boxes for i in members):
            b = np.array([boxes[i] for i in members])
            box = (float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max()))
            name = KONG_CONCEALED if concealed else MELD_EXPOSED
            detections.append(Detection(box, name, 0.95, ((name, 0.95),)))
    return detections


def write_match_video(path: Path, seed: int, width: int = 960, height: int = 720, fps: int = FPS) -> MatchVideo:
    video, _ = _write(path, seed, width, height, fps)
    return video


def _write(path: Path, seed: int, width: int, height: int, fps: int = FPS):
    import cv2

    scene, used = render_hand_scene(seed, width, height)
    frames = phase_frames(scene)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (width, height))
    frame_ids = []  # id buffer of every written frame
    for phase, seconds, value in TIMELINE:
        rgb, ids = frames[(phase, value)]
        bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
        for _ in range(round(seconds * fps)):
            writer.write(bgr)
            frame_ids.append(ids)
    writer.release()
    return MatchVideo(Path(path), scene.hand, HAND_APPEARS_S, len(frame_ids) / fps, used), (scene, frame_ids)


def same_tiles(a: dict, b: dict) -> bool:
    """Two JSON hands hold the same tiles in the same melds (context aside)."""
    from vision.reader import hand_key

    return hand_key(a) == hand_key(b)


def record_readings(path: Path, seed: int, every: float = 0.5) -> dict:
    """The photo pipeline's answers for every sample of a match video, trimmed to what the
    tracker reads, with each frame's true tile boxes standing in for the detector (so the
    recording tests the footage logic on real grouping, hand reading and scoring output).

    Stored in tests/data for the fast footage test:
    `python -m tests.footage_scenes tests/data/footage_readings.json`.
    """
    from vision.footage import iter_frames
    from vision.pipeline import read_detections

    video, (scene, frame_ids) = _write(path, seed, 960, 720)
    samples = []
    for time, index, _frame in iter_frames(video.path, every, []):
        photo = read_detections(true_detections(scene, frame_ids[index])).to_json()
        samples.append({"time": time, "index": index,
                        "photo": {k: photo[k] for k in ("hand", "score", "confidence")}})
    return {"made_by": f"tests/footage_scenes.py record_readings, seed {video.seed}, true tile boxes",
            "hand": video.hand, "appears": video.appears, "every": every, "samples": samples}


if __name__ == "__main__":
    import json
    import sys
    import tempfile

    out = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        recorded = record_readings(Path(tmp) / "match.mp4", seed=1)
    out.write_text(json.dumps(recorded, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{out}: {len(recorded['samples'])} samples")
