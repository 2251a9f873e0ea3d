"""Camera and world effects applied after the tiles are drawn: hands reaching in,
lens distortion, glare, white balance, exposure, blur, noise, resampling and JPEG.
Anything that moves or hides pixels is applied to the id buffer too, so the label
boxes stay exact."""

from __future__ import annotations

import cv2
import numpy as np

def soft_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; wide ones run on a shrunken copy (same look, a fraction of the cost)."""
    if sigma <= 4:
        return cv2.GaussianBlur(img, (0, 0), sigma)
    h, w = img.shape[:2]
    f = sigma / 4
    small = cv2.resize(img, (max(1, int(w / f)), max(1, int(h / f))), interpolation=cv2.INTER_AREA)
    return cv2.resize(cv2.GaussianBlur(small, (0, 0), 4), (w, h), interpolation=cv2.INTER_LINEAR)


SKIN = ((224, 172, 140), (198, 134, 96), (141, 85, 56), (240, 200, 170), (110, 70, 50))


def _pt(p: np.ndarray) -> tuple[int, int]:
    return int(round(p[0])), int(round(p[1]))


def hand_occluder(rng: np.random.Generator, image: np.ndarray, ids: np.ndarray,
                  tile_px: float) -> None:
    """A hand reaching in from the frame's edge (forearm or sleeve, palm, four fingers
    and a thumb, soft-edged) over part of the tiles; hidden pixels leave the id buffer."""
    h, w = ids.shape
    ys, xs = np.nonzero(ids >= 0)
    if len(xs) == 0:
        return
    k = rng.integers(len(xs))
    anchor = np.array([xs[k], ys[k]], float)
    edge = rng.choice(4, p=[0.6, 0.15, 0.15, 0.1])  # bottom (the photographer's side), left, right, top
    along = rng.uniform(0.1, 0.9)
    start = np.array([[along * w, h], [0, along * h], [w, along * h], [along * w, 0]][edge], float)
    reach = anchor - start
    reach /= max(np.linalg.norm(reach), 1e-6)
    side = np.array([-reach[1], reach[0]])
    scale = min(tile_px * rng.uniform(0.8, 1.8), min(h, w) * rng.uniform(0.08, 0.2))
    palm = anchor - reach * scale * 1.3
    skin_mask = np.zeros((h, w), np.float32)
    sleeve_mask = np.zeros((h, w), np.float32)
    cv2.ellipse(skin_mask, _pt(palm), (int(scale * 0.9), int(scale * 0.75)),
                float(np.degrees(np.arctan2(reach[1], reach[0]))), 0, 360, 1.0, -1, cv2.LINE_AA)
    wrist = palm - reach * scale * 0.8
    far = start - reach * max(h, w)  # the arm continues out of the frame
    sleeved = rng.random() < 0.5
    cv2.line(skin_mask, _pt(palm), _pt(wrist), 1.0, max(2, int(scale * 1.2)), cv2.LINE_AA)
    cv2.line(sleeve_mask if sleeved else skin_mask, _pt(wrist - reach * scale * 0.3), _pt(far), 1.0,
             max(2, int(scale * 1.5)), cv2.LINE_AA)
    curl = rng.uniform(0.6, 1.2)  # bent fingers look shorter from above
    for f in range(4):
        base = palm + reach * scale * 0.5 + side * (f - 1.5) * scale * 0.4
        tip = base + reach * scale * curl * (1.2 if f in (1, 2) else 1.0) * rng.uniform(0.9, 1.1)
        cv2.line(skin_mask, _pt(base), _pt(tip), 1.0, max(2, int(scale * 0.3)), cv2.LINE_AA)
    thumb_side = side if rng.random() < 0.5 else -side
    thumb_base = palm + thumb_side * scale * 0.7
    thumb_tip = thumb_base + (reach + thumb_side) / np.sqrt(2) * scale * 0.9
    cv2.line(skin_mask, _pt(thumb_base), _pt(thumb_tip), 1.0, max(2, int(scale * 0.32)), cv2.LINE_AA)
    soft = max(1.0, scale * 0.05)
    skin_mask, sleeve_mask = soft_blur(skin_mask, soft), soft_blur(sleeve_mask, soft)
    skin = np.array(SKIN[rng.integers(len(SKIN))], np.float32) + rng.normal(0, 8, 3)
    cloth = rng.uniform(20, 230, 3).astype(np.float32)
    for mask, colour in ((skin_mask, skin), (sleeve_mask, cloth)):
        # rounded limbs: brighter along the middle, darker at the edges
        shade = 0.75 + 0.35 * soft_blur(mask, scale * 0.25)[:, :, None]
        image[:] = image * (1 - mask[:, :, None]) + colour * shade * mask[:, :, None]
    ids[np.maximum(skin_mask, sleeve_mask) > 0.5] = -1


def camera_roll(image: np.ndarray, ids: np.ndarray, degrees: float) -> tuple[np.ndarray, np.ndarray]:
    """The photo as a phone held `degrees` askew (counter-clockwise) takes it: turned onto a canvas
    that holds all of it, as the photo pipeline turns one level (vision.detector.turned)."""
    from vision.detector import turned

    image, matrix = turned(image, degrees)
    ids = cv2.warpAffine(ids, matrix, (image.shape[1], image.shape[0]), flags=cv2.INTER_NEAREST,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=-1)
    return image, ids


def lens_distortion(rng: np.random.Generator, image: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Radial (barrel or pincushion) distortion, as from a phone's wide lens."""
    h, w = ids.shape
    k1 = rng.uniform(-0.18, 0.1)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy, norm = w / 2, h / 2, max(w, h) / 2
    x, y = (xs - cx) / norm, (ys - cy) / norm
    r2 = x * x + y * y
    factor = 1 + k1 * r2
    map_x, map_y = x * factor * norm + cx, y * factor * norm + cy
    image = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    ids = cv2.remap(ids, map_x, map_y, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=-1)
    return image, ids


def _motion_kernel(rng: np.random.Generator) -> np.ndarray:
    length = int(rng.integers(3, 10))
    k = np.zeros((length, length), np.float32)
    k[length // 2] = 1
    rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), float(rng.uniform(0, 180)), 1)
    k = cv2.warpAffine(k, rot, (length, length))
    return k / max(k.sum(), 1e-6)


def photometric(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Glare, white balance, exposure and contrast, vignette, blur and sensor noise."""
    h, w = image.shape[:2]
    img = image / 255.0
    if rng.random() < 0.2:  # glare: a soft bright patch from a lamp or window
        glare = np.zeros((h, w), np.float32)
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        cv2.ellipse(glare, c, (int(rng.uniform(0.05, 0.3) * w), int(rng.uniform(0.05, 0.2) * h)),
                    float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        glare = soft_blur(glare, w * 0.04) * rng.uniform(0.2, 0.7)
        img = 1 - (1 - img) * (1 - glare[:, :, None])
    img = img * rng.uniform(0.85, 1.15, 3).astype(np.float32)  # white balance
    gain, gamma = rng.uniform(0.7, 1.3), rng.uniform(0.75, 1.3)
    img = np.clip(img * gain, 0, 1) ** gamma
    contrast = rng.uniform(0.8, 1.2)
    img = (img - 0.5) * contrast + 0.5
    if rng.random() < 0.5:  # vignette
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xs - w / 2) / (w / 2)) ** 2 + ((ys - h / 2) / (h / 2)) ** 2
        img = img * (1 - rng.uniform(0.1, 0.4) * r2 / 2)[:, :, None]
    roll = rng.random()
    if roll < 0.25:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.6))
    elif roll < 0.4:
        img = cv2.filter2D(img, -1, _motion_kernel(rng))
    noise = rng.uniform(0, 0.035)
    img = img + rng.normal(0, noise, img.shape).astype(np.float32)
    if rng.random() < 0.3:  # colour noise is blotchy on phone sensors
        blotch = cv2.resize(rng.normal(0, noise, (h // 4, w // 4, 3)).astype(np.float32), (w, h))
        img = img + blotch
    return np.clip(img * 255, 0, 255)


def resample_and_compress(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Lose detail as a downscaled or re-shared photo does, then JPEG it (uint8 RGB out)."""
    h, w = image.shape[:2]
    img = np.clip(image, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        s = rng.uniform(0.45, 0.85)
        small = cv2.resize(img, (max(8, int(w * s)), max(8, int(h * s))), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.7:
        bgr = cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
        ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 92))])
        img = cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    return img
