"""The context guard: no request ever exceeds the context window.

Past the soft limit the agent is nudged to update its current dashboard (which resets the
history). Past the hard limit the runtime compacts by itself, in three widening steps:
1. old observations and long tool-call arguments become one-line pointers to a file that holds
   their full text (compression that can be undone);
2. if that is not enough, a separate summarizing call folds the history into the current
   dashboard, and the history is rebuilt from the dashboards;
3. as a last resort the largest messages are cut, with a note saying where the full text is.

The guard also learns the endpoint's real window: a request refused as too long (HTTP 400) states
the window, or at least shows that the request did not fit; the guard believes it for the rest of
the run (`learn_window`), shrinks the reply's cap with it, and says when no compaction can help
(`overflow_stop_reason`).
"""

from __future__ import annotations

import hashlib
import heapq
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_runtime.engine.commands import resume_command
from agent_runtime.engine.messages import Message, ToolSchema
from agent_runtime.engine.model import Model, OpenAIModel
from agent_runtime.engine.tokens import TokenEstimator, raw_message_tokens, raw_tools_tokens
from agent_runtime.engine.workspace import Workspace
from agent_runtime.errors import ContextOverflowError
from sandbox import atomic_write_text

POINTER_PREFIX = "[compacted:"
CONTEXT_RETRIES = 3  # compactions tried after the endpoint refuses a request as too long
UNSTATED_WINDOW_SHARE = 0.8  # a refusal without figures: the window is taken as this share of the request
MIN_WINDOW = 1_000  # a learned window never goes below this: no step fits in less
MIN_CONFIGURED_WINDOW = 2_000  # the smallest --context-window the settings accept
MIN_REPLY_CAP = 256  # tokens: the output cap is never lowered below this
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
MAX_FILE_NAME = 100  # characters before the suffix: far below every file system's limit


def observation_file(workspace: Workspace, *parts: object, suffix: str = ".md") -> Path:
    """Where a saved observation goes: `.runtime/observations/<parts joined>`, the name made of safe
    characters and bounded (an action name may be anything a model wrote); a cut name keeps a
    digest of the whole, so two long names do not collide."""
    name = _UNSAFE.sub("_", "-".join(str(part) for part in parts))
    if len(name) > MAX_FILE_NAME:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        name = f"{name[: MAX_FILE_NAME - 11]}-{digest}"
    return workspace.observations_dir / (name + suffix)


@dataclass
class Entry:
    """Where an observation sits in the history, so compaction can replace it by a pointer."""

    index: int
    step: int
    agent: str
    action: str
    kind: str  # "observation" or "arguments"


class History:
    """The message list of one agent, plus what compaction needs to know about it. Each message's
    raw token estimate is computed once, when it is added: the guard checks every step cheaply."""

    def __init__(self, base: list[Message]) -> None:
        self.reset(base)

    def reset(self, base: list[Message]) -> None:
        self.messages: list[Message] = list(base)
        self.base_length = len(base)
        self.entries: list[Entry] = []
        self.refresh()

    def replace_head(self, head: list[Message]) -> None:
        """New first messages (the system prompt and the edited dashboards) in place of the old
        ones: what follows them — a resume note, the observations kept by the last reset, the steps
        since — stays."""
        self.messages[: len(head)] = head
        self.refresh()

    def refresh(self) -> None:
        """Recount after messages were changed in place (compaction)."""
        self._raw = [raw_message_tokens(m) for m in self.messages]

    @property
    def raw_tokens(self) -> float:
        return sum(self._raw)

    def append(self, message: Message, entry: Entry | None = None) -> None:
        if entry is not None:
            entry.index = len(self.messages)
            self.entries.append(entry)
        self.messages.append(message)
        self._raw.append(raw_message_tokens(message))


@dataclass(frozen=True)
class LearnedWindow:
    """A window learned from a refusal: the one before, the one now, and the refused request's
    estimate (tokens)."""

    before: int
    after: int
    refused: int


class ContextGuard:
    def __init__(
        self,
        window: int,
        soft: float,
        hard: float,
        estimator: TokenEstimator,
        workspace: Workspace,
        reply_reserve: int = 0,
    ) -> None:
        self.soft, self.hard = soft, hard
        self.estimator = estimator
        self.workspace = workspace
        self.reply_reserve = reply_reserve  # the output cap sent with each request: servers count it too
        self.set_window(window)

    def set_window(self, window: int) -> None:
        """The window and the limits drawn from it: a smaller window learned from the endpoint
        replaces the configured one for the rest of the run. A request leaves room for the reply
        (`prompt + max_tokens` must fit, as vLLM and OpenAI count it), a quarter of the window at most."""
        self.window = window
        room = window - min(self.reply_reserve, window // 4)
        self.hard_tokens = min(int(window * self.hard), room)
        self.soft_tokens = min(int(window * self.soft), self.hard_tokens)

    # -- the endpoint's real window -------------------------------------------------------------
    def adopt_window(self, learned: int | None, model: Model) -> None:
        """Take a window learned before (by another agent of the same model, or a run before a
        resume) when it is smaller than the one in use."""
        if learned is not None and learned < self.window:
            self.limit_reply(learned, model)
            self.set_window(learned)

    def limit_reply(self, window: int, model: Model) -> None:
        """At most a quarter of a (learned) window for the reply, in what is sent and in the guard."""
        cap = max(MIN_REPLY_CAP, window // 4)
        self.reply_reserve = min(self.reply_reserve, cap)
        if isinstance(model, OpenAIModel) and model.max_output_tokens and model.max_output_tokens > cap:
            model.max_output_tokens = cap

    def learn_window(self, exc: ContextOverflowError, raw_tokens: float, model: Model, fixed: int = 0) -> LearnedWindow:
        """Believe the endpoint that refused a request of `raw_tokens` (raw estimate) as too long:
        the window it states (else a share of the refused request) for the rest of the run, and its
        count of the request for the token estimates. An unstated window is guessed from what the
        server counted: the prompt and the reply's room the request asked for (`max_tokens`: a
        3,700-token prompt asking 4,096 for its reply is refused by an 8k server), never below the
        `fixed` part (system prompt and tools) and half of the rest, which compaction can shrink."""
        counted = exc.prompt_tokens or exc.window  # the endpoint's count; at least its window
        if counted:
            self.estimator.observe(raw_tokens, counted)
        refused = self.estimator.scale(raw_tokens)
        before = self.window
        asked = (model.max_output_tokens or 0) if isinstance(model, OpenAIModel) else 0
        floor = min(refused - 1, fixed + max(0, refused - fixed) // 2)
        guess = max(MIN_WINDOW, int((refused + asked) * UNSTATED_WINDOW_SHARE), floor)
        window = min(exc.window or guess, before)
        # Servers count the reply's room too (vLLM and OpenAI refuse prompt + max_tokens > window):
        # the output cap shrinks with the window, and the guard keeps room for it.
        self.limit_reply(window, model)
        self.set_window(window)
        return LearnedWindow(before, window, refused)

    def fixed_tokens(self, system: Sequence[Message], tools: Sequence[ToolSchema]) -> int:
        """The part of every request no compaction can shrink: the system prompt and the tools."""
        return self.estimator.request(system, tools)

    def overflow_stop_reason(
        self, exc: ContextOverflowError, system: Sequence[Message], tools: Sequence[ToolSchema], workspace: Path
    ) -> str:
        """Why the run stops on a refusal no compaction could answer, and what the person does."""
        window, resume = self.window, resume_command(workspace)
        fixed = self.fixed_tokens(system, tools)
        if fixed > self.hard_tokens:
            return (
                f"{exc}; a context window of {window:,} tokens cannot hold even the system prompt and the "
                f"tool list (about {fixed:,} tokens): serve the model with a larger context "
                "(llama.cpp --ctx-size, vLLM --max-model-len, Ollama num_ctx), then "
                f"`{resume} --context-window <its size>`"
            )
        return (
            f"{exc}; the request still did not fit after {CONTEXT_RETRIES} compactions (window now taken "
            f"as {window:,} tokens): serve the model with a larger context, or "
            f"`{resume} --context-window {max(MIN_CONFIGURED_WINDOW, window // 2)}`"
        )

    def estimate(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> int:
        return self.estimator.request(messages, tools)

    def over_soft(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> bool:
        return self.estimate(messages, tools) > self.soft_tokens

    # -- step 1: pointers ----------------------------------------------------------------------
    def compact_old_entries(self, history: History, keep_from_step: int) -> int:
        """Replace observations and long arguments of steps before `keep_from_step` by pointers.
        Returns the number of characters removed."""
        removed = 0
        for entry in history.entries:
            if entry.step >= keep_from_step:
                continue
            message = history.messages[entry.index]
            if entry.kind == "observation":
                text = str(message.get("content") or "")
                if text.startswith(POINTER_PREFIX) or len(text) < 300:
                    continue
                path = self._save(entry, text)
                pointer = (
                    f"{POINTER_PREFIX} the {entry.action} observation of step {entry.step} ({len(text):,} "
                    f"characters) was removed to save context; full text: {path}]"
                )
                message["content"] = (
                    pointer if message["role"] == "tool" else f"Observation from {entry.action}:\n{pointer}"
                )
                removed += len(text) - len(pointer)
            else:
                removed += self._compact_arguments(message, entry)
        history.refresh()
        return removed

    def _compact_arguments(self, message: Message, entry: Entry) -> int:
        removed = 0
        for call in message.get("tool_calls") or []:
            arguments = call["function"].get("arguments") or ""
            if len(arguments) > 600:
                path = self._save(entry, arguments, suffix=".json")
                note = {"compacted": f"{len(arguments):,} characters of arguments; full text: {path}"}
                call["function"]["arguments"] = json.dumps(note)
                removed += len(arguments) - len(call["function"]["arguments"])
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, str) and len(content) > 1200:
            path = self._save(entry, content)
            message["content"] = (
                f"{POINTER_PREFIX} a reply of {len(content):,} characters; full text: {path}]"
            )
            removed += len(content) - len(message["content"])
        return removed

    def _save(self, entry: Entry, text: str, suffix: str = ".md") -> str:
        path = observation_file(
            self.workspace, f"step-{entry.step:05d}", entry.agent, entry.action, entry.index, suffix=suffix
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text, durable=False)
        return self.workspace.relative(path)

    # -- step 3: the last resort ---------------------------------------------------------------
    def fit(self, messages: list[Message], tools: Sequence[ToolSchema]) -> list[Message]:
        """Cut the largest non-system messages until the request fits under the hard limit.

        Each message is estimated once, and again only when it is cut; the largest is kept in a
        heap. Re-estimating the whole request at every cut was quadratic in the messages: with a
        model that fails to summarize, the whole history comes here (one run spent 112 s)."""
        fitted = [dict(m) for m in messages]
        # The request's raw estimate, kept up to date as messages are cut. Raw estimates are
        # multiples of a quarter (four ASCII characters a token), so the running total is exact
        # in floating point: the same figure as summing the request again.
        raw = [raw_message_tokens(m) for m in fitted]
        raw_messages, raw_tools = sum(raw), raw_tools_tokens(tools)
        # Largest first, and among equals the first in the request; a cut message is pushed again
        # with its new length, and its old entry dropped when it comes up. Built at the first cut: a
        # request given here may fit already.
        lengths: list[int] = []
        largest: list[tuple[int, int]] = []
        for _ in range(len(fitted) * 4):
            excess = self.estimator.scale(raw_messages + raw_tools) - self.hard_tokens
            if excess <= 0:
                return fitted
            if not lengths:
                lengths = [_cut_key(m) for m in fitted]
                largest = [(-length, i) for i, length in enumerate(lengths)]
                heapq.heapify(largest)
            while -largest[0][0] != lengths[largest[0][1]]:
                heapq.heappop(largest)
            index = largest[0][1]
            text = str(fitted[index].get("content") or "")
            keep = max(0, len(text) - int(excess * 4.5) - 400)  # chars; generous so it converges fast
            if keep >= len(text) or not text:
                break
            fitted[index]["content"] = (
                text[:keep] + f"\n\n[… {len(text) - keep:,} characters cut to fit the context window; "
                "the full text is in the workspace files]"
            )
            raw_messages -= raw[index]
            raw[index] = raw_message_tokens(fitted[index])
            raw_messages += raw[index]
            lengths[index] = _cut_key(fitted[index])
            heapq.heappush(largest, (-lengths[index], index))
        return fitted


def _cut_key(message: Message) -> int:
    """How `fit` ranks a message for cutting: its length; a system message never before another."""
    return len(str(message.get("content") or "")) if message["role"] != "system" else -1
