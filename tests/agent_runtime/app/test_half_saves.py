"""A person saves the dashboards in place, pausing 0.1–0.6 s in the middle of each save, while a real
`deep-researcher run` (the CLI process, the scripted endpoint) reads and writes them at every step
(issue 34, item 5). No edit may be lost: each save reaches the model whole (with the dashboards, in
an observation or in a note), and no save cut in the middle is ever given to it as final. Nothing is
timed; the figures are benchmarks/bench_half_saves.py's."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_runtime.engine.writers import Writers
from tests.support.half_saves import run_with_half_saves

SAVES = 12


@pytest.mark.slow
@pytest.mark.parametrize("title", ["Dashboards edited while the run works", "运行期间被编辑的仪表板"])
def test_no_half_saved_edit_is_lost_during_a_cli_run(tmp_path: Path, title: str) -> None:
    outcome = run_with_half_saves(tmp_path, SAVES, title=title)
    assert outcome.cli.code == 0, outcome.cli.stderr[-3000:]
    assert outcome.saves == SAVES
    assert outcome.lost == []  # every save reached the model, or at least the trash…
    assert outcome.unseen == []  # …and the model was told of every one
    assert outcome.half == []  # never a save cut in the middle taken as final
    assert len(outcome.delays) == SAVES
    kinds = {e["event"] for e in outcome.events}
    assert "dashboard_edited" in kinds
    # A writer that closes its file is never taken for a stuck one (with inotify; elsewhere the
    # settle time decides, and a pause longer than it would be logged).
    if Writers().kernel:
        assert "writer_wait_expired" not in kinds
