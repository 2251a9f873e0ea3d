"""Fetch every tile-art source into the ignored cache and build the face atlases.

    python datasets/fetch_art.py [--sources a,b] [--skip-download] [--drawn-styles N]

The cache is `datasets/_art`, or the folder `MJLENS_ART_CACHE` names (every reader of the art,
the builders here included, looks there).

Debian packages (the GPL-2+ game art and the free CJK fonts the `drawn` source writes with)
are downloaded with `apt-get download` and unpacked with `dpkg -x`; fluffystuff (CC0) and the camerash crops are read from ../shared. For each
source it writes `<cache>/atlas/<source>/` and a contact sheet `<cache>/sheets/<source>.png`
showing all 42 codes in order, so every name->code mapping can be checked by eye, and
`<cache>/camerash-holdout.csv` listing the real crops held out of training.
"""

from __future__ import annotations

import argparse
import csv
import sys

from mjsynth import art

# After mjsynth, which puts the repository on sys.path.
from scoring.cli import fail
from vision.argtypes import whole


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", default=",".join(art.SOURCES),
                        help="comma-separated sources to build (default: all)")
    parser.add_argument("--drawn-styles", type=whole(1), default=None,
                        help="imagined sets the drawn source writes (default 48; 300 make a 58 MB atlas)")
    parser.add_argument("--skip-download", action="store_true",
                        help="use Debian files already unpacked in the cache")
    args = parser.parse_args(argv)
    cache = art.CACHE_DIR
    import cv2
    from tqdm import tqdm

    sources = [s.strip() for s in args.sources.split(",") if s.strip()]
    unknown = [s for s in sources if s not in art.SOURCES]
    if unknown:
        return fail(parser.prog, "unknown_source",
                    f"unknown source {', '.join(unknown)}; known: {', '.join(art.SOURCES)}")
    if not args.skip_download and any(s not in art.LOCAL_SOURCES for s in sources):
        try:
            art.fetch_debian(cache)
        except art.ArtError as e:
            print(f"warning[{e.code}]: {e}; Debian sources will be skipped", file=sys.stderr)
    failed = []
    (cache / "sheets").mkdir(parents=True, exist_ok=True)
    for source in tqdm(sources, desc="atlases"):
        try:
            art.build_atlas(source, cache, args.drawn_styles)
            atlas = art.load_atlas(source, cache)
        except art.ArtError as e:
            tqdm.write(f"missing[{e.code}] {source}: {e}")
            failed.append(source)
            continue
        sheet = cv2.cvtColor(art.contact_sheet(atlas), cv2.COLOR_RGB2BGR)
        cv2.imwrite(str(cache / "sheets" / f"{source}.png"), sheet)
        tqdm.write(f"{source}: {len(atlas.codes)} codes, "
                   f"{sum(len(v) for v in atlas.faces.values())} faces")
    if "camerash" in sources and "camerash" not in failed:
        with (cache / "camerash-holdout.csv").open("w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["image", "code", "held_out"])
            for crop in art.camerash_crops():
                writer.writerow([crop.path.name, crop.code, int(crop.held_out)])
    print(f"atlases in {cache / 'atlas'}; contact sheets in {cache / 'sheets'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
