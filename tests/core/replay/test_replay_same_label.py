"""A replay acts only on the element the run acted on, not on another with the same label (walkthrough 8: the run
deleted Invoice 102; by then the first row's "Delete" was Invoice 103's, and replay deleted it)."""
import pytest

from cockpit.core.agent.approval import ScriptedApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh, RunContext
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.localserver import LocalSite
from cockpit.core.replay.replay import Diverged, ReplayOptions, replay
from testkit.pixelmodel import Move, PixelModel
from tests.models import by_page, mark_for, model_client

ROW = ('<div style="height:60px"><span>Invoice {n} - {who}</span> '
       '<form method="post" action="deleted_{n}.html" style="display:inline">'
       '<button id="del{n}" type="submit">Delete</button></form></div>')


def items(*rows):
    nav = "".join(f'<a href="{x.lower()}.html">{x}</a> ' for x in ("Home", "Invoices", "Clients", "Reports",
                                                                     "Settings", "Help"))
    return f"<html><head><title>Items</title></head><body><nav>{nav}</nav><h1>Items</h1>" + "".join(
        ROW.format(n=n, who=who) for n, who in rows) + "</body></html>"


@pytest.fixture
def office(tmp_path):
    """Two invoices, each with a Delete button posting to its own address (its page says what was deleted)."""
    root = tmp_path / "office"
    root.mkdir()
    (root / "items.html").write_text(items((102, "Globex"), (103, "Initech")))
    for n in (102, 103):
        (root / f"deleted_{n}.html").write_text(f"<html><head><title>Deleted {n}</title></head><body>"
                                                f"<p>Invoice {n} deleted.</p></body></html>")
    with LocalSite(root) as s:
        yield s, root


def _only_103_left(root):
    (root / "items.html").write_text(items((103, "Initech")))  # 102 is gone: 103's Delete is where 102's was


def _replay_refuses(browser, store, site, run_id):
    browser.goto("about:blank")
    with pytest.raises(Diverged) as e:
        replay(RunContext(browser, store, approver=ScriptedApprover([])), run_id, None, ReplayOptions(policy="never"))
    assert e.value.divergence.reason == "target"
    assert browser.title != "Deleted 103"  # nothing was deleted
    return str(e.value)


def test_a_replayed_click_on_a_mark_refuses_the_same_label_that_posts_elsewhere(browser, store, office):
    site, root = office
    script = by_page({"Items": lambda b: f"Thought: delete the first.\nAction: Click [{mark_for(b, 'Delete')}]",
                      "Deleted 102": "Thought: done.\nAction: ANSWER; deleted"})
    with ModelServer(script) as srv, model_client(srv, timeout=20) as client:
        result = Agent(browser, client, store, config=AgentConfig(max_steps=3, wait_seconds=0.1,
                                                                  approval_policy="never")).run(
            Fresh("Delete the first invoice", site.url("items.html")))
    assert result.answer == "deleted" and store.steps(result.run_id)[0]["url_after"].endswith("deleted_102.html")
    _only_103_left(root)
    said = _replay_refuses(browser, store, site, result.run_id)
    assert "deleted_102.html" in said  # where the recorded button led


def test_a_replayed_click_at_a_point_refuses_the_same_label_that_posts_elsewhere(browser, store, office):
    site, root = office
    model = PixelModel(browser, [Move("click", "#del102"), Move("answer", text="deleted")], "plain", "pixels")
    with ModelServer(model) as srv, model_client(srv, model="pixel-test", timeout=20, dialect="plain",
                                                 coords="pixels", image_format="png") as client:
        result = Agent(browser, client, store, config=AgentConfig(max_steps=3, wait_seconds=0.1,
                                                                  approval_policy="never")).run(
            Fresh("Delete the first invoice", site.url("items.html")))
    first = store.steps(result.run_id)[0]
    assert first["action"].startswith("Click (") and first["url_after"].endswith("deleted_102.html")
    _only_103_left(root)
    said = _replay_refuses(browser, store, site, result.run_id)
    assert "deleted_103.html" in said and "deleted_102.html" in said  # what it hits now, and what the run hit
