"""The referee page in a real Chromium (Debian's /usr/bin/chromium driven by Playwright).

The app runs under uvicorn on a free local port; the browser uploads the bundled sample photo,
checks the overlay, corrects a tile and watches the score follow, and sends a bad file.
"""

from __future__ import annotations

import json
import math
import re
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "demo-hand.jpg"
SAMPLE_FACTS = SAMPLE.with_suffix(".json")

if not CHROMIUM.exists():
    pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
                allow_module_level=True)
pytest.importorskip("playwright", reason="browser tests need the playwright package (test extra)")
pytest.importorskip("uvicorn", reason="the web extra (fastapi, uvicorn, python-multipart) is not installed")

import uvicorn  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402

from vision.server import create_app  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def base_url():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start within 30 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, base_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(60_000)  # the first photo loads the detector
    pg.goto(base_url + "/")
    yield pg
    context.close()


def sample_context() -> dict:
    """The sample's win context (stored beside it as `mjlens photo` options) as page/API fields."""
    args = json.loads(SAMPLE_FACTS.read_text())["photo_args"]
    return {"self_drawn": "--self-drawn" in args, "seat_wind": args[args.index("--seat") + 1],
            "round_wind": args[args.index("--round") + 1]}


def upload_sample(page):
    context = sample_context()
    page.set_checked("#self_drawn", context["self_drawn"])
    page.select_option("#seat_wind", context["seat_wind"])
    page.select_option("#round_wind", context["round_wind"])
    page.set_input_files("#photo-input", str(SAMPLE))
    expect(page.locator("#overlay g.tile-box").first).to_be_visible()
    expect(page.locator("#score-status")).not_to_have_text("")


@pytest.fixture(scope="module")
def reading():
    """What the pipeline itself reads in the sample (the page must show exactly this)."""
    from vision.pipeline import read_photo

    result = read_photo(str(SAMPLE), context=sample_context()).to_json()
    assert result["tiles"], "the shipped detector finds no tiles at all in the bundled sample"
    return result


@pytest.fixture
def winning_reading(reading):
    # Rescoring checks need a photo read as a win; reading accuracy itself is the detector's
    # and pipeline's to test (benchmarks/, tests/test_reader.py), not the page's.
    if not (reading["score"] or {}).get("winning"):
        pytest.skip("the shipped detector does not read samples/demo-hand.jpg as a winning hand")
    return reading


def test_sample_photo_overlay_shows_every_tile_the_pipeline_read(page, reading):
    upload_sample(page)
    expect(page.locator("#overlay g.tile-box")).to_have_count(len(reading["tiles"]))
    codes = page.locator("#overlay g.tile-box text").all_text_contents()
    assert [c.rstrip("?") for c in codes] == [t["code"] for t in reading["tiles"]]
    uncertain = [i for i, t in enumerate(reading["tiles"]) if t["uncertain"] or t["confidence"] < 0.6]
    expect(page.locator("#overlay g.tile-box.uncertain")).to_have_count(len(uncertain))
    expect(page.locator("#rules option")).not_to_have_count(0)
    if (reading["score"] or {}).get("winning"):
        percent = {k: math.floor(100 * reading[k] + 0.5) for k in ("score_confidence", "confidence")}  # JS Math.round
        expect(page.locator("#read-confidence")).to_have_text(
            f"As read from the photo: the score is right with probability {percent['score_confidence']}%, "
            f"every tile with {percent['confidence']}%.")


def test_an_iphone_heic_photo_shows_with_its_tiles(page, reading, tmp_path):
    """Chromium cannot show HEIC itself: the page draws the tiles on the server's preview."""
    from PIL import Image

    from vision.detector import register_phone_formats

    register_phone_formats()
    heic = tmp_path / "IMG_0001.HEIC"
    Image.open(SAMPLE).save(heic, quality=95)
    context = sample_context()
    page.select_option("#seat_wind", context["seat_wind"])
    page.set_input_files("#photo-input", str(heic))
    expect(page.locator("#overlay g.tile-box")).to_have_count(len(reading["tiles"]))
    page.wait_for_function("document.querySelector('#photo').complete")
    assert page.eval_on_selector("#photo", "img => [img.naturalWidth, img.src.slice(0, 23)]") == [
        Image.open(SAMPLE).width, "data:image/jpeg;base64,"]


def test_correcting_a_tile_sends_the_corrected_hand_and_shows_the_answer(page, reading):
    upload_sample(page)
    tile = 0
    new_code = "7z" if reading["tiles"][tile]["code"] != "7z" else "1z"
    # Mark it as the winning tile first: without one the page asks for it instead of scoring.
    page.click(f"#overlay g[data-tile='{tile}']")
    with page.expect_response(lambda r: "/api/score" in r.url):
        page.click("#picker-winning")
    expect(page.locator(f"#groups .chip.winning[data-tile='{tile}']")).to_be_visible()

    page.click(f"#overlay g[data-tile='{tile}']")
    with page.expect_response(lambda r: "/api/score" in r.url) as answer:
        page.click(f"#picker-tiles button[data-code='{new_code}']")
    assert answer.value.request.post_data_json["winning_tile"] == new_code
    expect(page.locator(f"#overlay g[data-tile='{tile}'] text")).to_have_text(new_code)
    body = answer.value.json()
    expect(page.locator("#total")).to_have_text(f"{body['total']} 番" if body["ok"] else "")
    expect(page.locator("#score-status")).to_have_text(
        body["error"]["message"] if not body["ok"] else re.compile(r"\S"))


def test_sample_scores_as_the_pipeline_says(page, winning_reading):
    upload_sample(page)
    expect(page.locator("#total")).to_have_text(f"{winning_reading['score']['total']} 番")
    expect(page.locator("#fans tbody tr")).to_have_count(len(winning_reading["score"]["fans"]))


def test_correcting_a_tile_rescores_and_correcting_back_restores(page, winning_reading):
    upload_sample(page)
    original = page.locator("#total").inner_text()
    winning = page.locator("#groups .chip.winning")
    tile = winning.get_attribute("data-tile")
    true_code = page.locator(f"#overlay g[data-tile='{tile}'] text").text_content().rstrip("?")
    wrong = "7z" if true_code != "7z" else "1z"

    winning.click()
    page.click(f"#picker-tiles button[data-code='{wrong}']")
    expect(page.locator(f"#overlay g[data-tile='{tile}'] text")).to_have_text(wrong)
    expect(page.locator("#score-status")).to_have_class("status bad")
    assert page.locator("#total").inner_text() != original

    page.click(f"#groups .chip[data-tile='{tile}']")
    page.click(f"#picker-tiles button[data-code='{true_code}']")
    expect(page.locator("#total")).to_have_text(original)


def test_context_change_rescores_and_fans_point_at_tiles(page, winning_reading):
    upload_sample(page)
    total_before = page.locator("#total").inner_text()
    page.check("#last_tile")  # 妙手回春 (self-drawn, 8) or 海底捞月 (8) joins the fans
    expect(page.locator("#total")).not_to_have_text(total_before)
    expect(page.locator("#fans")).to_contain_text("Last Tile")
    page.locator("#fans tbody tr").first.hover()
    expect(page.locator("#overlay g.tile-box.highlight").first).to_be_visible()


def test_bad_file_shows_a_friendly_error(page, tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("these are not tiles")
    page.set_input_files("#photo-input", str(bad))
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#error")).to_contain_text("not a photo")
    expect(page.locator("#photo-section")).to_be_hidden()


def test_page_fits_a_phone_screen(browser, base_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    pg = context.new_page()
    pg.goto(base_url + "/")
    expect(pg.locator("label[for='photo-input']")).to_be_visible()
    assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert pg.get_attribute("#photo-input", "capture") == "environment"
    context.close()
