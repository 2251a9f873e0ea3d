"""Render a synthetic YOLO dataset of mahjong tiles.

    python datasets/synth.py --out DIR --count N --seed S [--val-fraction 0.1]
        [--sources a,b] [--holdout-source X] [--layouts hand,table,closeup]
        [--imgsz 640] [--workers 2]

Run `python datasets/fetch_art.py` first for the Debian art sources; fluffystuff and
the camerash crops are read from ../shared without a download.
"""

import sys

from mjsynth.cli import main

if __name__ == "__main__":
    sys.exit(main())
