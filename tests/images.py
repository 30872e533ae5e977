"""Small images for tests: a plain PNG of one colour, and numbered ones a test can tell apart."""
import io

from PIL import Image


def png(color="white", size=(32, 24)) -> bytes:
    """A PNG of one colour (a name or an RGB tuple)."""
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "PNG")
    return buf.getvalue()


def numbered_png(n: int, size=(64, 48)) -> bytes:
    """A PNG whose colour differs per n (0 to 255), so a test can tell which step's file it got."""
    return png(((n * 37) % 256, (n * 91) % 256, 120), size)
