"""The real web apps the gate and grounding benches run: one venv, an App, and a Running server.

Every app comes from PyPI, pinned, installed once into a venv of its own, apart from Cockpit's
``.venv`` so that their dependencies never touch it::

    .venv/bin/python -m bench.apps install [--fresh]

Everything installed or generated lives under ``bench/.apps/`` (git-ignored):

  bench/.apps/venv/        the apps from PyPI (REQUIREMENTS: both suites' pins)
  bench/.apps/gate/        the gate's generated Wagtail project and seeded databases (bench/gate/gateapps.py)
  bench/.apps/grounding/   what the grounding apps serve, generated when they start (bench/grounding/appdata.py)

What each suite runs (its apps, ports, data and cases) stays in the suite: ``bench/gate/gateapps.py``
and ``bench/grounding/apps.py`` describe their apps with :class:`App` and start them with :class:`Running`.
"""
from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
APPS_DIR = BENCH / ".apps"
VENV = APPS_DIR / "venv"
BIN = VENV / "bin"
PY = BIN / "python"
STAMP = VENV / ".bench-apps-installed"

# Pinned: the versions the gate's corpus was labelled against and the grounding baseline was taken with
# (pages change between releases). Both suites run Datasette 0.65.5 and Flask-Admin 2.2.1.
GATE_REQUIREMENTS = [
    "Django==5.1.15", "django-postman==4.6", "django-oscar==4.2.1", "sorl-thumbnail",
    "wagtail==7.3.4", "datasette==0.65.5", "Flask-Admin==2.2.1", "Flask-SQLAlchemy==3.1.1",
]
GROUNDING_REQUIREMENTS = [
    "datasette==0.65.5", "sphinx==9.0.4", "alabaster==1.0.0", "mkdocs==1.6.1", "mkdocs-material==9.8.1",
    "flask==3.1.3", "flask-admin==2.2.1", "flask-sqlalchemy==3.1.1", "sqlalchemy==2.1.9", "streamlit==1.67.0",
    "nicegui==3.18.0", "dash==4.4.1",
]
REQUIREMENTS = list({r.lower(): r for r in GATE_REQUIREMENTS + GROUNDING_REQUIREMENTS}.values())
#: what `install` checks imports after pip
MODULES = ("django", "postman", "oscar", "sorl", "wagtail", "datasette", "flask_admin", "flask_sqlalchemy",
           "sphinx", "mkdocs", "material", "streamlit", "nicegui", "dash")


def requirements_hash() -> str:
    return hashlib.sha1(" ".join(REQUIREMENTS).encode()).hexdigest()[:12]


def installed() -> bool:
    """Whether the venv holds today's REQUIREMENTS (`python -m bench.apps install` made it)."""
    return PY.exists() and STAMP.exists() and STAMP.read_text().strip() == requirements_hash()


NOT_INSTALLED = "the apps are not installed: run .venv/bin/python -m bench.apps install"


@dataclass
class App:
    """One app: its name, its fixed port on 127.0.0.1, what it is, and (when known before it starts)
    its server command, working directory and the path that answers once it is up."""
    name: str
    port: int
    what: str
    cmd: tuple[str, ...] = ()
    cwd: Path | None = None
    ready_path: str = "/"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


class Running:
    """One app's server, in its own process group under `nice`, its output in log_dir/NAME.log.

    ``start()`` returns once the app answers on ``base + ready_path`` (any answer below 400); ``close()``
    stops the whole process group. As a context manager it starts on entry (giving the App) and stops on exit.
    """

    def __init__(self, app: App, log_dir: Path, *, cmd: list[str] | None = None, cwd: Path | None = None,
                 env: dict | None = None, nice: int = 10, timeout: float = 60.0):
        self.app, self.log_dir, self.timeout, self.nice = app, log_dir, timeout, nice
        self.cmd = list(cmd or app.cmd)
        self.cwd = cwd or app.cwd
        self.env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"} | (env or {})
        self.proc: subprocess.Popen | None = None

    @property
    def log_path(self) -> Path:
        return self.log_dir / f"{self.app.name}.log"

    def start(self) -> Running:
        if not port_free(self.app.port):
            raise SystemExit(f"port {self.app.port} for {self.app.name} is taken")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(["nice", "-n", str(self.nice), *self.cmd], cwd=self.cwd, env=self.env,
                                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        end = time.monotonic() + self.timeout
        while True:
            try:
                with urllib.request.urlopen(self.app.base + self.app.ready_path, timeout=5):
                    return self  # urlopen raises for 4xx and 5xx answers
            except Exception:
                if self.proc.poll() is not None:
                    code = self.proc.returncode
                    self.close()
                    raise RuntimeError(f"{self.app.name} exited ({code}); see {self.log_path}") from None
                if time.monotonic() > end:
                    self.close()
                    raise RuntimeError(f"{self.app.name} did not answer on {self.app.base} in "
                                       f"{self.timeout:.0f} s; see {self.log_path}") from None
                time.sleep(0.3)

    def close(self) -> None:
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

    def __enter__(self) -> App:
        self.start()
        return self.app

    def __exit__(self, *exc) -> None:
        self.close()
