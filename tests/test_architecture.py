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
