"""The figures a page shows inline: a Markdown image that points at a figure the chart action drew
(`figures/<name>.svg|png`, which is `Notebook/figures/<name>.svg|png` from any file) becomes a `data:` URI of the file, for the live view and the
HTML and PDF exports; DOCX embeds the PNG (`png_of`).

Only those files, read through the workspace's path policy (no link out of the workspace, nothing
over MAX_FIGURE_BYTES, the file's first bytes must be an SVG's or a PNG's): every other image stays
a link, never loaded, as `markdown_html` shows images. An SVG in an `<img>` runs no script. A
figure that cannot be read is named in `broken`, and the page goes on without it.
"""

from __future__ import annotations

import base64
import posixpath
import re
from pathlib import Path
from urllib.parse import unquote

from agent_runtime.domain.charts.spec import FIGURES
from agent_runtime.errors import DeepResearcherError
from sandbox.paths import PathPolicy

MAX_FIGURE_BYTES = 5_000_000
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_TYPES = {".svg": "image/svg+xml", ".png": "image/png"}


class FigureImages:
    """A resolver of image sources for `render_markdown(images=...)`: `base` is the folder (inside
    the workspace `root`) of the Markdown file the sources are written in."""

    def __init__(self, root: Path, base: str = "") -> None:
        self.root = root
        self.base = base.strip("/")
        self.broken: list[str] = []  # each figure that could not be shown, and why

    def path_of(self, src: str) -> str | None:
        """The figure's path relative to the workspace, or None when `src` names no figure."""
        src = unquote(src.strip())
        if not src or _SCHEME.match(src) or src.startswith(("/", "\\")):
            return None
        folder, name = posixpath.split(posixpath.normpath(posixpath.join(self.base, src)))
        if posixpath.basename(folder) != "figures" or posixpath.splitext(name)[1].lower() not in _TYPES:
            return None
        # A figure is its name: the Markdown the chart action returns says figures/<name>.svg, and a
        # Research agent's notes one folder deeper (Notebook/notes/) mean the same file.
        return f"{FIGURES}/{name}"

    def read(self, path: str) -> bytes | None:
        try:
            data = PathPolicy(self.root).read_bytes(path, limit=MAX_FIGURE_BYTES + 1)
        except DeepResearcherError as exc:
            self.broken.append(f"{path}: {exc}")
            return None
        kind = posixpath.splitext(path)[1].lower()
        if len(data) > MAX_FIGURE_BYTES:
            self.broken.append(f"{path}: larger than {MAX_FIGURE_BYTES // 1_000_000} MB")
        elif kind == ".png" and not data.startswith(b"\x89PNG\r\n\x1a\n"):
            self.broken.append(f"{path}: not a PNG image")
        elif kind == ".svg" and b"<svg" not in data[:4096]:
            self.broken.append(f"{path}: not an SVG image")
        else:
            return data
        return None

    def __call__(self, src: str) -> str | None:
        """The `data:` URI of the figure `src` names; None to leave the image a link."""
        path = self.path_of(src)
        data = self.read(path) if path else None
        if path is None or data is None:
            return None
        mime = _TYPES[posixpath.splitext(path)[1].lower()]
        return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"

    def png_of(self, src: str) -> bytes | None:
        """The PNG of the figure `src` names (its .png beside an .svg), for a document format that
        embeds pictures."""
        path = self.path_of(src)
        return self.read(posixpath.splitext(path)[0] + ".png") if path else None
