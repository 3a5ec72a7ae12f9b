"""The stored expected outputs of tests/data/expected/ (make_expected.py there says how they were
made) and what comparing with them needs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from agent_runtime.engine.messages import Message

EXPECTED = Path(__file__).resolve().parents[1] / "data" / "expected"


def digest(request: list[Message]) -> str:
    """The fingerprint of a request as the tests compare it."""
    return hashlib.sha256(json.dumps(request, ensure_ascii=False).encode()).hexdigest()


def stored(name: str) -> Any:
    """A stored output of tests/data/expected/."""
    return json.loads((EXPECTED / name).read_text(encoding="utf-8"))


def notebook_with_b(folder: Path) -> Path:
    """The folder the unfinished-tasks notes are made in: one notes file, `Notebook/b.md`."""
    (folder / "Notebook").mkdir(parents=True, exist_ok=True)
    (folder / "Notebook" / "b.md").write_text("# B\n\nFact [S2].\n")
    return folder
