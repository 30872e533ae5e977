"""What the window says when Stop ended a run's start while its browser was still starting (#38: Stop was greyed
out then, and a start that hung could not be called off): nothing began, no browser is left, and the Live pane,
which said "Starting the browser…", says so."""
from __future__ import annotations


def say_stopped(window) -> None:
    """The bridge's startStopped, for `window` (the MainWindow): the pane's caption and page, the status bar."""
    live = window.live
    what, nothing = ("The replay", "nothing was replayed") if live.replayed_run else ("The run", "no run was begun")
    text = f"{what} was stopped while the browser was starting: {nothing}."
    live.banner.setText(f"{what} was stopped before it began.")
    live.view.clear(text)
    window.status.say(text, 15000, live=True)
    window.status.set_elapsed(None)
