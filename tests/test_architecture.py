"""The layering of ARCHITECTURE.md holds: `lint-imports` checks pyproject.toml's contracts
(the core never imports Qt, the window or the command line; core subpackages import only the
layers below them). A violation fails the suite, so CI fails on it."""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept():
    exe = Path(sys.executable).with_name("lint-imports")
    cmd = [str(exe)] if exe.exists() else [shutil.which("lint-imports") or "lint-imports"]
    r = subprocess.run(cmd + ["--no-cache"], capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "0 broken" in r.stdout, r.stdout[-4000:]


def _sources():
    return sorted((ROOT / "cockpit").rglob("*.py"))


def test_modules_stay_small():
    """No module over 500 lines (ARCHITECTURE.md: 'modules stay under 500 lines')."""
    big = [(p.relative_to(ROOT).as_posix(), n) for p in _sources()
           if (n := p.read_text().count("\n")) > 500]
    assert big == [], big


def test_functions_stay_short():
    """No function of 60 lines or more, UI `_build*` methods that only lay out widgets excepted."""
    import ast
    long = []
    for p in _sources():
        ui = "/ui/" in p.as_posix()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n >= 60 and not (ui and node.name.startswith("_build")):
                    long.append((f"{p.relative_to(ROOT).as_posix()}:{node.lineno} {node.name}", n))
    assert long == [], long


def test_core_imports_at_the_top():
    """The core's layers need no import inside a function to dodge a cycle: every import of a Cockpit
    module in cockpit/core is at module level, where lint-imports and a reader see it."""
    import ast
    late = []
    for p in sorted((ROOT / "cockpit" / "core").rglob("*.py")):
        tree = ast.parse(p.read_text())
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    mod = (node.module or "") if isinstance(node, ast.ImportFrom) else ""
                    if isinstance(node, ast.ImportFrom) and (node.level or mod.startswith("cockpit")):
                        late.append(f"{p.relative_to(ROOT).as_posix()}:{node.lineno}")
    assert late == [], late
