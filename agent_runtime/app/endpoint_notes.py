"""What `check` learned about an endpoint, kept for the runs that follow.

`check` proves which tool mode an endpoint answers in. With `--tool-mode auto` a run would learn it
again from its own first replies, and on a CPU two wasted replies cost many minutes; so `check`
notes it, and a new run on the same endpoint and model starts in that mode. The notes live in the
user's cache (`$XDG_CACHE_HOME/deep-researcher/endpoints.json`, else `~/.cache/…`): a hint that can
be deleted at any time, never a setting; an unreadable file counts as no notes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from agent_runtime.config import Settings
from agent_runtime.engine.replies import ToolMode
from sandbox import atomic_write_text

OPENAI = "https://api.openai.com/v1"


def notes_file(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    cache = env.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    return Path(cache) / "deep-researcher" / "endpoints.json"


def _key(settings: Settings) -> str:
    """The endpoint without any credentials in its URL, and the model."""
    parts = urlsplit((settings.base_url or OPENAI).rstrip("/"))
    host = parts.netloc.rpartition("@")[2]
    return f"{urlunsplit((parts.scheme, host, parts.path, '', ''))} {settings.model}"


def _read(path: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def remember_tool_mode(settings: Settings, mode: ToolMode, env: Mapping[str, str] | None = None) -> None:
    """Note the mode that works with this endpoint and model (a note that cannot be written is lost)."""
    path = notes_file(env)
    notes = _read(path)
    notes[_key(settings)] = {"tool_mode": mode}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(notes, indent=1, sort_keys=True) + "\n")
    except OSError:
        pass


def recall_tool_mode(settings: Settings, env: Mapping[str, str] | None = None) -> ToolMode | None:
    entry = _read(notes_file(env)).get(_key(settings))
    mode = entry.get("tool_mode") if isinstance(entry, dict) else None
    return "json" if mode == "json" else "native" if mode == "native" else None
