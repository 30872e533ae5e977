"""Review tab: a step whose clean screenshot is gone shows the marked one, and says so."""
import pytest
from PIL import Image

from testkit.fakeruns import make_run

pytestmark = pytest.mark.fault("store")


def _open_step(qtbot, w, run_id, index):
    w.modes.setCurrentWidget(w.review)
    w.review.show_run(run_id)
    w.review.go(index)
    assert w.review.viewer.steps[w.review.viewer.index]["step"] == index + 1


def test_missing_clean_screenshot_falls_back_to_the_marked_one(qtbot, window):
    w = window
    rid = make_run(w.store, steps=3)
    step2 = w.store.step_dir(rid, 2)
    (step2 / "screenshot.png").unlink()
    with Image.open(step2 / "marked.png") as im:  # a marked image told apart by its size
        wide = Image.new("RGB", (im.width + 40, im.height), "red")
        wide.paste(im.convert("RGB"), (0, 0))
    wide.save(step2 / "marked.png")
    _open_step(qtbot, w, rid, 1)
    p = w.review
    qtbot.waitUntil(lambda: p.viewer.view.has_screenshot(), timeout=5000)
    assert p.viewer.view.message() == ""
    assert p.viewer.view.image_size() == wide.size  # the marked file is what is shown
    assert p.viewer.image_note.isVisible()
    assert "clean screenshot missing; showing the marked one" in p.viewer.image_note.text()
    assert "Step 2/3" in p.viewer.step_info.text()
    p.go(2)  # its clean screenshot is there: no note
    qtbot.waitUntil(lambda: p.viewer.view.has_screenshot(), timeout=5000)
    assert p.viewer.view.image_size() != wide.size and not p.viewer.image_note.isVisible()
    p.go(1)  # back again, from the cache: the note comes back with the image
    assert p.viewer.view.image_size() == wide.size and p.viewer.image_note.isVisible()


def test_both_screenshots_missing_says_missing(qtbot, window):
    w = window
    rid = make_run(w.store, steps=3)
    step2 = w.store.step_dir(rid, 2)
    (step2 / "screenshot.png").unlink()
    (step2 / "marked.png").write_bytes(b"not a png")  # unreadable counts as gone
    _open_step(qtbot, w, rid, 1)
    p = w.review
    qtbot.waitUntil(lambda: "missing" in p.viewer.view.message(), timeout=5000)
    assert not p.viewer.view.has_screenshot()
    assert "screenshot.png" in p.viewer.view.message() and "marked.png" in p.viewer.view.message()
    assert not p.viewer.image_note.isVisible()
    p.go(2)
    qtbot.waitUntil(lambda: p.viewer.view.has_screenshot(), timeout=5000)
    assert not p.viewer.image_note.isVisible()
