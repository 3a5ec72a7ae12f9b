"""`deep-researcher check`: prove in seconds, before an hour-long run, that a setup works.

Each check prints one line, `ok`, `FAIL` (the run cannot work: the line says what to do), `warn`
(the run would start, but maybe not as meant: a model name one letter off a listed one, on a
server that answers to any name) or `note` (the run works without it, e.g. no Chromium, no
prices), and the command exits 0 only when nothing failed:

    ok    endpoint    http://127.0.0.1:8080/v1 answers and accepts the key
    ok    model       qwen2.5-7b is served
    ok    tool calls  a native tool call came back (1.4 s): the model called the one tool it was …
    ok    search      local: answered (3 results for "research")
    note  browser     Chromium was not found (...); pages are read over HTTP only
    note  cost        no prices known for qwen2.5-7b: runs show the cost as unknown; set …
    ok    traces      sent to http://localhost:4318/v1/traces (OTLP/HTTP)

With `--offline` a first line says what the run will not do (nothing leaves the machine but the
model's requests), and notes a model endpoint that is not on this machine or a private network:
the documents' text goes there. The browser is then not checked (nor started): the run never uses it.

The checks use the run's own code paths (the model client, reply parsing, the search providers,
the browser session), so a check that passes means the run's first step will too.
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, TextIO
from urllib.parse import urlsplit

import httpx
import openai

from actions.browser.session import Browser
from actions.web.providers.base import API_TIMEOUT
from actions.web.search import build_providers, check_search_settings, provider_names
from agent_runtime.app.endpoint_notes import notes_file, remember_tool_mode
from agent_runtime.config import Settings
from agent_runtime.engine.commands import command
from agent_runtime.engine.model import OpenAIModel, build_model, check_endpoint_reachable
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.registry import ActionSet, action
from agent_runtime.engine.replies import ToolMode, parse_reply
from agent_runtime.errors import (
    BrowserUnavailableError,
    ConfigError,
    DeepResearcherError,
    ModelError,
    SearchError,
    ToolsRefusedError,
)
from sandbox.url_policy import is_public_address, parse_ip_host

Verdict = Literal["ok", "FAIL", "warn", "note"]
SEARCH_QUERY = "research"
SEARCH_TIMEOUT = 30.0


@dataclasses.dataclass
class Line:
    verdict: Verdict
    what: str
    text: str

    def __str__(self) -> str:
        return f"{self.verdict:<5} {self.what:<11} {self.text}"


@action
async def report_word(word: str) -> str:
    """Report one word back, to show that tool calls work.

    Args:
        word: the word you were asked to report.
    """
    return word


class SetupCheck:
    """The checks of one configuration; `run()` prints each line as it is known."""

    def __init__(self, settings: Settings, out: TextIO, env: Mapping[str, str] | None = None) -> None:
        self.settings = settings
        self.out = out
        self.env = os.environ if env is None else env
        self.lines: list[Line] = []
        self._next_wait_notice = 10.0

    def _say(self, verdict: Verdict, what: str, text: str) -> None:
        line = Line(verdict, what, text)
        self.lines.append(line)
        print(line, file=self.out, flush=True)

    @property
    def failed(self) -> int:
        return sum(line.verdict == "FAIL" for line in self.lines)

    async def run(self) -> int:
        s = self.settings
        print(
            f"Checking model {s.model!r} at {s.base_url or 'the OpenAI API'}, search {s.search!r}"
            + (", offline" if s.offline else ""),
            file=self.out,
        )
        if s.offline:
            self.check_offline()
        await self.check_model()
        await self.check_search()
        await self.check_mcp()
        if not s.offline:
            await self.check_browser()
        self.check_cost()
        self.check_traces()
        if self.failed:
            print(f"{self.failed} problem(s): fix the lines marked FAIL, then check again.", file=self.out)
            return 1
        warned = sum(line.verdict == "warn" for line in self.lines)
        if warned:
            print(f"Ready, with {warned} warning{'s' if warned > 1 else ''}: a run would start, but read the "
                  "lines marked warn first.", file=self.out)  # fmt: skip
            return 0
        print(f"Ready: `{command('run', 'TITLE')}` with these settings will work.", file=self.out)
        return 0

    async def check_mcp(self) -> None:
        """Each configured MCP server started (as a run starts it), its tools listed, then stopped."""
        if self.settings.mcp_config is None:
            return
        from actions.mcp import check_servers

        try:
            lines = await check_servers(self.settings.mcp_config)
        except ConfigError as exc:
            self._say("FAIL", "mcp", str(exc))
            return
        for ok, text in lines:
            self._say("ok" if ok else "FAIL", "mcp", text)

    def _waiting(self, seconds: float) -> None:
        if seconds >= self._next_wait_notice:
            print(
                f"      …     waiting for the model: {seconds:.0f} s so far (it is working)",
                file=self.out,
                flush=True,
            )
            self._next_wait_notice = 2 * seconds

    # -- offline -----------------------------------------------------------------------------------
    def check_offline(self) -> None:
        endpoint = self.settings.base_url or "https://api.openai.com/v1"
        means = (
            f"nothing leaves this machine except the requests to the model endpoint {endpoint}: search is the "
            "local corpus only (--search local --corpus DIR), visit_url reads only its documents, browse is off"
        )
        where = _endpoint_place(endpoint)
        if where is None:
            self._say("ok", "offline", means)
        else:
            self._say("note", "offline", f"{means}; but {where}, and every prompt, with the documents' "
                      "text, goes there: for confidential documents use a model served here (--base-url "
                      "http://127.0.0.1:8080/v1)")  # fmt: skip

    # -- the model ---------------------------------------------------------------------------------
    async def check_model(self) -> None:
        s = self.settings
        try:
            check_endpoint_reachable(s.base_url)
            model = build_model(s)
        except DeepResearcherError as exc:
            self._say("FAIL", "endpoint", str(exc))
            return
        assert isinstance(model, OpenAIModel)
        # No retries: a check answers in seconds, unless a slow local server is still working, which
        # it waits for as the run would (and says so).
        model.max_retries = 0
        model.on_wait = self._waiting
        endpoint = s.base_url or "the OpenAI API"
        try:
            served = await self._served_models(model)
        except ModelError as exc:
            self._say("FAIL", "endpoint", str(exc))
            return
        self._say("ok", "endpoint", f"{endpoint} answers and accepts the key")
        if served is not None and s.model in served:
            self._say("ok", "model", f"{s.model} is served")
        working = await self._tool_calls(model)
        near = difflib.get_close_matches(s.model, sorted(served or ()), n=3, cutoff=0.75)
        if served is not None and s.model not in served and working and near:
            # A server that answers to any name (llama.cpp, some proxies) also answers a typo: the
            # run would work, but perhaps not with the model meant.
            names = " or ".join(repr(name) for name in near)
            self._say("warn", "model", f"{s.model} is not listed by {endpoint}/models, though the server "
                      f"answered under that name; did you mean {names}? (--model)")  # fmt: skip
        elif served is not None and s.model not in served and working:
            # llama.cpp and some proxies answer to any name: what counts is that it answered.
            self._say("ok", "model", f"{s.model} answers (not listed by {endpoint}/models)")
        elif served is not None and s.model not in served:
            listed = ", ".join(sorted(served)[:8]) + (" …" if len(served) > 8 else "")
            hint = f"; did you mean {' or '.join(repr(name) for name in near)}?" if near else ""
            self._say(
                "FAIL", "model", f"{s.model} is not served here ({listed or 'none listed'}){hint}; check --model"
            )

    async def _served_models(self, model: OpenAIModel) -> set[str] | None:
        """The ids /models lists, or None where the endpoint offers no listing."""
        try:
            async with asyncio.timeout(self.settings.request_timeout):
                page = await model.client.models.list()
        except (openai.NotFoundError, openai.UnprocessableEntityError):
            return None
        except openai.AuthenticationError:
            raise ModelError("the key was refused (HTTP 401); check OPENAI_API_KEY / --api-key") from None
        except openai.PermissionDeniedError:
            raise ModelError("the key is not allowed here (HTTP 403); check the key's permissions") from None
        except (openai.APIConnectionError, openai.APITimeoutError, TimeoutError) as exc:
            raise ModelError(
                f"no answer from {model.client.base_url} ({type(exc).__name__}); check --base-url / "
                "OPENAI_BASE_URL and that the server is running"
            ) from None
        except openai.APIStatusError as exc:
            if exc.status_code >= 500:
                raise ModelError(f"the endpoint failed listing models (HTTP {exc.status_code})") from None
            return None  # some servers answer /models with another 4xx: the tool-call check decides
        return {item.id for item in page.data}

    async def _tool_calls(self, model: OpenAIModel) -> bool:
        auto = self.settings.tool_mode == "auto"
        mode: ToolMode = "json" if self.settings.tool_mode == "json" else "native"
        other: ToolMode = "json" if mode == "native" else "native"
        started = time.monotonic()
        try:
            works = await _one_tool_call(model, mode, self.settings.prompts)
        except ToolsRefusedError as exc:  # llama-server without --jinja: json mode may still work
            if not auto:
                self._say("FAIL", "tool calls", str(exc))
                return True  # it answered: the model exists
            works = None
        except ModelError as exc:
            self._say("FAIL", "tool calls", str(exc))
            return False
        if works:
            self._say("ok", "tool calls", f"a {mode} tool call came back ({time.monotonic() - started:.1f} s): "
                      f"the model called the one tool it was offered {works}, so it can drive the agent's "
                      "actions")  # fmt: skip
            remember_tool_mode(self.settings, mode, self.env)
            return True
        try:
            other_works = await _one_tool_call(model, other, self.settings.prompts)
        except ModelError:
            other_works = None
        serving = (
            "; a local server needs its tool-call support on (llama-server --jinja, vLLM "
            "--enable-auto-tool-choice --tool-call-parser NAME, Ollama with a model tagged 'tools')"
        )
        if other_works:
            remember_tool_mode(self.settings, other, self.env)
        if other_works and auto:
            self._say("ok", "tool calls", "no native tool call came back, but json mode works: runs on this "
                      "endpoint with --tool-mode auto start in json (noted in "
                      f"{notes_file(self.env)})")  # fmt: skip
        elif other_works:
            self._say("FAIL", "tool calls", f"no {mode} tool call came back, but {other} mode works: "
                      f"use --tool-mode {other} (or DEEP_RESEARCHER_TOOL_MODE={other})"
                      + (serving if mode == "native" else ""))  # fmt: skip
        else:
            self._say("FAIL", "tool calls", "the model answered with no tool call in either mode; it cannot "
                      "drive the agent: choose a model trained for tool use (e.g. Qwen2.5 7B or larger)"
                      + serving)  # fmt: skip
        return True  # it answered: the model exists

    # -- cost --------------------------------------------------------------------------------------
    def check_cost(self) -> None:
        s, price = self.settings, self.settings.price()
        if price is not None:
            self._say("ok", "cost", f"{s.model}: ${price.input:g} in / ${price.output:g} out per million tokens")
            return
        where = (f"set DEEP_RESEARCHER_PRICE_INPUT / _OUTPUT (US dollars per million tokens), or "
                 f"[prices.\"{s.model}\"] in the config file")  # fmt: skip
        if s.max_cost is not None:
            self._say("FAIL", "cost", f"--max-cost needs the prices of {s.model}, which are not known: {where}")
        else:
            self._say("note", "cost", f"no prices known for {s.model}: runs show the cost as unknown; {where}")

    def check_traces(self) -> None:
        """Whether runs send OpenTelemetry traces, and where (the URL's credentials masked)."""
        from agent_runtime.app.tracing import describe

        verdict, text = describe(self.env)
        self._say(verdict, "traces", text)

    # -- search ------------------------------------------------------------------------------------
    async def check_search(self) -> None:
        names = provider_names(self.settings.search)
        if not names:
            self._say("FAIL", "search", "--search is empty; name a provider, e.g. --search duckduckgo")
        with tempfile.TemporaryDirectory(prefix="deep-researcher-check-") as scratch:
            async with httpx.AsyncClient(timeout=API_TIMEOUT) as client:
                for name in names:
                    self._say(*await self._one_provider(name, client, Path(scratch)))

    async def _one_provider(
        self, name: str, client: httpx.AsyncClient, scratch: Path
    ) -> tuple[Verdict, str, str]:
        alone = self.settings.model_copy(update={"search": name})
        try:
            check_search_settings(alone, self.env)
            (provider,) = build_providers(alone, self.env, client, scratch)
            async with asyncio.timeout(SEARCH_TIMEOUT):
                results = await provider.search(SEARCH_QUERY, 3)
        except (ConfigError, SearchError) as exc:
            said = str(exc).removeprefix(f"{name} ")  # "duckduckgo: cannot be reached …", not the name twice
            return "FAIL", "search", f"{name}: {said[:600]}"
        except TimeoutError:
            return "FAIL", "search", f"{name}: no answer within {SEARCH_TIMEOUT:g} s"
        return "ok", "search", f"{name}: answered ({len(results)} results for {SEARCH_QUERY!r})"

    # -- the browser -------------------------------------------------------------------------------
    async def check_browser(self) -> None:
        browser = Browser(self.settings)
        try:
            browser.check()
        except BrowserUnavailableError as exc:
            self._say("note", "browser", f"{exc}; pages are read over HTTP only and `browse` is off")
            return
        started = time.monotonic()
        try:
            await browser.start()
            version = await browser.send("Browser.getVersion")
        except Exception as exc:  # whatever kept it from starting is what the user must see
            self._say("FAIL", "browser", f"Chromium was found but did not start: {exc}; fix it, or give "
                      "another with --browser-path")  # fmt: skip
            return
        finally:
            await browser.aclose()
        product = version.get("product", "Chromium") if isinstance(version, dict) else "Chromium"
        self._say("ok", "browser", f"{product} starts ({time.monotonic() - started:.1f} s)")


def _endpoint_place(url: str) -> str | None:
    """None when `url` is on this machine or a private network (by its address, or a loopback
    name), else where it is, in words. A host name is not looked up: a check sends nothing anywhere
    but to the model, and a DNS answer would prove little about where the server really is."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        host = ""
    if not host:
        return f"the endpoint {url!r} names no host"
    ip = parse_ip_host(host)
    if ip is not None:
        return None if not is_public_address(ip) else f"{host} is an address on the internet"
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return None
    return f"{host} is a host name, which may be on the internet (make sure it is a server of your own)"


async def _one_tool_call(model: OpenAIModel, mode: ToolMode, prompts_dir: Path | None) -> str | None:
    """Ask for one call of `report_word`. None when the reply does not carry it (in any tolerated
    form), else what the call proved, in words: whether its argument was the one asked for."""
    actions = ActionSet.of([report_word])
    system = Prompts(prompts_dir).render("check_system.j2", tool_mode=mode, actions=list(actions))
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": 'Call report_word with the word "ready".'},
    ]
    raw = await model.complete(messages, actions.schemas() if mode == "native" else [])
    reply = parse_reply(raw, mode, actions.names())
    called = [call for call in reply.calls if call.name == "report_word" and not call.error]
    if not called:
        return None
    if any(str(call.arguments.get("word", "")).strip().strip("\"'").lower() == "ready" for call in called):
        return "with the argument asked for"
    return "(though not with the argument asked for)"


def run_check(settings: Settings, out: TextIO) -> int:
    from actions.mcp.config import refuse_offline_with_mcp

    refuse_offline_with_mcp(settings)  # a usage error (exit 2), as `run` says, before anything is checked
    return asyncio.run(SetupCheck(settings, out).run())


__all__ = ["SetupCheck", "run_check"]
