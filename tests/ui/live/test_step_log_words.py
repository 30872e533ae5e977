"""The step log wraps its cells at spaces (walkthrough 8: "finished(con / tent='deleted…')", "recommendati / on": a
break was put into every word of 12 characters or more). Only a word too wide for its column breaks within it, and
a cell cut to its first lines has its whole text in its tooltip. A real window (offscreen), real Chromium, a run of
the scripted model server."""
import re

from PySide6.QtCore import QEvent
from PySide6.QtGui import QHelpEvent, QTextLayout, QTextOption
from PySide6.QtWidgets import QApplication, QStyleOptionViewItem, QToolTip

from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.ui.plaintext import shown_text
from tests.ui.windowtools import wait_idle

DONE = "finished(content='deleted Invoice 102; the recommendations acknowledged')"
URL = "https://example.com/a/very/long/address/without/any/spaces/in/it/whatsoever/index.html"
LONG = " ".join(["the supervisor reconciled every recommendation and acknowledgement"] * 4)


def drawn_lines(log, item, col: int) -> list[str]:
    """The lines a cell's text is drawn in, as the style lays it out (word wrap, its cell's width)."""
    index = log.indexFromItem(item, col)
    opt = QStyleOptionViewItem()
    opt.rect = log.visualRect(index)
    log.itemDelegate().initStyleOption(opt, index)
    layout = QTextLayout(opt.text, log.font())
    text_option = QTextOption()
    text_option.setWrapMode(QTextOption.WordWrap)
    layout.setTextOption(text_option)
    layout.beginLayout()
    lines = []
    while (line := layout.createLine()).isValid():
        line.setLineWidth(opt.rect.width() - 8)
        lines.append(opt.text[line.textStart():line.textStart() + line.textLength()].replace("\u200b", "").strip())
    layout.endLayout()
    return lines


def test_words_wrap_whole_and_a_cut_cell_tooltip_has_it_all(qtbot, window_factory, site):
    replies = [f"Thought: done.\nAction: ANSWER; {DONE}"]
    with ModelServer(replies) as srv:
        w = window_factory()
        w.resize(1280, 800)
        w.settings.model = ModelConfig(base_url=srv.base_url, model="m", max_retries=0)
        w.live.task_bar.set_task("Delete the first item", site.url("agent_start.html"))
        assert w.start_run()
        wait_idle(qtbot, w)
    log = w.live.log_panel
    row = log.items[1]
    assert row.text(1) == f"ANSWER; {DONE}"
    fm, checked = log.fontMetrics(), set()
    for width in range(110, 400, 6):  # the action column as the window gives it, or as the person drags it
        log.setColumnWidth(1, width)
        lines = drawn_lines(log, row, 1)
        room = log.visualRect(log.indexFromItem(row, 1)).width() - 8
        units = []  # what must stay on one line: a word that fits, else each piece of it after its punctuation
        for word in row.text(1).split():
            fits = [word] if fm.horizontalAdvance(word) < room - 4 else re.split(r"(?<=\W)", word)
            units += [u for u in fits if u and fm.horizontalAdvance(u) < room - 4]
        checked |= set(units)
        broken = [u for u in units if not any(u in line for line in lines)]
        assert not broken, (width, broken, lines)  # never "recommendati / ons", "finished(con / tent"
    assert {"recommendations", "content=", "finished("} <= checked

    row.setText(1, URL)  # a word wider than its column: broken within, never cut
    QApplication.processEvents()
    lines = drawn_lines(log, row, 1)
    assert len(lines) > 1 and "".join(lines) == URL, lines
    assert all(log.fontMetrics().horizontalAdvance(line) <= log.visualRect(log.indexFromItem(row, 1)).width()
               for line in lines)

    row.setText(1, LONG)  # more than the three lines an action gets: its tooltip has all of it
    log.scheduleDelayedItemsLayout()
    QApplication.processEvents()
    assert len(drawn_lines(log, row, 1)) > 3
    rect = log.visualRect(log.indexFromItem(row, 1))
    QApplication.sendEvent(log.viewport(), QHelpEvent(QEvent.ToolTip, rect.center(),
                                                       log.viewport().mapToGlobal(rect.center())))
    assert LONG in shown_text(QToolTip.text()).replace("\n", " "), QToolTip.text()
    assert "done." in shown_text(QToolTip.text())  # what it said before (the thought) stays after it
    QToolTip.hideText()
