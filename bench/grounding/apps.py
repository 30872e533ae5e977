"""The real web apps of the grounding bench: what each serves, and starting/stopping it.

All of them are open-source apps installed from PyPI by ``setup_apps.sh`` into
``bench/grounding/.apps/venv`` (a venv of their own, apart from Cockpit's). What
they serve is generated here: a small SQLite database for Datasette and
Flask-Admin, a few reStructuredText pages built by Sphinx, a few Markdown pages
built by MkDocs with the Material theme, a short Streamlit script that lays
out Streamlit's own widgets, and NiceGUI (Vue/Quasar) and Dash (React) scripts
that lay out theirs (spa_apps.py). The pages, their markup and their scripts are the
apps' own: nothing here writes HTML or JavaScript.

Each app is started on 127.0.0.1 on a fixed port, waited for until it answers,
and stopped (its whole process group) afterwards. One app runs at a time.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

try:  # run as a script from bench/grounding/, or imported as bench.grounding.apps
    from spa_apps import DASH_APP, NICEGUI_APP
except ImportError:
    from bench.grounding.spa_apps import DASH_APP, NICEGUI_APP
try:
    from appdata import APPS_DIR, BIN, DATA, FLASK_ADMIN_APP, HERE, STREAMLIT_APP, VENV, make_db, make_mkdocs, make_sphinx  # noqa: F401,E501
except ImportError:
    from bench.grounding.appdata import (APPS_DIR, BIN, DATA, FLASK_ADMIN_APP, HERE, STREAMLIT_APP, VENV,  # noqa: F401
                                         make_db, make_mkdocs, make_sphinx)



@dataclass
class App:
    name: str
    port: int
    what: str

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


APPS = {
    "datasette": App("datasette", 8761, "Datasette 0.65: tables, facets, filters, column menus, SQL editor"),
    "sphinx": App("sphinx", 8762, "a Sphinx (alabaster) docs site with its JS search (searchindex.js)"),
    "mkdocs": App("mkdocs", 8763, "an MkDocs Material site: worker-built search, tabs, collapsible notes"),
    "flaskadmin": App("flaskadmin", 8764, "Flask-Admin over SQLAlchemy: list, filters, select2, modals"),
    "streamlit": App("streamlit", 8765, "a Streamlit app (React SPA over a websocket): widgets, dialog"),
    "nicegui": App("nicegui", 8766, "a NiceGUI app (Vue/Quasar SPA): chips, field icons, table selection, "
                                    "a dialog on load"),
    "dash": App("dash", 8767, "a Dash app (React): drop-downs with clear and chips, date picker, data table"),
}


def installed() -> bool:
    return (BIN / "python").exists() and (VENV / ".grounding-installed").exists()


def prepare(name: str) -> list[str]:
    """Generate what app `name` serves; returns its server command."""
    DATA.mkdir(parents=True, exist_ok=True)
    app = APPS[name]
    py = str(BIN / "python")
    if name == "datasette":
        db = make_db(DATA / "sky.db")
        return [str(BIN / "datasette"), "serve", str(db), "-h", "127.0.0.1", "-p", str(app.port),
                "--setting", "sql_time_limit_ms", "3000"]
    if name == "sphinx":
        html = make_sphinx(DATA / "sphinx")
        return [py, "-m", "http.server", str(app.port), "--bind", "127.0.0.1", "--directory", str(html)]
    if name == "mkdocs":
        site = make_mkdocs(DATA / "mkdocs")
        return [py, "-m", "http.server", str(app.port), "--bind", "127.0.0.1", "--directory", str(site)]
    if name == "flaskadmin":
        db = DATA / "flaskadmin.db"
        if not db.exists():
            shutil.copy(make_db(DATA / "sky.db"), db)
        script = DATA / "flaskadmin_app.py"
        script.write_text(FLASK_ADMIN_APP)
        return [py, str(script), str(db), str(app.port)]
    if name == "streamlit":
        script = DATA / "streamlit_app.py"
        script.write_text(STREAMLIT_APP)
        return [str(BIN / "streamlit"), "run", str(script), "--server.address", "127.0.0.1",
                "--server.port", str(app.port), "--server.headless", "true",
                "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
                "--global.developmentMode", "false"]
    if name in ("nicegui", "dash"):
        script = DATA / f"{name}_app.py"
        script.write_text(NICEGUI_APP if name == "nicegui" else DASH_APP)
        return [py, str(script), str(app.port)]
    raise KeyError(name)


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


class Running:
    """One app's server process (a context manager): started, answering, stopped after."""

    def __init__(self, name: str, log_dir: Path | None = None, timeout: float = 90.0):
        self.app = APPS[name]
        self.timeout = timeout
        self.log_dir = log_dir or DATA
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> App:
        if not installed():
            raise SystemExit("the apps are not installed: run bash bench/grounding/setup_apps.sh")
        cmd = prepare(self.app.name)
        if not _port_free(self.app.port):
            raise SystemExit(f"port {self.app.port} for {self.app.name} is taken")
        env = dict(os.environ, HOME=str(DATA / "home"), PYTHONUNBUFFERED="1")
        (DATA / "home").mkdir(parents=True, exist_ok=True)
        log = open(self.log_dir / f"{self.app.name}.log", "wb")
        self.proc = subprocess.Popen(["nice", "-n", "5"] + cmd, stdout=log, stderr=subprocess.STDOUT,
                                     env=env, cwd=str(DATA), start_new_session=True)
        log.close()
        end = time.monotonic() + self.timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.app.name} exited ({self.proc.returncode}); "
                                   f"see {self.log_dir / (self.app.name + '.log')}")
            try:
                with urllib.request.urlopen(self.app.base + "/", timeout=2) as r:
                    if r.status < 500:
                        return self.app
            except Exception:
                time.sleep(0.3)
        self.__exit__(None, None, None)
        raise RuntimeError(f"{self.app.name} did not answer on {self.app.base} in {self.timeout:.0f}s")

    def __exit__(self, *exc):
        p, self.proc = self.proc, None
        if p is None or p.poll() is not None:
            return
        try:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait(timeout=5)


if __name__ == "__main__":  # python bench/grounding/apps.py NAME: serve one app until Ctrl+C (to look at it)
    with Running(sys.argv[1]) as a:
        print(a.base, flush=True)
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            pass
