"""What a conversation's marker may lead `serve` to: a research workspace directly in its folder,
nothing else (the marker is the client's text). And the folder a new research gets."""

from __future__ import annotations

import json
from pathlib import Path

from agent_runtime.app.serve.jobs import LOGS, Jobs
from agent_runtime.domain.layout import ResearchWorkspace


def research(path: Path, title: str = "Solar power") -> Path:
    ResearchWorkspace(path).create(title, None, None)
    (path / ".runtime" / "run.json").write_text(json.dumps({"title": title, "status": "finished"}))
    return path


def test_a_marker_leads_only_to_a_research_workspace_in_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "served"
    folder.mkdir()
    jobs = Jobs(folder, 1, [])
    real = research(folder / "solar-power")
    outside = research(tmp_path / "outside")
    (folder / "link").symlink_to(real)
    (folder / "away").symlink_to(outside)
    research(folder / ".hidden")
    (folder / "plain").mkdir()
    (folder / LOGS).mkdir()
    assert jobs._marked("solar-power") == real
    for name in ("link", "away", ".hidden", "plain", LOGS, "..", "missing", "", None):
        assert jobs._marked(name) is None, name


def test_new_research_gets_the_title_s_words_numbered_when_taken(tmp_path: Path) -> None:
    jobs = Jobs(tmp_path, 1, [])
    first, second = jobs._claim("Solar power: 2026?"), jobs._claim("Solar power 2026")
    third = jobs._claim("固态电池的产业化进展")
    assert (first.name, second.name, third.name) == ("solar-power-2026", "solar-power-2026-2", "固态电池的产业化进展")
    assert all(p.is_dir() and not any(p.iterdir()) for p in (first, second, third))
