"""mahjong-lens vision side: detector, grouping, photo and footage pipelines.

Heavy libraries (onnxruntime, cv2, torch, ultralytics) are imported inside the functions
that need them, so importing this package stays cheap.

Public API: `read_photo(image, rules="mcr", context=None, winning_tile=None) -> PhotoResult`
(see vision.pipeline), loaded on first use.
"""


def __getattr__(name: str):
    if name in ("read_photo", "read_detections", "PhotoResult"):
        from vision import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
