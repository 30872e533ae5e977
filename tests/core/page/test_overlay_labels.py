"""Where the numbers go on the marked screenshot: above their box, unless that covers another element's box
(walkthrough 8: on a dense form "6" sat on the row above its field, and a person at the gate read it as that
row's number)."""
from PIL import Image

from cockpit.core.page.marks import Mark
from cockpit.core.page.overlay import draw_marks


def _dark(img, x, y) -> bool:
    return sum(img.getpixel((x, y))) < 100


def _label_at(img, x0, y0) -> bool:
    """A number label (a dark block about 11x16 px, its digit in white) has its top-left corner at (x0, y0)."""
    dark = sum(_dark(img, x, y) for x in range(x0 + 2, x0 + 10) for y in range(y0 + 1, y0 + 15))
    return dark > 0.6 * 8 * 14


def test_a_label_stays_off_the_field_above_it_on_a_dense_form():
    white = Image.new("RGB", (400, 300), "white")
    amount = Mark(id=6, bbox=(100, 124, 200, 22), tag="input")
    number = Mark(id=5, bbox=(100, 100, 200, 22), tag="input")
    img = draw_marks(white, [number, amount])
    assert _label_at(img, 100, 84)  # 5 has room above its field: there, as WebVoyager draws it
    for y in range(103, 119):  # inside field 5's box, above field 6: no label covers it
        assert not _dark(img, 104, y), y
    assert _label_at(img, 100, 124)  # 6 sits in its own box's top-left corner


def test_a_label_goes_above_its_box_when_nothing_is_there():
    white = Image.new("RGB", (400, 300), "white")
    img = draw_marks(white, [Mark(id=1, bbox=(100, 100, 80, 30), tag="button")])
    assert _label_at(img, 100, 84) and not _dark(img, 110, 110)  # above the box; its inside left clear
