"""No secret is written down or printed: one redaction for files, events, the CLI's output and the
view. Through the real CLI against a loopback endpoint that quotes the key back, as OpenAI's 401
does, and with credentials inside --base-url."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent_runtime.testing import Fault, ScriptedEndpoint
from sandbox.redaction import RedactingStream, mask, redact, register_secrets
from tests.support.cli import cli_env, run_cli

KEY = "sk-proj-Zq81xVbN4tLm0PqRsTuVwXyZ7788"
PASSWORD = "hunter2-Secret"


def test_the_forms_that_are_masked() -> None:
    register_secrets([KEY, "short"])
    assert redact(f"Incorrect API key provided: {KEY}.") == f"Incorrect API key provided: {mask(KEY)}."
    assert mask(KEY) == "sk-…7788" and KEY not in mask(KEY)
    assert redact("short words stay") == "short words stay"  # too short to be registered
    assert redact(f"https://alice:{PASSWORD}@llm.example/v1") == "https://alice:***@llm.example/v1"
    assert redact("https://ghp_token123@host/repo") == "https://***@host/repo"
    assert redact("https://x.example/a?api_key=abc123&page=2&sig=zz") == "https://x.example/a?api_key=***&page=2&sig=***"
    assert redact("Authorization: Bearer abcdefgh12345") == "Authorization: Bearer ***"
    assert redact("a plain sentence with key = value and user@example.com") == (
        "a plain sentence with key = value and user@example.com"
    )
    assert redact("a standard-bearer of the Bearer instruments family") == "a standard-bearer of the Bearer instruments family"


def test_json_stays_json_and_sources_keep_their_words() -> None:
    import json

    from sandbox.redaction import redact_secrets

    register_secrets([KEY, "ollama"])  # a local server's "key" is a word: never registered
    payload = {"url": "https://example.com", "email": "a@b.com", "snippet": 'curl "https://x.example/v1?api_key=YOURS"'}
    assert json.loads(redact(json.dumps(payload, separators=(",", ":"))))["email"] == "a@b.com"
    assert redact("see https://ollama.com/library") == "see https://ollama.com/library"
    # what a source says is written as it is, but for a registered key
    page = f"Open https://docs.example.com/d?key=public-doc-id, then use {KEY}."
    assert redact_secrets(page) == f"Open https://docs.example.com/d?key=public-doc-id, then use {mask(KEY)}."


def test_a_secret_split_across_writes_is_still_masked() -> None:
    register_secrets([KEY])
    target = io.StringIO()
    stream = RedactingStream(target)
    stream.write("error: " + KEY[:10])
    stream.write(KEY[10:] + " refused\n")
    stream.write("\rstatus line without an end")
    stream.flush()
    assert KEY not in target.getvalue() and mask(KEY) in target.getvalue()
    assert target.getvalue().endswith("status line without an end")


def _everything_written(folder: Path) -> str:
    return "\n".join(p.read_text("utf-8", errors="replace") for p in folder.rglob("*") if p.is_file())


@pytest.mark.slow
def test_a_key_quoted_back_by_the_endpoint_is_written_and_printed_nowhere(tmp_path: Path) -> None:
    refusal = Fault(401, message=f"Incorrect API key provided: {KEY}. You can find your API key at https://platform.openai.com.")
    with ScriptedEndpoint(lambda messages, tools: refusal) as server:
        base_url = server.url.replace("http://", f"http://alice:{PASSWORD}@")
        ws = tmp_path / "ws"
        done = run_cli(
            ["run", "Solid-state batteries", "--workspace", str(ws), "--base-url", base_url, "--api-key", KEY],
            cli_env(), cwd=tmp_path,
        )  # fmt: skip
        assert done.code == 1, done.stderr
        assert "Incorrect API key provided" in done.stderr  # the reason is kept, the key is not
        printed = done.stdout + done.stderr
        assert KEY not in printed and PASSWORD not in printed
        written = _everything_written(ws)
        assert KEY not in written and PASSWORD not in written
        assert "sk-…7788" in (ws / ".runtime" / "run.json").read_text()
        assert base_url.replace(PASSWORD, "***") in (ws / ".runtime" / "run.json").read_text()
        checked = run_cli(["check", "--base-url", base_url, "--api-key", KEY], cli_env(), cwd=tmp_path)
        assert KEY not in checked.stdout + checked.stderr and PASSWORD not in checked.stdout + checked.stderr
        resumed = run_cli(["resume", str(ws), "--api-key", KEY], cli_env(), cwd=tmp_path)
        assert resumed.code == 2 or resumed.code == 1, resumed.stderr
        assert "had credentials in its address, which are never stored" in resumed.stderr
        assert "give --base-url" in resumed.stderr
