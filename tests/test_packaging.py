"""The desktop bundle's pieces, checked without building anything (the build and its
smoke test run in CI through packaging/build.sh --smoke)."""
import ast
import configparser
import importlib.util
import subprocess
import sys
import tokenize
import tomllib
from pathlib import Path

import pytest
from PIL import Image

from cockpit.core import resources

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
SPEC = PACKAGING / "cockpit.spec"
ICONS = ROOT / "cockpit" / "resources" / "icons"
PYINSTALLER_NAMES = {"Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE"}


def spec_helpers() -> dict:
    """The spec's constants and helper functions, run without PyInstaller.

    Everything up to the first PyInstaller build step is plain Python; the
    PyInstaller import is replaced by stubs.
    """
    tree = ast.parse(SPEC.read_text(), str(SPEC))
    body = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("PyInstaller"):
            continue
        if any(isinstance(n, ast.Name) and n.id in PYINSTALLER_NAMES for n in ast.walk(node)):
            break
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in ("hiddenimports", "datas")
                                                for t in node.targets):
            continue  # these call PyInstaller's hook helpers
        body.append(node)
    ns = {"SPECPATH": str(PACKAGING), "__name__": "cockpit_spec"}
    exec(compile(ast.Module(body=body, type_ignores=[]), str(SPEC), "exec"), ns)
    return ns


def test_spec_parses_and_names_what_the_bundle_needs():
    text = SPEC.read_text()
    ast.parse(text)
    for needle in ('"cockpit" / "resources"', 'copy_metadata("keyring")', 'collect_submodules("keyring.backends")',
                   'collect_submodules("selenium.webdriver.chrome")', "selenium-manager", "/Qt/translations/",
                   "COCKPIT_ONEFILE", "entry.py"):
        assert needle in text, needle


def test_spec_collects_every_resource_under_the_package_path():
    files = spec_helpers()["resource_files"]()
    dests = {(Path(src).relative_to(ROOT / "cockpit" / "resources").as_posix(), dest) for src, dest in files}
    assert ("js/som.js", "cockpit/resources/js") in dests
    assert ("prompts/system.txt", "cockpit/resources/prompts") in dests
    assert ("demo_site/index.html", "cockpit/resources/demo_site") in dests
    assert ("icons/cockpit-256.png", "cockpit/resources/icons") in dests
    assert not any(src.endswith((".py", ".pyc")) or "__pycache__" in src for src, _ in files)


@pytest.mark.parametrize("dest, kept", [
    ("PySide6/Qt/plugins/platforms/libqoffscreen.so", True),
    ("PySide6/Qt/plugins/platforms/libqxcb.so", True),
    ("PySide6/Qt/plugins/platforms/libqwayland.so", True),
    ("PySide6/Qt/plugins/platforms/libqminimalegl.so", False),
    ("PySide6/Qt/plugins/platforms/libqeglfs.so", False),
    ("PySide6/Qt/plugins/imageformats/libqjpeg.so", True),
    ("PySide6/Qt/plugins/imageformats/libqgif.so", True),
    ("PySide6/Qt/plugins/imageformats/libqsvg.so", False),
    ("PySide6/Qt/plugins/imageformats/libqtiff.so", False),
    ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", False),
    ("PySide6/Qt/plugins/tls/libqopensslbackend.so", False),
    ("PySide6/Qt/plugins/generic/libqevdevmouseplugin.so", False),
    ("PySide6/Qt/plugins/iconengines/libqsvgicon.so", False),
    ("PySide6/Qt/translations/qtbase_de.qm", False),
    ("PySide6/Qt/lib/libQt6Svg.so.6", False),
    ("PySide6/Qt/lib/libQt6Widgets.so.6", True),
    ("selenium/webdriver/common/linux-x86_64/selenium-manager", False),
    ("selenium/webdriver/common/windows/selenium-manager.exe", False),
    ("selenium/webdriver/remote/getAttribute.js", True),
    ("cockpit/resources/js/som.js", True),
    ("libssl.so.3", True),
    ("PIL/_avif.cpython-311-x86_64-linux-gnu.so", False),
    ("pillow.libs/libavif-c6062d5f.so.16.4.2", False),
    ("PIL/_imaging.cpython-311-x86_64-linux-gnu.so", True),
    ("pillow.libs/libjpeg-6dc8d115.so.62.4.0", True),
    ("PySide6\\plugins\\platforms\\qwindows.dll", True),
])
def test_spec_trims_unused_qt_plugins_translations_and_selenium_manager(dest, kept):
    assert spec_helpers()["keep"](dest) is kept


def test_icons_exist_and_are_valid_images():
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        with Image.open(ICONS / f"cockpit-{size}.png") as im:
            im.verify()
        with Image.open(ICONS / f"cockpit-{size}.png") as im:
            assert im.format == "PNG" and im.size == (size, size) and im.mode == "RGBA"
    with Image.open(ICONS / "cockpit.ico") as ico:
        assert ico.format == "ICO"
        assert {(16, 16), (32, 32), (48, 48), (256, 256)} <= set(ico.ico.sizes())
    with Image.open(ICONS / "cockpit.icns") as icns:
        assert icns.format == "ICNS"


def test_desktop_file():
    cp = configparser.ConfigParser(interpolation=None)
    cp.optionxform = str
    cp.read(PACKAGING / "cockpit.desktop")
    entry = cp["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Name"] == "Cockpit"
    assert entry["Exec"].split()[0] == "cockpit" and entry["Icon"] == "cockpit"
    assert entry["Categories"].endswith(";")


def test_resources_reachable_through_importlib_resources():
    assert "function" in resources.read_text("js/som.js")
    assert resources.read_text("prompts/system.txt").strip()
    with resources.path("demo_site") as site:
        assert (site / "index.html").is_file()
    assert resources.read_bytes("icons/cockpit-256.png").startswith(b"\x89PNG\r\n\x1a\n")


def test_cockpit_code_has_no_frozen_special_cases():
    """Resources are found the same way from source and from the bundle: no sys._MEIPASS anywhere in code."""
    offenders = []
    for py in (ROOT / "cockpit").rglob("*.py"):
        with open(py, "rb") as f:
            for tok in tokenize.tokenize(f.readline):
                is_name = tok.type == tokenize.NAME and tok.string == "_MEIPASS"
                is_attr_string = tok.type == tokenize.STRING and tok.string.strip("'\"") == "_MEIPASS"
                if is_name or is_attr_string:
                    offenders.append(f"{py.relative_to(ROOT)}:{tok.start[0]}")
    assert not offenders


def test_smoke_module_imports_and_parses_its_options():
    from cockpit.ui import smoke
    args = smoke.build_parser().parse_args(["--webdriver-url", "http://127.0.0.1:4444", "--timeout", "30"])
    assert (args.webdriver_url, args.timeout) == ("http://127.0.0.1:4444", 30.0)
    assert callable(smoke.run_smoke_test)


def test_entry_point_routes_smoke_test_flag(monkeypatch):
    spec = importlib.util.spec_from_file_location("cockpit_bundle_entry", PACKAGING / "entry.py")
    entry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(entry)
    calls = []
    import cockpit.cli
    import cockpit.ui.smoke
    monkeypatch.setattr(cockpit.ui.smoke, "main", lambda argv: calls.append(("smoke", argv)) or 0)
    monkeypatch.setattr(cockpit.cli, "main", lambda argv=None: calls.append(("cli", argv)) or 0)
    monkeypatch.setattr(sys, "argv", ["cockpit", "--smoke-test", "--timeout", "5"])
    assert entry._main() == 0
    monkeypatch.setattr(sys, "argv", ["cockpit", "runs"])
    assert entry._main() == 0
    assert calls == [("smoke", ["--timeout", "5"]), ("cli", ["runs"])]


def test_build_script_and_ci():
    subprocess.run(["bash", "-n", str(PACKAGING / "build.sh")], check=True)
    help_text = subprocess.run(["bash", str(PACKAGING / "build.sh"), "--help"], check=True,
                               capture_output=True, text=True).stdout
    assert "--onefile" in help_text and "--smoke" in help_text
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    test_line = ci.index("bash scripts/setup.sh && .venv/bin/python -m pytest -q")
    assert ci.index("bash packaging/build.sh --smoke") > test_line
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(req.lower().startswith("pyinstaller") for req in extras["build"])


def test_build_script_stderr_allow_list():
    """The smoke run's stderr filter lets Qt's offscreen notices through and nothing else."""
    text = (PACKAGING / "build.sh").read_text()
    allow = "".join(line.split("=", 1)[1].strip().strip("'")
                    for line in text.splitlines() if line.startswith(("ALLOW=", "ALLOW+=")))
    lines = ("This plugin does not support propagateSizeHints()\nThis plugin does not support raise()\n"
             "Traceback (most recent call last):\nsomething else\n")
    out = subprocess.run(["grep", "-v", "-E", allow], input=lines, capture_output=True, text=True).stdout
    assert out.splitlines() == ["Traceback (most recent call last):", "something else"]
