"""Observation: the screenshot taken beside the marking script, and the marking function a page cannot replace."""
import io

from PIL import Image

from cockpit.core.observation import observe


def pixel(png: bytes, x: int, y: int):
    return Image.open(io.BytesIO(png)).convert("RGB").getpixel((x, y))


def test_screenshot_beside_marking_shows_the_current_page(page):
    b = page("obs_colors.html")
    assert b.direct_cdp() is not None  # local Chrome: a second DevTools connection is used
    obs = observe(b)
    assert Image.open(io.BytesIO(obs.screenshot)).size == (1024, 768)
    assert pixel(obs.screenshot, 150, 150) == (255, 0, 0)
    assert [m.text for m in obs.marks] == ["Turn blue"]  # the page's fake marking function was not used
    b.js("document.querySelector('button').click()")
    obs = observe(b)
    assert pixel(obs.screenshot, 150, 150) == (0, 0, 255)  # not a stale frame
    assert obs.thumb is not None and obs.thumb.size == (256, 192)


def test_a_broken_second_connection_falls_back_to_webdriver(page):
    b = page("obs_colors.html")
    direct = b.direct_cdp()
    direct._ws.close()  # as if Chrome dropped it
    try:
        obs = observe(b)
        assert pixel(obs.screenshot, 150, 150) == (255, 0, 0) and len(obs.marks) == 1
        assert b.direct_cdp() is None  # not retried for this tab
        assert pixel(observe(b).screenshot, 150, 150) == (255, 0, 0)
    finally:
        b._direct_tried = None  # the shared browser's other tests get the second connection again
