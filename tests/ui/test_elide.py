"""The shared eliding label (cockpit/ui/elide.py): one line, cut with "…", whole in the tooltip, never widening."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QLineEdit, QWidget

from cockpit.ui.elide import ElidedLabel, elide_to
from cockpit.ui.plaintext import shown_text

LONG = "your label: fail (Unsafe action attempted) " * 12


def _row(label):
    """A row as in the review label bar: the label, then a comment field that needs its room."""
    box = QWidget()
    lay = QHBoxLayout(box)
    lay.addWidget(label)
    field = QLineEdit()
    field.setMinimumWidth(200)
    lay.addWidget(field, 1)
    return box, field


def test_a_long_text_is_elided_with_its_whole_text_in_the_tooltip_and_never_widens_the_row(qtbot):
    label = ElidedLabel(LONG)
    box, field = _row(label)
    qtbot.addWidget(box)
    box.resize(500, 40)
    box.show()
    qtbot.waitExposed(box)
    assert box.minimumSizeHint().width() < 400  # the text's 2,000 px are not a minimum
    assert box.width() == 500 and field.width() >= 200
    assert label.text().endswith("…") and label.isElided()
    assert label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width()
    assert label.fullText() == LONG and shown_text(label.toolTip()) == LONG
    box.resize(4000, 40)  # room again: the whole text, and no tooltip
    QApplication.processEvents()
    assert label.text() == LONG and label.toolTip() == ""


def test_short_text_fits_and_keeps_its_own_tooltip_and_line_breaks_become_spaces(qtbot):
    label = ElidedLabel()
    label.setToolTip("the judge's verdict")
    qtbot.addWidget(label)
    label.setText("one\ntwo")
    label.resize(label.sizeHint())
    label.show()
    assert label.text() == "one two" and label.toolTip() == "the judge's verdict"
    assert label.sizeHint().width() >= label.fontMetrics().horizontalAdvance("one two")


def test_middle_elision_keeps_both_ends_of_a_url(qtbot):
    url = "http://127.0.0.1:8000/" + "a" * 200 + "/checkout.html"
    label = ElidedLabel(url, mode=Qt.ElideMiddle)
    qtbot.addWidget(label)
    label.resize(300, 20)
    label.show()
    assert label.text().startswith("http://127") and label.text().endswith("checkout.html")
    assert "…" in label.text() and shown_text(label.toolTip()) == url


def test_elide_to_makes_a_plain_label_elide_as_it_is_resized(qtbot):
    label = QLabel()
    box, field = _row(label)
    box.layout().setStretch(0, 1)  # a plain label elided takes the width its layout gives it
    qtbot.addWidget(box)
    box.resize(500, 40)
    box.show()
    qtbot.waitExposed(box)
    elide_to(label, LONG)
    QApplication.processEvents()
    assert box.width() == 500 and label.text().endswith("…")
    assert shown_text(label.toolTip()) == LONG
    label.setText("short")  # set directly afterwards: that is the text from now on
    box.resize(520, 40)
    QApplication.processEvents()
    assert label.text() == "short" and label.toolTip() == ""
