"""Install the benches' real web apps from PyPI into bench/.apps/venv and seed their data.

    .venv/bin/python -m bench.apps install [--fresh]

Makes the venv (a pip install of bench.apps.REQUIREMENTS, pinned; skipped when the venv already holds
them), then lets each suite set up its data: the gate generates its Wagtail project, migrates its
Django sites, seeds users and data and keeps a pristine copy of every database (done once; --fresh
deletes bench/.apps first and does it all again). The grounding apps need nothing more: what they
serve is generated when they start. Takes a few minutes the first time.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys

from bench import apps


def install_venv() -> None:
    if apps.installed():
        print(f"the apps are already installed in {apps.VENV}", file=sys.stderr)
        return
    if not apps.PY.exists():
        print("creating", apps.VENV, file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(apps.VENV)], check=True)
    print("installing", " ".join(apps.REQUIREMENTS), file=sys.stderr)
    subprocess.run(["nice", str(apps.PY), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    *apps.REQUIREMENTS], check=True)
    subprocess.run([str(apps.PY), "-c", "import " + ", ".join(apps.MODULES)], check=True)
    apps.STAMP.write_text(apps.requirements_hash() + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["install"])
    ap.add_argument("--fresh", action="store_true", help="delete bench/.apps first")
    args = ap.parse_args(argv)
    if args.fresh and apps.APPS_DIR.exists():
        shutil.rmtree(apps.APPS_DIR)
    install_venv()
    from bench.gate import gateapps  # the gate's data (its own module: apps, seeds, reset)
    gateapps.setup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
