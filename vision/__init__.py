"""mahjong-lens vision side: detector, grouping, photo and footage pipelines.

Heavy libraries (onnxruntime, cv2, torch, ultralytics) are imported inside the functions
that need them, so importing this package stays cheap.

Public API: `read_photo(image, rules="mcr", context=None, winning_tile=None) -> PhotoResult`
and `read_detections(detections, ...)` (see vision.pipeline), the `Detection` boxes the latter
takes, and the `PhotoError` both raise on bad input; loaded on first use.
"""

_PUBLIC = {
    "read_photo": "vision.pipeline", "read_detections": "vision.pipeline", "PhotoResult": "vision.pipeline",
    "Detection": "vision.detections", "PhotoError": "vision.photo_errors",
}


def __getattr__(name: str):
    if name in _PUBLIC:
        import importlib

        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
