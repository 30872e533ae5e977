"""A secret the agent types is masked where a human is asked about it: the terminal prompt and the approval panel."""
import io
import re

import pytest

from cockpit.core.actions.grammar import parse_action
from cockpit.core.agent.approval import ApprovalRequest, TerminalApprover
from cockpit.core.agent.loop import Agent, AgentConfig
from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.safety.risk import Risk
from cockpit.core.store import Store
from cockpit.ui.live.approval_panel import ApprovalPanel
from tests.models import model_client

SECRET = "Hunter2-S3cret"


class Tty(io.StringIO):
    def isatty(self):
        return True


def password_field(body) -> int:
    text = body["messages"][-1]["content"][0]["text"]
    return int(re.search(r"\[(\d+)\]: <input type=password>", text).group(1))


@pytest.mark.fault("secrets")
def test_the_terminal_prompt_masks_a_typed_password_and_the_real_one_is_typed(browser, site, tmp_path,
                                                                              record_property):
    def agent(body):
        if sum(m["role"] == "assistant" for m in body["messages"]) == 0:
            return f"Thought: log in\nAction: Type [{password_field(body)}]; {SECRET}"
        return "Thought: done\nAction: ANSWER; typed"
    out = io.StringIO()
    approver = TerminalApprover(user="ada", stdin=Tty("y\n"), stdout=out)
    with ModelServer(agent) as srv, Store(tmp_path / "home") as store:
        client = model_client(srv, timeout=20)
        try:
            result = Agent(browser, client, store, config=AgentConfig(approval_policy="every", wait_seconds=0.2),
                           approver=approver).run(Fresh("Log in", site.url("secret_login.html")))
        finally:
            client.close()
    shown = out.getvalue()
    record_property("secret_hits", shown.count(SECRET))
    assert result.status == "answered"
    assert "the agent wants to: Type [" in shown and "(secret)" in shown
    assert SECRET not in shown
    assert browser.js("return document.querySelector('input[type=password]').value") == SECRET  # approved as is


@pytest.mark.fault("secrets")
def test_the_approval_panel_shows_the_masked_action_and_an_unchanged_edit_runs_the_real_one(qtbot,
                                                                                          record_property):
    panel = ApprovalPanel(user="ada")
    qtbot.addWidget(panel)
    decided = []
    panel.decided.connect(decided.append)
    action = parse_action(f"Type [5]; {SECRET}")
    req = ApprovalRequest("r1", 3, action, None, Risk("state-changing", ("a password field",)), "every",
                          shown="Type [5]; (secret)")
    panel.show_request(req)
    texts = [panel.title.text(), panel.evidence.text(), panel.edit.text()]
    record_property("secret_hits", sum(t.count(SECRET) for t in texts))
    assert "Type [5]; (secret)" in panel.title.text() and SECRET not in " ".join(texts)
    panel._on_edit_clicked()
    panel.edit.returnPressed.emit()  # Enter in the unchanged edit field: approve the action as proposed
    assert len(decided) == 1 and decided[0].approved and decided[0].action is None


@pytest.mark.fault("secrets")
def test_card_fields_named_only_by_their_label_are_secret(page, record_property):
    from cockpit.core.page.observation import observe
    from cockpit.core.safety import redaction
    b = page("secret_card.html")
    b.js("document.getElementById('cn').value = '4111111111111111';"
         "document.querySelector('[name=cvv]').value = '737';"
         "document.querySelector('[name=city]').value = 'Riga';")
    obs = observe(b)
    by_name = {m.placeholder or m.text: m for m in obs.marks}
    card, cvv, city = by_name["Card number"], by_name["CVV"], by_name["City"]
    assert card.secret and cvv.secret and not city.secret
    text = obs.element_text + repr([m.to_dict() for m in obs.marks])
    record_property("secret_hits", text.count("4111111111111111") + text.count("737"))
    assert "4111111111111111" not in text and "737" not in text and "Riga" in text  # other values still shown
    typed = parse_action(f"Type [{card.id}]; 4111111111111111")
    assert redaction.shown(typed, obs.marks) == f"Type [{card.id}]; (secret)"
