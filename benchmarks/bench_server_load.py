"""Load on `mjlens serve`: 200 concurrent mixed requests at a local server.

Mix: good photos (the bundled sample), good JSON hands, bad files (text, cut-off JPEG), oversized
uploads (25 MB), malformed JSON. Pass criteria (issue 6): no 5xx at all, every bad request gets
its deliberate 413/415/422, every good request gets the same answer as when the server is idle
(photos) or as the engine called directly (JSON hands), and the server's memory stays bounded.
Also prints photo throughput under load against one-at-a-time photos measured in the same run.

    python benchmarks/bench_server_load.py [--requests 200]     # starts `mjlens serve` itself
    python benchmarks/bench_server_load.py --url http://host:port --pid PID   # a running server
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from vision.argtypes import existing_file, whole  # noqa: E402

SAMPLE = REPO / "samples" / "demo-hand.jpg"
HAND = {"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "5p"],
        "melds": [], "winning_tile": "5p", "self_drawn": True}
# kind -> share of the requests
MIX = {"photo": 0.3, "score": 0.2, "not_image": 0.1, "cut_jpeg": 0.1, "oversized": 0.15, "bad_json": 0.15}
EXPECTED_STATUS = {"photo": {200}, "score": {200}, "not_image": {415}, "cut_jpeg": {422}, "oversized": {413},
                   "bad_json": {422}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MemoryWatch(threading.Thread):
    """Samples the server's resident memory every 50 ms."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.process = psutil.Process(pid)
        self.samples: list[int] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.samples.append(self.process.memory_info().rss)
            except psutil.NoSuchProcess:
                return
            self.stop.wait(0.05)


OVERSIZED = b"\xff\xd8\xff" + bytes(25 * 1024 * 1024)  # 25 MB "JPEG": over the 20 MB limit


def payload(kind: str, sample: bytes):
    """(method, path, httpx kwargs) for one request of the given kind."""
    if kind == "photo":
        return "/api/photo", {"files": {"image": ("hand.jpg", sample, "image/jpeg")}, "data": {"rules": "mcr"}}
    if kind == "score":
        return "/api/score?rules=mcr", {"json": HAND}
    if kind == "not_image":
        return "/api/photo", {"files": {"image": ("notes.jpg", b"just some text, no photo" * 40, "image/jpeg")}}
    if kind == "cut_jpeg":
        return "/api/photo", {"files": {"image": ("cut.jpg", sample[: len(sample) // 3], "image/jpeg")}}
    if kind == "oversized":
        return "/api/photo", {"files": {"image": ("huge.jpg", OVERSIZED, "image/jpeg")}}
    return "/api/score", {"content": b'{"concealed": ["1m", ', "headers": {"Content-Type": "application/json"}}


async def one(client: httpx.AsyncClient, kind: str, sample: bytes):
    path, kwargs = payload(kind, sample)
    start = time.perf_counter()
    try:
        response = await client.post(path, **kwargs)
        status, body = response.status_code, response.json()
    except httpx.HTTPError as exc:  # e.g. connection closed while still sending an oversized body
        status, body = f"client error: {type(exc).__name__}", None
    return kind, status, body, time.perf_counter() - start


async def run_load(base: str, kinds: list[str], sample: bytes):
    limits = httpx.Limits(max_connections=len(kinds), max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=base, timeout=300, limits=limits) as client:
        start = time.perf_counter()
        results = await asyncio.gather(*(one(client, k, sample) for k in kinds))
        return results, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=whole(len(MIX)), default=200,
                        help="requests in the load (at least one of each kind)")
    parser.add_argument("--photo", type=existing_file, default=SAMPLE, help="the good photo (default: the bundled sample)")
    parser.add_argument("--url", help="load an already running server instead of starting one")
    parser.add_argument("--pid", type=int, help="with --url: the server's process id, to watch its memory")
    args = parser.parse_args()

    from scoring import score_json

    sample = args.photo.read_bytes()
    expected_score = score_json(HAND, rules="mcr")

    server = None
    if args.url:
        base, pid = args.url.rstrip("/"), args.pid
    else:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen([sys.executable, "-m", "vision.cli", "serve", "--port", str(port)],
                                  cwd=REPO, stderr=subprocess.DEVNULL)
        pid = server.pid
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or (server is not None and server.poll() is not None):
                print("server did not start", file=sys.stderr)
                return 1
            time.sleep(0.2)

        # One-at-a-time photos (the first also loads the detector), the peer for throughput.
        sequential, answers = [], []
        for _ in range(6):
            t = time.perf_counter()
            r = httpx.post(base + "/api/photo", files={"image": ("hand.jpg", sample, "image/jpeg")}, timeout=120)
            sequential.append(time.perf_counter() - t)
            if r.status_code != 200 or not r.json()["tiles"]:
                print(f"the good photo is not read on an idle server: {r.status_code} {r.text[:300]}", file=sys.stderr)
                return 1
            answers.append(r.json())
        one_photo = statistics.median(sequential[1:])
        expected_photo = answers[0]
        rss_idle = psutil.Process(pid).memory_info().rss if pid else 0

        counts = {k: round(share * args.requests) for k, share in MIX.items()}
        counts["photo"] += args.requests - sum(counts.values())
        kinds = [k for k, n in counts.items() for _ in range(n)]
        random.Random(0).shuffle(kinds)  # the kinds interleaved, the same way every run

        watch = MemoryWatch(pid) if pid else None
        if watch:
            watch.start()
        results, wall = asyncio.run(run_load(base, kinds, sample))
        if watch:
            watch.stop.set()
            watch.join()
        rss_after = psutil.Process(pid).memory_info().rss if pid else 0
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)

    statuses: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    latencies: dict[str, list[float]] = collections.defaultdict(list)
    wrong: list[str] = []
    for kind, status, body, seconds in results:
        statuses[kind][status] += 1
        latencies[kind].append(seconds)
        if status not in EXPECTED_STATUS[kind]:
            wrong.append(f"{kind}: {status} {json.dumps(body)[:200] if body else ''}")
        elif kind == "photo" and body != expected_photo:
            wrong.append("photo: answer differs from the idle server's answer for the same bytes")
        elif kind == "score" and body != expected_score:
            wrong.append("score: answer differs from score_json")
    five_xx = sum(n for c in statuses.values() for s, n in c.items() if isinstance(s, int) and s >= 500)

    print(f"{len(kinds)} concurrent requests in {wall:.1f} s")
    print(f"{'kind':<10} {'n':>4}  {'statuses':<28} {'p50 s':>7} {'max s':>7}")
    for kind in MIX:
        lat = latencies[kind]
        print(f"{kind:<10} {len(lat):>4}  {dict(statuses[kind])!s:<28} {statistics.median(lat):7.2f} {max(lat):7.2f}")
    photos = counts["photo"]
    print(f"5xx answers: {five_xx}; wrong answers: {len(wrong)}")
    for w in wrong[:10]:
        print("  ", w)
    mib = 1024 * 1024
    if watch and watch.samples:
        print(f"server memory: idle {rss_idle / mib:.0f} MiB, peak under load {max(watch.samples) / mib:.0f} MiB, "
              f"after {rss_after / mib:.0f} MiB")
    print(f"photo latency one at a time: {one_photo:.2f} s; photo throughput under load: "
          f"{photos / wall:.2f}/s = {photos / wall * one_photo:.2f}x one-at-a-time")
    return 0 if five_xx == 0 and not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
