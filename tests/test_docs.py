"""The manual stays true to the code (docs/, built with MkDocs; see docs/development/index.md).

The layout page names every package and module of cockpit/ and only paths that exist; the other
pages name only cockpit/ files that exist; the README stays a short front page whose links reach
the manual and which keeps its two commands; and the strict site build (broken links, missing
anchors, pages left out of the navigation) passes."""
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LAYOUT = DOCS / "development" / "layout.md"
README = ROOT / "README.md"

# A repository path a page names, in a code span: `cockpit/core/agent/loop.py`, `tests/faults/`.
_PATH = re.compile(r"`((?:cockpit|tests|testkit|bench|packaging|scripts|docs)/[^`\s]*)`")
# Placeholders and patterns are not paths: `tests/core/<package>/`, `runs/*`, `bench/...`.
_NOT_A_PATH = re.compile(r"[<>*{}]|\.\.\.|…")


def _named_paths(text: str) -> set[str]:
    return {p for p in _PATH.findall(text) if not _NOT_A_PATH.search(p)}


def _packages_and_modules() -> set[str]:
    """cockpit/'s packages as folders (`cockpit/core/agent/`) and its modules as files, __init__.py aside."""
    found = set()
    for p in (ROOT / "cockpit").rglob("*.py"):
        rel = p.relative_to(ROOT).as_posix()
        if "__pycache__" in rel:
            continue
        found.add(rel[: -len("__init__.py")] if p.name == "__init__.py" else rel)
    return found


def test_the_layout_page_names_every_package_and_module():
    named = _named_paths(LAYOUT.read_text())
    missing = sorted(_packages_and_modules() - named)
    assert missing == [], f"not on {LAYOUT.relative_to(ROOT)} (one line each, please): {missing}"


def test_every_path_the_layout_page_names_exists():
    gone = sorted(p for p in _named_paths(LAYOUT.read_text()) if not (ROOT / p).exists())
    assert gone == [], f"named on {LAYOUT.relative_to(ROOT)} but not in the repository: {gone}"


def test_the_manual_names_only_code_that_exists():
    pages = sorted(DOCS.rglob("*.md")) + [README]
    gone = sorted(f"{page.relative_to(ROOT)}: {p}" for page in pages for p in _named_paths(page.read_text())
                  if p.startswith("cockpit/") and not (ROOT / p).exists())
    assert gone == [], gone


def test_the_readme_is_a_short_front_page():
    lines = README.read_text().count("\n")
    assert lines < 200, f"README.md has {lines} lines: the manual's pages in docs/ are the place for more"


def test_the_readmes_two_commands_are_there_as_they_were():
    text = README.read_text()
    for command in ("bash scripts/setup.sh && .venv/bin/cockpit demo --headless",
                    "bash scripts/setup.sh && .venv/bin/python -m pytest -q"):
        assert f"```\n{command}\n```" in text, command


def test_the_readmes_links_reach_the_manual():
    links = [target for target in re.findall(r"\]\(([^)\s]+)\)", README.read_text())
             if not re.match(r"[a-z]+:", target)]
    assert "docs/index.md" in links
    broken = [t for t in links if not (ROOT / t.split("#")[0]).is_file()]
    assert broken == [], broken
    outside = [t for t in links if not t.startswith("docs/")]
    assert outside == [], f"README links outside docs/: {outside}"


def test_the_site_builds_strictly(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs-material is not installed (the test extra installs it: bash scripts/setup.sh)")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                        "-d", str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "development" / "layout" / "index.html").is_file()
