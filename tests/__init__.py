"""Cockpit's tests; the folders mirror the packages (tests/core/<package>, tests/cli, tests/ui/<area>)."""
from pathlib import Path

PAGES = Path(__file__).parent / "pages"  # the fixture pages, served by the `site` fixture
DATA = Path(__file__).parent / "data"  # files in other tools' formats
