"""Render a layout into an image: a pinhole camera, tiles as shaded 3-D blocks
(textured face, two-tone body, rounded bevelled face, specular sheen), a table in
perspective with contact and cast shadows, props, and an id buffer from which the
label boxes are read (so a box is exactly the tile's visible pixels)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from .art import FACE_H, FACE_W, Atlas
from .effects import soft_blur
from .layouts import Layout, Pose, Prop, TileSize, View
from .textures import room_background, table_texture

FACE_COLOURS = ((240, 234, 214), (244, 243, 236), (238, 226, 190), (232, 232, 222),
                (246, 240, 220), (228, 236, 226))
BACK_COLOURS = ((34, 110, 64), (20, 80, 50), (40, 78, 160), (70, 130, 200), (226, 120, 40),
                (232, 196, 60), (180, 40, 40), (96, 60, 140), (30, 30, 34), (226, 140, 160),
                (60, 150, 140), (150, 110, 70))


@dataclass
class Camera:
    """World -> image: x = K (R X + t); R's rows are the camera's right, down, forward."""

    R: np.ndarray
    t: np.ndarray
    f: float
    cx: float
    cy: float
    position: np.ndarray

    def project(self, pts: np.ndarray) -> np.ndarray:
        cam = pts @ self.R.T + self.t
        return np.stack([self.f * cam[:, 0] / cam[:, 2] + self.cx,
                         self.f * cam[:, 1] / cam[:, 2] + self.cy], axis=1)

    def depth(self, pts: np.ndarray) -> np.ndarray:
        return (pts @ self.R.T + self.t)[:, 2]

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.f, 0, self.cx], [0, self.f, self.cy], [0, 0, 1.0]])


def _look_at(position: np.ndarray, target: np.ndarray, azimuth: float, roll: float) -> np.ndarray:
    fwd = target - position
    fwd /= np.linalg.norm(fwd)
    heading = np.array([np.sin(azimuth), np.cos(azimuth), 0.0])
    right = np.cross(fwd, np.array([0.0, 0.0, 1.0]))
    if np.linalg.norm(right) < 1e-3:  # straight down: image-up follows the heading
        right = np.cross(fwd, heading)
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    c, s = np.cos(roll), np.sin(roll)
    right, down = c * right + s * down, -s * right + c * down
    return np.stack([right, down, fwd])


def box_corners(pose: Pose, size: TileSize) -> np.ndarray:
    """The 8 corners, index bits: 1 = +u, 2 = +v, 4 = +n."""
    signs = np.array([[(i & 1) * 2 - 1, (i >> 1 & 1) * 2 - 1, (i >> 2 & 1) * 2 - 1]
                      for i in range(8)], float)
    axes = np.stack([pose.u * size.w / 2, pose.v * size.h / 2, pose.n * size.d / 2])
    return pose.centre + signs @ axes


def place_camera(rng: np.random.Generator, view: View, points: np.ndarray,
                 width: int, height: int) -> Camera:
    """Stand the camera per the view hint, then set focal length and principal point
    so the layout fills the wanted share of the frame (zooming never changes the
    perspective, so the framing is chosen after the pose)."""
    lo, hi = points.min(0), points.max(0)
    centre = (lo + hi) / 2
    extent = max(float(np.linalg.norm(hi[:2] - lo[:2])), 1.0)
    azimuth = np.radians(view.azimuth + rng.uniform(-view.azimuth_spread, view.azimuth_spread))
    elevation = np.radians(rng.uniform(*view.elevation))
    distance = extent * rng.uniform(*view.distance)
    heading = np.array([np.sin(azimuth), np.cos(azimuth), 0.0])
    target = centre + np.array([*rng.normal(0, extent * 0.05, 2), 0.0])
    target[2] = 0.0
    position = target - heading * distance * np.cos(elevation) + np.array([0, 0, distance * np.sin(elevation)])
    R = _look_at(position, target, azimuth, rng.normal(0, np.radians(4)))
    t = -R @ position
    cam = points @ R.T + t
    xy = cam[:, :2] / cam[:, 2:3]
    (x0, y0), (x1, y1) = xy.min(0), xy.max(0)
    fill = rng.uniform(*view.fill)
    f = fill * min(width / max(x1 - x0, 1e-6), height / max(y1 - y0, 1e-6))
    free_x, free_y = width - f * (x1 - x0), height - f * (y1 - y0)
    ox = rng.uniform(0, free_x) if free_x > 0 else free_x / 2 + rng.normal(0, 0.1) * free_x
    oy = rng.uniform(0, free_y) if free_y > 0 else free_y / 2 + rng.normal(0, 0.1) * free_y
    return Camera(R, t, f, ox - f * x0, oy - f * y0, position)


@dataclass
class Style:
    """How the tiles of one scene look: one physical set per photo."""

    face_colour: np.ndarray  # RGB float
    back_colour: np.ndarray
    ivory_fraction: float  # share of the thickness in face colour, the rest is back colour
    corner_radius: float  # of the face, as a fraction of its width
    gloss: float  # specular strength
    shininess: float
    light_position: np.ndarray
    light_colour: np.ndarray
    ambient: float
    ink_hue: float  # degrees added to the symbols' hue
    ink_saturation: float
    stroke: int  # -1 thinner, 0 as drawn, 1 bolder
    symbol_scale: float


def random_style(rng: np.random.Generator, extent: float) -> Style:
    face = np.array(FACE_COLOURS[rng.integers(len(FACE_COLOURS))], float) + rng.normal(0, 5, 3)
    back = np.array(BACK_COLOURS[rng.integers(len(BACK_COLOURS))], float) + rng.normal(0, 12, 3)
    ang = rng.uniform(0, 2 * np.pi)
    light = np.array([np.cos(ang), np.sin(ang), 0]) * extent * rng.uniform(0, 1.5)
    light[2] = extent * rng.uniform(0.8, 3.0)
    warm = rng.uniform(-1, 1)
    light_colour = np.array([1 + 0.12 * warm, 1.0, 1 - 0.15 * warm])
    hue = rng.normal(0, 8) if rng.random() < 0.85 else rng.uniform(-60, 60)
    return Style(np.clip(face, 0, 255), np.clip(back, 0, 255), rng.uniform(0.4, 0.75),
                 rng.uniform(0.06, 0.16), rng.uniform(0.05, 0.55), rng.uniform(6, 40),
                 light, light_colour, rng.uniform(0.35, 0.6), hue, rng.uniform(0.75, 1.2),
                 int(rng.choice([-1, 0, 0, 0, 1, 1])), rng.uniform(0.88, 1.06))


class FaceBank:
    """Face textures for one scene, built lazily and kept at three mip levels so small
    tiles are drawn from a pre-shrunk texture instead of aliasing."""

    def __init__(self, atlas: Atlas, style: Style, rng: np.random.Generator):
        self.atlas, self.style, self.rng = atlas, style, rng
        self.cache: dict[str, list[np.ndarray]] = {}
        self.alpha = _rounded_alpha(style.corner_radius)
        self.rim = _bevel_rim()

    def levels(self, code: str) -> list[np.ndarray]:
        if code not in self.cache:
            variants = self.atlas.faces[code]
            rgba = _restyle(variants[self.rng.integers(len(variants))], self.style,
                            self.atlas.opaque).astype(np.float32)
            a = rgba[:, :, 3:] / 255
            if self.atlas.opaque:
                rgb = rgba[:, :, :3]
            else:
                rgb = rgba[:, :, :3] * a + self.style.face_colour.astype(np.float32) * (1 - a)
            rgb = rgb * self.rim
            face = np.dstack([rgb, self.alpha * 255]).astype(np.float32)
            self.cache[code] = [face, cv2.resize(face, (FACE_W // 2, FACE_H // 2), interpolation=cv2.INTER_AREA),
                                cv2.resize(face, (FACE_W // 4, FACE_H // 4), interpolation=cv2.INTER_AREA)]
        return self.cache[code]


def _restyle(rgba: np.ndarray, style: Style, opaque: bool) -> np.ndarray:
    """Vary the drawing as real sets differ: ink hue and saturation, stroke weight and
    symbol size (bare symbols only: a photo or scan keeps its own geometry)."""
    rgba = rgba.copy()
    if not opaque:
        if style.symbol_scale != 1.0:
            m = cv2.getRotationMatrix2D(((FACE_W - 1) / 2, (FACE_H - 1) / 2), 0, style.symbol_scale)
            rgba = cv2.warpAffine(rgba, m, (FACE_W, FACE_H), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        if style.stroke:
            a = rgba[:, :, 3:].astype(np.float32) / 255
            premult = rgba[:, :, :3] * a
            op = cv2.dilate if style.stroke > 0 else cv2.erode
            kernel = np.ones((3, 3), np.uint8)
            a2 = op(a, kernel)[:, :, None]
            rgb = op(premult, kernel) / np.maximum(a2, 1e-3) if style.stroke > 0 else rgba[:, :, :3]
            rgba = np.dstack([np.clip(rgb, 0, 255), a2 * 255]).astype(np.uint8)
    hsv = cv2.cvtColor(np.ascontiguousarray(rgba[:, :, :3]), cv2.COLOR_RGB2HSV).astype(np.int16)
    hsv[:, :, 0] = (hsv[:, :, 0] + int(round(style.ink_hue / 2))) % 180  # OpenCV hue is 0..179
    hsv[:, :, 1] = np.clip(hsv[:, :, 1] * style.ink_saturation, 0, 255)
    rgba[:, :, :3] = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2RGB)
    return rgba


def _rounded_alpha(radius: float) -> np.ndarray:
    """Face silhouette: a rounded rectangle, drawn at 4x and shrunk for soft edges."""
    s = 4
    mask = np.zeros((FACE_H * s, FACE_W * s), np.uint8)
    r = int(radius * FACE_W * s)
    w, h = FACE_W * s, FACE_H * s
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    return cv2.resize(mask, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA).astype(np.float32)[:, :, None] / 255


def _bevel_rim() -> np.ndarray:
    """Darkening towards the face's edges where the bevel turns away from the light."""
    y, x = np.mgrid[0:FACE_H, 0:FACE_W].astype(np.float32)
    edge = np.minimum.reduce([x, y, FACE_W - 1 - x, FACE_H - 1 - y]) / (FACE_W * 0.07)
    return (0.82 + 0.18 * np.clip(edge, 0, 1) ** 0.6)[:, :, None]


def _shade(style: Style, normal: np.ndarray, points: np.ndarray, eye: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lambert + Blinn-Phong at each point: (diffuse factor, specular amount)."""
    to_light = style.light_position - points
    to_light /= np.linalg.norm(to_light, axis=1, keepdims=True)
    to_eye = eye - points
    to_eye /= np.linalg.norm(to_eye, axis=1, keepdims=True)
    half = to_light + to_eye
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    diffuse = style.ambient + (1 - style.ambient) * np.clip(to_light @ normal, 0, 1)
    spec = style.gloss * np.clip(half @ normal, 0, 1) ** style.shininess
    return diffuse, spec


# Box faces as corner indices (see box_corners), ordered around the face, with the
# axis they face; the art face comes last so nothing of the body draws over it.
_FACES = {
    "back": ((2, 3, 1, 0), "n", -1),
    "right": ((1, 3, 7, 5), "u", 1),
    "left": ((0, 2, 6, 4), "u", -1),
    "top": ((2, 3, 7, 6), "v", 1),
    "bottom": ((0, 1, 5, 4), "v", -1),
    "front": ((6, 7, 5, 4), "n", 1),  # TL(-u,+v) TR(+u,+v) BR(+u,-v) BL(-u,-v) at +n
}


@dataclass
class Canvas:
    image: np.ndarray  # HxWx3 float32 RGB 0..255
    ids: np.ndarray  # HxW int16: -1 nothing, 2i body of tile i, 2i+1 its face


def _fill(canvas: Canvas, quad: np.ndarray, colour: np.ndarray, ident: int) -> None:
    pts = np.round(quad * 16).astype(np.int32)
    cv2.fillConvexPoly(canvas.image, pts, colour.tolist(), cv2.LINE_AA, 4)
    cv2.fillConvexPoly(canvas.ids, pts, ident, cv2.LINE_8, 4)


@functools.lru_cache(maxsize=8)
def _bevel_normals(w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Outward normals of the rounded face edge in texture axes (x right, y down),
    fading to zero a few percent in from the edge."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    band = w * 0.08
    nx = np.clip(1 - (w - 1 - x) / band, 0, 1) - np.clip(1 - x / band, 0, 1)
    ny = np.clip(1 - (h - 1 - y) / band, 0, 1) - np.clip(1 - y / band, 0, 1)
    return nx[:, :, None], ny[:, :, None]


def _warp_face(canvas: Canvas, levels: list[np.ndarray], quad: np.ndarray, shade: np.ndarray,
               spec: np.ndarray, light: np.ndarray, light_uv: np.ndarray, ident: int) -> None:
    h, w = canvas.ids.shape
    x0, y0 = np.floor(quad.min(0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    size = max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2]))
    level = 2 if size < FACE_H / 3.5 else 1 if size < FACE_H / 1.7 else 0
    tex = levels[level]
    th, tw = tex.shape[:2]
    # Per-corner lighting, spread bilinearly over the face.
    grid = np.array([[shade[0], shade[1]], [shade[3], shade[2]]], np.float32)
    sgrid = np.array([[spec[0], spec[1]], [spec[3], spec[2]]], np.float32)
    nx, ny = _bevel_normals(tw, th)
    # the bevel on the lamp's side catches light, the far side falls into shade
    bevel = 1 + 0.3 * (nx * light_uv[0] - ny * light_uv[1])
    lit = tex.copy()
    lit[:, :, :3] = (tex[:, :, :3] * bevel * cv2.resize(grid, (tw, th))[:, :, None] * light
                     + 255 * cv2.resize(sgrid, (tw, th))[:, :, None])
    src = np.array([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]], np.float32)
    dst = (quad - [x0, y0]).astype(np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(lit, H, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    a = np.clip(warped[:, :, 3:] / 255, 0, 1)
    roi = canvas.image[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + np.clip(warped[:, :, :3], 0, 255) * a
    canvas.ids[y0:y1, x0:x1][a[:, :, 0] > 0.5] = ident


def draw_block(canvas: Canvas, cam: Camera, pose: Pose, size: TileSize, style: Style,
               body_colours: tuple[np.ndarray, np.ndarray], face_levels: list[np.ndarray] | None,
               ident: int | None) -> dict[str, np.ndarray]:
    """Draw one box (a tile numbered `ident`, or an unlabelled prop when None);
    returns the projected quads of the faces that were visible."""
    corners = box_corners(pose, size)
    proj = cam.project(corners)
    axes = {"u": pose.u, "v": pose.v, "n": pose.n}
    half = {"u": size.w / 2, "v": size.h / 2, "n": size.d / 2}
    front_colour, back_colour = body_colours
    # Props write -1: whatever they cover is hidden, like any occluder.
    body_id, face_id = (-1, -1) if ident is None else (2 * ident, 2 * ident + 1)
    visible = {}
    for name, (idx, axis, sign) in _FACES.items():
        normal = axes[axis] * sign
        centre = pose.centre + normal * half[axis]
        if normal @ (cam.position - centre) <= 0:
            continue
        quad = proj[list(idx)]
        visible[name] = quad
        pts3 = corners[list(idx)]
        diffuse, spec = _shade(style, normal, pts3, cam.position)
        tone = float(diffuse.mean())
        sheen = float(spec.mean()) * 255
        if name == "front" and face_levels is not None:
            # The face's rounded corners reveal the bevel: a slightly darker body colour.
            _fill(canvas, quad, np.clip(front_colour * 0.85 * tone * style.light_colour, 0, 255), body_id)
            to_light = style.light_position - centre
            to_light /= np.linalg.norm(to_light)
            light_uv = np.array([to_light @ pose.u, to_light @ pose.v])
            _warp_face(canvas, face_levels, quad, diffuse, spec, style.light_colour, light_uv, face_id)
            continue
        if name in ("front", "back"):
            colour = front_colour if name == "front" else back_colour
            _fill(canvas, quad, np.clip(colour * tone * style.light_colour + sheen, 0, 255), body_id)
            continue
        # A side: the face-colour layer on the +n part, the back colour below it.
        # Corner i lies on the +n side when bit 4 is set; i ^ 4 is the corner below it.
        f = style.ivory_fraction
        seam = {i: corners[i] * (1 - f) + corners[i ^ 4] * f for i in idx if i & 4}
        top_quad = [corners[i] if i & 4 else seam[i ^ 4] for i in idx]
        low_quad = [seam[i] if i & 4 else corners[i] for i in idx]
        for pts, colour in ((low_quad, back_colour), (top_quad, front_colour)):
            q = cam.project(np.array(pts))
            _fill(canvas, q, np.clip(colour * tone * style.light_colour + sheen, 0, 255), body_id)
    return visible


def _shadow_mask(cam: Camera, style: Style, blocks: list[tuple[Pose, TileSize]],
                 shape: tuple[int, int]) -> np.ndarray:
    """Soft shadows on the table: a tight contact shadow under each block and a
    softer one cast away from the lamp."""
    h, w = shape
    contact = np.zeros((h, w), np.float32)
    cast = np.zeros((h, w), np.float32)
    scale = []
    for pose, size in blocks:
        corners = box_corners(pose, size)
        foot = corners.copy()
        foot[:, 2] = 0
        lamp = style.light_position
        k = np.clip(lamp[2] / np.maximum(lamp[2] - corners[:, 2], 1e-3), 1, 50)
        shadow = lamp + (corners - lamp) * k[:, None]
        shadow[:, 2] = 0
        for pts, target in ((foot, contact), (np.vstack([foot, shadow]), cast)):
            if (cam.depth(pts) <= 1).any():
                continue
            hull = cv2.convexHull(np.round(cam.project(pts) * 16).astype(np.int32))
            cv2.fillConvexPoly(target, hull, 1.0, cv2.LINE_AA, 4)
        p = cam.project(corners)
        scale.append(np.ptp(p[:, 0]) + 1)
    px = float(np.median(scale)) if scale else 10.0
    contact = soft_blur(contact, max(px * 0.06, 0.6))
    cast = soft_blur(cast, max(px * 0.25, 1.0))
    return np.clip(0.55 * contact + 0.35 * cast, 0, 0.8)


def _table_plane(rng: np.random.Generator, cam: Camera, extent_lo: np.ndarray,
                 extent_hi: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The table surface in perspective over a room background beyond its edge."""
    h, w = shape
    span = extent_hi - extent_lo
    margin = span * rng.uniform(0.8, 4.0) + 100
    lo, hi = extent_lo - margin, extent_hi + margin
    tex_px = 1024
    mm_per_px = float(max(hi - lo)) / tex_px
    texture = table_texture(rng, tex_px, mm_per_px)
    # plane (X, Y, 0) -> image is K [r1 r2 t]; texture pixel -> plane is a scale+shift
    to_plane = np.array([[mm_per_px, 0, lo[0]], [0, mm_per_px, lo[1]], [0, 0, 1.0]])
    H = cam.K @ np.column_stack([cam.R[:, 0], cam.R[:, 1], cam.t]) @ to_plane
    warped = cv2.warpPerspective(texture, H, (w, h), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    on_table = cv2.warpPerspective(np.ones(texture.shape[:2], np.float32), H, (w, h),
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    # Pixels whose ray never meets the table (above the horizon) keep the room behind;
    # the ray's world z is linear in the pixel coordinates.
    rz = cam.R[:, 2]
    xs = ((np.arange(w, dtype=np.float32) - cam.cx) / cam.f * rz[0])[None, :]
    ys = ((np.arange(h, dtype=np.float32) - cam.cy) / cam.f * rz[1])[:, None]
    down = xs + ys + rz[2] < -1e-3
    a = (on_table * down)[:, :, None]
    room = room_background(rng, h, w)
    return warped[:, :, :3] * a + room * (1 - a)


@dataclass
class Rendered:
    image: np.ndarray  # float32 RGB
    ids: np.ndarray
    # Projected face area per tile (0 when the face looks away), the part beyond the frame
    # included: a face the frame cuts to a sliver is not readable.
    face_areas: np.ndarray
    face_short_sides: np.ndarray  # the face's narrower projected extent, in pixels
    body_areas: np.ndarray  # projected silhouette area per tile, inside the frame
    up_vectors: np.ndarray  # projected face-up direction per tile (image x, y)


def render(rng: np.random.Generator, layout: Layout, atlas: Atlas, size: TileSize,
           width: int, height: int, props: list[Prop] | None = None,
           plain_background: tuple[int, int, int] | None = None) -> Rendered:
    """Draw the layout; `plain_background` replaces the table, room and shadows by one
    flat colour (for checking that label boxes hug the drawn tiles)."""
    props = props or []
    all_corners = np.vstack([box_corners(t.pose, size) for t in layout.tiles])
    lo, hi = all_corners.min(0), all_corners.max(0)
    extent = float(np.linalg.norm(hi - lo))
    style = random_style(rng, extent)
    cam = place_camera(rng, layout.view, all_corners, width, height)
    _zoom_to_readable(rng, cam, layout, size)
    if plain_background is None:
        image = _table_plane(rng, cam, lo[:2], hi[:2], (height, width))
        blocks = [(t.pose, size) for t in layout.tiles] + [(p.pose, p.size) for p in props]
        image *= (1 - _shadow_mask(cam, style, blocks, (height, width)))[:, :, None]
    else:
        image = np.empty((height, width, 3), np.float32)
        image[:] = plain_background
    canvas = Canvas(np.ascontiguousarray(image, np.float32), np.full((height, width), -1, np.int16))
    bank = FaceBank(atlas, style, rng)
    body = (style.face_colour, style.back_colour)
    n = len(layout.tiles)
    face_areas, face_short, body_areas, ups = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros((n, 2))
    # Painter's order: far blocks first.
    items = [(float(cam.depth(t.pose.centre[None])[0]), i) for i, t in enumerate(layout.tiles)]
    items += [(float(cam.depth(p.pose.centre[None])[0]), -1 - j) for j, p in enumerate(props)]
    for _, i in sorted(items, reverse=True):
        if i < 0:
            p = props[-1 - i]
            colour = np.array(p.colour, float)
            draw_block(canvas, cam, p.pose, p.size, style, (colour, colour * 0.8), None, None)
            continue
        tile = layout.tiles[i]
        levels = bank.levels(tile.true_code) if _face_visible(tile.pose, size, cam) else None
        visible = draw_block(canvas, cam, tile.pose, size, style, body, levels, i)
        hull = cv2.convexHull(cam.project(box_corners(tile.pose, size)).astype(np.float32))
        body_areas[i] = _clipped_area(hull.reshape(-1, 2), width, height)
        if "front" in visible:
            q = visible["front"]
            face_areas[i] = abs(cv2.contourArea(np.asarray(q, np.float32)))
            across = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
            along = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
            face_short[i] = min(across, along)
        c = cam.project(np.stack([tile.pose.centre, tile.pose.centre + tile.pose.v * size.h / 2]))
        ups[i] = c[1] - c[0]
    return Rendered(canvas.image, canvas.ids, face_areas, face_short, body_areas, ups)


def _zoom_to_readable(rng: np.random.Generator, cam: Camera, layout: Layout, size: TileSize) -> None:
    """Crop into a wide view whose tiles came out too small to read: zoom about a
    random tile until the median tile is a useful size (the rest falls off the frame)."""
    centres = np.array([t.pose.centre for t in layout.tiles])
    us = np.array([t.pose.u for t in layout.tiles]) * size.w / 2
    vs = np.array([t.pose.v for t in layout.tiles]) * size.h / 2
    across = np.linalg.norm(cam.project(centres + us) - cam.project(centres - us), axis=1)
    along = np.linalg.norm(cam.project(centres + vs) - cam.project(centres - vs), axis=1)
    tile_px = float(np.median(np.maximum(across, along * size.w / size.h)))
    wanted = rng.uniform(*layout.view.tile_px)
    if tile_px >= wanted:
        return
    k = wanted / tile_px
    px, py = cam.project(centres[rng.integers(len(centres))][None])[0]
    cam.f *= k
    cam.cx = px + k * (cam.cx - px)
    cam.cy = py + k * (cam.cy - py)


def _face_visible(pose: Pose, size: TileSize, cam: Camera) -> bool:
    centre = pose.centre + pose.n * size.d / 2
    return bool(pose.n @ (cam.position - centre) > 0)


def _clipped_area(poly: np.ndarray, width: int, height: int) -> float:
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    area, _ = cv2.intersectConvexConvex(np.asarray(poly, np.float32), frame)
    return float(area)
