"""Review's Re-ask dialog: the step's exact request sent again (edited if one likes) and both replies shown; Send on
either Enter key with Ctrl, and a Close button. A real store, a real model server on 127.0.0.1, the panel offscreen."""
import pytest
from PySide6.QtCore import Qt

from cockpit.core.llm import prompt
from cockpit.core.llm.client import ModelConfig
from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.store.newrun import NewRun
from testkit.fakeruns import screenshot

OTHER = "Thought: try the other one\nAction: Click [5]"


def asked_run(store, srv) -> str:
    """A finished run of one step whose request (a screenshot and one box) went to `srv`'s model m1."""
    rid = store.new_run(NewRun("pick", "https://example.com/",
                               config={"model": ModelConfig(base_url=srv.base_url, model="m1").to_dict()}))
    conv = prompt.Conversation(prompt.system_prompt())
    png, marks = screenshot(3)
    files = store.write_step_files(rid, 1, screenshot=png, marked=png, marks=marks)
    conv.add_observation(1, prompt.observation_text("[1]: <button> \"A\";"), lead=prompt.task_text("pick", "u"))
    store.commit_step(rid, dict(step=1, request=conv.request(), reply="Thought: a\nAction: Click [1]",
                                action="Click [1]", action_text="Click [1]", **files))
    store.finish_run(rid, "max_steps")
    return rid


def test_reask_dialog_sends_the_step_again_and_shows_both_replies(qtbot, panel, store):
    with ModelServer(lambda b: OTHER) as srv:
        rid = asked_run(store, srv)
        before = store.steps(rid)
        p = panel()
        p.show_run(rid)
        dlg = p.reask()
        qtbot.addWidget(dlg)
        assert "Click [1]" in dlg.original.toPlainText()
        dlg.temperature.setValue(0.3)
        dlg.send()
        qtbot.waitUntil(lambda: dlg.send_btn.isEnabled(), timeout=10000)
        assert "Click [5]" in dlg.new.toPlainText() and "a different action" in dlg.verdict.text()
        assert srv.requests[0]["temperature"] == 0.3
        dlg.show()
        dlg.close_btn.click()  # a Close button besides Esc
        assert not dlg.isVisible()
        assert srv.requests[0]["messages"][1]["content"][1]["image_url"]["url"].startswith("data:image/jpeg")
    assert store.steps(rid) == before  # the run is untouched


@pytest.mark.parametrize("key, modifiers", [(Qt.Key_Return, Qt.ControlModifier),
                                            (Qt.Key_Enter, Qt.ControlModifier | Qt.KeypadModifier)])
def test_reask_sends_with_ctrl_enter_on_either_enter_key(qtbot, panel, store, key, modifiers):
    """Walkthrough 5: "Send (Ctrl+Enter)" did nothing with the keypad's Enter; both Enter keys send, wherever the
    focus is in the dialog."""
    with ModelServer(lambda b: OTHER) as srv:
        rid = asked_run(store, srv)
        p = panel()
        p.show_run(rid)
        dlg = p.reask()
        qtbot.addWidget(dlg)
        dlg.show()
        qtbot.waitExposed(dlg)
        dlg.activateWindow()
        qtbot.waitUntil(dlg.isActiveWindow)
        for n, field in enumerate((dlg.note, dlg.new), start=1):  # a line edit, the read-only reply pane
            field.setFocus()
            qtbot.keyClick(field, key, modifiers)
            qtbot.waitUntil(lambda n=n: len(srv.requests) == n and dlg.send_btn.isEnabled(), timeout=10000)
        assert "Click [5]" in dlg.new.toPlainText()
