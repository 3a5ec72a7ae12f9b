"""The record model: what the ledger knows about one source, as it is stored in its files."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

Via = Literal["search", "visit"]

_ID = re.compile(r"^S([1-9][0-9]*)$")
# A source id as notes and dashboards cite it, `[S<n>]` (the id in the group): what a compaction's
# summary of the current dashboard must keep (the main agent's AgentSpec.kept_ids).
CITED_ID = re.compile(r"\[(S\d+)\]")


def now() -> str:
    """The time now as a record stores it (UTC, to the second)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def source_number(source_id: str) -> int | None:
    """The n of a valid id `S<n>`, else None."""
    match = _ID.match(source_id)
    return int(match.group(1)) if match else None


@dataclass
class SourceRecord:
    """What the ledger knows about one source."""

    id: str
    url: str
    canonical_url: str
    title: str = ""
    first_seen: str = field(default_factory=now)
    first_seen_via: Via = "search"
    aliases: list[str] = field(default_factory=list)
    fetched_at: str | None = None
    final_url: str | None = None
    snapshot: str | None = None
    content_type: str | None = None
    sha256: str | None = None
    snippet: str | None = None  # what the search result said: the evidence for a source never read

    @property
    def fetched(self) -> bool:
        """True once the page itself was retrieved and saved (not only seen in search results)."""
        return self.fetched_at is not None

    @property
    def number(self) -> int:
        number = source_number(self.id)
        assert number is not None  # ids are validated on load and made by the ledger
        return number

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> SourceRecord:
        if not isinstance(data, dict):
            raise ValueError("a source entry is not an object")
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        record = cls(**known)
        if source_number(record.id) is None:
            raise ValueError(f"invalid source id {record.id!r}")
        if record.first_seen_via not in ("search", "visit"):
            record.first_seen_via = "search"
        return record


def clean_title(title: str) -> str:
    """A title as the ledger keeps it: one line, at most 300 characters."""
    return " ".join(title.split())[:300]
