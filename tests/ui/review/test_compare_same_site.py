"""Compare with… offers runs that started on the same page or site too (walkthrough 9, A9): it offered only runs
of the exact same task text ("No other run of this task to compare with."), so "Delete Coffee" could not be set
beside "Delete Eggs" on the same shopping list. The task's own runs and its branches come first, then runs from
its start page, then from elsewhere on its site, each saying which; the button is disabled only when there is
none of these, and says so.

A real store, Review offscreen; what is read is the button and its tooltip, the list Compare with… offers (the
dialog's items, picked as a person picks one) and the Compare dialog's task line.
"""
from PySide6.QtWidgets import QInputDialog

from cockpit.core.store.newrun import NewRun
from tests.ui.windowtools import run_shown

LIST = "http://127.0.0.1:8731/list"


def run_on(store, task: str, url: str, parent: str | None = None) -> str:
    rid = store.new_run(NewRun(task, url, model="som", parent_run=parent, parent_step=1 if parent else None))
    store.commit_step(rid, dict(step=1, action="Click [3]", action_text="Click [3]", status="ok", url=url, title="List"))
    store.finish_run(rid, "max_steps")
    return rid


def test_compare_offers_runs_of_the_same_start_page_and_site_after_the_tasks_own(qtbot, store, panel, monkeypatch):
    coffee = run_on(store, "Delete Coffee from the list", LIST)
    again = run_on(store, "Delete Coffee from the list", LIST)
    branch = run_on(store, "Delete Coffee from the list", LIST, parent=coffee)
    eggs = run_on(store, "Delete Eggs from the list", LIST)
    pay = run_on(store, "Pay my bill of 42 dollars", "http://127.0.0.1:8731/pay")
    run_on(store, "Find the weather", "http://127.0.0.1:9999/")  # another site (another port)
    p = panel()
    run_shown(qtbot, p, coffee)
    btn = p.viewer.tools.compare_btn
    assert btn.isEnabled()
    offered = {}

    def pick(parent, title, label, items, current, editable):
        offered.update(label=label, items=list(items))
        return next(i for i in items if eggs in i), True
    monkeypatch.setattr(QInputDialog, "getItem", pick)
    dlg = p.compare()
    qtbot.addWidget(dlg)
    items = offered["items"]
    assert [i.split(" · ")[0] for i in items] == ["same task", "branch of this run", "same start page", "same site"]
    assert again in items[0] and branch in items[1] and eggs in items[2] and pay in items[3]
    assert items[2].endswith("Delete Eggs from the list") and "this task (first)" in offered["label"]
    assert dlg.runs[1]["id"] == eggs  # the Eggs run beside the Coffee run
    task_line = dlg.layout().itemAt(0).widget().fullText()
    assert task_line == "A's task: Delete Coffee from the list   ·   B's task: Delete Eggs from the list"


def test_compare_is_disabled_only_with_no_run_of_the_task_page_or_site(qtbot, store, panel):
    alone = run_on(store, "Find the phone number", "https://phones.test/")
    run_on(store, "Find the address", "https://shop.test/")
    p = panel()
    run_shown(qtbot, p, alone)
    btn = p.viewer.tools.compare_btn
    assert not btn.isEnabled()
    assert btn.toolTip() == ("Cannot compare: no other run of this task, nor one that started on its start page "
                             "or site")
    p.compare()
    assert p.label_bar.status.text() == "No other run of this task, nor of its start page or site, to compare with."
