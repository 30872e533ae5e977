"""Fixtures of the Live tab's tests."""
import pytest

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store import Store
from tests.clitools import cockpit, ok, text_of
from tests.lookahead_helpers import mark_in

#: The task of the `ordered` run.
ORDER_TASK = "Order a copy of the book"


def _order(body):
    """Open the details, order a copy, place the order; then answer."""
    text = text_of(body["messages"][-1])
    if "The page is 'Order placed'" in text:
        return "Thought: done.\nAction: ANSWER; ordered"
    if "The page is 'Order'" in text:
        return f"Thought: place it.\nAction: Click [{mark_in(text, 'Place order')}]"
    if "The page is 'Agent start'" in text:
        return f"Thought: the details.\nAction: Click [{mark_in(text, 'Open the details page')}]"
    return f"Thought: order a copy.\nAction: Click [{mark_in(text, 'Order a copy')}]"


@pytest.fixture
def ordered(window_factory, site):
    """A run recorded by `cockpit run` with the scripted model server that placed its order unasked
    (`--approval allow`), in a fresh window's store: (run, its steps)."""
    w = window_factory()
    home = w.store_root
    w.close()
    with ModelServer(_order) as srv:
        ok(cockpit(home, "run", "--task", ORDER_TASK, "--url", site.url("agent_start.html"),
                   "--base-url", srv.base_url, "--model", "m", "--approval", "allow"))
    with Store(home) as s:
        (run,) = s.runs()
        return run, s.steps(run["id"])
