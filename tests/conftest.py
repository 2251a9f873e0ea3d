"""Test-session isolation and fixtures shared by all test modules."""

import importlib.util
import sys
from pathlib import Path

import PIL.Image
import pytest

try:  # the property tests draw the same examples on every run: a CI failure can be rerun as it was
    from hypothesis import settings

    settings.register_profile("repeatable", derandomize=True)
    settings.load_profile("repeatable")
except ImportError:  # the test extra is not installed: those tests are skipped anyway
    pass

_PIL_OPEN = PIL.Image.open


@pytest.fixture(autouse=True)
def _restore_pil_open():
    """Undo ultralytics' global patch of PIL.Image.open after each test.

    Importing ultralytics (the peer-weights and training tests do) replaces PIL.Image.open
    with a wrapper that tries to pip-install a HEIF plugin on any unidentified image; the
    product never imports ultralytics beside the photo path, so later tests must see PIL's own.
    """
    yield
    PIL.Image.open = _PIL_OPEN


@pytest.fixture
def fluffystuff_atlas(tmp_path):
    """The fluffystuff art (CC0, in ../shared) rasterised into a temporary cache; the test is
    skipped without the art or cairosvg."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "datasets"))
    from mjsynth import art

    if not art.FLUFFY_DIR.is_dir() or importlib.util.find_spec("cairosvg") is None:
        pytest.skip("needs ../shared fluffystuff art and cairosvg")
    return art.load_atlas("fluffystuff", tmp_path)
