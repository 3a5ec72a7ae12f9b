"""Snapshots: the full text of each retrieved source, `sources/S<n>.md`, with YAML front matter
(id, url, final_url, title, fetched_at, content_type, sha256 of the bytes received, and how the
text was obtained) — the evidence a reader can audit. Written only by code, atomically."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_runtime.domain.sources.front_matter import render_front_matter, split_front_matter
from sandbox import atomic_write_text


@dataclass
class Snapshot:
    source_id: str
    url: str
    final_url: str
    title: str
    fetched_at: str
    content_type: str
    sha256: str
    text: str
    extraction: str = ""
    truncated: bool = False

    def render(self) -> str:
        fields: dict[str, str | int | bool | None] = {
            "id": self.source_id,
            "url": self.url,
            "final_url": self.final_url,
            "title": self.title,
            "fetched_at": self.fetched_at,
            "content_type": self.content_type,
            "sha256": self.sha256,
            "extraction": self.extraction,
            "truncated": self.truncated,
        }
        return render_front_matter(fields) + "\n" + self.text.strip() + "\n"


def write_snapshot(sources_dir: Path, snapshot: Snapshot) -> Path:
    sources_dir.mkdir(parents=True, exist_ok=True)
    path = sources_dir / f"{snapshot.source_id}.md"
    atomic_write_text(path, snapshot.render())
    return path


def read_snapshot(path: Path) -> tuple[dict[str, str], str] | None:
    """(front matter, text) of a snapshot, or None if it is missing or unreadable."""
    try:
        raw = path.read_text("utf-8", errors="replace")
    except OSError:
        return None
    fields, body = split_front_matter(raw)
    return (fields, body) if fields else None
