"""`deep-researcher batch FILE --out DIR`: many runs, one workspace each under DIR, on this
machine (`--jobs N` child processes) or on an existing Dask cluster (`--scheduler ADDRESS`).

Every run is the real CLI in its own process; what to do with a task (skip, resume, start) is
decided from its workspace's files, so the same command again, after anything (a kill -9 of the
batch or of a worker), finishes what is left and redoes nothing. DIR/results.jsonl and
DIR/results.csv hold one row per task, rewritten as runs end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

from agent_runtime.app.batch.task_file import Task, TaskFileError, read_tasks
from agent_runtime.engine.commands import with_note
from agent_runtime.errors import SettingValueError

__all__ = ["TaskFileError", "batch_command", "read_tasks"]

DEFAULT_JOBS = 4
BATCH_LOCK = ".batch.lock"  # in DIR: one batch at a time writes its results files
# What a run on another machine needs from this environment (flags and the key travel apart).
_FORWARDED = ("TAVILY_API_KEY", "SERPER_API_KEY", "BRAVE_API_KEY", "JINA_API_KEY", "SEARXNG_URL")


def child_flags(flags: Mapping[str, Any], config: Path | None, debug: bool) -> tuple[str, ...]:
    """The run flags as each child gets them (children.flag_arguments): the key left out (it goes
    by the environment, never on a command line that `ps` shows), paths made absolute (a worker's
    folder is not ours)."""
    from agent_runtime.app.background_runs import flag_arguments

    return tuple(flag_arguments(flags, config, debug))


def child_env(flags: Mapping[str, Any], cluster: bool) -> dict[str, str]:
    """The environment each child gets on top of its own. On a cluster, this machine's settings
    variables go with the task, so that runs everywhere use the settings the batch was given."""
    env: dict[str, str] = {}
    if cluster:
        env = {
            k: v
            for k, v in os.environ.items()
            if k.startswith(("OPENAI_", "DEEP_RESEARCHER_", "OTEL_")) or k in _FORWARDED
        }
    if flags.get("api_key"):
        env["OPENAI_API_KEY"] = str(flags["api_key"])
    return env


def prepare_out(out: Path) -> Path:
    """DIR, made if missing and proved writable; TaskFileError (a usage error) otherwise."""
    out = out.expanduser().absolute()
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".batch-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise TaskFileError(
            f"cannot use --out {out}: {exc.strerror or exc}; give a folder you can write to"
        ) from None
    return out


@contextlib.contextmanager
def batch_lock(out: Path) -> Iterator[None]:
    """One batch at a time in DIR (two would overwrite each other's results files). The kernel
    releases it when the batch dies, however."""
    from agent_runtime.engine.run_lock import try_lock
    from agent_runtime.errors import WorkspaceError

    fd = os.open(out / BATCH_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        if not try_lock(fd):
            holder = os.pread(fd, 100, 0).decode("utf-8", "replace").strip() or "another process"
            raise WorkspaceError(
                f"another batch is working in {out} ({holder}); wait for it to end or stop it"
            )
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"process {os.getpid()}".encode(), 0)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM ends the batch as Ctrl-C does: its runs stop resumably and the results are saved."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def batch_command(
    file: Path,
    out: Path,
    *,
    jobs: int | None,
    scheduler: str | None,
    max_batch_cost: float | None,
    flags: Mapping[str, Any],
    config: Path | None,
    debug: bool = False,
    again: str | None = None,
) -> int:
    """Run the batch; `again`: the command that started it, printed to continue after a stop."""
    from actions.mcp.config import check_mcp_config
    from actions.web import check_search_settings
    from agent_runtime.app.batch.driver import Batch, Pool
    from agent_runtime.app.batch.progress import Mode, Progress, describe
    from agent_runtime.app.batch.runner import RunSpec
    from agent_runtime.app.researcher import check_input_lengths
    from agent_runtime.app.tracing import ATTRIBUTES_VARIABLE, trace_attributes
    from agent_runtime.config import describe_cost, load_settings
    from agent_runtime.engine.model import check_endpoint_reachable

    if jobs is not None and jobs < 1:
        raise TaskFileError(f"--jobs must be 1 or more, not {jobs}")
    if max_batch_cost is not None and max_batch_cost < 0:
        raise TaskFileError(f"--batch-max-cost must be 0 or more, not {max_batch_cost}")
    tasks = read_tasks(file)  # all of it, before anything starts
    for task in tasks:  # what `run` would refuse, refused now by line
        try:
            check_input_lengths(task.title, task.purpose)
        except SettingValueError as exc:
            raise TaskFileError(f"{file}, line {task.line}: {exc}") from None
    settings = load_settings(dict(flags), config_file=config)  # a bad flag fails once, not in every run
    if settings.clarify or settings.review_plan:  # from the environment or the config file (the flags: cli.py)
        raise TaskFileError(
            "clarify or review_plan is set (DEEP_RESEARCHER_CLARIFY / DEEP_RESEARCHER_REVIEW_PLAN or the config "
            "file), but a batch has no one to answer questions or review a plan: unset it for the batch"
        )
    check_search_settings(settings)
    settings.require_prices_for_cost_budget()  # each run would refuse it: refused once, now
    check_mcp_config(settings)
    priced = settings.price() is not None
    if max_batch_cost is not None and not priced:
        raise TaskFileError(
            f"--batch-max-cost {max_batch_cost:g} needs the prices of the model {settings.model!r}, which are "
            "not known, so the batch's cost could never reach it: set DEEP_RESEARCHER_PRICE_INPUT and "
            f'DEEP_RESEARCHER_PRICE_OUTPUT (US dollars per million tokens), or [prices."{settings.model}"] in '
            "the config file"
        )
    out = prepare_out(out)
    specs = child_flags(flags, config, debug), child_env(flags, scheduler is not None)
    cwd = str(Path.cwd())

    batch_id = uuid.uuid4().hex[:16]  # each run is its own trace; this groups them (app/tracing.py)

    def spec_for(task: Task) -> RunSpec:
        traced = {ATTRIBUTES_VARIABLE: trace_attributes(batch_id=batch_id, task_id=task.id, out=str(out))}
        return RunSpec(task, str(out), specs[0], {**specs[1], **traced}, cwd)

    pool: Pool
    if scheduler:
        from agent_runtime.app.batch.cluster import DaskPool

        pool = DaskPool(scheduler, jobs)
    else:
        from agent_runtime.app.batch.local import LocalPool

        check_endpoint_reachable(settings.base_url)  # a workers' endpoint may differ: checked by the runs
        pool = LocalPool(jobs or DEFAULT_JOBS)
    stream = sys.stderr
    mode: Mode = "quiet" if flags.get("quiet") else ("bar" if stream.isatty() else "lines")
    try:
        with batch_lock(out), sigterm_as_interrupt():
            print(f"Batch: {len(tasks)} tasks on {pool.where}, workspaces in {out}", file=stream)
            outcome = Batch(
                tasks, out, pool, spec_for, Progress(stream, mode, priced=priced), max_batch_cost
            ).run()
    finally:
        pool.close()
    counts: dict[str, int] = {}
    for row in outcome.rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    spent = sum(row.get("cost") or 0.0 for row in outcome.rows)
    said = ", ".join(f"{n} {status}" for status, n in sorted(counts.items(), key=lambda item: -item[1]))
    print(
        f"Batch: {said} of {len(tasks)} · {describe_cost(spent, priced)} · results: {out / 'results.jsonl'}"
    )
    failed = [row for row in outcome.rows if row["status"] in ("error", "failed")]
    if failed:
        print(f"Failed ({len(failed)}):", file=sys.stderr)
        for row in failed:
            print(f"- {describe(row, priced)}", file=sys.stderr)
    if outcome.budget_reached:
        print(
            f"The batch's budget (--batch-max-cost ${max_batch_cost:g}) was reached: no new run started.",
            file=sys.stderr,
        )
    if outcome.exit_code in (3, 130):
        note = "the same command: finished runs are skipped, the others resume"
        print(f"Continue with: {with_note(again, note) if again else note}", file=sys.stderr)
    return outcome.exit_code
