"""The `drawn` art source: tile faces written with CJK fonts and drawn shapes."""

from pathlib import Path

import numpy as np
import pytest

from datasets.mjsynth import drawn
from datasets.mjsynth.art import FACE_H, FACE_W, FONT_DIR, ArtError
from datasets.mjsynth.codes import TILE_CODES

ROOTS = (FONT_DIR, Path("/usr/share/fonts/truetype"))


@pytest.fixture(scope="module")
def font_root():
    for root in ROOTS:
        try:
            drawn.font_paths(root)
            return root
        except ArtError:
            continue
    pytest.skip("no CJK font fetched or installed (datasets/fetch_art.py, or Debian fonts-wqy-microhei)")


@pytest.fixture(scope="module")
def atlas(font_root):
    return drawn.build(font_root, styles=2)


def test_every_tile_code_gets_one_face_per_style(atlas):
    assert set(atlas) == {c for c in TILE_CODES if c != "back"}
    for code, faces in atlas.items():
        assert len(faces) == 2
        for face in faces:
            assert face.shape == (FACE_H, FACE_W, 4) and face.dtype == np.uint8
            if code != "5z":  # a White dragon may be blank, as in many sets
                assert (face[:, :, 3] > 128).mean() > 0.01, code


def test_codes_of_one_style_are_told_apart(atlas):
    for style in range(2):
        faces = {code: atlas[code][style][:, :, 3].astype(int) for code in atlas if code != "5z"}
        codes = sorted(faces)
        for i, a in enumerate(codes):
            for b in codes[i + 1:]:
                assert np.abs(faces[a] - faces[b]).mean() > 2, (a, b, style)


def test_the_same_seed_draws_the_same_atlas(font_root, atlas):
    again = drawn.build(font_root, styles=2)
    assert all(np.array_equal(atlas[c][k], again[c][k]) for c in atlas for k in range(2))


def test_a_style_only_takes_fonts_that_have_its_characters(font_root):
    fonts = drawn.font_paths(font_root)
    rng = np.random.default_rng(3)
    for _ in range(8):
        style = drawn.random_style(rng, fonts)
        numerals = "".join(drawn.NUMERALS) + ("万" if style.simplified else "萬")
        assert all(ord(c) in drawn._cmap(style.numeral_font) for c in numerals)


def test_no_fonts_is_a_clear_error(tmp_path):
    with pytest.raises(ArtError) as error:
        drawn.font_paths(tmp_path)
    assert error.value.code == "source_missing" and "fetch_art.py" in str(error.value)


def test_stick_colour_schemes_keep_or_break_the_red_middle_column():
    rng = np.random.default_rng(0)
    nine = [(x, y) for x, y, _ in drawn.STICK_LAYOUT[9]]

    def inks(colours, shift=0):
        return {(x, y): drawn._stick_ink(colours, 9, x, y, shift, rng) for x, y in nine}

    conventional = inks("conventional")
    assert all((ink == 2) == (x == .5) for (x, _), ink in conventional.items())
    assert set(inks("one").values()) == {0}
    for shift in range(3):
        by_column = inks("columns", shift)
        assert len({by_column[(x, .17)] for x in (.2, .5, .8)}) == 3
        assert all(by_column[(x, y)] == by_column[(x, .17)] for x, y in nine)
