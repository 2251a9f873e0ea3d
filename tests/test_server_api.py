"""The web app's JSON API through FastAPI's TestClient: answers, deliberate errors and limits."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import json
import socket
import struct
import subprocess
import sys
import time
import warnings
import zlib
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi, python-multipart) is not installed")

from fastapi.testclient import TestClient  # noqa: E402
from PIL import Image  # noqa: E402

from vision.server import ServerSettings, create_app  # noqa: E402

# A concealed pure straight 一气通贯 hand; scored by the real engine below.
HAND = {"concealed": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "5p"],
        "melds": [], "winning_tile": "5p", "self_drawn": True}


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(ServerSettings(max_upload_bytes=2 * 1024 * 1024, max_pixels=4_000_000))) as c:
        yield c


def png_bytes(width: int = 64, height: int = 48, fmt: str = "PNG") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 60)).save(buf, format=fmt)
    return buf.getvalue()


def post_photo(client, data: bytes, filename: str = "hand.png", content_type: str = "image/png", **form):
    return client.post("/api/photo", files={"image": (filename, data, content_type)}, data=form)


def assert_error(response, status: int, code: str):
    assert response.status_code == status, response.text
    body = response.json()
    assert body["ok"] is False and body["error"]["code"] == code
    assert body["error"]["message"]  # a human sentence, never empty
    return body["error"]["message"]


def test_health_and_rules_list_the_registered_rule_sets(client):
    from scoring.rules import available_rulesets

    health = client.get("/api/health").json()
    assert health["ok"] and [r["name"] for r in health["rules"]] == available_rulesets()
    assert client.get("/api/rules").json()["rules"] == health["rules"]


def test_page_and_its_assets_are_served_without_any_cdn(client):
    page = client.get("/")
    assert page.status_code == 200 and 'capture="environment"' in page.text
    for asset in ("/static/app.js", "/static/style.css"):
        assert client.get(asset).status_code == 200
    assert "http://" not in page.text and "https://" not in page.text


def test_openapi_docs_describe_the_endpoints(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/photo", "/api/score", "/api/health"} <= set(paths)


def test_score_endpoint_returns_the_engines_result(client):
    from scoring import score_json

    response = client.post("/api/score?rules=mcr", json=HAND)
    assert response.status_code == 200
    assert response.json() == score_json(HAND, rules="mcr")
    assert response.json()["total"] > 0


def test_rule_set_options_are_listed_and_taken_by_score_and_photo(client):
    rules = {r["name"]: r for r in client.get("/api/rules").json()["rules"]}
    edition = next(o for o in rules["sihai"]["options"] if o["name"] == "edition")
    assert edition["default"] == "D" and edition["doc"]
    discard = dict(HAND, self_drawn=False)  # edition B's discard payments differ (F = 25)
    standard = client.post("/api/score?rules=sihai", json=discard).json()
    options = json.dumps({"edition": "B", "level": "II"})
    edition_b = client.post("/api/score", params={"rules": "sihai", "options": options}, json=discard).json()
    assert edition_b["breakdown"]["edition"] == "B" and edition_b["payments"] != standard["payments"]
    only_edition = client.post("/api/score", params={"rules": "sihai", "options": '{"edition": "A"}'}, json=discard)
    assert only_edition.json()["breakdown"]["level"] == "I"  # the edition's lower level, not D's IV refused
    assert_error(client.post("/api/score", params={"rules": "sihai", "options": '{"nope": 1}'}, json=HAND),
                 422, "bad_option")
    assert_error(client.post("/api/score", params={"options": "[1]"}, json=HAND), 422, "malformed_json")
    assert_error(post_photo(client, png_bytes(), rules="sihai", options='{"edition": "Z"}'), 422, "bad_option")


def test_score_endpoint_says_why_a_hand_does_not_score(client):
    from scoring import parse_notation
    from scoring.jsonio import hand_to_json

    pairs = hand_to_json(*parse_notation("113355m7m224466p+7m"))
    body = client.post("/api/score?rules=shanghai", json=pairs).json()
    assert body["reason"] == "not_winning"
    assert body["why"] == ("Not a winning hand under Shanghai old-style: seven pairs is not a winning form "
                           "there (only four sets and a pair).")
    low = hand_to_json(*parse_notation("123456m789p234s5s+5s"))
    body = client.post("/api/score?rules=mcr", json=low).json()
    assert body["reason"] == "below_minimum" and body["why"].startswith("Below the minimum: ")
    assert body["why"].endswith("MCR needs 8.")
    assert "why" not in client.post("/api/score?rules=mcr", json=HAND).json()


def test_score_endpoint_refuses_malformed_json_and_bad_hands(client):
    assert_error(client.post("/api/score", content=b"{not json", headers={"Content-Type": "application/json"}),
                 422, "malformed_json")
    assert_error(client.post("/api/score", content=b"[1, 2]"), 422, "malformed_json")
    assert_error(client.post("/api/score", content=b"[" * 100_000), 422, "malformed_json")  # past the recursion limit
    assert_error(client.post("/api/score", content=b""), 422, "malformed_json")
    twice = json.dumps(HAND)[:-1] + ', "winning_tile": "1m"}'  # the last one would win, unseen
    assert "given twice" in assert_error(client.post("/api/score", content=twice.encode()), 422, "malformed_json")
    assert_error(post_photo(client, png_bytes(), context="[" * 100_000), 422, "malformed_json")
    assert_error(client.post("/api/score", json=dict(HAND, concealed=HAND["concealed"][:-1])), 422, "wrong_tile_count")
    assert_error(client.post("/api/score?rules=nope", json=HAND), 422, "unknown_rules")


def test_score_endpoint_refuses_what_it_could_not_answer_with_422(client):
    """A key holding a lone surrogate (no UTF-8 body can carry it back as written), an option of
    thousands of digits (no total made from it can be printed): both were a 500."""
    response = client.post("/api/score", content=b'{"\\ud800": 1}')
    assert_error(response, 422, "bad_json")
    assert response.json()["error"]["message"] == "unknown key(s) '\\ud800'"
    assert_error(client.post("/api/score", params={"rules": "shanghai", "options": json.dumps({"base": 10 ** 4299})},
                             json=HAND), 422, "bad_option")


def test_photo_endpoint_reads_with_the_rules_context_and_winning_tile_sent(client):
    from vision.pipeline import read_photo

    sample = Path(__file__).resolve().parent.parent / "samples" / "demo-hand.jpg"
    context = {"seat_wind": "S", "round_wind": "W", "self_drawn": True, "dealer": "S"}
    options = {"edition": "B", "level": "III"}
    body = post_photo(client, sample.read_bytes(), "hand.jpg", "image/jpeg", rules="sihai",
                      context=json.dumps(context), options=json.dumps(options), winning_tile="9p").json()
    expected = read_photo(sample.read_bytes(), rules="sihai", context=context, winning_tile="9p",
                          options=options).to_json()
    assert {k: v for k, v in body.items() if k != "image"} == expected
    assert body["score"]["rules"] == "sihai" and body["hand"]["round_wind"] == "W" and body["hand"]["self_drawn"]
    assert body["score"]["breakdown"]["edition"] == "B"


@pytest.mark.parametrize("code", ["model_missing", "model_corrupt", "model_classes", "model_input", "model_output"])
def test_unusable_model_files_are_the_servers_fault_503(client, monkeypatch, code):
    import vision.pipeline
    from vision.detector import DetectorError

    def broken(*args, **kwargs):
        raise DetectorError(code, "the shipped model cannot be used")

    monkeypatch.setattr(vision.pipeline, "read_photo", broken)
    assert_error(post_photo(client, png_bytes()), 503, code)


def test_non_images_are_refused_with_415(client):
    assert_error(post_photo(client, b"%PDF-1.4 not a photo", "doc.pdf", "application/pdf"), 415, "not_an_image")
    assert_error(post_photo(client, b"plain text pretending", "x.jpg", "image/jpeg"), 415, "not_an_image")
    assert_error(post_photo(client, b"", "empty.jpg", "image/jpeg"), 415, "not_an_image")


def test_oversized_uploads_are_refused_with_413_before_reading(client):
    big = b"\xff\xd8\xff" + b"\0" * (3 * 1024 * 1024)
    assert_error(post_photo(client, big, "big.jpg", "image/jpeg"), 413, "too_large")


@pytest.mark.parametrize("path,content_type", [
    ("/api/score", "application/json"),
    ("/api/photo", "multipart/form-data; boundary=XyZ"),
])
def test_chunked_oversized_body_is_cut_off_with_413(client, path, content_type):
    def chunks():  # no Content-Length: the limit must hold while the body streams in
        yield b'--XyZ\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n\r\n'
        for _ in range(40):
            yield b"x" * (128 * 1024)

    response = client.post(path, content=chunks(), headers={"Content-Type": content_type})
    assert_error(response, 413, "too_large")
    what = "hand" if path == "/api/score" else "photo"
    assert response.json()["error"]["message"].endswith(f"MB; send a smaller {what}")


def test_too_many_pixels_is_refused_before_decoding(client):
    assert_error(post_photo(client, png_bytes(2100, 2000)), 413, "too_many_pixels")


def test_iphone_heic_uploads_are_read(client):
    from vision.detector import register_phone_formats
    from vision.server import CheckedImage, check_image

    register_phone_formats()
    heic = png_bytes(400, 300, "HEIF")
    response = post_photo(client, heic, "IMG_0001.HEIC", "image/heic")
    assert response.status_code == 200, response.text
    image = response.json()["image"]
    assert (image["width"], image["height"]) == (400, 300)
    # Chrome and Firefox cannot show HEIC: the page draws the tiles on this JPEG instead
    prefix = "data:image/jpeg;base64,"
    assert image["preview"].startswith(prefix)
    preview = Image.open(io.BytesIO(base64.b64decode(image["preview"][len(prefix):])))
    assert preview.format == "JPEG" and preview.size == (400, 300)
    assert "preview" not in post_photo(client, png_bytes(400, 300)).json()["image"]
    large = post_photo(client, png_bytes(2000, 1500, "HEIF"), "IMG_0002.HEIC", "image/heic").json()["image"]
    assert Image.open(io.BytesIO(base64.b64decode(large["preview"][len(prefix):]))).size == (1600, 1200)
    assert_error(post_photo(client, png_bytes(2100, 2000, "HEIF"), "big.heic", "image/heic"), 413, "too_many_pixels")
    # a HEIC cut short is a damaged photo, as a cut JPEG is, said on one line
    assert_error(post_photo(client, heic[: len(heic) // 2], "cut.heic", "image/heic"), 422, "corrupt_image")
    cut = post_photo(client, heic[:-50], "cut.heic", "image/heic")
    assert_error(cut, 422, "corrupt_image")
    assert "\n" not in cut.json()["error"]["message"]
    assert check_image(heic, 4_000_000) == CheckedImage(400, 300, "HEIF")


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_corrupt_image_gives_422(client, fmt):
    # noise, so that half the PNG's compressed pixels are cut off, not only its end
    buf = io.BytesIO()
    Image.effect_noise((400, 300), 60).convert("RGB").save(buf, format=fmt)
    data = buf.getvalue()
    assert_error(post_photo(client, data[: len(data) // 2], "cut.img", f"image/{fmt.lower()}"), 422, "corrupt_image")


def test_a_jpeg_damaged_in_the_middle_gives_422(client):
    from tests.damaged_files import damaged_in_the_middle

    buf = io.BytesIO()
    Image.effect_noise((400, 300), 60).convert("RGB").save(buf, format="JPEG")
    answer = post_photo(client, damaged_in_the_middle(buf.getvalue()), "damaged.jpg", "image/jpeg")
    assert_error(answer, 422, "corrupt_image")
    assert "Corrupt JPEG data" in answer.json()["error"]["message"]


def test_a_fault_of_the_server_still_answers_in_json(monkeypatch):
    import vision.server

    def broken(*_args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(vision.server, "_score", broken)
    with TestClient(create_app(), raise_server_exceptions=False) as fresh:
        assert_error(fresh.post("/api/score", json=HAND), 500, "internal_error")


def test_bad_form_fields_give_422(client):
    assert_error(post_photo(client, png_bytes(), context="{oops"), 422, "malformed_json")
    # null is no value for a win flag; only the discarder may be left at null (the default seat)
    assert_error(post_photo(client, png_bytes(), context=json.dumps({"seat_wind": None})), 422, "bad_wind")
    assert_error(post_photo(client, png_bytes(), rules="nope"), 422, "unknown_rules")
    assert_error(client.post("/api/photo", data={"rules": "mcr"}), 422, "invalid_request")


def test_unknown_route_and_method_are_json_errors(client):
    assert_error(client.get("/api/nothing"), 404, "not_found")
    response = client.get("/api/score")
    assert_error(response, 405, "method_not_allowed")
    assert response.headers["allow"] == "POST"


@pytest.mark.parametrize("path", ["/", "/api/health", "/api/rules"])
def test_a_monitor_probing_with_head_gets_200_and_no_body(client, path):
    response = client.head(path)
    assert response.status_code == 200 and response.content == b""


def test_busy_server_answers_429_not_5xx():
    import threading

    release = threading.Event()
    settings = ServerSettings(workers=1, max_pending=1)
    app = create_app(settings)
    with TestClient(app) as c:
        # Occupy the only slot with a job that waits, then a second request must be turned away.
        pool = app.state.pool
        blocker = threading.Thread(target=lambda: c.portal.call(pool.run, "waiting", release.wait))
        blocker.start()
        try:
            deadline = time.monotonic() + 30  # a bound on the wait, so a bug fails instead of hanging CI
            while pool.pending < 1:
                assert time.monotonic() < deadline, "the blocking job never reached the pool"
                release.wait(0.01)
            busy = c.post("/api/score", json=HAND)
            assert_error(busy, 429, "busy")
            assert busy.json()["error"]["message"].endswith("try scoring the hand again in a few seconds")
        finally:
            release.set()
            blocker.join()
        assert c.post("/api/score", json=HAND).status_code == 200


def test_request_time_limit_gives_408(monkeypatch):
    import threading

    import vision.server

    release = threading.Event()

    def slow_score(hand, rules, options):  # scoring that outlasts the request's time limit
        release.wait(30)
        return {"ok": True}

    monkeypatch.setattr(vision.server, "_score", slow_score)
    app = create_app(ServerSettings(request_timeout_s=0.2))
    with TestClient(app) as c:
        try:
            slow = c.post("/api/score", json=HAND)
            assert_error(slow, 408, "timeout")
            assert slow.json()["error"]["message"] == "scoring the hand took longer than 0.2 s"  # not "the photo"
        finally:
            release.set()


def test_uploads_are_not_written_outside_the_temp_dir(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    answer = post_photo(client, png_bytes(), context=json.dumps({"self_drawn": True}))
    assert answer.status_code == 200 and answer.json()["error"]["code"] == "no_tiles", answer.text
    assert list(tmp_path.iterdir()) == []


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims width x height pixels, as a decompression bomb's does."""
    data = bytearray(png_bytes(8, 8))
    data[16:24] = struct.pack(">II", width, height)  # IHDR: signature, length and type come first
    data[29:33] = struct.pack(">I", zlib.crc32(data[12:29]))
    return bytes(data)


def jpeg_claiming(width: int, height: int) -> bytes:
    data = bytearray(png_bytes(8, 8, "JPEG"))
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


@pytest.mark.parametrize("data, pixels", [
    (png_claiming(10_000, 10_000), "100.0"),  # over Pillow's warning limit
    (png_claiming(20_000, 10_000), "200.0"),  # over Pillow's error limit
    (jpeg_claiming(65_535, 65_535), "4294.8"),
], ids=["png-100MP", "png-200MP", "jpeg-4GP"])
def test_headers_claiming_huge_sizes_get_the_same_413_whatever_pillow_thinks(client, data, pixels):
    # Warnings as errors: Pillow's own decompression-bomb warning must neither fail the request
    # nor be what refuses it.
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        response = post_photo(client, data)
    assert_error(response, 413, "too_many_pixels")
    assert response.json()["error"]["message"].startswith(f"the photo has {pixels} million pixels; the limit is ")


def serve(*options: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vision.cli", "serve", *options],
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("timeout", ["nan", "inf", "0"])
def test_serve_refuses_a_time_limit_that_is_not_a_positive_number(timeout):
    proc = serve("--timeout", timeout)
    assert proc.returncode == 2 and "--timeout" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("option, value, allowed", [
    ("--port", "-1", "a whole number from 0 to 65535"),
    ("--port", "65536", "a whole number from 0 to 65535"),
    ("--workers", "0", "a whole number >= 1"),
    ("--max-upload-mb", "-1", "a whole number >= 1"),
    ("--timeout", "-5", "a finite number above 0"),
    ("--client-timeout", "0", "a finite number above 0"),
])
def test_serve_refuses_numbers_out_of_range_while_parsing(capsys, option, value, allowed):
    import argparse

    from vision.serve_cli import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(SystemExit) as e:
        parser.parse_args([option, value])
    assert e.value.code == 2 and f"argument {option}: '{value}' is not {allowed}\n" in capsys.readouterr().err


def test_serve_on_a_taken_port_or_foreign_address_says_so_and_exits_2():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        for host in ("127.0.0.1", "192.0.2.1"):  # in use; an address (TEST-NET-1) of no interface here
            proc = serve("--host", host, "--port", port)
            assert proc.returncode == 2, proc.stderr
            assert proc.stderr.startswith(f"mjlens serve: cannot listen on {host}:{port}: ")
            assert proc.stderr.endswith(" [cannot_listen]\n")
            assert "open http" not in proc.stderr and "Traceback" not in proc.stderr


def test_serve_on_all_ipv6_addresses_takes_ipv4_too():
    from vision.serve_cli import _listen

    try:
        sock = _listen("::", 0)
    except OSError:
        pytest.skip("no IPv6 on this machine")
    with sock, socket.create_connection(("127.0.0.1", sock.getsockname()[1]), timeout=5):
        pass  # connected: the bound socket is dual-stack, as uvicorn's own binding was


def test_serve_answers_as_soon_as_it_says_where_and_stops_cleanly_on_ctrl_c():
    import signal
    import urllib.request

    # --port 0: the server takes a free port and names it (no port picked here and raced for)
    server = subprocess.Popen([sys.executable, "-m", "vision.cli", "serve", "--port", "0"],
                              stderr=subprocess.PIPE, text=True)
    try:
        banner = server.stderr.readline()
        assert banner.startswith("mjlens: open http://127.0.0.1:"), banner
        port = int(banner.split("127.0.0.1:")[1].split("/")[0])
        assert port > 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=30) as answer:
            assert json.load(answer)["ok"] is True
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 0
        assert "Traceback" not in server.stderr.read()
    finally:
        server.kill()
        server.stderr.close()


def test_a_png_cut_short_is_a_damaged_photo_as_a_cut_jpeg_is(client):
    assert_error(post_photo(client, png_bytes()[:33]), 422, "corrupt_image")


@pytest.mark.parametrize("fmt, preview", [("WEBP", True), ("PNG", True), ("JPEG", False)])
def test_a_photo_stored_turned_is_shown_on_an_upright_preview_where_browsers_would_not_turn_it(client, fmt, preview):
    """Chromium ignores a WebP's EXIF orientation: the page drew the upright boxes on a sideways
    photo. Every browser turns a JPEG itself."""
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: 48 wide, 64 high, shown 64 x 48
    buffer = io.BytesIO()
    Image.new("RGB", (48, 64), (30, 120, 60)).save(buffer, format=fmt, exif=exif)
    image = post_photo(client, buffer.getvalue(), f"hand.{fmt.lower()}", f"image/{fmt.lower()}").json()["image"]
    assert (image["width"], image["height"]) == (64, 48)
    assert ("preview" in image) == preview
    if preview:
        data = base64.b64decode(image["preview"].split(",", 1)[1])
        assert Image.open(io.BytesIO(data)).size == (64, 48)


@pytest.fixture(scope="module")
def impatient_server():
    from tests.live_server import serving

    with serving(create_app(), client_timeout_s=1.0) as port:
        yield port


def answer_to(port: int, send) -> bytes:
    """What the server sends back on a connection where `send(sock)` ran (b"" when it hung up)."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # hung up mid-send: what is tested
            send(sock)
        try:
            return sock.recv(1 << 16)
        except ConnectionResetError:
            return b""


def score_request(body: bytes) -> bytes:
    return (b"POST /api/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n")


def test_a_client_that_connects_and_sends_nothing_is_disconnected(impatient_server):
    assert answer_to(impatient_server, lambda sock: None) == b""


def test_a_client_that_trickles_its_headers_is_disconnected_though_every_byte_is_on_time(impatient_server):
    def trickle(sock):
        for byte in b"GET /api/health HTTP/1.1\r\nHost: x\r\nUser-Agent: slowloris\r\n":  # 45 bytes: 9 s
            sock.send(bytes([byte]))
            time.sleep(0.2)

    assert answer_to(impatient_server, trickle) == b""


def test_an_upload_that_stalls_is_disconnected_and_a_steady_slow_one_is_answered(impatient_server):
    body = json.dumps(HAND).encode()

    def stall(sock):
        sock.send(score_request(body) + body[:10])
        time.sleep(3)
        sock.send(body[10:])

    def steady(sock):  # 1.6 s in all, but never a pause as long as the 1 s limit
        sock.send(score_request(body))
        for k in range(0, len(body), len(body) // 7 + 1):
            time.sleep(0.2)
            sock.send(body[k:k + len(body) // 7 + 1])

    assert answer_to(impatient_server, stall) == b""
    assert answer_to(impatient_server, steady).startswith(b"HTTP/1.1 200 OK\r\n")


async def _answer_after_1_5_s(scope, receive, send):
    """An app slower than the 1 s limit: the server's own slowness is no slow client."""
    if scope["type"] == "http":
        await asyncio.sleep(1.5)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})


def test_after_a_slow_answer_a_kept_alive_connection_has_the_limit_again_for_its_next_request():
    from tests.live_server import serving

    def answered_then_trickle(sock):
        sock.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        first = b""
        while not first.endswith(b"ok"):  # answered after 1.5 s, and kept alive
            first += sock.recv(1 << 16)
        assert first.startswith(b"HTTP/1.1 200 OK\r\n")
        for byte in b"GET / HTTP/1.1\r\nHost: x\r\n":
            sock.send(bytes([byte]))
            time.sleep(0.2)

    with serving(_answer_after_1_5_s, client_timeout_s=1.0) as port:
        assert answer_to(port, answered_then_trickle) == b""


def test_the_openapi_document_shows_the_bodies_the_api_sends_and_takes(client):
    from scoring.jsonio import hand_to_json
    from scoring.notation import parse_notation

    document = client.get("/openapi.json").json()
    for path, statuses in (("/api/photo", ("400", "413", "415", "422", "500", "503")),
                           ("/api/score", ("400", "413", "422", "500"))):
        responses = document["paths"][path]["post"]["responses"]
        assert ("415" in responses) == (path == "/api/photo")  # only a photo can be no image
        for status in statuses:
            schema = responses[status]["content"]["application/json"]["schema"]
            assert schema["required"] == ["ok", "error"] and schema["properties"]["ok"]["const"] is False
    assert "HTTPValidationError" not in document.get("components", {}).get("schemas", {})
    hand_schema = document["paths"]["/api/score"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    import jsonschema
    for hand in (HAND, hand_to_json(*parse_notation("1122m [234p] [5555s] {7777z} +1m 1f2f | last seat=S from=N"))):
        jsonschema.validate(hand, hand_schema)
        assert client.post("/api/score", json=hand).json()["ok"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**HAND, "seat": "E"}, hand_schema)
