"""browser-use glue for the Browser micro agent: the model client, the tools, and one agent run.

Imported only when a `browse` task starts (browse.py imports it inside the action), after
`session.prepare_browser_use()` has configured browser-use's environment: importing browser-use
takes about a second, which the CLI's start must not pay.

- The model is the run's own endpoint and model through browser-use's `ChatOpenAI`. OpenAI's API
  gets strict JSON-schema output; any other endpoint (Ollama, vLLM, llama.cpp, DeepSeek, …) gets
  the schema in the system prompt and no `response_format`, and its replies are repaired on the
  way in (reasoning blocks, code fences, prose around the JSON, near-JSON), as the main agent's
  are. Every reply's token usage is added to the run's totals, so the budgets hold.
- The tools are browser-use's, minus those that touch local files (`upload_file`, its scratch
  files, PDFs, screenshots) or go to a search engine (the main agent has `web_search`); its
  `navigate` is replaced by one that checks the URL policy first, so the model gets a clear
  refusal. The policy proxy still guards every request the browser makes (proxy.py).
- No vision unless `browser_vision`, no judge call, no cost lookup, no signal handlers.
"""

# No `from __future__ import annotations` here: browser-use reads the annotations of the action
# functions registered with it (`navigate`) as real types.

import asyncio
import contextlib
import contextvars
import json
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from browser_use import Agent, BrowserSession, Tools
from browser_use.agent.views import ActionResult, AgentHistoryList
from browser_use.browser.events import NavigateToUrlEvent
from browser_use.browser.session import DEFAULT_BROWSER_PROFILE
from browser_use.llm.openai.chat import ChatOpenAI
from browser_use.tools.views import NavigateAction

from actions.browser.proxy import check_address
from agent_runtime.config import Settings
from agent_runtime.engine.json_repair import loads_lenient
from agent_runtime.engine.replies import strip_thinking
from agent_runtime.errors import URLRefusedError
from sandbox.url_policy import URLPolicy

# Importing browser-use creates an empty downloads folder for its default profile in the temp
# folder; that profile is never used here, so the folder goes again (only while it is empty).
with contextlib.suppress(OSError, TypeError):
    Path(DEFAULT_BROWSER_PROFILE.downloads_path).rmdir()  # type: ignore[arg-type]

# Actions the Browser agent does not get (see the module docstring).
EXCLUDED_ACTIONS = [
    "search",
    "upload_file",
    "write_file",
    "replace_file",
    "read_file",
    "save_as_pdf",
    "screenshot",
]

UsageSink = Callable[[int, int], object]

# Set while browser-use asks for structured output (its AgentOutput JSON): only those replies are
# repaired, never free text such as a page extraction.
_STRUCTURED: contextvars.ContextVar[bool] = contextvars.ContextVar("structured", default=False)


def repaired_json(content: str) -> str:
    """A reply's JSON object alone: reasoning blocks, fences and prose around it dropped, near-JSON
    repaired. Returned unchanged when nothing better can be found (browser-use then reports it)."""
    text, _ = strip_thinking(content)
    try:
        json.loads(text)
        return text
    except ValueError:
        pass
    try:
        value = loads_lenient(text)
    except ValueError:
        return content
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else content


class _ReplyFilter(httpx.AsyncBaseTransport):
    """Between browser-use's OpenAI client and the endpoint: counts usage, repairs JSON replies."""

    def __init__(self, on_usage: UsageSink | None, repair: bool) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._on_usage = on_usage
        self._repair = repair

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        if response.status_code != 200 or not request.url.path.endswith("/chat/completions"):
            return response
        raw = await response.aread()
        await response.aclose()
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if isinstance(body, dict):
            usage = body.get("usage") or {}
            if self._on_usage is not None and isinstance(usage, dict):
                self._on_usage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0))
            if self._repair and _STRUCTURED.get():
                for choice in body.get("choices") or []:
                    message = choice.get("message") or {}
                    if isinstance(message.get("content"), str):
                        message["content"] = repaired_json(message["content"])
            raw = json.dumps(body).encode()
        headers = [
            (k, v)
            for k, v in response.headers.items()
            if k.lower() not in ("content-length", "content-encoding")
        ]
        return httpx.Response(response.status_code, headers=headers, content=raw, request=request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@dataclass
class _Model(ChatOpenAI):
    """browser-use's ChatOpenAI, marking its structured-output calls for `_ReplyFilter`."""

    async def ainvoke(self, messages: Any, output_format: Any = None, **kwargs: Any) -> Any:
        token = _STRUCTURED.set(output_format is not None)
        try:
            return await super().ainvoke(messages, output_format, **kwargs)
        finally:
            _STRUCTURED.reset(token)


def strict_endpoint(base_url: str | None) -> bool:
    """OpenAI's own API enforces a JSON schema; most other OpenAI-compatible servers do not."""
    return base_url is None or "api.openai.com" in base_url


def build_model(settings: Settings, on_usage: UsageSink | None) -> tuple[_Model, httpx.AsyncClient]:
    """The browse model and its HTTP client (close the client when the task ends)."""
    strict = strict_endpoint(settings.base_url)
    client = httpx.AsyncClient(
        transport=_ReplyFilter(on_usage, repair=not strict),
        timeout=httpx.Timeout(settings.request_timeout, connect=min(10.0, settings.request_timeout)),
    )
    model = _Model(
        model=settings.model,
        api_key=settings.api_key or "not-needed",  # local servers ignore it; the client needs one
        base_url=settings.base_url,
        temperature=settings.temperature,
        frequency_penalty=None,  # not every server accepts it
        max_completion_tokens=None,  # nor this parameter's name
        max_retries=settings.max_retries,
        http_client=client,
        add_schema_to_system_prompt=not strict,
        dont_force_structured_output=not strict,
        remove_min_items_from_schema=not strict,
        remove_defaults_from_schema=not strict,
    )
    return model, client


def build_tools(policy: URLPolicy) -> Tools[Any]:
    tools: Tools[Any] = Tools(exclude_actions=list(EXCLUDED_ACTIONS))

    async def navigate(params: NavigateAction, browser_session: BrowserSession) -> ActionResult:
        # Checked here for a clear answer; the proxy would refuse the requests anyway.
        try:
            await check_address(policy, params.url)
        except URLRefusedError as exc:
            return ActionResult(error=str(exc))
        event = browser_session.event_bus.dispatch(NavigateToUrlEvent(url=params.url, new_tab=params.new_tab))
        try:
            await event
            await event.event_result(raise_if_any=True, raise_if_none=False)
        except Exception as exc:
            return ActionResult(error=f"could not open {params.url}: {exc}")
        memory = f"{'Opened a new tab with' if params.new_tab else 'Navigated to'} {params.url}"
        return ActionResult(extracted_content=memory, long_term_memory=memory)

    # Registered under the same name, it replaces browser-use's own navigate.
    tools.action(
        "Navigate to a URL (http or https) in the current tab, or in a new tab with new_tab=true.",
        param_model=NavigateAction,
        terminates_sequence=True,
    )(navigate)
    return tools


@dataclass
class BrowseOutcome:
    result: str | None  # the agent's final answer, None if it never finished
    done: bool
    success: bool | None
    steps: int
    pages: list[tuple[str, str]] = field(default_factory=list)  # (URL, title) at each step, in order
    errors: list[str] = field(default_factory=list)
    focus_target: str | None = None  # the tab the agent ended on (a DevTools target id)


async def run_agent(
    *,
    task: str,
    start_url: str,
    cdp_url: str,
    settings: Settings,
    policy: URLPolicy,
    work_folder: Path,
    downloads: Path,
    on_usage: UsageSink | None,
    on_step: Callable[[int, str, list[str]], None] | None = None,
    should_stop: Callable[[], Awaitable[bool]] | None = None,
) -> BrowseOutcome:
    """One browser-use Agent run on the browser at `cdp_url`, from `start_url`."""
    model, client = build_model(settings, on_usage)
    session = BrowserSession(
        cdp_url=cdp_url,
        keep_alive=True,  # the browser belongs to the run, not to this task
        headless=True,
        enable_default_extensions=False,
        captcha_solver=False,
        highlight_elements=False,
        auto_download_pdfs=False,
        downloads_path=downloads,
        user_data_dir=work_folder / "profile",  # unused with cdp_url, but else it makes a temp folder
        minimum_wait_page_load_time=0.1,
        wait_for_network_idle_page_load_time=0.3,
        wait_between_actions=0.1,
    )

    def step_callback(state: Any, output: Any, step: int) -> None:
        if on_step is not None:
            names = [next(iter(a.model_dump(exclude_unset=True)), "?") for a in getattr(output, "action", [])]
            on_step(step, str(getattr(state, "url", "") or ""), names)

    agent: Agent[Any, Any] = Agent(
        task=task,
        llm=model,
        browser_session=session,
        tools=build_tools(policy),
        use_vision=settings.browser_vision,
        use_judge=False,
        calculate_cost=False,
        directly_open_url=False,
        initial_actions=[{"navigate": {"url": start_url, "new_tab": False}}],
        max_failures=3,
        llm_timeout=int(settings.request_timeout),
        step_timeout=int(settings.request_timeout + 2 * settings.browser_timeout),
        file_system_path=str(work_folder),
        register_new_step_callback=step_callback,
        register_should_stop_callback=should_stop,
        enable_signal_handler=False,  # the run handles Ctrl-C and SIGTERM itself
    )
    try:
        history: AgentHistoryList[Any] = await agent.run(max_steps=settings.browser_steps)
        focus = session.agent_focus_target_id
    finally:
        with contextlib.suppress(Exception):
            await session.reset()  # closes its DevTools connection; the browser stays
        await client.aclose()
        # Its scratch folder (screenshots) is always made in the system's temp folder.
        await asyncio.to_thread(shutil.rmtree, agent.agent_directory, True)
    pages = [(h.state.url, h.state.title or "") for h in history.history if h.state.url]
    errors = [e for e in history.errors() if e]
    return BrowseOutcome(
        result=history.final_result(),
        done=history.is_done(),
        success=history.is_successful(),
        steps=history.number_of_steps(),
        pages=pages,
        errors=errors,
        focus_target=focus,
    )
