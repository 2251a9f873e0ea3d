"""Match footage -> a timeline of scored winning hands.

A video is sampled every `every` seconds; each sample is read with the photo pipeline. A hand
becomes an *event* once the same complete winning hand has been read on `stable_samples`
consecutive samples, so a single misread frame (flicker), a hand half in view or tiles being
pushed around cannot produce one. After an event, nothing more is reported until the table has
shown no complete hand for `forget_seconds` (the tiles were pushed away): the hand
staying on the table, or a few samples misreading one of its tiles, never count twice.

`process_video` does one video (it never raises for a bad file: decoding problems end the video
early and are reported in `VideoTimeline.error` beside the events found so far); `run_local` and
`run_ray` do many, with identical results, the second as one Ray task per video.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vision.detections import DetectionSet
from vision.paths import file_problem, shown_path
from vision.reader import hand_key

# A container's frame count can be a few frames off; a video that stops sooner than this many
# seconds before its announced end is reported as cut short.
TRUNCATION_SLACK_S = 1.0
# No video has more than a thousand frames a second: a shorter --every samples every frame anyway,
# and a vanishing one overflows the sample count.
MIN_EVERY_S = 0.001


@dataclass(frozen=True)
class FootageSettings:
    every: float = 0.5  # seconds between samples
    rules: str = "mcr"
    context: dict[str, Any] = field(default_factory=dict)  # win context for the pipeline, e.g. seat wind
    options: dict[str, Any] = field(default_factory=dict)  # the rule set's options (empty: its defaults)
    stable_samples: int = 3  # consecutive identical readings that make a hand an event
    # Seconds without any complete hand before a new event may start: time, not samples, so that
    # sampling more often (a smaller `every`) does not count an arm passing over the hand as the
    # tiles pushed away, making the same hand a second event.
    forget_seconds: float = 3.0
    # Readings less sure than this count as "no hand". The pipeline's confidence is the joint
    # probability of all the hand's tiles (0.95 per tile is about 0.5 for 14 tiles), so the bar
    # is low: it drops wild guesses, and stability over samples does the rest.
    min_confidence: float = 0.1

    def __post_init__(self) -> None:
        if not (_is_number(self.every) and math.isfinite(self.every) and self.every >= MIN_EVERY_S):
            raise ValueError(f"--every must be a positive number of seconds, at least {MIN_EVERY_S:g}")
        # A count that is no whole number would never equal a run's length: no event, silently.
        if not (_is_whole(self.stable_samples) and self.stable_samples >= 1):
            raise ValueError("--stable must be a whole number, at least 1")
        if not (_is_number(self.forget_seconds) and math.isfinite(self.forget_seconds) and self.forget_seconds > 0):
            raise ValueError("forget_seconds must be a positive number of seconds")

    @property
    def forget_samples(self) -> int:
        """`forget_seconds` in samples (6 at the default rate)."""
        return max(1, math.ceil(self.forget_seconds / self.every - 1e-9))


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_whole(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


@dataclass(frozen=True)
class Reading:
    """What one sample showed: a complete winning hand (with its score), or nothing usable."""

    time: float
    hand: dict | None  # JSON hand, only when it is a complete winning hand
    score: dict | None
    confidence: float
    payload: Any = field(default=None, compare=False, repr=False)  # e.g. the frame, for annotation


@dataclass(frozen=True)
class FootageEvent:
    video: str
    time: float  # when the hand was first seen in its stable run
    hand: dict
    score: dict
    confidence: float  # the lowest confidence over the stable run
    samples: int  # samples in the run that confirmed it
    frame: str | None = None  # the saved annotated frame

    def to_json(self) -> dict[str, Any]:
        return {
            "video": self.video,
            "time": round(self.time, 3),
            "hand": self.hand,
            "score": self.score,
            "confidence": round(self.confidence, 4),
            "samples": self.samples,
            "frame": self.frame,
        }


@dataclass(frozen=True)
class VideoTimeline:
    video: str
    duration: float  # seconds of video decoded: frames read / frame rate
    samples: int
    events: tuple[FootageEvent, ...]
    error: dict | None = None  # {"code", "message"} when the video could not be read to the end


class HandTracker:
    """Turns the stream of readings into events (see the module docstring for the rules)."""

    def __init__(self, stable_samples: int = 3, forget_samples: int = 6):
        self.stable_samples = stable_samples
        self.forget_samples = forget_samples
        self._run: list[Reading] = []  # current run of identical readings (first few kept)
        self._run_key: tuple | None = None
        self._run_length = 0
        self._reported = False  # a hand was reported and the table has not been cleared since
        self._cleared = 0  # consecutive samples without any complete hand

    def feed(self, reading: Reading) -> list[Reading] | None:
        """Add one sample; returns the readings of a newly stable hand, else None."""
        key = hand_key(reading.hand) if reading.hand is not None else None
        if key == self._run_key:
            self._run_length += 1
            if len(self._run) < self.stable_samples:
                self._run.append(reading)
        else:
            self._run_key, self._run_length, self._run = key, 1, [reading]

        # Between two wins the tiles are pushed away and shuffled: a new event needs the table to
        # have shown no complete hand for a while. A different reading of the hand still on the
        # table (a tile misread for a few samples) is therefore never a second event.
        self._cleared = self._cleared + 1 if key is None else 0
        if self._cleared >= self.forget_samples:
            self._reported = False
        if key is None or self._run_length != self.stable_samples or self._reported:
            return None
        self._reported = True
        return list(self._run)


@dataclass
class Decoded:
    """How much of a video `iter_frames` has read so far."""

    seconds: float = 0.0  # frames read / frame rate: a 4 s video is 4.0 s, not its last frame's time
    samples: int = 0  # frames yielded


def iter_frames(path: str | Path, every: float, errors: list[dict],
                decoded: Decoded | None = None) -> Iterator[tuple[float, int, Any]]:
    """Yield (time, frame index, BGR frame) every `every` seconds of the video.

    Frames are decoded in order (seeking is unreliable on many containers). Problems are appended
    to `errors` and end the iteration: an unreadable file, a missing frame rate, a file cut short.
    `decoded`, when given, keeps count of the video read.
    """
    import cv2

    capture = cv2.VideoCapture(str(path))
    try:
        if not capture.isOpened():
            errors.append({"code": "unreadable_video", "message": f"{path}: cannot be opened: not a video, or damaged or cut short"})
            return
        fps = capture.get(cv2.CAP_PROP_FPS)
        announced = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        if not fps or not math.isfinite(fps) or fps <= 0:
            errors.append({"code": "no_frame_rate", "message": f"{path}: the video has no usable frame rate"})
            return
        # A decoder can keep answering on a damaged file; never read far past the announced end.
        hard_stop = announced + int(10 * fps) if announced > 0 else None
        next_time = 0.0
        index = -1
        while hard_stop is None or index < hard_stop:
            if not capture.grab():
                break
            index += 1
            time = index / fps
            if decoded is not None:
                decoded.seconds = (index + 1) / fps
            if time + 0.5 / fps < next_time:
                continue
            ok, frame = capture.retrieve()
            if not ok or frame is None:
                errors.append({"code": "corrupt_frame",
                               "message": f"{path}: frame {index} at {time:.2f} s cannot be decoded"})
                return
            if decoded is not None:
                decoded.samples += 1
            yield time, index, frame
            next_time += every
        if index < 0:
            errors.append({"code": "no_frames", "message": f"{path}: the video has no readable frames"})
        elif announced > 0 and (announced - 1 - index) / fps > TRUNCATION_SLACK_S:
            errors.append({"code": "truncated_video",
                           "message": f"{path}: decoding stopped after {(index + 1) / fps:.2f} s of an announced "
                                      f"{announced / fps:.2f} s; the file may be cut short or damaged"})
    finally:
        capture.release()


def video_problem(path: str | Path) -> dict | None:
    """Why the video file cannot be read at all ({"code", "message"}), found before OpenCV opens
    it: OpenCV takes any path for a video it cannot open, and crashes the process on a name that
    is not valid UTF-8 (common in files from zip archives and Windows shares)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return {"code": "bad_file_name", "message": f"{shown_path(path)}: the file's name is not valid UTF-8, "
                                                    "which OpenCV cannot open: rename the file"}
    problem = file_problem(path, "video")
    return problem and {"code": problem[0], "message": problem[1]}


def frames_dir_problem(frames_dir: Path) -> str | None:
    """Why annotated frames cannot be saved in `frames_dir` (created if missing), or None."""
    from vision.outputs import write_problem

    try:
        if frames_dir.exists() and not frames_dir.is_dir():
            return f"--frames-dir {frames_dir} is a file; name a folder"
        frames_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create --frames-dir {frames_dir} ({exc.strerror or exc})"
    problem = write_problem(frames_dir / ".mjlens-write-check")
    return problem and f"cannot write in --frames-dir {frames_dir} ({problem})"


def video_duration(path: str | Path) -> float | None:
    """The announced duration in seconds (for the progress bar), or None when unknown."""
    import cv2

    capture = cv2.VideoCapture(str(path))
    try:
        fps = capture.get(cv2.CAP_PROP_FPS)
        frames = capture.get(cv2.CAP_PROP_FRAME_COUNT)
        return frames / fps if fps and fps > 0 and frames and frames > 0 else None
    finally:
        capture.release()


def reading_from_photo(time: float, photo: dict, min_confidence: float, payload: Any = None) -> Reading:
    """A sample's Reading from the photo pipeline's JSON result (`PhotoResult.to_json()`).

    Anything short of a complete winning hand read with enough confidence is "no hand". A
    complete hand below the rule set's minimum still counts: it was shown as a win, and the
    timeline's score says why it does not pay.
    """
    score = photo.get("score") or {}
    complete = bool(score.get("ok") and score.get("winning")) and photo["confidence"] >= min_confidence
    return Reading(time=time, hand=photo["hand"] if complete else None, score=score if complete else None,
                   confidence=float(photo["confidence"]), payload=payload)


def read_frame(frame, settings: FootageSettings, time: float) -> Reading:
    """Run the photo pipeline on one BGR video frame."""
    import numpy as np

    from vision.pipeline import read_photo

    rgb = np.ascontiguousarray(frame[:, :, ::-1])
    # Like the other input size (`_one_size`), a frame is not read again turned level: that is a
    # second detector pass, most frames show no winning hand, and a hand must read alike on several.
    result = read_photo(rgb, rules=settings.rules, context=settings.context, options=settings.options or None,
                        detect=_one_size, turn_level=False)
    return reading_from_photo(time, result.to_json(), settings.min_confidence, payload=(rgb, result))


def _one_size(rgb) -> DetectionSet:
    """The shipped detector's boxes without a reading at its other input size, in balanced light,
    unshaken or sharpened: a frame whose hand does not read is one of many (the hand must read
    alike on `stable_samples` of them), and a second pass on each such frame cost a quarter of the
    throughput (7.2x against 5.5x real time). Nor is a frame read again smaller for a close-up:
    footage shows tables, and half the benchmark's samples, showing no tile, cost a pass more
    (7.4x against 8.3x real time)."""
    from vision.detector import detect_hand

    return replace(detect_hand(rgb, close_up=False), other_size=None, in_balanced_light=None, unshaken=None,
                   sharpened=None)


def frame_name(video: str, time: float) -> str:
    """The saved frame's file name: the video's stem for reading, a hash of its full path so
    that day1/table.mp4, day2/table.mp4 and day1/table.avi (in one run, or in several sharing a
    frames folder, with either engine) never overwrite each other's frames."""
    import hashlib

    tag = hashlib.sha1(str(Path(video).resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{Path(video).stem}-{tag}_{time:09.3f}s.jpg"


def _save_annotated(frames_dir: Path, video: str, reading: Reading) -> str:
    from vision.annotate import annotate

    rgb, result = reading.payload
    frames_dir.mkdir(parents=True, exist_ok=True)
    out = frames_dir / frame_name(video, reading.time)
    annotate(rgb, result).convert("RGB").save(out, quality=90)
    return str(out)


def events_from_readings(video: str, readings: Iterable[Reading], settings: FootageSettings,
                         frames_dir: Path | None = None) -> list[FootageEvent]:
    """The stability logic over any sequence of readings (from a video, or recorded ones)."""
    tracker = HandTracker(settings.stable_samples, settings.forget_samples)
    events = []
    for reading in readings:
        run = tracker.feed(reading)
        if run is None:
            continue
        best = max(run, key=lambda r: r.confidence)
        frame = _save_annotated(frames_dir, video, best) if frames_dir is not None and best.payload else None
        events.append(FootageEvent(
            video=video, time=run[0].time, hand=run[0].hand, score=run[0].score,
            confidence=min(r.confidence for r in run), samples=len(run), frame=frame,
        ))
    return events


def process_video(path: str | Path, settings: FootageSettings, frames_dir: str | Path | None = None,
                  progress: bool = True) -> VideoTimeline:
    """Sample, read and track one video. Never raises for a bad video file (see VideoTimeline.error);
    raises ValueError for a `frames_dir` where frames cannot be saved."""
    from tqdm import tqdm

    video = str(path)
    if frames_dir is not None and (problem := frames_dir_problem(Path(frames_dir))):
        raise ValueError(problem)
    if problem := video_problem(path):
        return VideoTimeline(video=video, duration=0.0, samples=0, events=(), error=problem)
    errors: list[dict] = []
    duration = video_duration(path)
    total = math.ceil(duration / settings.every - 1e-9) if duration else None  # samples at k * every < duration
    decoded = Decoded()
    bar = tqdm(total=total, desc=Path(video).name, unit="sample", disable=not progress, leave=True)

    def readings() -> Iterator[Reading]:
        from vision.photo_errors import PhotoError

        for time, _index, frame in iter_frames(path, settings.every, errors, decoded):
            bar.update(1)
            try:
                yield read_frame(frame, settings, time)
            except PhotoError as exc:  # frames the pipeline refuses (too small, bad options): stop here
                errors.append({"code": exc.code, "message": f"{video}: at {time:.2f} s: {exc.message}"})
                return

    try:
        events = events_from_readings(video, readings(), settings,
                                      Path(frames_dir) if frames_dir is not None else None)
    finally:
        bar.close()
    return VideoTimeline(video=video, duration=decoded.seconds, samples=decoded.samples,
                         events=tuple(events), error=errors[0] if errors else None)


def run_local(paths: Sequence[str | Path], settings: FootageSettings, frames_dir: str | Path | None = None,
              progress: bool = True) -> list[VideoTimeline]:
    return [process_video(p, settings, frames_dir, progress) for p in paths]


class ClusterUnreachable(Exception):
    """`--address` names no Ray cluster we can reach."""


def check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Fail fast on a wrong `--address`: Ray itself retries an unreachable head for minutes.

    `auto` (the cluster on this machine) is left to Ray; `host:port` and `ray://host:port` are
    tried with one TCP connection.
    """
    import socket

    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    host = host.removeprefix("[").removesuffix("]")  # [::1]:6379
    if not host or not port.isdigit():
        raise ClusterUnreachable(f"--address {address!r} is not HOST:PORT, ray://HOST:PORT or auto")
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise ClusterUnreachable(f"no Ray cluster answers at {address} ({exc})") from None


def run_ray(paths: Sequence[str | Path], settings: FootageSettings, frames_dir: str | Path | None = None,
            address: str | None = None, progress: bool = True) -> list[VideoTimeline]:
    """One Ray task per video: a local Ray is started unless `address` names a running cluster.

    Workers run the same `process_video` as the local engine, so the timelines are identical.
    Per-sample progress bars would interleave across workers, so the driver shows one bar that
    advances as whole videos finish. On a cluster, every node needs mahjong-lens installed and
    the videos (and frames dir) on a shared path.
    """
    import ray
    from tqdm import tqdm

    started_here = not ray.is_initialized()
    if started_here:
        if address:
            check_reachable(address)
        try:
            ray.init(address=address, include_dashboard=False, logging_level="error", log_to_driver=False)
        except ConnectionError as exc:  # `auto` with no cluster running here
            raise ClusterUnreachable(f"no Ray cluster to join at --address {address} ({exc})") from None
    try:
        task = ray.remote(num_cpus=1)(process_video)
        refs = [task.remote(str(p), settings, str(frames_dir) if frames_dir is not None else None, False)
                for p in paths]
        order = {ref: i for i, ref in enumerate(refs)}
        results: list[VideoTimeline | None] = [None] * len(refs)
        pending = list(refs)
        with tqdm(total=len(refs), desc="videos (ray)", unit="video", disable=not progress) as bar:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    results[order[ref]] = ray.get(ref)
                    bar.update(1)
        return [r for r in results if r is not None]
    finally:
        if started_here:
            ray.shutdown()
