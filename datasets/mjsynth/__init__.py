"""Synthetic mahjong scene generator (training-time tooling, not installed with the wheel).

Run through the scripts beside this package: `python datasets/fetch_art.py` builds the
face atlases, `python datasets/synth.py` renders a YOLO dataset.
"""
