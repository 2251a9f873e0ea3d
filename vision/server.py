"""The refereeing web app: a JSON API over the photo pipeline and the scoring engine, plus the page.

`create_app(ServerSettings(...))` builds a FastAPI app; `mjlens serve` runs it under uvicorn.

Endpoints:
    GET  /              the refereeing page (static HTML/JS/CSS served by this app, no CDN)
    GET  /openapi.json  the API's OpenAPI schema
    GET  /api/health    liveness plus the rule sets on offer
    GET  /api/rules     the rule sets the scoring engine registers
    POST /api/photo     multipart: `image` (file), `rules`, `context`, `options` (JSON objects),
                        optional `winning_tile` -> tiles, groups, hand, score, confidences, warnings,
                        and `image` (its size; a JPEG `preview` of a photo browsers cannot show)
    POST /api/score     JSON hand (scoring schema) in the body, `?rules=&options=` (options: a JSON
                        object, as GET /api/rules lists them) -> score; a hand that does
                        not score also gets `why`, the sentence `mjlens score` prints for it,
                        and a winning hand of Sihai or Shanghai the `summary` line it prints

Every error is JSON `{"ok": false, "error": {"code", "message"}}` with a deliberate status:
413 upload too big or too many pixels, 415 not an image, 422 malformed JSON / invalid hand or
context / damaged image, 429 too many requests waiting, 408 recognition took longer than the
request time limit; 503 when the model files are missing or unusable (`model_missing`,
`model_corrupt`, `model_classes`, `model_input`, `model_output`).
A photo that was read but does not score (no tiles, not a winning hand) is a 200 answer with
`ok: false` and the tiles that were read, so the page can show them for correcting.
Recognition and scoring are CPU-bound, so they run in a bounded thread pool: the event loop stays
free to turn away bad requests at once, and a burst of uploads queues instead of failing.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable

from fastapi import FastAPI, File, Form, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from scoring.errors import ScoringError
from scoring.jsonio import hand_json_schema, loads
from vision.errors import CodedError

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

STATIC_DIR = Path(__file__).resolve().parent / "static"

# Formats Pillow sniffs from the bytes that we also decode, phones' HEIC and AVIF among them.
ACCEPTED_FORMATS = frozenset({"JPEG", "PNG", "WEBP", "HEIF", "AVIF", "BMP", "TIFF", "GIF", "MPO"})
ACCEPTED_NAMES = "a JPEG, PNG, WebP or HEIC image"
# What the page's <img> shows in every browser; other photos (an iPhone's HEIC in Chrome or
# Firefox) come back with a JPEG preview to draw the tiles on.
BROWSER_FORMATS = frozenset({"JPEG", "MPO", "PNG", "WEBP", "AVIF", "GIF", "BMP"})
PREVIEW_SIDE = 1600  # long side of that preview: tiles stay legible, the answer stays small


@dataclass(frozen=True)
class ServerSettings:
    """Limits that keep one bad or heavy request from hurting the others."""

    max_upload_bytes: int = 20 * 1024 * 1024
    max_pixels: int = 50_000_000  # a 48 MP phone photo passes; decompression bombs do not
    request_timeout_s: float = 60.0  # waiting in the queue plus recognising
    workers: int = 2  # recognition threads (ONNX Runtime and Pillow release the GIL)
    max_pending: int = 256  # queued + running jobs before new ones get 429


class ApiError(CodedError):
    """A request we refuse on purpose, with its HTTP status."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(code, message)
        self.status = status


# Every refusal's body, as the OpenAPI document shows it (FastAPI's own 422 shape is never sent).
ERROR_BODY = {"type": "object", "required": ["ok", "error"], "properties": {
    "ok": {"type": "boolean", "const": False},
    "error": {"type": "object", "required": ["code", "message"],
              "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}}
REFUSALS = {status: {"description": why, "content": {"application/json": {"schema": ERROR_BODY}}} for status, why in (
    (400, "a multipart body that cannot be parsed"), (408, "past the request time limit"),
    (413, "an upload or photo too large"), (415, "not an image"),
    (422, "a damaged image, malformed JSON, an invalid hand, context or option, an unknown rule set"),
    (429, "too many requests waiting"), (500, "a fault of the server"), (503, "the model files missing or unusable"))}


def _error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"ok": False, "error": {"code": code, "message": message}}, status_code=status,
                        headers=headers)


class _WorkPool:
    """A fixed set of worker threads with admission control and a per-request deadline.

    `pending` counts jobs queued or running; it is released when the job really ends (not when
    the request gives up waiting), so a slow photo still holds its slot and load stays bounded.
    """

    def __init__(self, settings: ServerSettings):
        self._executor = ThreadPoolExecutor(max_workers=settings.workers, thread_name_prefix="mjlens-work")
        self._max_pending = settings.max_pending
        self._timeout = settings.request_timeout_s
        self._pending = 0
        self._lock = threading.Lock()

    @property
    def pending(self) -> int:
        return self._pending

    def _release(self, _future) -> None:
        with self._lock:
            self._pending -= 1

    async def run(self, doing: str, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` on a worker; `doing` names the job in the busy and timeout messages."""
        with self._lock:
            if self._pending >= self._max_pending:
                raise ApiError(429, "busy", f"the server is busy with other requests; try {doing} again in a few seconds")
            self._pending += 1
        future = self._executor.submit(fn, *args)
        future.add_done_callback(self._release)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self._timeout)
        except asyncio.TimeoutError:
            future.cancel()  # drops it if still queued; a running job finishes and is discarded
            raise ApiError(408, "timeout", f"{doing} took longer than {self._timeout:g} s") from None

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


class _BodyLimit:
    """ASGI middleware: refuse bodies over the limit before they are read into memory or disk.

    A declared Content-Length is checked up front; a chunked body is counted as it streams and
    cut off with 413 (raised as an HTTPException, which FastAPI's body parsing lets through).
    """

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            response = _error_response(413, "too_large", self._message(scope))
            return await response(scope, receive, send)
        received = 0

        async def counting_receive():
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise StarletteHTTPException(413, self._message(scope))
            return message

        return await self.app(scope, counting_receive, send)

    def _message(self, scope) -> str:
        what = "hand" if scope["path"].endswith("/score") else "photo"
        return f"the upload is larger than {self.max_bytes // (1024 * 1024)} MB; send a smaller {what}"


@dataclass(frozen=True)
class CheckedImage:
    """An upload that is an accepted, undamaged image: the upright size the pipeline's boxes
    refer to (EXIF rotation applied, as phone photos need), Pillow's name of its format, and for
    every format but JPEG (checked from a reduced decode) the image decoded in full."""

    width: int
    height: int
    format: str
    decoded: "Image.Image | None" = field(default=None, compare=False, repr=False)
    orientation: int = 1  # EXIF: 1 stored upright

    @property
    def needs_preview(self) -> bool:
        """Whether the page must draw on an upright JPEG preview: a format browsers cannot show,
        or one stored turned whose EXIF orientation browsers ignore (Chromium's WebP; every
        browser applies a JPEG's)."""
        return self.format not in BROWSER_FORMATS or (self.orientation != 1 and self.format not in ("JPEG", "MPO"))


def check_image(data: bytes, max_pixels: int) -> CheckedImage:
    """Refuse what is not an accepted image, has too many pixels (read from the header, before
    decoding) or is damaged."""
    from PIL import Image, UnidentifiedImageError

    from vision.detector import (bomb_pixels, exif_orientation, jpeg_damage, looks_like_an_image, pillow_open,
                                 register_phone_formats, upright_size)
    from vision.paths import one_line

    if not data:
        raise ApiError(415, "not_an_image", "the file is empty; choose a photo (JPEG, PNG, WebP or HEIC)")
    register_phone_formats()
    try:
        image = pillow_open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:  # a header far past any limit: Pillow refuses to open it
        raise ApiError(413, "too_many_pixels",
                       f"the photo has {bomb_pixels(exc) / 1e6:.1f} million pixels; the limit is "
                       f"{max_pixels / 1e6:.1f} million") from None
    except UnidentifiedImageError:
        if looks_like_an_image(data[:12]):
            raise ApiError(422, "corrupt_image", "the photo could not be read; it may be damaged or cut short") from None
        raise ApiError(415, "not_an_image", f"this file is not a photo we can read; send {ACCEPTED_NAMES}") from None
    except (OSError, ValueError, SyntaxError) as exc:  # recognised format, broken header
        raise ApiError(422, "corrupt_image", f"the photo could not be read ({one_line(exc)}); it may be damaged") from None
    if image.format not in ACCEPTED_FORMATS:
        raise ApiError(415, "unsupported_image_type",
                       f"{image.format} images are not supported; send {ACCEPTED_NAMES}")
    width, height = image.size
    if width * height > max_pixels:
        raise ApiError(413, "too_many_pixels",
                       f"the photo has {width * height / 1e6:.1f} million pixels; the limit is "
                       f"{max_pixels / 1e6:.1f} million")
    try:
        width, height = upright_size(image)
    except (OSError, ValueError, SyntaxError):  # unreadable EXIF: the pipeline ignores it too
        pass
    # A damaged or cut-off file must not reach the detector. A JPEG is checked by libjpeg-turbo at
    # 1/8 scale (cheap, and Pillow passes over damaged scan data); other formats decode fully (a
    # PNG's EXIF lies after its pixels: reading it decodes them).
    reduced = image.format in ("JPEG", "MPO")
    if reduced and (damage := jpeg_damage(data)):
        raise ApiError(422, "corrupt_image", f"the photo is damaged ({damage}); send it again")
    try:
        orientation = exif_orientation(image)
        if not reduced:
            image.load()
    except (OSError, ValueError, SyntaxError) as exc:
        raise ApiError(422, "corrupt_image", f"the photo could not be decoded ({one_line(exc)}); it may be damaged or cut short") from None
    return CheckedImage(width, height, image.format, None if reduced else image, orientation)


def preview_data_url(rgb: "np.ndarray") -> str:
    """The upright photo as a JPEG data URL, long side at most PREVIEW_SIDE."""
    import base64

    from PIL import Image

    image = Image.fromarray(rgb)
    image.thumbnail((PREVIEW_SIDE, PREVIEW_SIDE))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=85)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


# Pipeline input errors (PhotoError codes from the detector) -> our HTTP answer.
_PIPELINE_INPUT_ERRORS: dict[str, tuple[int, str]] = {
    "unreadable_image": (422, "corrupt_image"),
    "not_an_image": (415, "not_an_image"),
    "image_too_large": (413, "too_many_pixels"),
    "image_too_small": (422, "image_too_small"),
}
# A model_* code (missing, corrupt, wrong classes, input or output) is the server's fault: 503.
MODEL_ERROR_PREFIX = "model_"


def _parse_json_object(text: str | bytes, what: str) -> dict:
    if not text.strip():
        raise ApiError(422, "malformed_json", f"{what} is empty: send a JSON object")
    try:
        value = loads(text)
    except ScoringError as exc:  # malformed, past Python's limits, or a key given twice
        raise ApiError(422, "malformed_json", f"{what} is not valid JSON: {exc.message}") from None
    if not isinstance(value, dict):
        raise ApiError(422, "malformed_json", f"{what} must be a JSON object")
    return value


def _rule_sets() -> list[dict[str, str]]:
    """The registered rule sets with their titles, for the page's chooser."""
    from scoring.rules import available_rulesets, get_ruleset

    rule_sets = [get_ruleset(name) for name in available_rulesets()]
    return [{"name": r.name, "title": r.title, "unit": r.unit, "options": _options_of(r)} for r in rule_sets]


def _options_of(ruleset) -> list[dict]:
    """A rule set's options as the page offers them: name, default (bool, int, float or str), what
    it switches, and the values it takes where only some are allowed."""
    import dataclasses

    return [{"name": f.name, "default": f.default, "doc": f.metadata.get("doc", ""),
             "choices": list(f.metadata.get("choices", ()))} for f in dataclasses.fields(ruleset.options_type)]


def _check_rules(rules: str) -> None:
    from scoring.errors import shown
    from scoring.rules import available_rulesets

    known = available_rulesets()
    if rules not in known:
        raise ApiError(422, "unknown_rules", f"unknown rule set {shown(rules)}; choose one of {', '.join(known)}")


def _recognise(upload: BinaryIO, rules: str, context: dict, options: dict, winning_tile: str | None,
               max_pixels: int) -> dict:
    from vision.detector import DetectorError, load_image
    from vision.photo_errors import PhotoError
    from vision.pipeline import read_photo

    # Read here, in the worker: queued uploads wait in their spooled temp files, not in memory.
    upload.seek(0)
    data = upload.read()
    checked = check_image(data, max_pixels)
    image: dict[str, Any] = {"width": checked.width, "height": checked.height}
    photo: Any = data
    try:
        if checked.needs_preview:
            # Decoded once, in the check: the pipeline reads the same upright pixels the preview shows.
            photo = load_image(checked.decoded)[0]
            image["preview"] = preview_data_url(photo)
        result = read_photo(photo, rules=rules, context=context, winning_tile=winning_tile, options=options or None)
    except (PhotoError, DetectorError) as exc:  # unusable input or options; "no tiles"/"not winning" are results
        status, code = _PIPELINE_INPUT_ERRORS.get(
            exc.code, (503 if exc.code.startswith(MODEL_ERROR_PREFIX) else 422, exc.code))
        raise ApiError(status, code, str(exc)) from None
    # HTTP 200 whenever the photo was read: `ok`/`error` in the body say whether it scored, and
    # the tiles are there either way so the page can show them for correcting.
    return {**result.to_json(), "image": image}


def _score(hand: dict, rules: str, options: dict) -> dict:
    from scoring import score_json
    from scoring.rules import get_ruleset, why_not_scored

    out = score_json(hand, rules=rules, options=options or None)
    if out.get("ok") and out["reason"]:
        out["why"] = why_not_scored(out["rules"], out["reason"], out["refused_forms"], out["breakdown"])
    ruleset = get_ruleset(rules)
    if out.get("ok") and out["winning"] and ruleset.summary is not None:
        out["summary"] = ruleset.summary(out["breakdown"])
    return out


def create_app(settings: ServerSettings | None = None) -> FastAPI:
    settings = settings or ServerSettings()
    pool = _WorkPool(settings)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI):
        yield
        pool.shutdown()

    app = FastAPI(
        title="mahjong-lens",
        lifespan=lifespan,
        # The OpenAPI schema is served at /openapi.json; the interactive docs pages are off
        # because they load Swagger UI from a CDN, and the app must work without the internet.
        docs_url=None,
        redoc_url=None,
        summary="Photograph a winning mahjong hand and get its score.",
        version="0.1.0",
    )
    app.add_middleware(_BodyLimit, max_bytes=settings.max_upload_bytes)

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError):
        return _error_response(exc.status, exc.code, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException):
        codes = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}
        # headers: a 405's Allow, which clients and monitors read to learn the methods that work
        return _error_response(exc.status_code, codes.get(exc.status_code, "bad_request"), str(exc.detail),
                               exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception):
        # A fault of ours still answers in the API's JSON shape; the traceback goes to the log.
        return _error_response(500, "internal_error", f"the server failed on this request ({type(exc).__name__})")

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError):
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return _error_response(422, "invalid_request", problems or "invalid request")

    # HEAD beside GET on the pages a monitor probes (a 405 there reads as the server being down)
    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def page():
        return FileResponse(STATIC_DIR / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/api/health")
    async def health():
        return {"ok": True, "status": "ready", "rules": _rule_sets()}

    app.add_api_route("/api/health", health, methods=["HEAD"], include_in_schema=False)  # see page()

    @app.get("/api/rules")
    async def rules_list():
        return {"ok": True, "rules": _rule_sets()}

    app.add_api_route("/api/rules", rules_list, methods=["HEAD"], include_in_schema=False)  # see page()

    @app.post("/api/photo", responses=REFUSALS)
    async def photo(
        image: UploadFile = File(..., description="photo of the winning hand (JPEG, PNG, WebP or HEIC)"),
        rules: str = Form("mcr"),
        context: str = Form("{}", description="JSON object: self_drawn, seat_wind, round_wind, ..."),
        options: str = Form("{}", description="JSON object: the rule set's options (GET /api/rules lists them)"),
        winning_tile: str | None = Form(None),
    ):
        declared = (image.content_type or "").split(";")[0].strip().lower()
        if declared and not declared.startswith("image/") and declared != "application/octet-stream":
            raise ApiError(415, "not_an_image", f"a {declared} file is not a photo; send {ACCEPTED_NAMES}")
        _check_rules(rules)
        context_dict = _parse_json_object(context, "context")
        options_dict = _parse_json_object(options, "options")
        return await pool.run("reading the photo", _recognise, image.file, rules, context_dict, options_dict, winning_tile or None,
                              settings.max_pixels)

    hand_body = {"required": True, "content": {"application/json": {"schema": hand_json_schema()}}}

    @app.post("/api/score", responses={s: r for s, r in REFUSALS.items() if s not in (415, 503)},
              openapi_extra={"requestBody": hand_body})
    async def score(request: Request, rules: str = "mcr", options: str = "{}"):
        hand = _parse_json_object(await request.body(), "the hand")
        _check_rules(rules)
        result = await pool.run("scoring the hand", _score, hand, rules, _parse_json_object(options, "options"))
        return JSONResponse(result, status_code=200 if result.get("ok") else 422)

    app.state.pool = pool  # tests hold the queue to see a busy server
    return app
