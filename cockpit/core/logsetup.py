"""One place to set up logging for the command line and the app."""
from __future__ import annotations

import logging


class _Plain(logging.Formatter):
    """'cockpit: warning: ...', as the command line's own messages look (no time, no logger name)."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return f"cockpit: {record.levelname.lower()}: {text}"


def setup_logging(verbose: bool = False) -> None:
    """Warnings and errors only, plainly worded; with `verbose`, everything with time and logger name."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s") if verbose
                         else _Plain("%(message)s"))
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, handlers=[handler])
    for noisy in ("selenium", "urllib3", "httpx", "httpcore", "openai"):
        logging.getLogger(noisy).setLevel(logging.INFO if verbose else logging.WARNING)
