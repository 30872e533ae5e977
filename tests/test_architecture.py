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
    """No module over 450 lines (ARCHITECTURE.md: 'modules stay under 450 lines')."""
    big = [(p.relative_to(ROOT).as_posix(), n) for p in _sources()
           if (n := p.read_text().count("\n")) > 450]
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


def _ui_classes():
    """(file, class node) for every class in cockpit/ui."""
    import ast
    for p in sorted((ROOT / "cockpit" / "ui").rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ClassDef):
                yield p.relative_to(ROOT).as_posix(), node


def test_window_parts_stay_small_and_are_composed_not_mixed_in():
    """ARCHITECTURE.md, "The window": no class of cockpit/ui keeps more than 40 attributes of its own, and
    none is built from mixins (a plain class of cockpit/ui used as another's base, reading its state)."""
    import ast
    classes = list(_ui_classes())
    big = []
    for path, cls in classes:
        names = {t.attr for n in ast.walk(cls) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                 for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                 for t in ([t] if not isinstance(t, ast.Tuple) else t.elts)
                 if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
        if len(names) > 40:
            big.append((f"{path} {cls.name}", len(names)))
    assert big == [], big
    plain = {cls.name for _, cls in classes if not cls.bases}
    mixed = [f"{path} {cls.name}({', '.join(ast.unparse(b) for b in cls.bases)})" for path, cls in classes
             if len(cls.bases) > 1 and any(ast.unparse(b) in plain for b in cls.bases)]
    assert mixed == [], mixed


def test_the_windows_parts_named_in_architecture_md_exist():
    """Every cockpit/ui file the window's diagram in ARCHITECTURE.md names is there."""
    import re
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text[text.index("## The window"):text.index("## Where to put new code")]
    named = set(re.findall(r"\b((?:live|review|reports|screenshot|settings)/\w+\.py|\w+\.py)\b", section))
    missing = [n for n in sorted(named) if not (ROOT / "cockpit" / "ui" / n).exists()
               and not any(ROOT.glob(f"cockpit/**/{n}")) and not any(ROOT.glob(f"tests/**/{n}"))]
    assert missing == [], missing
    for part in ("live", "review", "reports", "screenshot", "settings"):
        assert (ROOT / "cockpit" / "ui" / part / "__init__.py").exists(), part
