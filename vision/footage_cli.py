"""`mjlens footage`: scan match videos and write a timeline of the winning hands shown."""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import sys
from pathlib import Path

from scoring.cli import fail, parse_options
from scoring.errors import ScoringError
from vision.footage import FootageSettings, VideoTimeline
from vision.outputs import write_problem

HELP = "find the winning hands shown in match videos and write a timeline (JSONL or CSV)"
PROG = "mjlens footage"

EXIT_OK = 0
EXIT_BAD_ARGS = 2
EXIT_VIDEO_ERROR = 3  # at least one video could not be read to the end (its timeline is partial)
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports it
CSV_COLUMNS = ("video", "time", "total", "minimum_met", "fans", "hand", "confidence", "frame", "error")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("videos", nargs="+", type=Path, metavar="VIDEO", help="video files (any OpenCV can decode)")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between sampled frames (default 0.5)")
    parser.add_argument("--rules", default="mcr", help="rule set to score with (default mcr)")
    parser.add_argument("--seat", default="E", help="seat wind of the winner (default E)")
    parser.add_argument("--round", dest="round_wind", default="E", help="round wind (default E)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule-set option, as for mjlens score, e.g. edition=B (repeatable)")
    parser.add_argument("--stable", type=int, default=3,
                        help="samples a hand must be read the same before it counts (default 3)")
    parser.add_argument("--out", type=Path, help="timeline file, .jsonl or .csv (default: JSONL on stdout)")
    parser.add_argument("--frames-dir", type=Path, help="save an annotated frame for every event here")
    parser.add_argument("--engine", choices=("local", "ray"), default="local",
                        help="local: one video after another; ray: one Ray task per video")
    parser.add_argument("--address", help="with --engine ray: join this Ray cluster instead of starting one")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def _rows(timelines: list[VideoTimeline]):
    """Timeline records in video order: each event, then the video's error if it stopped early."""
    for timeline in timelines:
        for event in timeline.events:
            yield event.to_json()
        if timeline.error:
            yield {"video": timeline.video, "time": round(timeline.duration, 3), "error": timeline.error}


def _write(timelines: list[VideoTimeline], out: Path | None) -> None:
    records = list(_rows(timelines))
    if out is not None and out.suffix.lower() == ".csv":
        with out.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            for r in records:
                score = r.get("score") or {}
                writer.writerow({
                    "video": r["video"], "time": r["time"], "total": score.get("total", ""),
                    "minimum_met": score.get("minimum_met", ""),
                    "fans": "; ".join(f"{f['zh']} {f['en']} {f['points'] * f['count']}" for f in score.get("fans", [])),
                    "hand": json.dumps(r["hand"], ensure_ascii=False) if "hand" in r else "",
                    "confidence": r.get("confidence", ""), "frame": r.get("frame") or "",
                    # as on stderr, with the code a script can match on
                    "error": f"{r['error']['message']} [{r['error']['code']}]" if "error" in r else "",
                })
        return
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    if out is None:
        sys.stdout.write(lines)
    else:
        out.write_text(lines, encoding="utf-8")


def _prepare_outputs(out: Path | None, frames_dir: Path | None) -> list[tuple[str, str]]:
    """Why the timeline or the frames could not be written, as (code, message), found before any
    video is read (a long run must not fail at its end). Missing folders are created, as for the
    other commands' outputs."""
    from vision.footage import frames_dir_problem

    problems = []
    if out is not None:
        try:
            if out.is_dir():
                problems.append(("bad_output_path", f"--out {out} is a folder; name a .jsonl or .csv file"))
            elif problem := write_problem(out):
                problems.append(("bad_output_path", f"cannot write --out {out} ({problem})"))
        except OSError as exc:  # a folder on the way not to be entered, a name too long
            problems.append(("bad_output_path", f"cannot write --out {out} ({exc.strerror or exc})"))
    if frames_dir is not None and (problem := frames_dir_problem(frames_dir)):
        problems.append(("bad_output_path", problem))
    return problems


def _repeated(videos: list[Path]) -> list[tuple[str, str]]:
    """A video named twice (by the same or another path) would put its hands in the timeline twice."""
    first: dict[tuple[int, int], Path] = {}
    problems = []
    for video in videos:
        try:
            status = video.stat()
        except OSError:  # video_problem names it
            continue
        if (seen := first.setdefault((status.st_dev, status.st_ino), video)) is not video:
            problems.append(("bad_argument", f"{video}: the same file as {seen}, given before; each video is read once"))
    return problems


def run(args: argparse.Namespace) -> int:
    from scoring.rules import available_rulesets

    from vision.footage import video_problem

    # Every problem is (code, message), all reported at once, so one run shows what to fix.
    problems = [(p["code"], p["message"]) for p in map(video_problem, args.videos) if p] + _repeated(args.videos)
    if args.rules not in available_rulesets():
        problems.append(("unknown_rules",
                         f"unknown rule set {args.rules!r}; choose one of {', '.join(available_rulesets())}"))
    if args.out is not None and args.out.suffix.lower() not in (".jsonl", ".csv"):
        problems.append(("bad_output_path", "--out must end in .jsonl or .csv"))
    if args.address and args.engine != "ray":
        problems.append(("bad_argument", "--address only applies with --engine ray"))
    context = {"seat_wind": args.seat, "round_wind": args.round_wind}
    try:
        options = parse_options(args.option)
    except ScoringError as exc:
        problems.append((exc.code, exc.message))
        options = {}
    try:
        settings = FootageSettings(every=args.every, rules=args.rules, stable_samples=args.stable, context=context,
                                   options=options)
    except ValueError as exc:
        problems.append(("bad_argument", str(exc)))
    from vision.photo_errors import PhotoError
    from vision.pipeline import check_options

    # The win facts and the options apart, so that a fault in each is reported; the winds are
    # checked under a rule set whose name is wrong too (any rule set's winds are E, S, W, N).
    checks = [(args.rules, context, None), (args.rules, None, options)]
    for rules, facts, rule_options in checks if args.rules in available_rulesets() else [("mcr", context, None)]:
        try:
            check_options(rules, facts, rule_options)
        except PhotoError as exc:
            problems.append((exc.code, exc.message))
    if args.engine == "ray" and importlib.util.find_spec("ray") is None:
        problems.append(("ray_missing", "--engine ray needs Ray: pip install 'mahjong-lens[footage]'"))
    if not problems:
        problems = _prepare_outputs(args.out, args.frames_dir)
    for code, message in problems:
        fail(PROG, code, message)
    if problems:
        return EXIT_BAD_ARGS

    from vision.detector import DetectorError, hand_detector

    try:  # a missing or broken model fails here, not once per video
        hand_detector().load()
    except DetectorError as exc:
        return fail(PROG, exc.code, str(exc), EXIT_BAD_ARGS)

    timelines: list[VideoTimeline] = []
    try:
        if args.engine == "ray":
            from vision.footage import ClusterUnreachable, run_ray

            try:
                timelines = run_ray(args.videos, settings, args.frames_dir, args.address,
                                    progress=not args.no_progress)
            except ClusterUnreachable as exc:
                return fail(PROG, "cluster_unreachable", str(exc), EXIT_BAD_ARGS)
        else:
            from vision.footage import process_video

            for video in args.videos:  # one by one, so that an interruption keeps the videos done
                timelines.append(process_video(video, settings, args.frames_dir, progress=not args.no_progress))
    except KeyboardInterrupt:
        _write(timelines, args.out)
        return fail(PROG, "interrupted", f"interrupted after {len(timelines)} of {len(args.videos)} video(s); "
                                         "the timeline holds the videos read to the end", EXIT_INTERRUPTED)

    _write(timelines, args.out)
    events = sum(len(t.events) for t in timelines)
    seconds = sum(t.duration for t in timelines)
    print(f"mjlens footage: {events} winning hand(s) in {len(timelines)} video(s), {seconds:.1f} s of video",
          file=sys.stderr)
    for t in timelines:
        if not t.error and t.samples < settings.stable_samples:
            print(f"{PROG}: {t.video}: only {t.samples} sample(s), fewer than the {settings.stable_samples} a hand "
                  "must be read on to count (--stable): sample more often (--every) or lower --stable",
                  file=sys.stderr)
    failed = [t for t in timelines if t.error]
    for t in failed:
        fail(PROG, t.error["code"], t.error["message"] + (" (timeline for it is partial)" if t.samples else ""))
    return EXIT_VIDEO_ERROR if failed else EXIT_OK
