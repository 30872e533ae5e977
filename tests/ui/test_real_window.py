"""The real window on a 1024x700 X screen with a window manager (issue #38, B1): `cockpit demo` under Xvfb and
openbox, its frame read back from the X server. Skipped where Xvfb, openbox, xdotool or xwininfo are missing.

The offscreen platform the other UI tests use has no window frame; here openbox puts its title bar and borders
around the window, and what a person would see is measured: the whole frame (the title bar they drag, the status
bar at the bottom) on the screen, on the first start and after a restart that restores window.ini, and a minimum
size that leaves room for the frame (so the window maximized, or shrunk by hand, still shows its status bar).
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

TOOLS = ("Xvfb", "openbox", "xdotool", "xwininfo", "xprop")
pytestmark = pytest.mark.skipif(any(shutil.which(t) is None for t in TOOLS) or not sys.platform.startswith("linux"),
                                reason="needs " + ", ".join(TOOLS))
SCREEN = (1024, 700)


def _x(display: str, *args: str) -> str:
    return subprocess.run(args, env={**os.environ, "DISPLAY": display}, capture_output=True, text=True,
                          timeout=20).stdout


def _free_display() -> str:
    n = 70 + os.getpid() % 200
    while os.path.exists(f"/tmp/.X11-unix/X{n}") or os.path.exists(f"/tmp/.X{n}-lock"):
        n += 1
    return f":{n}"


@pytest.fixture
def screen():
    display = _free_display()
    procs = [subprocess.Popen(["Xvfb", display, "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    deadline = time.time() + 10
    while not os.path.exists(f"/tmp/.X11-unix/X{display[1:]}") and time.time() < deadline:
        time.sleep(0.1)
    procs.append(subprocess.Popen(["openbox"], env={**os.environ, "DISPLAY": display},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    time.sleep(1)
    yield display
    for p in reversed(procs):
        p.terminate()
        p.wait(10)


def _window(display: str) -> str | None:
    """The id of the Cockpit window once openbox has framed it (its frame extents are set)."""
    for wid in _x(display, "xdotool", "search", "--onlyvisible", "--name", "^Cockpit").split():
        if "=" in _x(display, "xprop", "-id", wid, "_NET_FRAME_EXTENTS"):
            return wid
    return None


def _frame(display: str, wid: str) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int], tuple[int, int]]:
    """The window's inside (x, y, width, height) on the screen, its frame extents (left, right, top, bottom), and
    its minimum size as it told the window manager."""
    info = _x(display, "xwininfo", "-id", wid)
    num = {k: int(re.search(rf"{k}:\s+(-?\d+)", info).group(1))
           for k in ("Absolute upper-left X", "Absolute upper-left Y", "Width", "Height")}
    extents = tuple(int(v) for v in re.findall(r"\d+", _x(display, "xprop", "-id", wid, "_NET_FRAME_EXTENTS")))
    hints = _x(display, "xprop", "-id", wid, "WM_NORMAL_HINTS")
    minimum = re.search(r"minimum size: (\d+) by (\d+)", hints)
    return ((num["Absolute upper-left X"], num["Absolute upper-left Y"], num["Width"], num["Height"]), extents,
            (int(minimum.group(1)), int(minimum.group(2))) if minimum else (0, 0))


def _open(display: str, home) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "DISPLAY": display, "COCKPIT_HOME": str(home), "QT_QPA_PLATFORM": "xcb"}
    app = subprocess.Popen([sys.executable, "-m", "cockpit", "demo"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    deadline, wid = time.time() + 60, None
    while wid is None and time.time() < deadline and app.poll() is None:
        time.sleep(0.5)
        wid = _window(display)
    if wid is None:
        app.kill()
        pytest.fail("the Cockpit window never appeared")
    time.sleep(2)  # placed again once framed
    return app, wid


def _on_screen(where: tuple, extents: tuple, minimum: tuple, state: str) -> None:
    (x, y, w, h), (left, right, top, bottom) = where, extents
    frame = (x - left, y - top, x + w + right, y + h + bottom)
    assert frame[0] >= 0 and frame[1] >= 0, f"{state}: the title bar is off the screen, frame {frame}"
    assert frame[2] <= SCREEN[0] and frame[3] <= SCREEN[1], f"{state}: the frame runs off the screen, {frame}"
    assert minimum[1] + top + bottom <= SCREEN[1], f"{state}: the minimum {minimum} and the frame do not fit"


def test_the_real_window_and_its_frame_are_on_a_1024x700_screen_first_and_after_a_restart(screen, tmp_path):
    app, wid = _open(screen, tmp_path / "home")
    try:
        first = _frame(screen, wid)
        _on_screen(*first, "the first start")
        # dragged to the screen's bottom right (its bottom off the screen), then closed: window.ini remembers it
        _x(screen, "xdotool", "windowmove", wid, "300", "200")
        time.sleep(1)
    finally:
        app.send_signal(signal.SIGTERM)
        app.wait(30)
    assert (tmp_path / "home" / "window.ini").exists()
    app, wid = _open(screen, tmp_path / "home")
    try:
        _on_screen(*_frame(screen, wid), "after a restart")
    finally:
        app.send_signal(signal.SIGTERM)
        app.wait(30)
