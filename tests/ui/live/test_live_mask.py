"""The window's live view (frames captured while the model thinks) hides typed card numbers too."""
from PySide6.QtCore import QBuffer
from PySide6.QtGui import QImage

from cockpit.core.page import masking
from cockpit.core.page.observation import observe
from cockpit.ui.live.live_frames import masked as _masked
from tests.core.page.test_masking import box, decode, fields, filled_page, red


def test_the_windows_live_frames_are_masked_too(page, qapp):
    """While the model thinks, the window shows low-rate live captures of the page (bridge._live), taken
    straight from the browser: the card and code boxes of the last observation are painted over there too."""
    b = filled_page(page)
    obs = observe(b)
    f = fields(obs)
    raw = b.screenshot_png()  # what the live view captures
    assert red(box(decode(raw), f["card"])) > 200  # digits plainly there before masking
    assert obs.masked == tuple(masking.boxes(obs.marks))  # what the ObservationReady event carries
    frame = _masked(QImage.fromData(raw), list(obs.masked))
    buf = QBuffer()
    buf.open(QBuffer.WriteOnly)
    frame.save(buf, "PNG")
    shown = decode(bytes(buf.data()))
    assert red(box(shown, f["card"])) == 0 and red(box(shown, f["csc"])) == 0
    assert red(box(shown, f["name"])) > 200 and red(box(shown, f["password"])) > 20
