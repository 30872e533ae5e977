"""Reports' Human attempts table (#42): each task's tier from a person's own attempt and each agent run's
agent/human step ratio, from a real store of runs with known step counts; a double-click opens the run."""
from PySide6.QtCore import Qt

from cockpit.ui.reports.panel import ReportsPanel
from testkit.fakeruns import make_run


def test_the_table_gives_tiers_and_ratios_and_opens_runs(qtbot, store):
    panel = ReportsPanel(store)
    qtbot.addWidget(panel)
    panel.refresh()
    assert panel.tiers.table.rowCount() == 0
    assert panel.tiers.summary.text().startswith("No human attempt yet")
    # Task A: a person needed 3 actions (then answered), an agent 9: easy, ratio 3.00; task B: the person 12, one
    # agent 6 (ratio 0.50); task C: the person gave up, no tier; task D: agents only, not listed
    make_run(store, steps=4, task="Task A", task_id="A", model="human")
    agent_a = make_run(store, steps=10, task="Task A", task_id="A", model="gpt-4o")
    make_run(store, steps=13, task="Task B", task_id="B", model="human")
    agent_b = make_run(store, steps=6, task="Task B", task_id="B", model="ui-tars", answer=None, status="max_steps")
    gave_up = make_run(store, steps=1, task="Task C", task_id="C", model="human", answer=None, status="gave_up")
    make_run(store, steps=3, task="Task D", task_id="D", model="gpt-4o")
    panel.refresh()
    t = panel.tiers.table
    rows = [[t.item(i, j).text() for j in range(t.columnCount())] for i in range(t.rowCount())]
    assert rows == [["Task A", "easy", "3", agent_a, "gpt-4o", "9", "3.00"],
                    ["Task B", "hard", "12", agent_b, "ui-tars", "6", "0.50"],
                    ["Task C", "none (1 attempt given up)", "", "", "", "", ""]]
    summary = panel.tiers.summary.text()
    assert "1 task easy, 0 tasks medium, 1 task hard" in summary
    assert "gpt-4o: 3.00; ui-tars: 0.50" in summary
    panel.resize(1000, 700)
    panel.show()
    qtbot.waitExposed(panel)
    opened = []
    panel.openRun.connect(opened.append)
    for row in (1, 2):  # the agent's run; for a task no agent ran, the person's attempt
        rect = t.visualItemRect(t.item(row, 0))
        qtbot.mouseClick(t.viewport(), Qt.LeftButton, pos=rect.center())  # a real double-click: press,
        qtbot.mouseDClick(t.viewport(), Qt.LeftButton, pos=rect.center())  # release, press again
    assert opened == [agent_b, gave_up]
