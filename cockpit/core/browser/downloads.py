"""The folder a local browser saves downloads into: which files are new since the last look, and waiting for
the ones still being written (``.crdownload``) to finish. Reads the folder only."""
from __future__ import annotations

import time
from pathlib import Path


class DownloadFolder:
    def __init__(self, folder: Path | None):
        self.folder = folder
        self._seen: set[str] = set()

    def new(self) -> list[Path]:
        """Completed downloads that appeared since the last call."""
        if not self.folder or not self.folder.exists():
            return []
        out = []
        for p in sorted(self.folder.iterdir()):
            if p.suffix in (".crdownload", ".tmp") or p.name in self._seen:
                continue
            self._seen.add(p.name)
            out.append(p)
        return out

    def wait(self, timeout: float = 5.0) -> None:
        """Give in-progress downloads (``.crdownload``) up to `timeout` to finish."""
        if not self.folder or not self.folder.exists():
            return
        end = time.monotonic() + timeout
        while time.monotonic() < end and any(p.suffix == ".crdownload" for p in self.folder.iterdir()):
            time.sleep(0.05)
