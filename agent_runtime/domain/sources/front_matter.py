"""The YAML front matter of a snapshot `sources/S<n>.md`: the source's id, URLs, title, time and hash
written at its head, so that a ledger lost or damaged by hand can be rebuilt from the snapshots."""

from __future__ import annotations

import json


def render_front_matter(fields: dict[str, str | int | bool | None]) -> str:
    """YAML front matter for a snapshot: one `key: value` line each, strings JSON-quoted (a JSON
    string is a valid YAML double-quoted scalar, so any title or URL is safe)."""
    lines = ["---"]
    for key, value in fields.items():
        if value is None:
            lines.append(f"{key}: null")
        elif isinstance(value, bool):
            lines.append(f"{key}: {'true' if value else 'false'}")
        elif isinstance(value, int):
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def read_front_matter(text: str) -> dict[str, str]:
    """The string fields of front matter written by `render_front_matter` (others are skipped)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}
    fields: dict[str, str] = {}
    for line in lines[1:]:
        if line.strip() == "---":
            break
        key, sep, value = line.partition(":")
        value = value.strip()
        if not sep or not value:
            continue
        if value.startswith('"'):
            try:
                parsed = json.loads(value)
            except ValueError:
                continue
            if isinstance(parsed, str):
                fields[key.strip()] = parsed
        elif value != "null":
            fields[key.strip()] = value
    return fields


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """(front matter fields, the body after it) of a snapshot."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 3)
    if end < 0:
        return {}, text
    return read_front_matter(text[: end + 5]), text[end + 5 :].lstrip("\n")
