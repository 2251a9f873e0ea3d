"""The referee page in a real Chromium (Debian's /usr/bin/chromium driven by Playwright).

The app runs under uvicorn on a free local port; the browser uploads the bundled sample photo,
checks the overlay, corrects a tile and watches the score follow, and sends a bad file.
"""

from __future__ import annotations

import json
import math
import re
import time
from pathlib import Path
from urllib.parse import unquote

import pytest

CHROMIUM = Path("/usr/bin/chromium")
SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "demo-hand.jpg"
SAMPLE_FACTS = SAMPLE.with_suffix(".json")

if not CHROMIUM.exists():
    pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
                allow_module_level=True)
pytest.importorskip("playwright", reason="browser tests need the playwright package (test extra)")
pytest.importorskip("uvicorn", reason="the web extra (fastapi, uvicorn, python-multipart) is not installed")

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from tests.live_server import serving  # noqa: E402
from vision.server import create_app  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def base_url():
    with serving(create_app()) as port:
        yield f"http://127.0.0.1:{port}"


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
    # Rescoring checks need a photo read as a win. The bundled sample is the README's demo,
    # which must read as one: a model that no longer does is a regression, not a reason to skip.
    assert (reading["score"] or {}).get("winning"), "the shipped models no longer read samples/demo-hand.jpg as a win"
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
    with page.expect_response(lambda r: "/api/score" in r.url) as answer:
        page.click(f"#picker-tiles button[data-code='{wrong}']")
    expect(page.locator(f"#overlay g[data-tile='{tile}'] text")).to_have_text(wrong)
    expect(page.locator("#score-status")).to_have_class("status bad")
    body = answer.value.json()  # the page says why, as `mjlens score` does
    expect(page.locator("#score-status")).to_have_text(body["why"] if body["ok"] else body["error"]["message"])
    assert page.locator("#score-status").inner_text().startswith(("Not a winning hand", "Below the minimum"))
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


def test_rule_set_options_are_offered_per_rule_set_and_rescore(page, winning_reading):
    upload_sample(page)
    with page.expect_response(lambda r: "/api/score" in r.url):
        page.select_option("#rules", "sihai")
    page.click("#rule-options summary")
    edition = page.locator("#option-fields select[name='edition']")  # a choice of the allowed values
    expect(edition).to_have_value("D")
    assert edition.locator("option").all_text_contents() == ["A", "B", "C", "D"]
    expect(page.locator("#option-fields")).to_contain_text("分付线")  # what each option switches, written out
    expect(page.locator("#option-fields input[name='kong_1998']")).to_have_count(0)  # MCR's, not Sihai's
    with page.expect_response(lambda r: "/api/score" in r.url and '"level":"II"' in unquote(r.url)):
        page.select_option("#option-fields select[name='level']", "II")
    with page.expect_response(lambda r: "/api/score" in r.url and '"edition":"B"' in unquote(r.url)) as answer:
        edition.select_option("B")
    body = answer.value.json()
    assert body["ok"] and body["breakdown"]["edition"] == "B" and body["breakdown"]["level"] == "II"
    expect(page.locator("#total")).to_have_text(f"{body['total']} 分")  # Sihai counts points, not 番
    expect(page.locator("#score-summary")).to_have_text(body["summary"])
    with page.expect_response(lambda r: "/api/score" in r.url) as answer:
        page.select_option("#rules", "mcr")  # another rule set: its own options, at their defaults
    assert "options=%7B%7D" in answer.value.url
    expect(page.locator("#option-fields input[name='kong_1998']")).not_to_be_checked()
    expect(page.locator("#total")).to_have_text(re.compile(r"^\d+ 番$"))


def test_an_option_the_browser_cannot_read_or_the_server_refuses_is_named_and_marked(page, winning_reading):
    upload_sample(page)
    page.click("#rule-options summary")
    minimum = page.locator("#option-fields input[name='minimum']")
    minimum.fill("")
    minimum.type("1e400")  # past what the browser holds: its value reads "", as an empty field's
    minimum.dispatch_event("change")
    expect(page.locator("#score-status")).to_have_text("minimum: not a number, or too large a one: correct it.")
    expect(minimum).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#total")).to_have_text("")
    with page.expect_response(lambda r: "/api/score" in r.url):
        minimum.fill("-5")
        minimum.dispatch_event("change")
    expect(page.locator("#score-status")).to_have_text("mcr option minimum cannot be negative, got -5")
    expect(minimum).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#option-fields input[name='base']")).not_to_have_attribute("aria-invalid", "true")
    with page.expect_response(lambda r: "/api/score" in r.url):
        minimum.fill("8")
        minimum.dispatch_event("change")
    expect(page.locator("#total")).to_have_text(f"{winning_reading['score']['total']} 番")
    expect(minimum).not_to_have_attribute("aria-invalid", "true")


@pytest.fixture(scope="module")
def rotated_sample(tmp_path_factory):
    """The sample turned on its side: another photo, of another size."""
    from PIL import Image

    path = tmp_path_factory.mktemp("photos") / "demo-hand-rotated.jpg"
    Image.open(SAMPLE).rotate(270, expand=True).save(path, quality=92)
    return path


@pytest.fixture(scope="module")
def closed_up_sample(tmp_path_factory):
    """The sample with no tile set apart: the strip of the photo from the row's end to the winning
    tile's face (pixel columns 985-999: the table between them and the tile's side) cut out, and
    the photo's right edge drawn out to keep its size."""
    import numpy as np
    from PIL import Image

    pixels = np.asarray(Image.open(SAMPLE).convert("RGB"))
    path = tmp_path_factory.mktemp("photos") / "demo-hand-closed-up.jpg"
    Image.fromarray(np.concatenate([pixels[:, :985], pixels[:, 1000:], pixels[:, -15:]], axis=1)).save(path, quality=92)
    return path


def wait_until(page, condition, seconds=30):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        page.wait_for_timeout(20)


def photo_answer(page, base_url, photo):
    """The server's /api/photo answer for `photo`, read with the sample's context."""
    response = page.request.post(base_url + "/api/photo", multipart={
        "image": {"name": photo.name, "mimeType": "image/jpeg", "buffer": photo.read_bytes()},
        "context": json.dumps(sample_context())})
    assert response.ok, response.text()
    return response.json()


@pytest.mark.parametrize("older_answers", ["first", "last"])
def test_only_the_last_chosen_photo_is_read_and_busy_lasts_until_it_is(page, base_url, reading, rotated_sample,
                                                                      older_answers):
    """Two photos chosen close together, answered in either order: only the second is shown, and
    the page stays busy until it is read."""
    from PIL import Image

    older_answer = photo_answer(page, base_url, rotated_sample)
    held = []
    page.route("**/api/photo", lambda route: held.append(route))
    page.set_input_files("#photo-input", str(rotated_sample))
    wait_until(page, lambda: len(held) == 1)
    page.set_input_files("#photo-input", str(SAMPLE))
    wait_until(page, lambda: len(held) == 2)
    older, newer = held

    def answer_older():
        # Delivered even where the page has given up on the request: it must not be shown.
        older.fulfill(json=older_answer)
        page.wait_for_timeout(500)  # time for the page to take in an answer it still wanted

    if older_answers == "first":
        answer_older()
        expect(page.locator("#busy")).to_be_visible()
        expect(page.locator("#photo-section")).to_be_hidden()
        newer.continue_()
    else:
        newer.continue_()
        expect(page.locator("#overlay g.tile-box")).to_have_count(len(reading["tiles"]))
        expect(page.locator("#busy")).to_be_hidden()
        answer_older()
    expect(page.locator("#busy")).to_be_hidden()
    width, height = Image.open(SAMPLE).size
    expect(page.locator("#overlay")).to_have_attribute("viewBox", f"0 0 {width} {height}")
    codes = page.locator("#overlay g.tile-box text").all_text_contents()
    assert [c.rstrip("?") for c in codes] == [t["code"] for t in reading["tiles"]]
    expect(page.locator("#error")).to_be_hidden()


def expect_score_shown(page, result):
    """The score card shows `result`, an answer of scoring.score_json."""
    if not result["ok"]:
        expect(page.locator("#total")).to_have_text("")
        expect(page.locator("#score-status")).to_have_text(result["error"]["message"])
        return
    expect(page.locator("#total")).to_have_text(f"{result['total']} 番")
    expect(page.locator("#fans tbody tr")).to_have_count(len(result["fans"]))


def pick(page, tile, code):
    """Taps the tile on the photo, picks `code` and returns the hand the page then sent to be scored."""
    page.click(f"#overlay g[data-tile='{tile}']")
    with page.expect_response(lambda r: "/api/score" in r.url) as answer:
        page.click(f"#picker-tiles button[data-code='{code}']")
    return answer.value.request.post_data_json


def test_a_tile_corrected_to_a_flower_moves_to_the_flowers_and_back(page, winning_reading):
    from scoring import score_json

    upload_sample(page)
    hand = winning_reading["hand"]
    concealed = next(g["tiles"] for g in winning_reading["groups"] if g["kind"] == "concealed")
    tile = concealed[0]
    code = winning_reading["tiles"][tile]["code"]
    page.click(f"#overlay g[data-tile='{tile}']")
    expect(page.locator("#picker-tiles button[data-code='back']")).to_be_hidden()  # no kong to lie face down in
    page.click("#picker button[value='cancel']")

    sent = pick(page, tile, "3f")
    without = list(hand["concealed"])
    without.remove(code)
    as_flower = {**hand, "concealed": sorted(without), "flowers": ["3f"]}
    assert {**sent, "concealed": sorted(sent["concealed"])} == as_flower
    expect_score_shown(page, score_json(as_flower))
    expect(page.locator(f"#groups .group.concealed .chip[data-tile='{tile}']")).to_have_count(0)
    expect(page.locator(f"#groups .group.flowers .chip[data-tile='{tile}']")).to_be_visible()  # reachable by keyboard
    expect(page.locator("#flower-buttons button[data-code='3f']")).to_have_attribute("aria-pressed", "true")

    sent = pick(page, tile, code)
    assert {**sent, "concealed": sorted(sent["concealed"])} == {**hand, "concealed": sorted(hand["concealed"])}
    expect_score_shown(page, score_json(hand))
    expect(page.locator(f"#groups .group.concealed .chip[data-tile='{tile}']")).to_be_visible()
    expect(page.locator("#groups .group.flowers")).to_have_count(0)
    expect(page.locator("#flower-buttons button[data-code='3f']")).to_have_attribute("aria-pressed", "false")


def test_a_meld_that_loses_a_tile_to_the_flowers_rejoins_the_concealed_hand(page, base_url, winning_reading):
    """A flower misread as a playing tile and grouped into a meld: corrected, the meld is gone."""
    from scoring import score_json

    tiles = winning_reading["tiles"]
    concealed = next(g["tiles"] for g in winning_reading["groups"] if g["kind"] == "concealed")
    meld = concealed[:3]
    answer = photo_answer(page, base_url, SAMPLE)
    for g in answer["groups"]:
        g["tiles"] = [i for i in g["tiles"] if i not in meld]
    answer["groups"].append({"kind": "chow", "concealed": False, "tiles": meld})
    page.route("**/api/photo", lambda route: route.fulfill(json=answer))
    upload_sample(page)
    expect(page.locator("#groups .group.meld .chip")).to_have_count(3)
    expect(page.locator("#groups .group.meld button.stack")).to_have_count(0)  # a chow is never stacked
    sent = pick(page, meld[0], "3f")
    expect(page.locator("#groups .group.meld")).to_have_count(0)
    hand = winning_reading["hand"]
    without = list(hand["concealed"])
    without.remove(tiles[meld[0]]["code"])
    as_flower = {**hand, "concealed": sorted(without), "flowers": ["3f"]}
    assert {**sent, "concealed": sorted(sent["concealed"])} == as_flower
    expect_score_shown(page, score_json(as_flower))


def answer_with_an_8m_meld(page, base_url, **group) -> list[int]:
    """The sample's answer with its 8m pair and another concealed tile, read 8m, made an exposed
    meld (its group given `group`'s fields), served as the photo's reading; the meld's tiles."""
    answer = photo_answer(page, base_url, SAMPLE)
    tiles = answer["tiles"]
    concealed = next(g for g in answer["groups"] if g["kind"] == "concealed")
    meld = [i for i in concealed["tiles"] if tiles[i]["code"] == "8m"][:2] + [concealed["tiles"][-1]]
    for i in meld:
        tiles[i]["code"] = "8m"
    concealed["tiles"] = [i for i in concealed["tiles"] if i not in meld]
    answer["groups"].append({"concealed": False, "tiles": meld, **group})
    page.route("**/api/photo", lambda route: route.fulfill(json=answer))
    return meld


def test_a_pung_with_a_tile_corrected_away_is_no_set_and_is_not_sent(page, base_url, winning_reading):
    """The sample's 8m pair plus another tile made an exposed pung: one of its tiles corrected to
    another code leaves three tiles that make no set, which the page says instead of scoring."""
    pung = answer_with_an_8m_meld(page, base_url, kind="pung")
    upload_sample(page)
    expect(page.locator("#groups .group.meld .group-name")).to_have_text("pung · exposed")
    page.click(f"#groups .chip[data-tile='{pung[0]}']")
    page.click("#picker-tiles button[data-code='7z']")
    expect(page.locator("#groups .group.meld .group-name")).to_have_text("not a set · exposed")
    expect(page.locator("#score-status")).to_have_text("7z 8m 8m is not a set: correct its tiles.")
    expect(page.locator("#warnings")).to_have_class(re.compile("stale"))  # the photo's notes no longer hold


def test_a_stacked_kong_is_scored_as_four_tiles_and_its_toggle_makes_it_a_pung_and_back(page, base_url,
                                                                                       winning_reading):
    """A kong shown as three tiles with the fourth on the middle one (the pipeline's `stacked`
    group) is sent as four; the group's toggle reads it as a pung, and a pung (a stacked kong seen
    from above) as a kong again."""
    answer_with_an_8m_meld(page, base_url, kind="kong", stacked=True)
    name = page.locator("#groups .group.meld .group-name")
    with page.expect_response(lambda r: "/api/score" in r.url) as scored:
        upload_sample(page)
    expect(name).to_have_text("kong (stacked) · exposed")
    assert scored.value.request.post_data_json["melds"] == [{"kind": "kong", "tiles": ["8m"] * 4, "concealed": False}]
    for shown, meld in [("pung · exposed", {"kind": "pung", "tiles": ["8m"] * 3, "concealed": False}),
                        ("kong (stacked) · exposed", {"kind": "kong", "tiles": ["8m"] * 4, "concealed": False})]:
        with page.expect_response(lambda r: "/api/score" in r.url) as scored:
            page.click("#groups .group.meld button.stack")
        expect(name).to_have_text(shown)
        assert scored.value.request.post_data_json["melds"] == [meld]
    with page.expect_response(lambda r: "/api/score" in r.url) as scored:
        page.click("#groups .group.meld button.toggle:not(.stack)")
    expect(name).to_have_text("kong (stacked) · concealed")
    assert scored.value.request.post_data_json["melds"] == [{"kind": "kong", "tiles": ["8m"] * 4, "concealed": True}]


def test_a_stray_tile_leaves_the_hand_and_joins_it_again(page, winning_reading):
    upload_sample(page)
    original = page.locator("#total").inner_text()
    concealed = next(g["tiles"] for g in winning_reading["groups"] if g["kind"] == "concealed")
    stray = concealed[0]
    page.click(f"#groups .chip[data-tile='{stray}']")
    expect(page.locator("#picker-join")).to_be_hidden()
    with page.expect_response(lambda r: "/api/score" in r.url) as answer:
        page.click("#picker-leave")
    assert len(answer.value.request.post_data_json["concealed"]) == len(concealed) - 1
    expect(page.locator(f"#groups .group.unassigned .chip[data-tile='{stray}']")).to_be_visible()
    expect(page.locator("#score-status")).to_have_class("status bad")
    page.click(f"#groups .chip[data-tile='{stray}']")
    expect(page.locator("#picker-leave")).to_be_hidden()
    page.click("#picker-join")
    expect(page.locator(f"#groups .group.unassigned .chip[data-tile='{stray}']")).to_have_count(0)
    expect(page.locator("#total")).to_have_text(original)


def test_a_photo_that_cannot_be_read_clears_the_previous_hand(page, winning_reading, tmp_path):
    upload_sample(page)
    expect(page.locator("#total")).not_to_have_text("")
    blank = tmp_path / "blank.png"
    from PIL import Image

    Image.new("RGB", (320, 240), (40, 120, 60)).save(blank)
    page.set_input_files("#photo-input", str(blank))
    expect(page.locator("#error")).to_contain_text("No tiles found")
    for section in ("#photo-section", "#hand-section", "#score-section"):
        expect(page.locator(section)).to_be_hidden()  # not the previous photo's hand and score


def test_a_photo_without_a_tile_set_apart_says_how_to_mark_the_winning_tile_where_it_matters(page, closed_up_sample):
    from tests.synthetic_boxes import RowSpec, row_detections
    from vision.pipeline import read_detections, read_photo

    # The sample is seven pairs: whichever of its tiles won, it scores the same, and nothing is said.
    closed_up = read_photo(str(closed_up_sample), context=sample_context())
    assert closed_up.score["total"] == 30 and not any("--winning-tile" in w for w in closed_up.warnings)
    page.set_input_files("#photo-input", str(closed_up_sample))
    expect(page.locator("#total")).to_have_text("30 番")
    expect(page.locator("#warnings")).not_to_contain_text("Mark as winning tile")
    # 123m 456p 789s 55z 777z: a 3m won is an edge wait (边张), a 7z not; the page says what to do.
    row = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "7z", "7z", "7z"]
    warnings = read_detections(row_detections(RowSpec(row))).warnings
    assert any("give the right one with --winning-tile" in w for w in warnings)
    shown = page.evaluate("texts => texts.map(warningText)", warnings)
    assert any('tap the right tile and choose "Mark as winning tile"' in w for w in shown)
    assert not any("--winning-tile" in w for w in shown)


def test_settings_that_contradict_each_other_are_blamed_not_the_photo(page):
    page.check("#self_drawn")
    page.check("#robbing_kong")  # a kong is robbed from a discarder's kong, never self-drawn
    page.set_input_files("#photo-input", str(SAMPLE))
    expect(page.locator("#error")).to_contain_text("Check the settings: ")
    expect(page.locator("#error")).not_to_contain_text("Could not read that photo")


def test_the_pipelines_advice_is_given_in_the_pages_terms(page):
    from vision.pipeline import PhotoResult, _request, _warn_of_a_doubtful_score

    doubtful = PhotoResult()
    _warn_of_a_doubtful_score(doubtful, _request("mcr", None, None, None, (), None))  # the page names no winning tile
    advice = [*doubtful.warnings,
              "the flower read 1f may be 2f, which scores 9 instead of 10: name the winner's flowers (--flowers)",
              "the hand scores 7, below the minimum. If the 5p pung is a kong laid with its fourth tile under the "
              "middle one, give --kong 5p: it then scores 9; if the 7z pung is ..., give --kong 7z: it then scores 9.",
              "the tile set apart at the left ... sorted from it; if it is the winning tile, name it: --winning-tile 3s",
              "...; if the winning tile is not in the photo, name it with --winning-tile (e.g. 5p)",
              "1 concealed kong(s) lie with all four tiles face down, so their tile cannot be seen; name each with "
              "--kong CODE (e.g. --kong 5p)",
              "the 6z kong lies all face up with no tile turned and was read as concealed; if it was claimed "
              "(exposed), it scores 9 instead of 10"]
    shown = page.evaluate("texts => texts.map(warningText)", advice)
    assert not any("--" in text for text in shown), shown
    assert "tap a tile to correct it" in shown[0] and "tap the flower to name it" in shown[1]
    assert shown[2].count('press "a fourth under it" on that meld:') == 2
    assert shown[3].endswith('tap it and choose "Mark as winning tile"')
    assert shown[6].endswith('it scores 9 instead of 10: press "make exposed" on it')


def payments_line(result, note):
    """The score card's payments line for `result`, an answer of scoring.score_json."""
    pay = result["payments"]
    return "Payments: " + "  ".join(f"{w} {pay[w]:+d}" if pay[w] else f"{w} 0" for w in "ESWN") + f" ({note})"


def photo_contexts(page) -> list:
    """The `context` of every photo the page sends to be read from now on.

    Read on the way through a route: Chromium reports no body for a request that uploads a file.
    """
    contexts = []

    def note(route):
        form = route.request.post_data_buffer
        contexts.append(json.loads(re.search(rb'name="context"\r\n\r\n(.*?)\r\n', form, re.S).group(1)))
        route.continue_()

    page.route("**/api/photo", note)
    return contexts


def sorted_hand(hand):
    """`hand` with its concealed tiles in order: the page sends them in the photo's order."""
    return {**hand, "concealed": sorted(hand["concealed"])}


def test_by_default_no_discarder_is_sent_and_the_seat_before_the_winner_pays(page, winning_reading):
    from scoring import score_json

    photos = photo_contexts(page)
    rescored = []
    page.on("request", lambda r: rescored.append(r.post_data_json) if "/api/score" in r.url else None)
    upload_sample(page)
    hand = winning_reading["hand"]
    expect(page.locator("#payments")).to_have_text(payments_line(score_json(hand), "discard from E"))  # seat S
    assert len(photos) == 1 and "discarder" not in photos[0]
    assert rescored and sorted_hand(rescored[-1]) == sorted_hand(hand)  # no discarder key


def test_choosing_the_discarder_rescores_and_the_payments_name_it(page, winning_reading):
    from scoring import score_json

    upload_sample(page)
    expect(page.locator("#discarder option[value='S']")).to_be_disabled()  # the winner's own seat
    with page.expect_response(lambda r: "/api/score" in r.url) as answer:
        page.select_option("#discarder", "N")
    from_north = {**winning_reading["hand"], "discarder": "N"}
    assert sorted_hand(answer.value.request.post_data_json) == sorted_hand(from_north)
    expect(page.locator("#payments")).to_have_text(payments_line(score_json(from_north), "discard from N"))

    # The photo is read with the situation as set, discarder included.
    photos = photo_contexts(page)
    with page.expect_response(lambda r: "/api/score" in r.url) as answer:
        page.set_input_files("#photo-input", str(SAMPLE))
    assert [c.get("discarder") for c in photos] == ["N"]
    assert answer.value.request.post_data_json["discarder"] == "N"
    expect(page.locator("#payments")).to_have_text(payments_line(score_json(from_north), "discard from N"))

    # North wins now: nobody wins on their own discard, so the choice falls back to the default.
    with page.expect_response(lambda r: "/api/score" in r.url) as answer:
        page.select_option("#seat_wind", "N")
    expect(page.locator("#discarder")).to_have_value("")
    assert "discarder" not in answer.value.request.post_data_json
    expect(page.locator("#payments")).to_contain_text("(discard from W)")
    expect(page.locator("#error")).to_be_hidden()


def test_a_self_drawn_win_disables_the_discarder_and_sends_none(page, winning_reading):
    from scoring import score_json

    upload_sample(page)
    page.select_option("#discarder", "N")
    expect(page.locator("#payments")).to_contain_text("(discard from N)")
    with page.expect_response(lambda r: "/api/score" in r.url) as answer:
        page.check("#self_drawn")
    expect(page.locator("#discarder")).to_be_disabled()
    sent = answer.value.request.post_data_json
    assert sent["self_drawn"] and "discarder" not in sent
    expect(page.locator("#payments")).to_have_text(
        payments_line(score_json({**winning_reading["hand"], "self_drawn": True}), "self-drawn"))

    with page.expect_response(lambda r: "/api/score" in r.url) as answer:
        page.uncheck("#self_drawn")
    expect(page.locator("#discarder")).to_be_enabled()
    assert answer.value.request.post_data_json["discarder"] == "N"  # the choice outlives the self-drawn tick
    expect(page.locator("#payments")).to_contain_text("(discard from N)")


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


def test_on_a_phone_tile_labels_are_legible_and_flower_buttons_apart(browser, base_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.goto(base_url + "/")
    upload_sample(pg)
    pg.wait_for_function("document.querySelector('#photo').complete")
    label_px = pg.evaluate("""() => {
        const svg = document.querySelector('#overlay');
        const perUnit = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * perUnit);
    }""")
    assert label_px and round(min(label_px), 3) >= 11
    buttons = pg.eval_on_selector_all("#flower-buttons button", "bs => bs.map((b) => b.getBoundingClientRect())"
                                      ".map((r) => [r.top, r.left, r.right])")
    for (top, _, right), (next_top, next_left, _) in zip(buttons, buttons[1:]):
        assert next_top != top or next_left - right >= 3
    context.close()


def test_a_score_answered_busy_is_asked_again_by_itself(page, winning_reading):
    upload_sample(page)
    total = page.locator("#total").inner_text()
    busy = {"ok": False, "error": {"code": "busy", "message": "the server is busy with other requests; try "
                                                               "scoring the hand again in a few seconds"}}
    answers = []

    def once_busy(route):
        answers.append(route.request.url)
        if len(answers) == 1:
            route.fulfill(status=429, content_type="application/json", body=json.dumps(busy))
        else:
            route.continue_()

    page.route("**/api/score*", once_busy)
    page.check("#last_tile")
    expect(page.locator("#score-status")).to_have_text(busy["error"]["message"])
    expect(page.locator("#total")).not_to_have_text(re.compile(rf"^{re.escape(total)}$"), timeout=10_000)
    expect(page.locator("#fans")).to_contain_text("Last Tile", timeout=10_000)
    assert len(answers) == 2


def test_a_picker_left_open_while_another_photo_is_read_closes_when_it_arrives(page, winning_reading):
    """Else its choice went to the tile at the same place in the new photo's reading."""
    upload_sample(page)
    held = []
    page.route("**/api/photo", lambda route: held.append(route))
    page.set_input_files("#photo-input", str(SAMPLE))
    wait_until(page, lambda: len(held) == 1)
    page.click("#overlay g[data-tile='0']")
    expect(page.locator("#picker")).to_have_attribute("open", "")
    held[0].continue_()
    expect(page.locator("#busy")).to_be_hidden()
    expect(page.locator("#picker")).not_to_have_attribute("open", "")


def test_the_picker_opens_on_the_tiles_own_code_and_a_tap_beside_it_closes_it(page, winning_reading):
    upload_sample(page)
    page.click("#overlay g[data-tile='0']")
    code = winning_reading["tiles"][0]["code"]
    assert page.evaluate("document.activeElement.dataset.code") == code  # Enter leaves the tile as it is
    page.mouse.click(5, 5)  # the backdrop
    expect(page.locator("#picker")).not_to_have_attribute("open", "")
    expect(page.locator("#overlay g.tile-box text").first).to_have_text(re.compile(rf"^{code}\??$"))


def test_a_score_on_its_way_marks_the_one_shown_as_old(page, winning_reading):
    upload_sample(page)
    held = []
    page.route("**/api/score*", lambda route: held.append(route))
    page.check("#last_tile")
    wait_until(page, lambda: len(held) == 1)
    expect(page.locator("#score-section")).to_have_class(re.compile(r"\bstale\b"))
    held[0].continue_()
    expect(page.locator("#fans")).to_contain_text("Last Tile")
    expect(page.locator("#score-section")).not_to_have_class(re.compile(r"\bstale\b"))


def test_a_score_that_never_reached_the_server_is_asked_again_by_itself(page, winning_reading):
    upload_sample(page)
    asked = []

    def down_once(route):
        asked.append(route.request.url)
        route.abort() if len(asked) == 1 else route.continue_()

    page.route("**/api/score*", down_once)
    page.check("#last_tile")
    expect(page.locator("#score-status")).to_have_text(
        "Could not reach the server (is it still running, and this device online?); trying again in 3 s.")
    expect(page.locator("#fans")).to_contain_text("Last Tile", timeout=10_000)
    assert len(asked) == 2


def test_a_photo_that_never_reached_the_server_leaves_the_hand_on_screen(page, winning_reading):
    upload_sample(page)
    page.route("**/api/photo", lambda route: route.abort())
    page.set_input_files("#photo-input", str(SAMPLE))
    expect(page.locator("#error")).to_contain_text("Could not reach the server, so the photo just chosen was not read")
    expect(page.locator("#hand-section")).to_be_visible()
    expect(page.locator("#overlay g.tile-box")).to_have_count(len(winning_reading["tiles"]))


def test_a_photo_over_the_servers_pixel_limit_is_shrunk_in_the_browser_and_read(browser, tmp_path):
    """A phone's 50-200 MP photo: the server's 413 is answered by sending it again shrunk."""
    from PIL import Image

    from vision.server import ServerSettings

    big = tmp_path / "big.jpg"
    Image.open(SAMPLE).resize((4800, 3600)).save(big, quality=90)  # 17 MP, over the 16 MP limit below
    with serving(create_app(ServerSettings(max_pixels=16_000_000))) as port:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(f"http://127.0.0.1:{port}/")
        statuses = []
        page.on("response", lambda r: statuses.append(r.status) if "/api/photo" in r.url else None)
        page.set_input_files("#photo-input", str(big))
        expect(page.locator("#overlay g.tile-box").first).to_be_visible()
        expect(page.locator("#busy")).to_be_hidden()
        expect(page.locator("#error")).to_be_hidden()
        assert statuses == [413, 200]
        assert page.locator("#overlay").get_attribute("viewBox") == "0 0 4000 3000"
        context.close()


def test_a_flower_whose_button_is_turned_off_is_shown_as_not_counted(page, winning_reading):
    upload_sample(page)
    pick(page, 0, "1f")
    chip = page.locator("#groups .chip[data-tile='0']")
    expect(chip).not_to_have_class(re.compile(r"\buncounted\b"))
    page.click("#flower-buttons button[data-code='1f']")
    expect(chip).to_have_class(re.compile(r"\buncounted\b"))
