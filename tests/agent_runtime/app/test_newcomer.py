"""What a newcomer tripped on in their first hour (issue 27), each through the real CLI process
against the scripted endpoint (a real OpenAI-compatible server on 127.0.0.1)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import Reply, ScriptedEndpoint, call, reply
from tests.support.cli import CliResult, cli_env, run_cli
from tests.support.research_script import research_script

REPO = Path(__file__).resolve().parents[3]


def calls_tools(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
    if tools:
        return reply(call("report_word", word="ready"))
    return reply(content='{"action": "report_word", "arguments": {"word": "ready"}}')


def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir(exist_ok=True)
    (folder / "a.md").write_text("# Notes\n\nResearch on sodium-ion cells.\n", "utf-8")
    return folder


def check(url: str, *flags: str, tmp_path: Path, cwd: Path | None = None, **env: str) -> CliResult:
    environment = cli_env(None, HOME=str(tmp_path / "home"), **env)
    for key in ("TAVILY_API_KEY", "SERPER_API_KEY", "BRAVE_API_KEY", "JINA_API_KEY", "SEARXNG_URL"):
        environment.pop(key, None)
    environment.update(env)
    return run_cli(
        ["check", "--base-url", url, "--api-key", "test-key", *flags], environment, cwd=cwd or tmp_path
    )


def line(result: CliResult, what: str) -> str:
    found = [text for text in result.stdout.splitlines() if text[6:].startswith(what)]
    assert found, f"no {what!r} line in:\n{result.stdout}{result.stderr}"
    return found[0]


def finished_run(tmp_path: Path, server: ScriptedEndpoint, title: str = "Solid-state batteries") -> Path:
    ws = tmp_path / "ws"
    result = run_cli(["run", title, "--workspace", str(ws), "-q"], cli_env(server.url))
    assert result.code == 0, result.stderr
    return ws


# -- 1. check and the model name ---------------------------------------------------------------------
@pytest.mark.slow
def test_a_model_name_one_letter_off_warns_and_names_the_nearest(endpoint: Any, tmp_path: Path) -> None:
    server = endpoint(calls_tools)
    local = ("--search", "local", "--corpus", str(corpus(tmp_path)), "--browser-path", "/nonexistent")
    result = check(server.url, "--model", "scripted-modle", *local, tmp_path=tmp_path)
    model = line(result, "model")
    assert model.startswith("warn "), result.stdout
    assert "scripted-modle is not listed" in model and "did you mean 'scripted-model'?" in model
    assert "Ready:" not in result.stdout and "1 warning" in result.stdout
    assert result.code == 0  # the server answered: a run would work, but maybe not with the model meant

    # The tool-call line says what was proved.
    tools = line(result, "tool calls")
    assert "called the one tool it was offered with the argument asked for" in tools
    assert "can drive the agent's actions" in tools

    exact = check(server.url, "--model", "scripted-model", *local, tmp_path=tmp_path)
    assert exact.code == 0 and line(exact, "model").startswith("ok ") and "Ready:" in exact.stdout


# -- 3. resuming a finished run ----------------------------------------------------------------------
@pytest.mark.slow
def test_resuming_a_finished_run_says_so_and_calls_no_model(endpoint: Any, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    server = endpoint(research_script(ws))
    finished_run(tmp_path, server)
    calls = len(server.requests)
    meta_before = (ws / ".runtime" / "run.json").read_text()

    again = run_cli(["resume", str(ws)], cli_env(server.url))
    assert again.code == 0, again.stderr
    assert "already finished" in again.stdout and str(ws / "report.md") in again.stdout
    assert "Research complete" not in again.stdout + again.stderr
    assert len(server.requests) == calls  # no model was called
    assert (ws / ".runtime" / "run.json").read_text() == meta_before  # nothing recorded as a resume
    # No key, no endpoint: it still answers (nothing will be sent anywhere).
    bare = run_cli(["resume", str(ws)], cli_env())
    assert bare.code == 0 and "already finished" in bare.stdout, bare.stderr


# -- 4. export --output DIR/ -------------------------------------------------------------------------
@pytest.mark.slow
def test_export_into_a_folder_and_a_missing_folder(endpoint: Any, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    finished_run(tmp_path, endpoint(research_script(ws)))
    out = tmp_path / "out"
    out.mkdir()
    written = run_cli(["export", str(ws), "--format", "html", "--output", f"{out}/"], cli_env())
    assert written.code == 0, written.stderr
    assert (out / "report.html").is_file() and f"Exported: {out / 'report.html'}" in written.stdout

    missing = tmp_path / "nowhere"
    refused = run_cli(["export", str(ws), "--format", "html", "--output", f"{missing}/"], cli_env())
    assert refused.code == 1
    assert f"{missing} does not exist" in refused.stderr and "create it first" in refused.stderr
    assert not missing.exists()
    deeper = run_cli(
        ["export", str(ws), "--format", "docx", "--output", str(missing / "memo.docx")], cli_env()
    )
    assert (
        deeper.code == 1 and f"{missing} does not exist" in deeper.stderr and "Traceback" not in deeper.stderr
    )


# -- 5. .env -----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_dotenv_file_is_read_below_the_environment_and_flags(endpoint: Any, tmp_path: Path) -> None:
    server = endpoint(calls_tools)
    here = tmp_path / "project"
    here.mkdir()
    (here / ".env").write_text(
        f"# the project's settings\nOPENAI_BASE_URL={server.url}\nOPENAI_API_KEY=sk-dotenvsecret1234567890abcd\n"
        "DEEP_RESEARCHER_MODEL=scripted-model\nDEEP_RESEARCHER_SEARCH=local\n"
        f"DEEP_RESEARCHER_CORPUS={corpus(tmp_path)}\n",
        "utf-8",
    )
    env = cli_env(None, HOME=str(tmp_path / "home"), DEEP_RESEARCHER_BROWSER_PATH="/nonexistent")
    result = run_cli(["check"], env, cwd=here)
    assert result.code == 0, result.stdout + result.stderr
    assert f"Checking model 'scripted-model' at {server.url}" in result.stdout
    assert "dotenvsecret" not in result.stdout + result.stderr
    assert server.requests[0]["model"] == "scripted-model"

    # .env wins over the config file; the environment wins over .env, and a flag over both.
    (here / "config.toml").write_text('model = "from-toml"\nmax_steps = 7\n', "utf-8")
    over_toml = run_cli(["check", "--config", "config.toml"], env, cwd=here)
    assert "Checking model 'scripted-model'" in over_toml.stdout, over_toml.stdout + over_toml.stderr
    from_env = run_cli(["check"], {**env, "DEEP_RESEARCHER_MODEL": "from-env"}, cwd=here)
    assert "Checking model 'from-env'" in from_env.stdout
    from_flag = run_cli(
        ["check", "--model", "from-flag"], {**env, "DEEP_RESEARCHER_MODEL": "from-env"}, cwd=here
    )
    assert "Checking model 'from-flag'" in from_flag.stdout

    # A bad value names the line it came from; a line that is not NAME=value is named, not shown.
    (here / ".env").write_text(
        f"OPENAI_BASE_URL={server.url}\n\nDEEP_RESEARCHER_MAX_STEPS=abc\nthis is sk-notshownsecret9876543210 oops\n",
        "utf-8",
    )
    bad = run_cli(["check"], env, cwd=here)
    assert bad.code == 2, bad.stdout + bad.stderr
    assert "DEEP_RESEARCHER_MAX_STEPS in .env line 3='abc': expected a whole number" in bad.stderr
    assert ".env line 4" in bad.stderr and "notshownsecret" not in bad.stderr

    # A virtual environment named .env is a folder, not settings: ignored.
    venv = tmp_path / "venv-here"
    (venv / ".env" / "bin").mkdir(parents=True)
    beside = run_cli(
        [
            "check",
            "--base-url",
            server.url,
            "--api-key",
            "k",
            "--search",
            "local",
            "--corpus",
            str(corpus(tmp_path)),
        ],
        env,
        cwd=venv,
    )
    assert beside.code == 0 and "error" not in beside.stderr, beside.stdout + beside.stderr


# -- 6. cost -----------------------------------------------------------------------------------------
UNKNOWN = "cost unknown (set DEEP_RESEARCHER_PRICE_INPUT / _OUTPUT)"


@pytest.mark.slow
def test_a_model_without_prices_shows_cost_unknown_everywhere(endpoint: Any, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    server = endpoint(research_script(ws))
    result = run_cli(["run", "Solid-state batteries", "--workspace", str(ws)], cli_env(server.url))
    assert result.code == 0 and UNKNOWN in result.stdout and "$0.0000" not in result.stdout
    shown = run_cli(["inspect", str(ws)], cli_env())
    assert UNKNOWN in shown.stdout and "$0.0000" not in shown.stdout

    priced = tmp_path / "priced"
    server2 = endpoint(research_script(priced))
    paid = run_cli(
        ["run", "Solid-state batteries", "--workspace", str(priced), "-q"],
        cli_env(server2.url, DEEP_RESEARCHER_PRICE_INPUT="1000", DEEP_RESEARCHER_PRICE_OUTPUT="1000"),
    )
    assert paid.code == 0 and re.search(r"\$\d+\.\d{4}", paid.stdout) and "cost unknown" not in paid.stdout
    assert "cost unknown" not in run_cli(["inspect", str(priced)], cli_env()).stdout


@pytest.mark.slow
def test_check_says_when_costs_are_unknown(endpoint: Any, tmp_path: Path) -> None:
    server = endpoint(calls_tools)
    local = ("--model", "scripted-model", "--search", "local", "--corpus", str(corpus(tmp_path)),
             "--browser-path", "/nonexistent")  # fmt: skip
    result = check(server.url, *local, tmp_path=tmp_path)
    assert line(result, "cost").startswith("note ") and "DEEP_RESEARCHER_PRICE_INPUT" in line(result, "cost")
    priced = check(server.url, *local, tmp_path=tmp_path, DEEP_RESEARCHER_PRICE_INPUT="0.15",
                   DEEP_RESEARCHER_PRICE_OUTPUT="0.6")  # fmt: skip
    assert line(priced, "cost").startswith("ok ") and "$0.15" in line(priced, "cost")
    budget = check(server.url, *local, "--max-cost", "1", tmp_path=tmp_path)
    assert budget.code == 1 and line(budget, "cost").startswith("FAIL ") and "--max-cost" in line(budget, "cost")


@pytest.mark.slow
def test_a_cost_budget_without_prices_is_refused_at_start(endpoint: Any, tmp_path: Path) -> None:
    server = endpoint(research_script(tmp_path / "ws"))
    result = run_cli(
        ["run", "Solid-state batteries", "--workspace", str(tmp_path / "ws"), "--max-cost", "2"],
        cli_env(server.url),
    )
    assert result.code == 2, result.stderr
    assert "--max-cost" in result.stderr and "DEEP_RESEARCHER_PRICE_INPUT" in result.stderr
    assert server.requests == [] and not (tmp_path / "ws").exists()


# -- 7. limits on input ------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_title_or_purpose_too_long_is_a_usage_error(endpoint: Any, tmp_path: Path) -> None:
    server = endpoint(research_script(tmp_path / "ws"))
    long_title = run_cli(["run", "x" * 5000, "--workspace", str(tmp_path / "ws")], cli_env(server.url))
    assert long_title.code == 2
    assert "5,000 characters" in long_title.stderr and "at most 1,000" in long_title.stderr
    long_purpose = run_cli(
        ["run", "Cells", "--purpose", "p" * 12000, "--workspace", str(tmp_path / "ws")], cli_env(server.url)
    )
    assert long_purpose.code == 2 and "12,000" in long_purpose.stderr and "10,000" in long_purpose.stderr
    assert server.requests == [] and not (tmp_path / "ws").exists()


# -- 8. search unreachable ---------------------------------------------------------------------------
@pytest.mark.slow
def test_check_says_what_to_do_when_duckduckgo_cannot_be_reached(endpoint: Any, tmp_path: Path) -> None:
    server = endpoint(calls_tools)
    # A proxy that nothing answers: unreachable, on any machine, with or without internet.
    result = check(server.url, "--model", "scripted-model", "--search", "duckduckgo", "--browser-path", "/x",
                   tmp_path=tmp_path, HTTPS_PROXY="http://127.0.0.1:9")  # fmt: skip
    search = line(result, "search")
    assert search.startswith("FAIL ") and "cannot be reached" in search
    assert "--search local --corpus DIR" in search and "TAVILY_API_KEY" in search and "HTTPS_PROXY" in search
    assert "ConnectError(" not in search and "os error" not in search


def test_a_dns_failure_is_said_in_words() -> None:
    from actions.web.providers.duckduckgo import explain_failure

    raw = (
        "DNSError: DNSError('error sending request for url (https://search.yahoo.com/search?p=research) > error "
        'resolving DNS > DNS error: no records found for Query { name: Name("search.yahoo.com."), query_type: A }\')'
    )
    said = explain_failure(raw)
    assert said is not None and "name lookup" in said and "Query {" not in said


@pytest.mark.slow
def test_a_run_whose_search_is_unreachable_stops_with_advice(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    searches = iter(range(1000))

    def searching(messages: list[dict[str, Any]], tools: Any) -> Reply:
        return reply(call("web_search", query=f"cells {next(searches)}", max_results=3))

    with ScriptedEndpoint(searching) as server:
        result = run_cli(
            [
                "run",
                "Sodium-ion cells",
                "--workspace",
                str(ws),
                "--max-steps",
                "2",
                "-q",
                "--search",
                "duckduckgo",
            ],
            cli_env(server.url, HTTPS_PROXY="http://127.0.0.1:9", DEEP_RESEARCHER_SEARCH_RETRIES="0"),
        )
        observation = json.dumps(server.requests[-1]["messages"])
    assert result.code == 3
    assert "cannot be reached" in observation and "os error" not in observation
    assert "Search could not reach" in result.stderr and "--search local --corpus DIR" in result.stderr


# -- 10. small things --------------------------------------------------------------------------------
NOT_A_WORKSPACE = "is not a research workspace (it has no overall_dashboard.md or .runtime/run.json)"


@pytest.mark.slow
def test_not_a_workspace_is_worded_the_same_everywhere(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("my own file")
    for command in (
        ["inspect", str(tmp_path)],
        ["resume", str(tmp_path), "--api-key", "k"],
        ["export", str(tmp_path), "--format", "html"],
        ["audit", str(tmp_path), "--verify-citations", "lexical"],
    ):
        result = run_cli(command, cli_env())
        assert result.code == 1 and f"{tmp_path} {NOT_A_WORKSPACE}" in result.stderr, (command, result.stderr)
    a_file = tmp_path / "notes.txt"
    for command in (
        ["inspect", str(a_file)],
        ["export", str(a_file), "--format", "html"],
        ["audit", str(a_file)],
    ):
        result = run_cli(command, cli_env())
        assert result.code == 1 and f"{a_file} is a file, not a workspace folder" in result.stderr, (
            result.stderr
        )


def readme_block(after: str, language: str) -> str:
    text = (REPO / "README.md").read_text("utf-8")
    section = text[text.index(after) :]
    start = section.index(f"```{language}\n") + len(language) + 4
    return section[start : section.index("```", start)]


@pytest.mark.slow
def test_the_testing_module_serves_a_demo_endpoint(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_runtime.testing"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=tmp_path,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("OPENAI_BASE_URL=http://127.0.0.1:"), first + (
            proc.stderr.read() if proc.stderr else ""
        )
        url = first.strip().split("=", 1)[1]
        ws = tmp_path / "demo"
        result = run_cli(
            ["run", "Sodium-ion cells", "--workspace", str(ws), "-q", "--search", "local", "--corpus",
             str(corpus(tmp_path))],
            cli_env(url),
        )  # fmt: skip
        assert result.code == 0, result.stderr
        report = (ws / "report.md").read_text("utf-8")
        assert "Research on sodium-ion cells [1]." in report and "## References" in report
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.slow
def test_a_chinese_report_lists_its_references_with_chinese_punctuation(
    endpoint: Any, tmp_path: Path
) -> None:
    from agent_runtime.domain.sources.ledger import Ledger

    ws = tmp_path / "ws"

    def script(messages: list[dict[str, Any]], tools: Any) -> Reply:
        seen = json.dumps(messages, ensure_ascii=False)
        if "阶段：写作" in seen:
            ledger = Ledger.load(ws / "sources")
            one = ledger.register("https://example.cn/a", "固态电池的产业化进展", via="search")
            two = ledger.register("https://example.cn/b", "Solid-state cells?", via="search")
            (ws / "draft.md").write_text(
                f"# 固态电池\n\n## 进展\n固态电池接近量产 [{one.id}]。成本下降 [{two.id}]。\n", "utf-8"
            )
            return reply(call("all_finished", result="完成。", report_path="draft.md"))
        if "问题一" in seen:
            return reply(call("update_current_dashboard", content="# 当前\n\n阶段：写作\n"))
        return reply(call("update_overall_dashboard", content="# 固态电池\n\n## 研究问题\n- 问题一：成本\n"))

    server = endpoint(script)
    result = run_cli(
        ["run", "固态电池的产业化进展", "--workspace", str(ws), "-q", "--verify-citations", "lexical"],
        cli_env(server.url),
    )
    assert result.code == 0, result.stderr
    report = (ws / "report.md").read_text("utf-8")
    references = report.split("## 参考文献", 1)[1].strip().splitlines()
    assert references[0].startswith("1. 固态电池的产业化进展。https://example.cn/a（见于搜索结果 "), (
        references
    )
    assert references[1].startswith("2. Solid-state cells? https://example.cn/b（见于搜索结果 "), references
    assert all(entry.endswith("）") for entry in references)
    assert ". https" not in "\n".join(references)


@pytest.mark.parametrize("uid", [0, 1000])
@pytest.mark.parametrize("heading", ["## Install", "## Set up and run the tests"])
def test_the_readme_setup_needs_sudo_only_for_a_normal_user(uid: int, heading: str) -> None:
    """The README's apt-get lines, run as written (as .ci/run runs them: bash -euo pipefail) with
    `id`, `sudo` and `apt-get` standing in: root runs apt-get itself, a normal user through sudo."""
    block = readme_block(heading, "bash").splitlines()
    setup = "\n".join(block[: next(i for i, text in enumerate(block) if "apt-get install" in text) + 1])
    doubles = (
        f'id() {{ echo {uid}; }}; sudo() {{ echo "sudo $*"; }}; apt-get() {{ echo "apt-get $1"; }}; '
        "export -f id sudo apt-get\n"
    )
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", doubles + setup], capture_output=True, text=True, timeout=10
    )
    assert done.returncode == 0, done.stderr
    expected = (
        ["apt-get update", "apt-get install"]
        if uid == 0
        else ["sudo apt-get update", "sudo apt-get install -y chromium fonts-noto-cjk"]
    )
    assert done.stdout.split("\n")[:2] == expected, done.stdout
