"""Imported Online-Mind2Web runs in Review (issue #28): listed with their agent, stepped through with their
thoughts and verbatim actions, a click string drawn as a point, a step without a screenshot said so."""
from cockpit.core.store import Store
from cockpit.core.store.m2w_import import import_mind2web
from cockpit.ui.review.panel import ReviewPanel
from tests.core.store.test_mind2web_import import ABP, folder
from tests.images import numbered_png


def test_an_imported_run_is_reviewed_like_a_native_one(qtbot, tmp_path):
    root = tmp_path / "results"
    folder(root, ABP["task_id"], ABP, {f"{k}_full_screenshot.png": numbered_png(k) for k in (1, 2, 5, 6)})
    with Store(tmp_path / "home") as store:
        rid = import_mind2web(store, root, agent="abp").imported[0]
        p = ReviewPanel(store, annotator="ada")
        qtbot.addWidget(p)
        p.resize(1280, 800)
        p.show()
        qtbot.waitExposed(p)
        f_model = p.browser.f_model
        assert "abp" in [f_model.itemText(i) for i in range(f_model.count())]  # the agent, to filter by
        p.show_run(rid)  # opens on step 2, its first screenshot (#42)
        assert p.viewer.current()["step"] == 2
        p.go(0)  # step 1 (Navigate): ABP shot no page before its first action
        qtbot.waitUntil(lambda: "has no screenshot" in p.viewer.view.message(), timeout=5000)
        p.go(1)  # step 2: "Click at (963, 72)", on the page of shot 1
        qtbot.waitUntil(lambda: p.viewer.view.pointer_marker() is not None, timeout=5000)
        assert p.viewer.view.pointer_marker().pos().x() == 963  # "Click at (963, 72)", drawn where it clicked
        p.go(3)  # step 4: its screenshot number (3) is a gap in the trajectory
        qtbot.waitUntil(lambda: "has no screenshot" in p.viewer.view.message(), timeout=5000)
        p.close()
