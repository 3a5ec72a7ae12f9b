"""Where Chromium is: the one configured, else the first of CANDIDATES on PATH. The browser
session and the PDF export both use it, each saying in its own words what to do when it is missing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def locate_chromium(configured: Path | None) -> Path | None:
    """The executable, or None when there is none. A configured path that is not an executable
    file is None too: falling back to another browser would ignore what the user chose."""
    if configured is not None:
        path = configured.expanduser()
        return path if path.is_file() and os.access(path, os.X_OK) else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return Path(found)
    return None
