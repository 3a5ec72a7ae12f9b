"""One generic micro-agent loop, used by the main agent and by every delegated micro agent.

    until the finishing action, max steps, a budget, or a detected loop:
        guard the context → reply = model(messages + [status], tools) → run its calls
        (agent_runtime/engine/scheduling: the independent ones together) → each bounded observation
        appended in call order; an action that rewrote the agent's state files rebuilds the history.

The system prompt and the tool list are fixed for the run: everything that changes (step,
tokens, nudges) travels in the last message, so an endpoint's prompt cache keeps the prefix.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from agent_runtime.engine.calling import calling
from agent_runtime.engine.context_guard import CONTEXT_RETRIES, ContextGuard, Entry, History, observation_file
from agent_runtime.engine.messages import Message, user
from agent_runtime.engine.model import Model
from agent_runtime.engine.registry import ActionSet, Observation
from agent_runtime.engine.repeats import NUDGE_AT, RepeatWatch
from agent_runtime.engine.replies import (
    ModelReply,
    ToolCall,
    ToolMode,
    clean_text,
    observation_message,
    parse_reply,
)
from agent_runtime.engine.run_context import ActionContext, BudgetStop
from agent_runtime.engine.scheduling import NotRun, run_calls
from agent_runtime.engine.summaries import summarize_into_memory
from agent_runtime.engine.tokens import raw_message_tokens, raw_tools_tokens
from agent_runtime.engine.tool_modes import ModeWatch, action_schema, as_json_history
from agent_runtime.errors import ContextOverflowError, ToolsRefusedError
from sandbox import atomic_write_text


@dataclass
class AgentSpec:
    name: str  # "main", "file", "browser": shown in the event log
    actions: ActionSet
    base_messages: Callable[[], list[Message]]  # [system, ...]: the history after a reset
    model: Model
    tool_mode: ToolMode
    max_steps: int
    counts_run_steps: bool = False  # the main agent's steps are the run's step budget
    # What the last message of each request says before any note (the run's figures, a nudge to
    # finish): given by whoever assembles the agent; None for a micro agent.
    status: Callable[[], list[str]] | None = None
    # The actions that rewrite the agent's state files (a research run's dashboard updates): after
    # one succeeds the history is rebuilt from the files (`base_messages`), which compresses it.
    compresses: frozenset[str] = frozenset()
    # The state file this agent keeps its memory in (one of its workspace's Layout.state_files): a
    # history that outgrows the window is folded into it by a summarizing call. None: pointers and
    # cuts only.
    memory: str | None = None
    # The action that ends the agent's work (the File agent's finish, the main agent's all_finished):
    # in a reply with other calls, it runs only if every call before it succeeded.
    finish_action: str | None = None
    compress: bool = True  # False replays the whole history (benchmarks only)
    # The call the agent's method needs next (name, arguments), shown as an example to a model
    # that keeps replying without an action.
    next_action: Callable[[], tuple[str, dict[str, Any]]] | None = None
    # A note when files shown in the base messages were changed from outside since they were read
    # (a person edited a state file while the agent works): the base is then rebuilt from them, the
    # steps after it kept, and the note goes into the next request.
    base_changed: Callable[[], str | None] | None = None
    # What a person calls the files that keep the agent's work, in the reasons a loop stops the run
    # ("edit <them> to steer it"): the domain's word for its state files.
    state_files_label: str = "the state files"
    # The ids (the pattern's first group) a summary of the memory file must keep, as the agent wrote
    # them (a research run's [S<n>] source ids); None: no such check.
    kept_ids: re.Pattern[str] | None = None
    # Hears where a person's save of the memory file that a summary replaced unseen is kept in
    # .trash/ (the domain logs it under its own event name); the model is told in any case.
    memory_edit_kept: Callable[[str], None] | None = None


@dataclass
class Outcome:
    kind: Literal["finished", "max_steps", "budget", "loop", "waiting"]
    result: str | None = None
    reason: str = ""


def _arguments_digest(call: ToolCall) -> str:
    return json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str)


def _short_arguments(call: ToolCall) -> dict[str, object]:
    """Arguments for the event log: long strings and large structures cut, so the log stays small."""
    short: dict[str, object] = {}
    for key, value in call.arguments.items():
        if isinstance(value, list | dict):
            text = json.dumps(value, ensure_ascii=False, default=str)
            value = value if len(text) <= 300 else text[:300] + "…"
        elif isinstance(value, str) and len(value) > 300:
            value = value[:300] + "…"
        short[key[:100]] = value
    return short


class AgentLoop:
    def __init__(self, spec: AgentSpec, ctx: ActionContext) -> None:
        self.spec = spec
        self.ctx = ctx
        self._action_names = spec.actions.names()
        self.mode: ToolMode = spec.tool_mode
        if ctx.settings.tool_mode == "auto" and ctx.meta.tool_mode is not None:
            self.mode = ctx.meta.tool_mode  # another agent of this run has switched already
        self._set_mode(self.mode)
        self.mode_watch = ModeWatch()
        settings = ctx.settings
        self.guard = ContextGuard(
            settings.context_window, settings.soft_limit, settings.hard_limit, ctx.estimator, ctx.workspace,
            reply_reserve=settings.reply_cap(),
        )  # fmt: skip
        self.history = History(spec.base_messages())
        self._apply_learned_window()
        self.local_steps = 0
        self.repeats = RepeatWatch()
        self._last_reply_had_calls = False
        self.pending_notes: list[str] = []  # one-off notes for the next status message
        self._sent_notes: list[str] = []  # those the last request carried

    def _set_mode(self, mode: ToolMode) -> None:
        self.mode = mode
        schemas = self.spec.actions.schemas()
        self.tools = schemas if mode == "native" else []
        self._tools_raw = raw_tools_tokens(self.tools)
        self._reply_schema = action_schema(schemas) if mode == "json" else None

    def _switch_to_json(self, step: int, reason: str = "the model wrote its actions as JSON text") -> None:
        """--tool-mode auto: the model writes its actions as JSON text, so ask for them that way
        (and force that form where the server can) for the rest of the run."""
        self.ctx.meta.tool_mode = "json"
        self._set_mode("json")
        history = self.history
        # One message for one: the entries compaction keeps stay where they point.
        history.messages[:] = as_json_history(history.messages)
        history.replace_head(self.spec.base_messages()[:1])  # the system prompt, rendered for json mode
        self.pending_notes.append(
            '[note] From now on reply with your action as JSON text, {"action": "<name>", "arguments": {…}} '
            "(or a JSON list of them); the tool list is no longer sent."
        )
        self._log("tool_mode_switched", step=step, to="json", reason=reason)
        self.ctx.save()

    def _log(self, kind: str, **fields: Any) -> None:
        """An event of this agent; a micro agent's names the agent that delegated to it (`parent`:
        main, or research-2 for a File operation of a research task)."""
        parent = {"parent": self.ctx.parent} if self.ctx.parent is not None else {}
        self.ctx.events.append(kind, agent=self.spec.name, **parent, **fields)

    # -- the loop ------------------------------------------------------------------------------
    async def run(self) -> Outcome:
        spec, ctx = self.spec, self.ctx
        while True:
            spent = ctx.spent_budget() if spec.counts_run_steps else self._spent_sub_budget()
            if spent is not None:
                kind: Literal["max_steps", "budget"] = (
                    "max_steps" if spent.kind == "max_steps" and not spec.counts_run_steps else "budget"
                )
                return Outcome(kind, reason=str(spent))
            self.local_steps += 1
            step = ctx.meta.totals.steps + 1 if spec.counts_run_steps else self.local_steps
            ctx.step = step if spec.counts_run_steps else ctx.step
            # The time budget holds for the work in flight too: a slow model call or action is
            # cancelled when it ends (actions write atomically, so nothing is left half-written).
            deadline = asyncio.timeout(ctx.time_left())
            try:
                async with deadline:
                    outcome = await self._step(step)
            except TimeoutError:
                if not deadline.expired():
                    raise
                assert ctx.settings.max_time is not None
                return Outcome(
                    "budget",
                    reason=f"max_time: {ctx.elapsed():.0f} of {ctx.settings.max_time:.0f} seconds used (the work "
                    "in flight was stopped); resume with a larger --max-time",
                )
            ctx.save()
            if outcome is not None:
                return outcome

    async def _step(self, step: int) -> Outcome | None:
        request, raw_tokens = await self._prepare_request(step)
        reply = await self._call_model(request, raw_tokens, step)
        if self.spec.counts_run_steps:
            self.ctx.meta.totals.steps += 1
        outcome = await self._act(reply, step)
        if (
            outcome is None
            and self.mode == "native"
            and self.ctx.settings.tool_mode == "auto"
            and self.mode_watch.reply(reply.problems, bool(reply.calls))
        ):
            self._switch_to_json(step)
        return outcome

    def _spent_sub_budget(self) -> BudgetStop | None:
        """A micro agent stops at the run's budgets, and at its own step limit (not the run's)."""
        run_budget = self.ctx.spent_budget()
        if run_budget is not None and run_budget.kind != "max_steps":
            return run_budget
        if self.local_steps >= self.spec.max_steps:
            return BudgetStop("max_steps", f"the {self.spec.name} agent used its {self.spec.max_steps} steps")
        return None

    # -- building the request ------------------------------------------------------------------
    def _raw_request(self, status: Message | None) -> float:
        """The raw token estimate of history + status + tools, from the cached per-message counts."""
        return self.history.raw_tokens + self._tools_raw + (raw_message_tokens(status) if status else 0.0)

    async def _prepare_request(self, step: int) -> tuple[list[Message], float]:
        self._apply_learned_window()  # another agent of the same model may have learned it
        if self.mode == "native" and self.ctx.tool_mode() == "json":  # another agent switched the run
            self._switch_to_json(step, reason="another agent of the run switched")
        if self.spec.base_changed is not None and (note := self.spec.base_changed()):
            self.history.replace_head(self.spec.base_messages())
            self.pending_notes.append(note)
        status_parts = self.spec.status() if self.spec.status is not None else []
        status_parts += self.pending_notes
        self._sent_notes, self.pending_notes = self.pending_notes, []
        status = user("\n".join(status_parts)) if status_parts else None
        estimator, guard = self.ctx.estimator, self.guard
        if self.spec.compress:
            tokens = estimator.scale(self._raw_request(status))
            if tokens > guard.hard_tokens:
                await self._compact(step, tokens)
                status = user("\n".join([*status_parts, *self.pending_notes])) if status_parts else None
                self.pending_notes = []
            elif tokens > guard.soft_tokens and self.spec.memory is not None:
                percent = round(100 * tokens / guard.window)
                status_parts.append(self.ctx.prompts.render("nudge_context.j2", percent=percent))
                status = user("\n".join(status_parts))
        messages = self.history.messages + ([status] if status else [])
        raw = self._raw_request(status)
        if self.spec.compress and estimator.scale(raw) > guard.hard_tokens:
            messages = guard.fit(messages, self.tools)  # the last resort: cut the largest messages
            raw = estimator.raw(messages, self.tools)
        return messages, raw

    async def _compact(self, step: int, before: int) -> None:
        self.guard.compact_old_entries(self.history, keep_from_step=step - 1)
        how = "pointers"
        if (
            self.ctx.estimator.scale(self._raw_request(None)) > self.guard.soft_tokens
            and self.spec.memory is not None
        ):
            how = "summary" if await self._summarize_into_memory(step) else "pointers"
        after = self.ctx.estimator.scale(self._raw_request(None))
        self.ctx.meta.totals.compactions += 1
        self._log("compaction", step=step, how=how, tokens_before=before, tokens_after=after)

    async def _summarize_into_memory(self, step: int) -> bool:
        """Fold the history into the agent's memory file (agent_runtime/engine/summaries), then
        rebuild it from the state files; False when the reply was no summary (the file is kept)."""
        assert self.spec.memory is not None
        folded = await summarize_into_memory(
            self.ctx, self.spec.model, self.guard, self.spec.memory,
            self.history.messages[self.history.base_length :], self._action_names, step,
            edit_kept=self.spec.memory_edit_kept, kept_ids=self.spec.kept_ids,
        )  # fmt: skip
        if folded.taken:
            self.history.reset(self.spec.base_messages())
        self.pending_notes += folded.notes
        return folded.taken

    # -- calling the model ---------------------------------------------------------------------
    async def _call_model(self, request: list[Message], raw_tokens: float, step: int) -> ModelReply:
        started = time.monotonic()
        refusals = 0
        while True:
            try:
                calling.set((self.spec.name, f"step {step}"))
                if self._reply_schema is not None:
                    raw = await self.spec.model.complete(request, self.tools, reply_schema=self._reply_schema)
                else:
                    raw = await self.spec.model.complete(request, self.tools)
                break
            except ToolsRefusedError:
                if self.mode != "native" or self.ctx.settings.tool_mode != "auto":
                    raise
                self._switch_to_json(step, reason="the server refuses a tool list")
                self.pending_notes = self._sent_notes + self.pending_notes  # the retry tells them again
                request, raw_tokens = await self._prepare_request(step)
                continue
            except ContextOverflowError as exc:
                refusals += 1
                self._learn_window(exc, raw_tokens, step)
                if refusals > CONTEXT_RETRIES or not self.spec.compress or self._fixed_part_too_large():
                    reason = self.guard.overflow_stop_reason(
                        exc, self.history.messages[:1], self.tools, self.ctx.workspace.root
                    )
                    raise ContextOverflowError(reason, window=exc.window, prompt_tokens=exc.prompt_tokens) from None
                self.pending_notes = self._sent_notes + self.pending_notes  # the retry tells them again
                request, raw_tokens = await self._prepare_request(step)  # compacts under the new window
        estimate = self.ctx.estimator.scale(raw_tokens)
        reply = parse_reply(raw, self.mode, self._action_names)
        prompt_tokens, completion_tokens = self.ctx.account(raw_tokens, raw.prompt_tokens, raw.completion_tokens)
        if reply.problems and set(reply.problems) - {"think_block"}:
            self.ctx.meta.totals.invalid_replies += 1
        self._log(
            "model_call",
            step=step,
            model=self.spec.model.name,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            estimated_tokens=estimate,
            duration=round(time.monotonic() - started, 3),
            calls=[c.name for c in reply.calls],
            problems=reply.problems,
        )
        return reply

    # -- the endpoint's real context window (agent_runtime/engine/context_guard) ------------------
    def _apply_learned_window(self) -> None:
        self.guard.adopt_window(self.ctx.meta.context_windows.get(self.spec.model.name), self.spec.model)

    def _learn_window(self, exc: ContextOverflowError, raw_tokens: float, step: int) -> None:
        """Believe the endpoint for the rest of the run (recorded: it survives a crash and a resume)."""
        fixed = self.guard.fixed_tokens(self.history.messages[:1], self.tools)
        learned = self.guard.learn_window(exc, raw_tokens, self.spec.model, fixed)
        self.ctx.meta.context_windows[self.spec.model.name] = learned.after
        self._log(
            "context_overflow", step=step, model=self.spec.model.name,
            window_before=learned.before, window_after=learned.after, stated_window=exc.window,
            stated_prompt_tokens=exc.prompt_tokens, estimated_tokens=learned.refused, error=str(exc)[:300],
        )  # fmt: skip
        self.ctx.save()

    def _fixed_part_too_large(self) -> bool:
        return self.guard.fixed_tokens(self.history.messages[:1], self.tools) > self.guard.hard_tokens

    # -- acting ----------------------------------------------------------------------------------
    async def _act(self, reply: ModelReply, step: int) -> Outcome | None:
        spec = self.spec
        self.pending_notes += reply.notes
        self.history.append(reply.assistant_message, Entry(0, step, spec.name, "reply", "arguments"))
        if not reply.calls:
            self.history.append(user(self._no_action_nudge(reply)))
            self._last_reply_had_calls = False
            return self._check_reply(usable=False)
        self._last_reply_had_calls = True
        calls = reply.calls
        observations = await run_calls(
            calls, spec.actions, lambda call, not_run: self._run_call(call, step, not_run),
            parallel=self.ctx.settings.parallel, finish_action=spec.finish_action,
            spent_budget=self.ctx.spent_budget,
        )  # fmt: skip
        reset_base: list[Message] | None = None
        after_reset: list[str] = []
        # The observations enter the history in the order of the calls, whatever order they ran in.
        for index, (call, observation) in enumerate(zip(calls, observations, strict=True)):
            assert observation is not None  # only the calls after a finish are not run
            text = self._bounded(observation.text, step, call.name, index)
            if observation.finished:
                return Outcome("finished", result=observation.result)
            if observation.waiting is not None:  # the run stops resumably until a person answers
                return Outcome("waiting", reason=observation.waiting)
            if call.name in spec.compresses and not observation.error and spec.compress:
                # A person's edit of another state file in this step is taken in by the rebuild:
                # the agent is told, as at any other step.
                if spec.base_changed is not None and (note := spec.base_changed()):
                    self.pending_notes.append(note)
                reset_base, after_reset = spec.base_messages(), []
                # The reset drops this observation: the next status says what was done and saved,
                # or a model that cannot see its own update does it again.
                self.pending_notes.append(f"[done] {text}")
            else:
                if reset_base is not None:
                    after_reset.append(f"Observation from {call.name}:\n{text}")
                self.history.append(
                    observation_message(call, text, self.mode),
                    Entry(0, step, spec.name, call.name, "observation"),
                )
            if not call.error and call.name in self._action_names:
                loop = self._check_repeats(call, text)
                if loop is not None:
                    return loop
        if reset_base is not None:
            # The state files now hold the state: the history restarts from them.
            self.history.reset(reset_base + ([user("\n\n".join(after_reset))] if after_reset else []))
        return self._check_reply(
            usable=any(not c.error and c.name in self._action_names for c in reply.calls)
        )

    async def _run_call(self, call: ToolCall, step: int, not_run: NotRun | None = None) -> Observation:
        started = time.monotonic()
        if not_run is not None and not_run.failed_before:
            observation = Observation(
                f"{call.name} was not run: an action before it in this reply failed (see its error). "
                f"Fix that first; call {call.name} again once it has worked.",
                error=True,
            )
        elif not_run is not None:
            observation = Observation(
                f"{call.name} was not run: the run's budget was spent by the actions running beside it "
                f"({not_run.budget}).",
                error=True,
            )
        elif call.error:
            observation = Observation(
                f"Error: could not read the arguments of {call.name}: {call.error}. "
                "Send the call again with the arguments as one JSON object.",
                error=True,
            )
        else:
            observation = await self.spec.actions.run(self.ctx, call.name, call.arguments)
        self._log(
            "action",
            step=step,
            action=call.name,
            arguments=_short_arguments(call),
            observation_chars=len(observation.text),
            duration=round(time.monotonic() - started, 3),
            error=observation.text[:300] if observation.error else None,
        )
        return observation

    def _bounded(self, text: str, step: int, action: str, index: int = 0) -> str:
        """Nothing large enters the context: a long observation is cut and its full text saved.
        It is cleaned like model text: an action may echo what the model sent, or read a page
        that holds anything."""
        text = clean_text(text)
        limit = self.ctx.settings.max_observation_chars
        if len(text) <= limit:
            return text
        name = action if index == 0 else f"{action}-{index + 1}"  # two visits in one reply: two files
        path = observation_file(self.ctx.workspace, f"step-{step:05d}", self.spec.name, name)
        copy = 1
        while path.exists():  # a micro agent counts its steps from 1 each time: never overwrite
            copy += 1
            path = observation_file(self.ctx.workspace, f"step-{step:05d}", self.spec.name, name, copy)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text, durable=False)
        return text[:limit] + (
            f"\n\n[… {len(text) - limit:,} more characters; full text: {self.ctx.workspace.relative(path)}]"
        )

    def _check_repeats(self, call: ToolCall, text: str) -> Outcome | None:
        verdict = self.repeats.call(call.name, _arguments_digest(call), text)
        if verdict is None:
            return None
        if verdict.stop and verdict.kind == "same":
            return Outcome(
                "loop",
                reason=f"loop: {call.name} was called {verdict.count} times in a row with the same arguments "
                f"and result; {self.spec.state_files_label} keep the work: edit them to steer the agent, "
                "then resume",
            )
        if verdict.stop:
            return Outcome(
                "loop",
                reason=f"loop: {call.name} was called {verdict.count} times in a row with nearly the same "
                f"arguments; the model is not moving on: edit {self.spec.state_files_label} to steer it and "
                "resume, or use a larger model",
            )
        self.pending_notes.append(
            self.ctx.prompts.render(
                "nudge_loop.j2", action=call.name, count=verdict.count, same=verdict.kind == "same"
            )
        )
        return None

    def _check_reply(self, usable: bool) -> Outcome | None:
        verdict = self.repeats.reply(usable)
        if verdict is None:
            return None
        if verdict.stop:
            return Outcome(
                "loop",
                reason=f"loop: the model replied {verdict.count} times in a row without an action it could "
                f"run; it may not handle this tool format: try --tool-mode "
                f"{'json' if self.mode == 'native' else 'native'}, or a larger model",
            )
        example = self._example_call(verdict.count)
        if example is not None and self.repeats.no_action and self._last_reply_had_calls:
            self.pending_notes.append(
                f"[note] {verdict.count} replies in a row had no call that could be run. Your next reply "
                f"must be one valid call, for example:\n{example}"
            )
        return None

    def _example_call(self, count: int) -> str | None:
        """From the third unusable reply on, the call the method needs next, as text to copy."""
        if count < NUDGE_AT or self.spec.next_action is None:
            return None
        name, arguments = self.spec.next_action()
        key = "action" if self.mode == "json" else "name"
        return json.dumps({key: name, "arguments": arguments}, ensure_ascii=False)

    def _no_action_nudge(self, reply: ModelReply) -> str:
        count = self.repeats.no_action + 1  # this reply is counted by _check_reply, just after
        return self.ctx.prompts.render(
            "nudge_no_action.j2",
            empty=not reply.text,
            actions=self.spec.actions.names(),
            mode=self.mode,
            count=count,
            example=self._example_call(count),
        )
