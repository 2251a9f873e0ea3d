"""Scene generator throughput on one core, per layout, against the 5 images/s target.

    python benchmarks/bench_synth.py [--count 40] [--imgsz 640] [--source fluffystuff]

Rendering only (layout, 3-D tiles, table, shadows, effects, labels), no file writing,
in this single process; also times the JPEG encode the writer adds per image. Times are
CPU time of this process, so other jobs sharing the machine do not skew the rate.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "datasets"))

from scoring.cli import fail  # noqa: E402
from vision.argtypes import whole  # noqa: E402

TARGET_PER_S = 5.0


def main(argv: list[str] | None = None) -> int:
    from mjsynth.art import SOURCES, ArtError, load_atlas
    from mjsynth.cli import MAX_IMGSZ, MIN_IMGSZ

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=whole(1), default=40,  # a rate over no images divides by zero
                        help="images per layout")
    parser.add_argument("--imgsz", type=whole(MIN_IMGSZ, MAX_IMGSZ), default=640, help=f"{MIN_IMGSZ} to {MAX_IMGSZ} px")
    parser.add_argument("--source", default="fluffystuff", choices=SOURCES, metavar="SOURCE",
                        help=f"art source: {', '.join(SOURCES)}")
    args = parser.parse_args(argv)
    import cv2

    from mjsynth.dataset import LAYOUT_WEIGHTS, image_size
    from mjsynth.scene import make_sample

    try:
        atlas = load_atlas(args.source)
    except ArtError as e:  # a Debian source not fetched yet
        return fail(parser.prog, e.code, str(e))
    rates = {}
    for kind in LAYOUT_WEIGHTS:
        render_s = encode_s = 0.0
        for i in range(args.count):
            rng = np.random.default_rng([99, i])
            w, h = image_size(rng, args.imgsz, kind)
            t0 = time.process_time()
            sample = make_sample(rng, atlas, kind, w, h)
            t1 = time.process_time()
            cv2.imencode(".jpg", sample.image, [cv2.IMWRITE_JPEG_QUALITY, 93])
            render_s += t1 - t0
            encode_s += time.process_time() - t1
        rates[kind] = args.count / (render_s + encode_s)
        print(f"{kind:8s} {rates[kind]:6.1f} img/s  (JPEG encode {1000 * encode_s / args.count:.1f} ms/img)")
    mix = 1 / sum(LAYOUT_WEIGHTS[k] / rates[k] for k in rates)
    print(f"mix      {mix:6.1f} img/s per core = {mix / TARGET_PER_S:.2f}x the {TARGET_PER_S:g} img/s target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
