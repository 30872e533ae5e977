"""Fixtures of the Review tests."""
import pytest

from cockpit.ui.review.panel import ReviewPanel


@pytest.fixture
def panel(qtbot, store):
    """make(annotator="ada") -> a shown ReviewPanel (1280x800) on `store`; closed before the store is."""
    made = []

    def make(annotator="ada"):
        p = ReviewPanel(store, annotator=annotator)
        made.append(p)
        p.resize(1280, 800)
        p.show()
        qtbot.waitExposed(p)
        return p
    yield make
    for p in made:  # before the store closes
        p.close()
        p.deleteLater()
    qtbot.wait(50)
