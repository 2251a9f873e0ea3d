"""Whether a tile lies on another tile: a small CNN over a tile's box and what lies around it.

Seen from above, a kong laid with its fourth tile on the middle one shows three tiles, as a pung
does, and the top tile's box often stands no higher than a pung's middle one: no rule on the
boxes tells them apart (docs/photo-pipeline.md, "Kongs laid stacked"). The photo still shows it
in the top tile's sides and the shadow it casts on the tile under it, so this model looks at the
tile with its neighbours' edges around it (models/CLASSIFIER_CARD.md, "The stack model").

ONNX Runtime on CPU; onnxruntime and OpenCV are imported lazily.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from vision.detections import Detection
from vision.errors import CodedError

if TYPE_CHECKING:
    import numpy as np

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "mjlens-stack-classifier.onnx"
INPUT_SIZE = 64  # square network input
# The crop reaches this many box widths and heights past each side of the box: far enough to take
# in the neighbours' near and far edges, which a tile lying on another rises above.
REACH_X = 0.6
REACH_Y = 0.5


class StackModelError(CodedError):
    """Weights missing or unreadable."""


def context_crop(rgb: "np.ndarray", box: Sequence[float]) -> "np.ndarray":
    """The box with REACH_X / REACH_Y of its size around it, as an INPUT_SIZE square RGB crop
    (the border pixels repeat past the image's edge)."""
    import cv2
    import numpy as np

    x0, y0, x1, y1 = (float(v) for v in box)
    w, h = x1 - x0, y1 - y0
    left, right, top, bottom = x0 - REACH_X * w, x1 + REACH_X * w, y0 - REACH_Y * h, y1 + REACH_Y * h
    source = np.float32([[left, top], [right, top], [left, bottom]])
    target = np.float32([[0, 0], [INPUT_SIZE, 0], [0, INPUT_SIZE]])
    return cv2.warpAffine(rgb, cv2.getAffineTransform(source, target), (INPUT_SIZE, INPUT_SIZE),
                          flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


class StackModel:
    """The shipped stack model; the ONNX session is created on first use."""

    def __init__(self, model_path: str | Path = DEFAULT_MODEL):
        self.model_path = Path(model_path)
        self._session = None

    def load(self):
        """The ONNX session, loaded now if it was not yet; StackModelError for missing or unusable weights."""
        if self._session is None:
            from vision.detector import model_session

            session = model_session(self.model_path, "stack model", StackModelError)
            if session.get_inputs()[0].shape[-1] != INPUT_SIZE:
                raise StackModelError("model_corrupt", f"{self.model_path} does not read {INPUT_SIZE}-px crops")
            self._session = session
        return self._session

    def on_a_tile(self, rgb: "np.ndarray", boxes: Sequence[Sequence[float]]) -> "np.ndarray":
        """For each box (pixels of `rgb`), the probability that its tile lies on another tile."""
        import numpy as np

        if not len(boxes):
            return np.zeros(0, np.float32)
        return self.read(np.stack([context_crop(rgb, b) for b in boxes]))

    def probe(self, rgb: "np.ndarray", width: int, height: int) -> Callable[[Sequence[Detection]], list[float]]:
        """`on_a_tile` for detections in the coordinates of a `width` x `height` photo decoded
        as `rgb` (perhaps reduced), each box read once however often the hand is read again."""
        kx, ky = rgb.shape[1] / width, rgb.shape[0] / height
        seen: dict[tuple[float, float, float, float], float] = {}

        def on_a_tile(tiles: Sequence[Detection]) -> list[float]:
            new = list(dict.fromkeys(d.box for d in tiles if d.box not in seen))
            if new:
                boxes = [(x1 * kx, y1 * ky, x2 * kx, y2 * ky) for x1, y1, x2, y2 in new]
                seen.update(zip(new, (float(p) for p in self.on_a_tile(rgb, boxes))))
            return [seen[d.box] for d in tiles]

        return on_a_tile

    def read(self, crops: "np.ndarray") -> "np.ndarray":
        """For each crop (N x INPUT_SIZE x INPUT_SIZE x 3 RGB uint8, as `context_crop` cuts them), the
        probability that its middle tile lies on another tile."""
        import numpy as np

        session = self.load()
        batch = np.ascontiguousarray(crops.transpose(0, 3, 1, 2))
        return session.run(None, {session.get_inputs()[0].name: batch})[0].reshape(-1)
