"""Text out of a PDF the agent downloaded, for its next observation.

Uses pypdf (a maintained pure-Python parser) rather than anything of our own.
"""
from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)


def extract_text(path: Path, max_chars: int = 8000, max_pages: int = 20) -> str:
    """The text of the first pages of `path`, whitespace-tidied and capped.

    An unreadable file gives a short note instead of raising: a broken PDF
    must not end a run.
    """
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        parts = []
        for page in reader.pages[:max_pages]:
            parts.append(page.extract_text() or "")
            if sum(map(len, parts)) > max_chars:
                break
    except (PdfReadError, OSError, ValueError) as e:
        log.warning("could not read PDF %s: %s", path, e)
        return f"(the PDF {path.name} could not be read: {e})"
    text = "\n".join(" ".join(p.split()) for p in parts if p.strip())
    return text[:max_chars]
