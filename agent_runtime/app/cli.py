"""`deep-researcher run | resume | inspect | check | view | export | audit | batch | mcp | follow-up | serve`.

Exit codes: 0 finished, 1 error, 2 usage, 3 stopped by a budget (resumable), 130 interrupted
(resumable). Every failure a user can cause ends in one short message, never a traceback.

The CLI answers at once: `--help`, `--version`, usage errors and `inspect` import neither the model
client nor the extraction or browser stacks; each command imports what it uses when it runs
(tests/agent_runtime/app/test_cli_startup.py holds that line).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from agent_runtime.engine.commands import BUDGETS_NOTE, command, resume_command, with_note
from agent_runtime.errors import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    DeepResearcherError,
    SettingValueError,
)

if TYPE_CHECKING:
    from agent_runtime.app.researcher import Researcher, RunResult


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors: exit 2 with one line and a hint
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _add_run_flags(parser: argparse.ArgumentParser) -> None:
    """Flags shared by run and resume. Each default is None: "not given", so lower layers count."""
    add = parser.add_argument
    add("--model", help="model name (DEEP_RESEARCHER_MODEL)")
    add("--base-url", help="OpenAI-compatible endpoint (OPENAI_BASE_URL), e.g. http://localhost:11434/v1")
    add("--api-key", help="API key (OPENAI_API_KEY)")
    add("--max-steps", type=int, help="step budget (default 200)")
    add("--max-tokens", type=int, help="token budget, prompt + completion")
    add("--max-cost", type=float, help="cost budget in US dollars (needs prices in the config)")
    add("--max-time", type=float, help="wall-time budget in seconds")
    add("--context-window", type=int, help="the model's context window in tokens (default 64000)")
    add(
        "--tool-mode", choices=["auto", "native", "json"],
        help="native tool calls, JSON actions in the text, or auto (native, json if the model writes JSON; default)",
    )  # fmt: skip
    add(
        "--tool-choice", choices=["auto", "required"],
        help="required (default): ask the server to force every reply into an action; auto: never force",
    )  # fmt: skip
    add("--offline", action="store_true", default=None, help="no request leaves except to the model endpoint")
    add("--search", help="search provider (default duckduckgo)")
    add("--corpus", type=Path, help="folder of documents for the local search provider")
    add("--file-model", help="a cheaper model for the File micro agent")
    add("--parallel", type=int, help="actions of one reply run at once (default 4; 1 runs them in turn)")
    add("--prompts", type=Path, help="folder of prompt templates overriding the shipped ones")
    add("--allow-private-urls", action="store_true", default=None, help="allow intranet/loopback URLs")
    add("--language", help="language of the notes and report: zh, en, … (default: that of the title)")
    add(
        "--verify-citations", choices=["lexical", "model"],
        help="check citations by code only, or also let the model judge every cited pair (default)",
    )  # fmt: skip
    add("--browser-path", type=Path, help="Chromium executable for the browser (default: chromium on PATH)")
    add(
        "--mcp-config", type=Path, metavar="FILE",
        help='MCP servers whose tools the agent may call: the {"mcpServers": …} JSON of Claude Desktop / Cursor',
    )  # fmt: skip
    add("--config", type=Path, help="TOML config file (default ~/.config/deep-researcher/config.toml)")
    add("-q", "--quiet", action="store_true", default=None, help="print only the outcome")
    _add_debug(parser)


# -- steering (docs/steering.md) ---------------------------------------------------------------------
def _add_steering_flags(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("--clarify", action="store_true", default=None, help="let the agent ask you 1-3 questions before its plan")
    add("--review-plan", action="store_true", default=None, help="pause once the plan is written, for you to review it")


def _refuse_steering_in_batch(args: argparse.Namespace) -> None:
    given = [flag for flag, name in (("--clarify", "clarify"), ("--review-plan", "review_plan")) if getattr(args, name)]
    if given:
        raise SettingValueError(
            f"batch takes no {' or '.join(given)}: a batch has no one to answer questions or review a plan; "
            "start such a run with `deep-researcher run` (or refine each task's title and purpose in the task file)"
        )


def _terminal_asker() -> Any:
    """Asks the questions of `ask_user` on this terminal (stdin and stderr are one): each answer is
    a line, an empty one means "no preference"."""
    from actions.steering import Asker

    def ask(questions: list[str]) -> list[str]:
        print("\nThe agent asks, before it plans (Enter alone: no preference):", file=sys.stderr)
        answers = []
        for number, question in enumerate(questions, 1):
            print(f"  {number}. {question}", file=sys.stderr)
            print("     > ", end="", file=sys.stderr, flush=True)  # on the terminal, whatever stdout is
            try:
                answers.append(input())
            except EOFError:  # the terminal closed: no answer to this and the rest
                answers.append("")
        return answers

    return Asker(ask)


def _print_waiting(result: RunResult) -> None:
    """A paused run: what it waits for, and how to go on."""
    from agent_runtime.domain.layout import OVERALL_DASHBOARD
    from agent_runtime.domain.steering import load_steering, plan_sections

    overall = result.workspace / OVERALL_DASHBOARD
    if result.status == "awaiting_answers":
        print("The agent asks, before it plans:", file=sys.stderr)
        for number, question in enumerate(load_steering(result.workspace).questions, 1):
            print(f"  {number}. {question}", file=sys.stderr)
        print(f"Write your answers under each question in {overall}, then: {command('resume', result.workspace)}", file=sys.stderr)
        return
    print("The plan waits for your review (no search has run yet):", file=sys.stderr)
    text = overall.read_text(encoding="utf-8", errors="replace") if overall.is_file() else ""
    for heading, body in plan_sections(text):
        print(f"\n{heading}\n{body}", file=sys.stderr)
    print(f"\nEdit {overall} if you like, then: {command('resume', result.workspace)}", file=sys.stderr)


def _add_debug(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--debug", action="store_true", help="print the traceback of an unexpected error")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deep-researcher")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


class _VersionAction(argparse.Action):
    """--version, looked up only when asked for (importlib.metadata costs time at every start)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> NoReturn:
        print(f"deep-researcher {_version()}")
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="deep-researcher", description="An autonomous research agent with a notebook.")
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser("run", help="start a research run")
    run.add_argument("title", help="the research title")
    run.add_argument("--purpose", help="what the report is for, e.g. 'an investment memo'")
    run.add_argument("--workspace", type=Path, help="workspace folder (default: ./<title-slug>)")
    _add_steering_flags(run)
    _add_run_flags(run)
    resume = commands.add_parser("resume", help="continue a stopped or interrupted run")
    resume.add_argument("workspace", type=Path)
    resume.add_argument(
        "--new-settings", action="store_true",
        help="the workspace lost its .runtime/run.json: continue with the settings given now",
    )  # fmt: skip
    _add_run_flags(resume)
    show = commands.add_parser("inspect", help="show a run's state")
    show.add_argument("workspace", type=Path)
    show.add_argument("--json", action="store_true", help="machine-readable output")
    _add_debug(show)
    check = commands.add_parser(
        "check", help="prove in seconds that the endpoint, tool calling, search and Chromium work"
    )
    _add_run_flags(check)
    view = commands.add_parser(
        "view", help="watch and steer runs in a local web page (127.0.0.1, behind a token)"
    )
    view.add_argument(
        "folder", type=Path, nargs="?", default=Path("."),
        help="a workspace, or a folder of workspaces (default: the current folder)",
    )  # fmt: skip
    view.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0 picks a free one)")
    _add_run_flags(view)  # the defaults of runs started from the page (and --debug)
    export = commands.add_parser("export", help="the report as a self-contained HTML, DOCX or PDF file")
    export.add_argument("workspace", type=Path)
    export.add_argument("--format", required=True, choices=["html", "docx", "pdf"], dest="format")
    export.add_argument(
        "--output", help="the file to write, or a folder to write report.FORMAT in (default: WORKSPACE/report.FORMAT)"
    )  # a str: a trailing "/" says "a folder", which a Path would drop
    export.add_argument("--browser-path", type=Path, help="Chromium executable for PDF (default: on PATH)")
    _add_debug(export)
    audit = commands.add_parser(
        "audit", help="re-check a finished report's citations against its saved sources"
    )
    audit.add_argument("workspace", type=Path)
    _add_run_flags(audit)
    batch = commands.add_parser(
        "batch", help="many runs from a JSONL or CSV file, here (--jobs) or on a Dask cluster (--scheduler)"
    )
    batch.add_argument("file", type=Path, help="tasks: JSONL (title or prompt, id, purpose, language) or CSV")
    batch.add_argument("--out", type=Path, required=True, help="folder of the workspaces and results.jsonl")
    batch.add_argument("--jobs", type=int, help="runs at once (default 4 here; on a cluster: its threads)")
    batch.add_argument("--scheduler", help="an existing Dask scheduler, e.g. tcp://HOST:8786")
    batch.add_argument(
        "--batch-max-cost", type=float,
        help="total cost in US dollars across the batch: once reached, no new run starts",
    )  # fmt: skip
    _add_steering_flags(batch)  # refused with the reason (a batch has no one to ask)
    _add_run_flags(batch)
    follow = commands.add_parser(
        "follow-up", help="new research that builds on a finished report (its sources keep their ids)"
    )
    follow.add_argument("earlier", type=Path, metavar="WORKSPACE", help="the finished run to build on")
    follow.add_argument("question", help="the follow-up question")
    follow.add_argument("--workspace", type=Path, help="the new workspace (default: WORKSPACE-follow-up)")
    _add_steering_flags(follow)
    _add_run_flags(follow)
    mcp = commands.add_parser(
        "mcp", help="serve the research as an MCP server over stdio (for Claude Desktop, Cursor, VS Code)"
    )
    mcp.add_argument(
        "--folder", type=Path, default=Path("."),
        help="where the workspaces of the runs it starts go (default: the current folder)",
    )  # fmt: skip
    _add_debug(mcp)
    _add_serve(commands)
    return parser


# -- serve (issue 39): the research as an OpenAI-compatible endpoint -------------------------------


def _add_serve(commands: Any) -> None:
    serve = commands.add_parser(
        "serve", help="the research as an OpenAI-compatible model for chat apps (Open WebUI, LibreChat…)"
    )
    serve.add_argument(
        "--folder", type=Path, default=Path("."),
        help="where the workspaces of the researches go (default: the current folder)",
    )  # fmt: skip
    serve.add_argument(
        "--host", default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; another needs DEEP_RESEARCHER_SERVE_KEY set)",
    )  # fmt: skip
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    serve.add_argument("--jobs", type=int, default=2, help="researches at once; more get HTTP 429 (default 2)")
    _add_run_flags(serve)  # the settings of every research it runs


def _serve(args: argparse.Namespace) -> int:
    from agent_runtime.app.background_runs import flag_arguments
    from agent_runtime.app.serve import serve_openai
    from agent_runtime.config import load_settings

    settings = load_settings(_flags(args), config_file=args.config)  # a bad value: a usage error now
    settings.require_prices_for_cost_budget()
    if settings.clarify or settings.review_plan:  # from the environment or the config file
        from agent_runtime.errors import SettingValueError

        raise SettingValueError(
            "clarify or review_plan is set (DEEP_RESEARCHER_CLARIFY / DEEP_RESEARCHER_REVIEW_PLAN or the config "
            "file), but a chat app shows no dashboard to answer questions or review a plan in: unset it for serve"
        )
    options = flag_arguments(_flags(args), args.config, args.debug)
    return serve_openai(
        args.folder, args.host, args.port, args.jobs, options, api_key=_flags(args).get("api_key"),
        base_url=settings.base_url,
    )  # fmt: skip


# -- end of serve ----------------------------------------------------------------------------------


_SETTING_FLAGS = (
    "model", "base_url", "api_key", "max_steps", "max_tokens", "max_cost", "max_time", "context_window",
    "tool_mode", "search", "corpus", "file_model", "parallel", "prompts", "allow_private_urls", "quiet", "browser_path",
    "language",
    "verify_citations", "tool_choice", "offline", "mcp_config",
    "clarify", "review_plan",
)  # fmt: skip


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    return {name: getattr(args, name) for name in _SETTING_FLAGS if getattr(args, name, None) is not None}


def _build(args: argparse.Namespace) -> Researcher:
    from agent_runtime.app.researcher import Researcher
    from agent_runtime.config import load_settings
    from agent_runtime.engine.model import check_endpoint_reachable

    if args.command == "run":
        from agent_runtime.app.researcher import check_input_lengths

        check_input_lengths(args.title, args.purpose)  # usage errors before anything is reached
        settings = load_settings(_flags(args), config_file=args.config)
        settings.require_prices_for_cost_budget()
        from actions.mcp.config import check_mcp_config

        check_mcp_config(settings)  # a usage error before the endpoint is tried
        check_endpoint_reachable(settings.base_url)
        return Researcher.start(args.title, purpose=args.purpose, workspace=args.workspace, settings=settings)
    if args.command == "follow-up":
        from agent_runtime.app.follow_up import follow_up

        return follow_up(
            args.earlier, args.question, workspace=args.workspace, flags=_flags(args), config_file=args.config,
            before_start=lambda settings: check_endpoint_reachable(settings.base_url),  # before its folder is made
        )  # fmt: skip
    researcher = Researcher.resume(
        args.workspace, flags=_flags(args), config_file=args.config, new_settings=args.new_settings
    )
    check_endpoint_reachable(researcher.settings.base_url)
    return researcher


def _print_outcome(result: RunResult, priced: bool) -> None:
    from agent_runtime.config import describe_cost

    t, s = result.totals, result.summary
    figures = (
        f"{t.steps} steps, {t.model_calls} model calls, {t.prompt_tokens:,} tokens in, "
        f"{t.completion_tokens:,} out, {describe_cost(t.cost, priced)}, {t.elapsed_seconds:.0f}s; sources: "
        f"{s.get('sources_seen', 0)} seen, {s.get('sources_fetched', 0)} fetched, {s.get('sources_cited', 0)} cited"
    )
    citations = s.get("citations")
    if isinstance(citations, dict) and "checked" in citations:
        from agent_runtime.domain.citecheck.figures import describe

        figures += "; " + describe(citations)
    if result.status in ("awaiting_answers", "awaiting_review"):
        print(f"Waiting: {figures}", file=sys.stderr)
        _print_waiting(result)
    elif result.status == "finished":
        unverified = citations.get("unverified", 0) if isinstance(citations, dict) else 0
        plural = "citation" if unverified == 1 else "citations"
        also = f", finished with {unverified} {plural} that could not be verified" if unverified else ""
        print(f"Finished: {result.report_path or '(no report path)'}{also} — {figures}")
        if result.result:
            print(result.result)
    else:
        print(f"{result.status.capitalize()}: {result.reason} — {figures}", file=sys.stderr)
        if result.report_path and s.get("report") == "unfinished":
            print(
                f"Unfinished report (the chapters written so far): {result.workspace / result.report_path}",
                file=sys.stderr,
            )
        command = result.next_command or resume_command(result.workspace)
        if "--max-" in command:
            command = with_note(command, BUDGETS_NOTE)
        print(f"Continue with: {command}", file=sys.stderr)
        advice = _search_advice(result.workspace)
        if advice:
            print(advice, file=sys.stderr)


def _search_advice(workspace: Path) -> str | None:
    """What to do when the run's web search could not reach its engines (no network, no DNS).
    Only the log's last 2 MB are read: a long run's log is hundreds of MB, and a failure that
    matters for this stop is a recent one."""
    from actions.web.search import UNREACHABLE, UNREACHABLE_ADVICE
    from agent_runtime.engine.workspace import Workspace

    try:
        with Workspace(workspace).events_file.open("rb") as log:
            log.seek(max(0, log.seek(0, 2) - 2_000_000))
            tail = log.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        if '"search_provider_failed"' in line and UNREACHABLE in line:
            provider = "duckduckgo" if '"duckduckgo"' in line else "the search provider"
            return f"Search could not reach {provider} from this machine: {UNREACHABLE_ADVICE}."
    return None


def _already_finished(args: argparse.Namespace) -> bool:
    """`resume` of a run that finished: say so and where its report is, and call no model."""
    from agent_runtime.domain.layout import REPORT
    from agent_runtime.domain.report_record import report_record
    from agent_runtime.engine.run_record import load_meta
    from agent_runtime.engine.workspace import Workspace

    space = Workspace(args.workspace)
    if not space.run_file.is_file():
        return False
    meta = load_meta(space.run_file)
    if meta is None or meta.status != "finished":
        return False
    report = space.root / (report_record(meta).report_path or REPORT)
    print(f"{space.root} is already finished: its report is {report}. Nothing was run.")
    print(with_note(command("inspect", space.root), "to look at it"))
    print(with_note(command("audit", space.root), "to re-check its citations"))
    print(with_note(command("run", "TITLE"), "for new research"))
    return True


async def _run(researcher: Researcher) -> RunResult:
    # SIGTERM ends the run like Ctrl-C: resumably, with the metadata saved.
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    if task is not None:
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on every platform
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
    return await researcher.run()


def _check(args: argparse.Namespace) -> int:
    from agent_runtime.app.check import run_check
    from agent_runtime.config import load_settings

    return run_check(load_settings(_flags(args), config_file=args.config), sys.stdout)


def _same_command(argv: Sequence[str]) -> str:
    """The command as it was typed, to give it again; without an --api-key's value (a secret is
    never printed: the key comes from OPENAI_API_KEY or the .env file the next time too)."""
    words: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--api-key":
            skip = True
        elif not word.startswith("--api-key="):
            words.append(word)
    return command(*words)


def main(argv: Sequence[str] | None = None) -> int:
    from sandbox.redaction import RedactingStream

    if not isinstance(sys.stdout, RedactingStream):  # no secret is printed, whoever prints it
        sys.stdout, sys.stderr = RedactingStream(sys.stdout), RedactingStream(sys.stderr)
    args = build_parser().parse_args(argv)
    try:
        from agent_runtime.config import load_dotenv_file

        load_dotenv_file()  # ./.env, below the environment (flags win over both)
        return _command(args, argv)
    except SettingValueError as exc:  # a bad value is a usage error, wherever it was given
        print(f"deep-researcher: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except DeepResearcherError as exc:
        print(f"deep-researcher: error: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print("deep-researcher: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug: one message, the traceback on --debug
        if args.debug:
            traceback.print_exc()
        print(f"deep-researcher: unexpected {type(exc).__name__}: {exc}", file=sys.stderr)
        if not args.debug:
            print("deep-researcher: run it again with --debug to see where it failed", file=sys.stderr)
    return EXIT_ERROR


def _command(args: argparse.Namespace, argv: Sequence[str] | None = None) -> int:
    if args.command == "inspect":
        from agent_runtime.app.inspect_command import inspect_workspace

        return inspect_workspace(args.workspace, as_json=args.json)
    if args.command == "check":
        return _check(args)
    if args.command == "audit":
        from agent_runtime.app.audit import audit_workspace

        return asyncio.run(audit_workspace(args.workspace, _flags(args), args.config, sys.stdout))
    if args.command == "view":
        from agent_runtime.app.view import serve
        from agent_runtime.app.view.control import RunDefaults

        if _flags(args) or args.config is not None:  # a bad value is a usage error now, not at a start
            from agent_runtime.config import load_settings

            load_settings(_flags(args), config_file=args.config)
        return serve(args.folder, port=args.port, defaults=RunDefaults(_flags(args), args.config))
    if args.command == "batch":
        from agent_runtime.app.batch import TaskFileError, batch_command

        _refuse_steering_in_batch(args)
        try:
            return batch_command(
                args.file, args.out, jobs=args.jobs, scheduler=args.scheduler,
                max_batch_cost=args.batch_max_cost, flags=_flags(args), config=args.config, debug=args.debug,
                again=_same_command(sys.argv[1:] if argv is None else argv),
            )  # fmt: skip
        except TaskFileError as exc:  # the task file or --out: fix the command, nothing started
            print(f"deep-researcher: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    if args.command == "export":
        from agent_runtime.app.export import export_report

        left_out: list[str] = []
        written = export_report(
            args.workspace, args.format, output=args.output, browser_path=args.browser_path, warnings=left_out
        )
        for warning in left_out:  # a broken figure is named; the export went on without it
            print(f"deep-researcher: warning: {warning}", file=sys.stderr)
        print(f"Exported: {written}")
        return 0
    if args.command == "mcp":
        from agent_runtime.app.mcp_server import serve_mcp

        return serve_mcp(args.folder)
    if args.command == "serve":
        return _serve(args)
    if args.command == "resume" and _already_finished(args):
        return 0
    from agent_runtime.app.terminal_status import attach_live_view

    researcher = _build(args)
    if researcher.settings.clarify and sys.stdin.isatty() and sys.stderr.isatty():
        from actions.steering import Asker

        researcher.ctx.services.provide(Asker, _terminal_asker(), close=False)
    if not researcher.settings.quiet:
        attach_live_view(researcher.events, researcher.settings, sys.stderr)
        print(f"Workspace: {researcher.workspace.root}", file=sys.stderr)
    result = asyncio.run(_run(researcher))
    if result.crash and args.debug:
        print(result.crash, file=sys.stderr)
    _print_outcome(result, researcher.settings.price() is not None)
    return result.exit_code


def entry() -> NoReturn:
    sys.exit(main())


if __name__ == "__main__":
    entry()
