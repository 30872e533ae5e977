"""What an action downloaded: files the browser saved, read into the outcome (a PDF's text for the model).
A remote browser (a Grid) keeps its downloads on its own machine: the outcome says so instead."""
from __future__ import annotations

import re
import time
from urllib.parse import urlparse

from cockpit.core import pdf
from cockpit.core.browser.session import BrowserSession
from cockpit.core.page.marks import Mark
from cockpit.core.words import plural

#: Link paths that usually download a file rather than open a page.
REMOTE_FILE = re.compile(r"\.(pdf|zip|gz|tgz|csv|tsv|xlsx?|docx?|pptx?|json|xml|txt|epub|mp3|mp4|dmg|exe)$", re.I)


def collect(s: BrowserSession, outcome, mark: Mark | None) -> None:
    """Add what the action downloaded (waited for up to 3 s after a click on a PDF link) to `outcome`."""
    looks_pdf = bool(mark and mark.href and urlparse(mark.href).path.lower().endswith(".pdf"))
    if s.config.webdriver_url:  # a remote browser saves downloads on its own machine, out of reach
        if mark and mark.href and REMOTE_FILE.search(urlparse(mark.href).path):
            outcome.message += ("; if this started a download, the file stays on the remote browser's "
                                "machine: Cockpit cannot read downloads there (open the file's page instead)")
        return
    end = time.monotonic() + (3.0 if looks_pdf else 0.0)
    while True:
        s.downloads.wait()
        new = s.downloads.new()
        if new or time.monotonic() >= end:
            break
        time.sleep(0.05)
    outcome.downloads = new
    for p in new:
        if p.suffix.lower() == ".pdf":
            text = pdf.extract_text(p)
            outcome.pdf_text += f"[PDF {p.name}]\n{text}\n"
            outcome.message += f"; downloaded the PDF {p.name} ({plural(len(text), 'character')} of text)"
        else:
            outcome.message += f"; downloaded {p.name}"
