"""The bench's web apps: where each one's code and data live, how it is started and reset (issue #17).

Shared by setup_apps.py (install, generate, seed) and run.py (start, reset, stop).
Everything installed or generated lives under bench/gate/.apps/ (git-ignored):
  .apps/venv/                 a private venv with the apps from PyPI
  .apps/cms/                  the project `wagtail start` generated
  .apps/data/NAME             each app's SQLite database and upload folder, and NAME.pristine its seeded copy
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

GATE = Path(__file__).resolve().parent
APPS_DIR = GATE / ".apps"
VENV = APPS_DIR / "venv"
PY = VENV / "bin" / "python"
DATA = APPS_DIR / "data"
SRC = GATE / "apps"

# Versions the corpus was labelled against (pages change between releases).
REQUIREMENTS = [
    "Django==5.1.15", "django-postman==4.6", "django-oscar==4.2.1", "sorl-thumbnail",
    "wagtail==7.3.4", "datasette==0.65.5", "Flask-Admin==2.2.1", "Flask-SQLAlchemy==3.1.1",
]


@dataclass
class App:
    name: str
    port: int
    what: str
    cwd: Path
    cmd: list[str]
    dbs: list[str] = field(default_factory=list)  # files under DATA restored before every case
    media: list[str] = field(default_factory=list)  # folders under DATA restored before every case (uploads)
    ready_path: str = "/"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _apps() -> dict[str, App]:
    py = str(PY)
    django = lambda port: [py, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload", "--skip-checks"]
    apps = [
        App("djadmin", 8101, "Django 5.1 admin (library models) + django-postman messaging",
            SRC / "djsite", django(8101), ["djsite.sqlite3"], [], "/admin/login/"),
        App("shop", 8102, "django-oscar 4.2 shop (catalogue, basket, checkout, account, dashboard)",
            SRC / "shop", django(8102), ["shop.sqlite3"], ["shop-media"], "/catalogue/"),
        App("cms", 8103, "Wagtail 7.3 CMS admin (project from `wagtail start`)",
            APPS_DIR / "cms", django(8103), ["cms.sqlite3"], ["cms-media"], "/admin/login/"),
        App("datasette", 8104, "Datasette 0.65 over a sample SQLite catalogue",
            DATA, [str(VENV / "bin" / "datasette"), "serve", "catalog.db", "-h", "127.0.0.1", "-p", "8104"],
            [], [], "/catalog"),
        App("flaskadmin", 8105, "Flask-Admin 2.2 (SQLAlchemy ModelViews)",
            SRC / "flaskadmin", [py, "app.py", "8105"], ["flaskadmin.sqlite3"], [], "/admin/"),
    ]
    return {a.name: a for a in apps}


APPS = _apps()


def env() -> dict:
    e = dict(os.environ, GATE_DATA=str(DATA), PYTHONDONTWRITEBYTECODE="1")
    if "DJANGO_SETTINGS_MODULE" in e:
        del e["DJANGO_SETTINGS_MODULE"]
    return e


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


class Running:
    """One app's server, started at construction and stopped by close() (its own process group)."""

    def __init__(self, app: App, log_dir: Path):
        self.app = app
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log = open(log_dir / f"{app.name}.log", "w")
        self.proc = subprocess.Popen(["nice", "-n", "10", *app.cmd], cwd=app.cwd, env=env(),
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(app.base + app.ready_path, timeout=5).read()
                return
            except Exception:
                if self.proc.poll() is not None or time.time() > deadline:
                    self.close()
                    raise RuntimeError(f"{app.name} did not start; see {self.log.name}")
                time.sleep(0.5)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def run_py(args: list[str], cwd: Path, stdin: Path | None = None) -> None:
    with open(stdin) if stdin else open(os.devnull) as f:
        subprocess.run(["nice", "-n", "10", str(PY), *args], cwd=cwd, env=env(), stdin=f, check=True)


if __name__ == "__main__":
    sys.exit("import this module; see setup_apps.py and run.py")
