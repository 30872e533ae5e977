"""What the screenshot pane's tests share: a screenshot with known boxes, and moving the mouse over it."""
from __future__ import annotations

import io

from PIL import Image, ImageDraw
from PySide6.QtCore import QPoint, QPointF, Qt

from cockpit.core.page.marks import Mark
from cockpit.ui.screenshot.view import ScreenshotView

W, H = 1024, 768


def make_png(w: int = W, h: int = H) -> bytes:
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    d.rectangle([100, 100, 299, 149], fill="#ffcc80")
    d.rectangle([400, 300, 699, 499], fill="#c5e1a5")
    d.rectangle([450, 350, 549, 409], fill="#90caf9")
    d.rectangle([100, 400, 299, 429], fill="#eeeeee")
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


MARKS = [
    Mark(1, (100, 100, 200, 50), "button", text="Add to cart", reason="native"),
    Mark(2, (400, 300, 300, 200), "div", role="dialog", aria_label="Cart", reason="role"),
    Mark(3, (450, 350, 100, 60), "a", text="Checkout",
         href="https://shop.example.com/checkout?session=" + "x" * 200, reason="native"),
    Mark(4, (100, 400, 200, 30), "input", type="password", value="hunter2", secret=True,
         editable=True, reason="native"),
    Mark(5, (700, 100, 150, 30), "input", type="text", placeholder="Search", value="shoes",
         editable=True, reason="native"),
]


def vp(view: ScreenshotView, x: float, y: float) -> QPoint:
    """Image coordinates -> viewport coordinates."""
    return view.mapFromScene(QPointF(x, y))


def centre(view: ScreenshotView, mark_id: int) -> QPoint:
    m = next(m for m in MARKS if m.id == mark_id)
    return vp(view, *m.center)


def drag(qtbot, view, a: QPoint, b: QPoint, button=Qt.LeftButton, steps: int = 4):
    qtbot.mousePress(view.viewport(), button, pos=a)
    for i in range(1, steps + 1):
        p = a + (b - a) * (i / steps)
        qtbot.mouseMove(view.viewport(), p)
    qtbot.mouseRelease(view.viewport(), button, pos=b)
