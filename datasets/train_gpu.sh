#!/usr/bin/env bash
# One prepared detector run for a lent GPU machine (the workplace's `device` tool): render the
# training scenes there with all its cores, fine-tune the shipped detector, leave the weights
# and the log in $OUT. The machine is bare and offline, so the command that calls this carries
# `.whl` (ultralytics and ultralytics-thop wheels, py3-none-any) and `datasets/_art/atlas`.
#
#   bash datasets/train_gpu.sh BUDGET_SECONDS [DEVICE]
#   MJLENS_GPU_CONTINUE=1 bash datasets/train_gpu.sh BUDGET_SECONDS [DEVICE]
#
# BUDGET_SECONDS bounds the whole script (rendering + training + copying); training gets what
# rendering leaves, less a margin for the last validation and the copy. A lease's time is
# spent best as one call of the longest command allowed and, right after it while the machine
# is still warm, a second one with MJLENS_GPU_CONTINUE=1: its scenes are rendered already, so
# all its time trains on from the first call's weights, at a lower rate on a fresh schedule.
set -euo pipefail
budget=${1:?usage: train_gpu.sh BUDGET_SECONDS [DEVICE]}
device=${2:-0}
out=${OUT:-/tmp/mjlens-gpu-out}
data=${MJLENS_GPU_DATA:-/tmp/mjlens-gpu-data}
scale=${MJLENS_GPU_SCALE:-1}  # a local dry run uses a small fraction of the scene counts
# Give each lease scenes of its own with a new seed base (stages 5 and 6 used 31 and 41, session
# 45's lease 51; 61-63 render the detector benchmark's scene sets, 81-83 its CPU top-ups); it
# starts from the shipped weights.
seed=${MJLENS_GPU_SEED:-71}
runs=${MJLENS_GPU_RUNS:-/tmp/mjlens-gpu-runs}
if [ "${MJLENS_GPU_CONTINUE:-0}" = 1 ]; then
    init=$runs/gpu/weights/last.pt name=gpu2 lr0=0.0005
    [ -f "$init" ] || { echo "train_gpu.sh: nothing to continue: $init is missing (a fresh machine?)" >&2; exit 3; }
else
    init=models/mjlens-tiles.pt name=gpu lr0=0.0015
fi
mkdir -p "$out" "$data"

if ! python3 -c "import ultralytics" 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$PWD" YOLO_OFFLINE=1 PYTHONUNBUFFERED=1
# synth.py renders from whichever atlases it finds, with a warning that scrolls away in the
# device's output: one not carried would leave its art out of the whole lease (session 45's
# lease lost KMahjongg's four sets so, and its weights read them worse).
python3 - <<'PY'
import sys

from datasets.mjsynth.art import SOURCES, available_sources

if missing := [s for s in SOURCES if s not in available_sources()]:
    sys.exit(f"train_gpu.sh: no atlas for {', '.join(missing)}: run `python datasets/fetch_art.py` "
             "(KMahjongg's sets need librsvg2-bin) and carry datasets/_art/atlas")
PY
cores=$(nproc)

count() { python3 -c "print(max(8, int($1 * $scale)))"; }
# --resume: a rerun on a machine still warm keeps the scenes already rendered (same arguments).
# All layouts (the detector's validation mix), hand photos from every training source, and hand
# photos with only the real training crops' faces; gnome-smooth stays held out of everything.
python3 datasets/synth.py --out "$data/mix" --count "$(count 5000)" --seed "$seed" --workers "$cores" --resume \
    --holdout-source gnome-smooth --val-fraction 0.04
python3 datasets/synth.py --out "$data/hand" --count "$(count 3500)" --seed "$((seed + 1))" --workers "$cores" --resume \
    --holdout-source gnome-smooth --layouts hand --val-fraction 0.02
python3 datasets/synth.py --out "$data/real" --count "$(count 1200)" --seed "$((seed + 2))" --workers "$cores" --resume \
    --sources camerash --layouts hand --val-fraction 0.02
python3 - "$data" <<'EOF'
import sys
from pathlib import Path

import yaml

root = Path(sys.argv[1])
spec = yaml.safe_load((root / "mix" / "data.yaml").read_text())
spec.update(path=str(root), train=[f"{part}/images/train" for part in ("mix", "hand", "real")],
            val="mix/images/val")
(root / "data.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
EOF

left=$((budget - SECONDS - 75))
hours=$(python3 -c "print(round(max($left, 30) / 3600, 4))")
# Into the log too: a device call's output tail can scroll past the rendering time.
echo "rendered in ${SECONDS}s; training for ${hours} h on device $device" | tee "$out/train.log"
weights=$runs/$name/weights
# The calling command may be cut off: keep the newest epoch's checkpoint in $out all along,
# without its optimizer state (that would make it too big to come back from the machine).
# Stopped however the script ends: left running, it would hold the caller's output open.
strip='import sys; from ultralytics.utils.torch_utils import strip_optimizer; strip_optimizer(sys.argv[1])'
(while sleep 20; do [ -f "$weights/last.pt" ] && cp "$weights/last.pt" "$out/.last.pt" \
    && python3 -c "$strip" "$out/.last.pt" && mv "$out/.last.pt" "$out/last.pt"; done) >/dev/null 2>&1 &
copier=$!
trap 'kill $copier 2>/dev/null' EXIT
python3 -m vision.cli train --data "$data/data.yaml" --init "$init" --hours "$hours" \
    --epochs 30 --imgsz 640 --batch 64 --lr0 "$lr0" --workers "$cores" --device "$device" \
    --cache ram --no-val --project "$runs" --name "$name" --no-ship 2>&1 | tee -a "$out/train.log"
cp "$weights/last.pt" "$out/last.pt"
cp "$runs/$name/results.csv" "$out/results.csv"
echo "done in ${SECONDS}s" | tee -a "$out/train.log"
