"""Hostile pages, markup: markup in page titles, element texts and model replies is shown as text in the window
and in the exported HTML report, never rendered (see test_hostile.py for the rest)."""
from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

from cockpit.core.agent.approval import ScriptedApprover
from cockpit.core.agent.loop import AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.page.marks import Mark
from tests.clitools import cockpit
from tests.faults.test_hostile import obedient_agent
from tests.models import mark_for

pytestmark = pytest.mark.fault("hostile")


# ---------------------------------------------------------------- markup in texts stays text
TITLE_MARKUP = "<img src=x onerror=\"fetch('/api/xss-title')\"><b>bold</b>"
BUTTON_MARKUP = "<img src=x onerror=\"fetch('/api/xss-button')\"><b id=hostile>Buy</b>"
THOUGHT = "<script>alert('thought')</script> I will buy it, see <a href='http://evil.example/'>this link</a>"
ANSWER = "<script>alert('answer')</script><img src=x onerror=alert(2)> $12"


class LiveMarkup(HTMLParser):
    """Elements and attributes in an HTML text that could only have come from the data."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "a", "iframe", "object", "embed", "form"):
            self.found.append(tag)
        if tag == "img" and not (a.get("src") or "").startswith(("data:image/jpeg;base64,", "data:image/png;base64,")):
            self.found.append(f"img src={a.get('src')}")
        for k, v in a.items():
            if k.startswith("on") or k in ("href", "id") or "evil.example" in (v or ""):
                self.found.append(f"{tag} {k}={v}")


def live_markup(text: str) -> list[str]:
    p = LiveMarkup()
    p.feed(text)
    return p.found


@pytest.fixture
def hostile_run(hsite, browser, store):
    """A real run on hostile_html.html whose model writes markup; returns (run_id, events, approvals)."""
    calls = []

    def respond(body):
        calls.append(1)
        if len(calls) > 1:
            return f"Thought: {THOUGHT}\nAction: ANSWER; {ANSWER}"
        return f"Thought: {THOUGHT}\nAction: Click [{mark_for(body, 'Buy')}]"
    events, approver = [], ScriptedApprover([])
    with ModelServer(respond) as srv:
        agent, client = obedient_agent(browser, store, srv, AgentConfig(max_steps=3, wait_seconds=0.2), approver,
                                       events)
        try:
            result = agent.run(Fresh("Buy the item <b>now</b>", hsite.url("hostile_html.html")))
        finally:
            client.close()
    assert result.status == "refused" and result.answer == ANSWER  # the Buy click was refused at the gate
    return result.run_id, events, approver.requests


def _texts(widget):
    """(text as set, format) of every label, tree item and tooltip under `widget`."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLabel, QListWidget, QTreeWidget
    out = []
    for lab in widget.findChildren(QLabel) + ([widget] if isinstance(widget, QLabel) else []):
        out.append((lab.text(), lab.textFormat()))
        out.append((lab.toolTip(), Qt.AutoText))
    trees = widget.findChildren(QTreeWidget) + ([widget] if isinstance(widget, QTreeWidget) else [])
    for tree in trees:
        stack = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
        while stack:
            it = stack.pop()
            stack += [it.child(i) for i in range(it.childCount())]
            for c in range(tree.columnCount()):
                out.append((it.text(c), Qt.PlainText))
                out.append((it.toolTip(c), Qt.AutoText))
    for lst in widget.findChildren(QListWidget):
        for i in range(lst.count()):
            out.append((lst.item(i).toolTip(), Qt.AutoText))
    return out


def _assert_inert(pairs, must_show=()):
    """Nothing rendered as markup came from the data; the data's markup is shown as characters."""
    from PySide6.QtGui import Qt  # QtGui's Qt namespace has mightBeRichText

    from cockpit.ui.plaintext import shown_text
    seen = []
    for text, fmt in pairs:
        if not text:
            continue
        rich = fmt == Qt.RichText or (fmt == Qt.AutoText and Qt.mightBeRichText(text))
        if rich:
            assert live_markup(text) == [], text
        seen.append(shown_text(text, fmt))
    everything = "\n".join(seen)
    for literal in must_show:
        assert literal in everything, (literal, everything[:2000])


@pytest.mark.usefixtures("qapp")
def test_markup_from_pages_and_models_is_shown_as_text_in_the_window(qtbot, hostile_run, store, hsite):
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtWidgets import QToolTip

    from cockpit.ui.live.approval_panel import ApprovalPanel
    from cockpit.ui.live.step_details import StepDetails
    from cockpit.ui.live.step_log import StepLogPanel
    from cockpit.ui.live.takeover_panel import TakeOverPanel
    from cockpit.ui.review.panel import ReviewPanel
    from cockpit.ui.screenshot.view import ScreenshotView
    run_id, events, requests = hostile_run
    assert hsite.hits("/api/xss") == []
    steps = store.steps(run_id)
    assert TITLE_MARKUP in steps[0]["title"]  # the data really carries the markup

    log = StepLogPanel()
    qtbot.addWidget(log)
    for e in events:
        log.add_event(e)
    _assert_inert(_texts(log), must_show=["<script>alert('thought')</script>", "<a href='http://evil.example/'>"])

    details = StepDetails()
    qtbot.addWidget(details)
    details.show_step(store, store.run(run_id), steps[0])
    details.setCurrentWidget(details.messages)
    for browser_widget in (details.summary, details.messages):
        assert live_markup(browser_widget.toHtml()) == [], browser_widget.toHtml()[:2000]
    assert TITLE_MARKUP in details.summary.toPlainText() and "<script>alert('thought')" in details.summary.toPlainText()
    assert "<b id=hostile>Buy</b>" in details.messages.toPlainText()  # the element list as the model got it

    assert requests and requests[0].mark is not None and "<b id=hostile>" in requests[0].mark.label
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    panel.show_request(requests[0])
    _assert_inert(_texts(panel), must_show=["<b id=hostile>", "<script>alert('thought')</script>"])

    take = TakeOverPanel()
    qtbot.addWidget(take)
    take.set_target(requests[0].mark.id, requests[0].mark.label)
    _assert_inert(_texts(take), must_show=["<img src=x onerror="])

    review = ReviewPanel(store, annotator="ada")
    qtbot.addWidget(review)
    review.resize(1200, 800)
    review.show()
    review.open_run(run_id)
    qtbot.waitUntil(lambda: review.viewer.run is not None and review.viewer.run["id"] == run_id, timeout=5000)
    _assert_inert(_texts(review), must_show=["Buy the item <b>now</b>", ANSWER])
    review.go(len(review.viewer.steps) - 1)
    _assert_inert(_texts(review), must_show=[ANSWER])
    review.go(0)
    _assert_inert(_texts(review), must_show=["<script>alert('thought')</script>"])
    assert TITLE_MARKUP in review.viewer.details.summary.toPlainText()
    assert live_markup(review.viewer.details.summary.toHtml()) == []

    view = ScreenshotView()
    qtbot.addWidget(view)
    view.resize(1100, 800)
    view.show()
    qtbot.waitExposed(view)
    marks = [Mark.from_dict(d) for d in json.loads(store.read_file(steps[0]["marks_file"], "marks"))]
    view.set_screenshot(store.read_file(steps[0]["screenshot"], "screenshot"), marks)
    buy = next(m for m in marks if "Buy" in m.text)
    view._set_hovered(buy)
    assert "<b id=hostile>" in view.hover_tooltip()
    view._show_tooltip(QPoint(10, 10))
    _assert_inert([(QToolTip.text(), Qt.AutoText)], must_show=["<b id=hostile>Buy</b>"])
    QToolTip.hideText()
    review.close()


def test_markup_from_pages_and_models_is_inert_in_the_html_export(hostile_run, store, tmp_path):
    run_id, _, _ = hostile_run
    out = tmp_path / "export"
    r = cockpit(store.root, "export", run_id, "--format", "html", "--out", str(out))
    assert r.returncode == 0, r.stderr
    page = (out / f"{run_id}.html").read_text(encoding="utf-8")
    from cockpit.core.review.exports import HTML_TAGS

    class Tags(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.tags, self.text = set(), []

        def handle_starttag(self, tag, attrs):
            self.tags.add(tag)

        def handle_data(self, data):
            self.text.append(data)
    p = Tags()
    p.feed(page)
    assert p.tags <= HTML_TAGS, p.tags - HTML_TAGS
    found = [x for x in live_markup(page) if not x.startswith("meta ")]
    assert found == [], found
    shown = "".join(p.text)
    for literal in (TITLE_MARKUP, "<script>alert('thought')</script>", "<a href='http://evil.example/'>", ANSWER):
        assert literal in shown, literal
