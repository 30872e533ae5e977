"""The gate bench's web apps: where each one's code and data live, how it is started and reset (issue #17).

Installed with the grounding bench's by ``.venv/bin/python -m bench.apps install``, which calls setup() here
(generate, migrate, seed). run.py starts, resets and stops them. What is generated lives under
bench/.apps/gate/ (git-ignored):
  bench/.apps/gate/cms/       the project `wagtail start` generated
  bench/.apps/gate/data/NAME  each app's SQLite database and upload folder, and NAME.pristine its seeded copy
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from bench import apps as shared

GATE = Path(__file__).resolve().parent
HOME = shared.APPS_DIR / "gate"
DATA = HOME / "data"
SRC = GATE / "apps"
PY = shared.PY
SEEDED = DATA / ".seeded"


@dataclass
class App(shared.App):
    dbs: list[str] = field(default_factory=list)  # files under DATA restored before every case
    media: list[str] = field(default_factory=list)  # folders under DATA restored before every case (uploads)


def _apps() -> dict[str, App]:
    py = str(PY)
    def django(port: int) -> tuple[str, ...]:
        return (py, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload", "--skip-checks")

    apps = [
        App("djadmin", 8101, "Django 5.1 admin (library models) + django-postman messaging",
            django(8101), SRC / "djsite", "/admin/login/", ["djsite.sqlite3"], []),
        App("shop", 8102, "django-oscar 4.2 shop (catalogue, basket, checkout, account, dashboard)",
            django(8102), SRC / "shop", "/catalogue/", ["shop.sqlite3"], ["shop-media"]),
        App("cms", 8103, "Wagtail 7.3 CMS admin (project from `wagtail start`)",
            django(8103), HOME / "cms", "/admin/login/", ["cms.sqlite3"], ["cms-media"]),
        App("datasette", 8104, "Datasette 0.65 over a sample SQLite catalogue",
            (str(shared.BIN / "datasette"), "serve", "catalog.db", "-h", "127.0.0.1", "-p", "8104"),
            DATA, "/catalog", [], []),
        App("flaskadmin", 8105, "Flask-Admin 2.2 (SQLAlchemy ModelViews)",
            (py, "app.py", "8105"), SRC / "flaskadmin", "/admin/", ["flaskadmin.sqlite3"], []),
    ]
    return {a.name: a for a in apps}


APPS = _apps()


def env() -> dict:
    return {"GATE_DATA": str(DATA), "PYTHONDONTWRITEBYTECODE": "1"}


def start(app: App, log_dir: Path) -> shared.Running:
    """The app's server, answering (stop it with close())."""
    return shared.Running(app, log_dir, env=env(), nice=10, timeout=60).start()


def save_pristine(app: App) -> None:
    for db in app.dbs:
        shutil.copyfile(DATA / db, DATA / (db + ".pristine"))
    for folder in app.media:
        (DATA / folder).mkdir(exist_ok=True)
        shutil.rmtree(DATA / (folder + ".pristine"), ignore_errors=True)
        shutil.copytree(DATA / folder, DATA / (folder + ".pristine"))


def reset(app: App) -> None:
    """Put the app's data back as seeded, in place (the server keeps its open file names)."""
    for db in app.dbs:
        for extra in ("-journal", "-wal", "-shm"):
            (DATA / (db + extra)).unlink(missing_ok=True)
        with open(DATA / (db + ".pristine"), "rb") as src, open(DATA / db, "r+b") as dst:
            data = src.read()
            dst.seek(0)
            dst.write(data)
            dst.truncate()
    for folder in app.media:  # a delete also removes uploaded files (Wagtail images)
        shutil.rmtree(DATA / folder, ignore_errors=True)
        shutil.copytree(DATA / (folder + ".pristine"), DATA / folder)


def run_py(args: list[str], cwd: Path, stdin: Path | None = None) -> None:
    e = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"} | env()
    with open(stdin) if stdin else open(os.devnull) as f:
        subprocess.run(["nice", "-n", "10", str(PY), *args], cwd=cwd, env=e, stdin=f, check=True)


def installed() -> bool:
    return shared.installed() and SEEDED.exists()


def setup() -> None:
    """Generate the Wagtail project, migrate every Django site, seed sample users and data, and save a
    pristine copy of each database, which run.py restores before every case (once: skipped when seeded)."""
    if SEEDED.exists():
        print(f"the gate's apps are already seeded in {DATA}")
        return
    if DATA.exists():
        shutil.rmtree(DATA)
    DATA.mkdir(parents=True)
    # Django admin + postman
    site = SRC / "djsite"
    run_py(["manage.py", "migrate", "-v0"], site)
    run_py(["manage.py", "shell"], site, site / "seed.py")
    # django-oscar
    shop = SRC / "shop"
    run_py(["manage.py", "migrate", "-v0"], shop)
    run_py(["manage.py", "shell"], shop, shop / "seed.py")
    # Wagtail: the generated project plus the bench's local settings
    cms = HOME / "cms"
    if not (cms / "manage.py").exists():
        cms.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(shared.BIN / "wagtail"), "start", "cms", str(cms)], check=True)
    shutil.copyfile(SRC / "cms" / "local.py", cms / "cms" / "settings" / "local.py")
    run_py(["manage.py", "migrate", "-v0"], cms)
    run_py(["manage.py", "shell"], cms, SRC / "cms" / "seed.py")
    # Flask-Admin, Datasette
    run_py(["app.py", "seed"], SRC / "flaskadmin")
    run_py([str(SRC / "datasette" / "seed.py"), str(DATA / "catalog.db")], DATA)
    for app in APPS.values():
        save_pristine(app)
    SEEDED.touch()
    print("gate apps ready:", ", ".join(f"{a.name} {a.base}" for a in APPS.values()))
