"""Install the bench's web apps from PyPI into bench/gate/.apps/ and seed their data (issue #17).

    python3 bench/gate/setup_apps.py [--fresh]

Makes .apps/venv (pip install of gateapps.REQUIREMENTS), generates the Wagtail
project with `wagtail start`, migrates every Django site, seeds sample users and
data, and saves a pristine copy of each database, which run.py restores before
every case. --fresh deletes .apps/ first. Takes a few minutes the first time.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys

import gateapps as g


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fresh", action="store_true", help="delete bench/gate/.apps first")
    args = ap.parse_args()
    if args.fresh and g.APPS_DIR.exists():
        shutil.rmtree(g.APPS_DIR)
    if not g.PY.exists():
        print("creating", g.VENV)
        subprocess.run([sys.executable, "-m", "venv", str(g.VENV)], check=True)
    print("installing", " ".join(g.REQUIREMENTS))
    subprocess.run(["nice", str(g.PY), "-m", "pip", "install", "-q", *g.REQUIREMENTS], check=True)
    if g.DATA.exists():
        shutil.rmtree(g.DATA)
    g.DATA.mkdir(parents=True)

    # Django admin + postman
    site = g.SRC / "djsite"
    g.run_py(["manage.py", "migrate", "-v0"], site)
    g.run_py(["manage.py", "shell"], site, site / "seed.py")
    # django-oscar
    shop = g.SRC / "shop"
    g.run_py(["manage.py", "migrate", "-v0"], shop)
    g.run_py(["manage.py", "shell"], shop, shop / "seed.py")
    # Wagtail: the generated project plus the bench's local settings
    cms = g.APPS_DIR / "cms"
    if not (cms / "manage.py").exists():
        cms.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(g.VENV / "bin" / "wagtail"), "start", "cms", str(cms)], check=True)
    shutil.copyfile(g.SRC / "cms" / "local.py", cms / "cms" / "settings" / "local.py")
    g.run_py(["manage.py", "migrate", "-v0"], cms)
    g.run_py(["manage.py", "shell"], cms, g.SRC / "cms" / "seed.py")
    # Flask-Admin, Datasette
    g.run_py(["app.py", "seed"], g.SRC / "flaskadmin")
    g.run_py([str(g.SRC / "datasette" / "seed.py"), str(g.DATA / "catalog.db")], g.DATA)
    for app in g.APPS.values():
        g.save_pristine(app)
    print("ready:", ", ".join(f"{a.name} {a.base}" for a in g.APPS.values()))


if __name__ == "__main__":
    main()
