"""The real web apps of the grounding bench: what each serves, and starting it.

All of them are open-source apps from PyPI, installed by ``.venv/bin/python -m bench.apps install``
into ``bench/.apps/venv`` (a venv of their own, apart from Cockpit's; bench/apps/ also holds
the App and Running this module uses, shared with the gate bench). What
they serve is generated here: a small SQLite database for Datasette and
Flask-Admin, a few reStructuredText pages built by Sphinx, a few Markdown pages
built by MkDocs with the Material theme, a short Streamlit script that lays
out Streamlit's own widgets, and NiceGUI (Vue/Quasar) and Dash (React) scripts
that lay out theirs (spa_apps.py). The pages, their markup and their scripts are the
apps' own: nothing here writes HTML or JavaScript.

Each app is started on 127.0.0.1 on a fixed port, waited for until it answers,
and stopped (its whole process group) afterwards. One app runs at a time.

    .venv/bin/python -m bench.grounding.apps NAME    # serve one app until Ctrl+C, to look at it
"""
from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from bench.apps import BIN, NOT_INSTALLED, App, Running, installed
from bench.grounding.appdata import DATA, FLASK_ADMIN_APP, STREAMLIT_APP, make_db, make_mkdocs, make_sphinx
from bench.grounding.spa_apps import DASH_APP, NICEGUI_APP

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


def serve(name: str, log_dir: Path | None = None, timeout: float = 90.0) -> Running:
    """App `name`'s server, to use as a context manager (``with serve("sphinx") as app:``): what the app
    serves is generated, the app started and waited for on entry; stopped on exit."""
    if not installed():
        raise SystemExit(NOT_INSTALLED)
    cmd = prepare(name)
    (DATA / "home").mkdir(parents=True, exist_ok=True)
    return Running(APPS[name], log_dir or DATA, cmd=cmd, cwd=DATA, nice=5, timeout=timeout,
                   env={"HOME": str(DATA / "home"), "PYTHONUNBUFFERED": "1"})


if __name__ == "__main__":
    with serve(sys.argv[1]) as a:
        print(a.base, flush=True)
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            pass
