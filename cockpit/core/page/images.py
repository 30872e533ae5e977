"""How screenshots are encoded for the model: one place for formats and data URLs.

Cockpit keeps screenshots as PNG on disk (lossless, for review and export) but
sends the model the marked screenshot in ``ModelConfig.image_format``: JPEG by
default, because encoding a 1024x768 screenshot as JPEG takes about 3 ms
against about 15 ms for PNG, and that is on every step's critical path. The
JPEG is a pure function of the pixels (same encoder, same settings), so what
the model saw can be made again byte for byte from the stored PNG
(:func:`for_model`), which is what re-ask and the judge do.
"""
from __future__ import annotations

import base64
import io

from PIL import Image

FORMATS = ("jpeg", "png")
JPEG_QUALITY = 90  # labels stay crisp; about a quarter of a PNG's encode time
_MIME = {"jpeg": "image/jpeg", "png": "image/png"}


class ImageError(ValueError):
    """Bytes that are not an image Pillow can decode."""


def sniff(data: bytes) -> str | None:
    """'jpeg', 'png' or None, from the first bytes."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    return None


def encode(img: Image.Image, fmt: str) -> bytes:
    """`img` as `fmt` bytes: JPEG at JPEG_QUALITY, or PNG at compression level 1 (speed over size)."""
    buf = io.BytesIO()
    if fmt == "jpeg":
        img.convert("RGB").save(buf, format="JPEG", quality=JPEG_QUALITY)
    elif fmt == "png":
        img.save(buf, format="PNG", compress_level=1)
    else:
        raise ValueError(f"unknown image format {fmt!r}; use one of {', '.join(FORMATS)}")
    return buf.getvalue()


def decode(data: bytes) -> Image.Image:
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except Exception as e:
        raise ImageError(f"not a decodable image ({e})") from e
    return img


def for_model(data: bytes, fmt: str, max_width: int | None = None) -> bytes:
    """`data` as the model is sent it: in `fmt`, no wider than `max_width`.

    Bytes already in `fmt` and narrow enough come back unchanged; anything else
    is decoded and encoded again (downscaled first when too wide).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown image format {fmt!r}; use one of {', '.join(FORMATS)}")
    if sniff(data) == fmt and not (max_width and width(data) > max_width):
        return data
    return prepare(decode(data), fmt, max_width)


def prepare(img: Image.Image, fmt: str, max_width: int | None = None) -> bytes:
    """A decoded image as the model is sent it: scaled down to `max_width` when wider, then encoded in
    `fmt` once (Observation.for_model does this for a fresh screenshot, :func:`for_model` for stored bytes)."""
    if max_width and img.width > max_width:
        height = max(1, round(img.height * max_width / img.width))
        img = img.convert("RGB").resize((max_width, height), Image.Resampling.LANCZOS)
    return encode(img, fmt)


def width(data: bytes) -> int:
    """The image's width from its header (no pixels decoded)."""
    try:
        return Image.open(io.BytesIO(data)).width
    except Exception as e:
        raise ImageError(f"not a decodable image ({e})") from e


def size(data: bytes) -> tuple[int, int]:
    """The image's (width, height) from its header (no pixels decoded)."""
    try:
        return Image.open(io.BytesIO(data)).size
    except Exception as e:
        raise ImageError(f"not a decodable image ({e})") from e


def data_url(data: bytes) -> str:
    """A base64 data URL for `data`, its type read from the bytes (PNG when unknown)."""
    return f"data:{_MIME[sniff(data) or 'png']};base64," + base64.b64encode(data).decode("ascii")


def from_data_url(url: str) -> bytes | None:
    """The bytes of a base64 image data URL of a known format; None for anything else."""
    for mime in _MIME.values():
        prefix = f"data:{mime};base64,"
        if url.startswith(prefix):
            try:
                return base64.b64decode(url[len(prefix):], validate=True)
            except ValueError:
                return None  # e.g. the "{b64_img}" placeholder of imported runs
    return None
