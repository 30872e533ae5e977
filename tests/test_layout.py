"""The tests are laid out like the code, and share their fixtures and helpers instead of copying them.

- tests/core/<package>/ and tests/ui/<area>/ name a real package of cockpit/core or cockpit/ui;
- a test module at tests/core/'s top level tests a top-level core module (paths, settings, ...), not a package;
- every folder of test modules is a package (test files of the same name live in several folders);
- no pytest fixture and no top-level helper function is defined in more than one file under tests/: a fixture
  shared by several files lives in the conftest.py of their closest common folder, a plain helper in a support
  module (tests/clitools.py, tests/models.py, tests/images.py, ...).
"""
import ast
import collections
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

# Names that may be defined in more than one file, each with the reason. Keep this tiny: a second definition
# is allowed only where a conftest.py fixture is overridden on purpose with another meaning.
ALLOWED_TWICE: dict[str, str] = {}


def folders(under: Path) -> list[Path]:
    return sorted(p for p in under.iterdir() if p.is_dir() and p.name != "__pycache__")


def packages(under: Path) -> set[str]:
    return {p.name for p in folders(under) if (p / "__init__.py").exists()}


def test_test_folders_name_real_packages():
    for tests_dir, code_dir in ((TESTS / "core", ROOT / "cockpit" / "core"), (TESTS / "ui", ROOT / "cockpit" / "ui")):
        real = packages(code_dir)
        strays = [p.name for p in folders(tests_dir) if p.name not in real]
        assert not strays, (f"{tests_dir.relative_to(ROOT)}/ has folders that name no package of "
                            f"{code_dir.relative_to(ROOT)}/: {strays} (fixture files go to tests/pages or tests/data)")


def test_every_folder_of_test_modules_is_a_package():
    loose = sorted(str(d.relative_to(ROOT)) for d in {p.parent for p in TESTS.rglob("test_*.py")}
                   if not (d / "__init__.py").exists())
    assert not loose, f"folders of test modules without an __init__.py: {loose}"


def cockpit_core_imports(tree: ast.Module) -> set[str]:
    """The names under cockpit.core a module imports: 'agent' for cockpit.core.agent.loop, 'paths' for
    `from cockpit.core import paths`."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "cockpit.core":
                found |= {a.name for a in node.names}
            elif node.module.startswith("cockpit.core."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names if a.name.startswith("cockpit.core.")}
    return found


def test_core_top_level_tests_test_top_level_modules():
    subpackages = packages(ROOT / "cockpit" / "core")
    misplaced = []
    for path in sorted((TESTS / "core").glob("test_*.py")):
        used = cockpit_core_imports(ast.parse(path.read_text()))
        named = path.stem.removeprefix("test_")
        if named in subpackages or not used - subpackages:
            misplaced.append(f"{path.name} (uses {sorted(used)})")
    assert not misplaced, ("test modules at tests/core/ that test a package of cockpit/core: move them to "
                           f"tests/core/<package>/: {misplaced}")


def definitions() -> dict[str, list[str]]:
    """Fixture names and top-level helper function names -> the files under tests/ that define them."""
    where = collections.defaultdict(list)
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            fixture = any("fixture" in ast.unparse(d) for d in node.decorator_list)
            name = fixture_name(node) if fixture else node.name
            if not fixture and (name.startswith("test_") or name.startswith("pytest_")):
                continue  # tests and pytest's hooks
            where[name].append(str(path.relative_to(ROOT)))
    return where


def fixture_name(node) -> str:
    """A fixture's name: its `name=` if it has one, else the function's."""
    for d in node.decorator_list:
        if isinstance(d, ast.Call):
            for kw in d.keywords:
                if kw.arg == "name" and isinstance(kw.value, ast.Constant):
                    return kw.value.value
    return node.name


def test_no_fixture_or_helper_is_defined_twice():
    twice = {name: files for name, files in definitions().items() if len(files) > 1 and name not in ALLOWED_TWICE}
    assert not twice, ("fixtures or helpers defined in more than one file (shared fixtures go to a conftest.py, "
                       "plain helpers to a support module; or name them apart if they mean different things): "
                       + "; ".join(f"{name}: {', '.join(files)}" for name, files in sorted(twice.items())))


def test_the_checks_see_what_they_check():
    """The checks read real definitions: the shared `store` fixture, and helpers of the support modules."""
    where = definitions()
    assert where["store"] == ["tests/conftest.py"]
    assert where["cockpit"] == ["tests/clitools.py"]
    assert "agent" in packages(ROOT / "cockpit" / "core") and "live" in packages(ROOT / "cockpit" / "ui")
