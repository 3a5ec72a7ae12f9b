"""From what an endpoint sent to what the loop acts on, in either tool mode.

`native` sends the tool list and reads `tool_calls`; `json` describes the actions in the system
prompt and reads the JSON actions of the text (one object, a list, or several objects; at most
MAX_CALLS, like native calls). Both tolerate what real endpoints send: `<think>` blocks, tool
calls written as text in `content`, near-JSON arguments (raw newlines in strings, doubled braces),
empty replies.
What was tolerated is listed in `ModelReply.problems` for the event log.

Model text is untrusted input, normalised here for every agent: no lone surrogate (which no file
or log can encode) and no control character (NUL, terminal escapes) gets past `parse_reply`.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_runtime.engine.json_repair import balanced_objects, loads_lenient
from agent_runtime.engine.messages import Message
from agent_runtime.errors import NestingTooDeepError

ToolMode = Literal["native", "json"]

_THINK_NAMES = ("think", "thinking", "reasoning")
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_THINK_CLOSE = {name: re.compile(rf"</{name}>", re.IGNORECASE) for name in _THINK_NAMES}
_OPEN_THINK = re.compile(r"^\s*<(think|thinking|reasoning)>.*", re.DOTALL | re.IGNORECASE)
_STRAY_CLOSE = re.compile(r"^.*?</(think|thinking|reasoning)>", re.DOTALL | re.IGNORECASE)
_TOOL_CALL_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_NAME_KEYS = ("name", "action", "tool", "function")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "action_input", "input")
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_-]+")
MAX_NAME = 64  # the longest function name OpenAI-compatible endpoints accept
MAX_CALLS = 32  # tool calls of one reply acted on (and JSON pieces of a text reply tried as calls)
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# C0 controls but tab, newline and carriage return; DEL; C1 controls. They carry no text, and a
# NUL or a terminal escape in a file name, a dashboard or the live view does harm.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def repair_surrogates(text: str) -> str:
    """Text that UTF-8 can encode: a lone surrogate becomes U+FFFD, a pair split into two code
    points becomes its character again."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def clean_text(text: str) -> str:
    """Model text made safe to store, log and show (see the module docstring)."""
    return _CONTROL.sub("", repair_surrogates(text))


def clean_value(value: Any) -> Any:
    """`clean_text` over every string of parsed JSON, keys included. Parsed model JSON is bounded
    in depth (json_repair.MAX_DEPTH), so the recursion is too."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(str(k)): clean_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    return value


@dataclass
class RawReply:
    """One choice of a chat completion, independent of the SDK's classes."""

    content: str | None
    tool_calls: list[tuple[str, str, str]] = field(default_factory=list)  # (id, name, arguments)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None  # "length": the endpoint cut the reply at its output limit
    model: str | None = None  # the model the endpoint says answered


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    error: str | None = None  # set when the arguments could not be read; shown to the model


@dataclass
class ModelReply:
    text: str
    calls: list[ToolCall]
    assistant_message: Message
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # told to the model with the next request


def _remove_think_blocks(content: str) -> str:
    """Every complete `<think>…</think>` block (any of the names, any case) removed, in linear time:
    a regex that searches on from each opener is quadratic on a reply of many unclosed openers, and
    once one opener of a name finds no closer, no later one of that name will."""
    pieces: list[str] = []
    kept_from = scan = 0
    unclosed: set[str] = set()
    while (opener := _THINK_OPEN.search(content, scan)) is not None:
        name = opener.group(1).lower()
        closer = None if name in unclosed else _THINK_CLOSE[name].search(content, opener.end())
        if closer is None:
            unclosed.add(name)
            scan = opener.end()
            continue
        pieces.append(content[kept_from : opener.start()])
        kept_from = scan = closer.end()
    pieces.append(content[kept_from:])
    return "".join(pieces)


def strip_thinking(content: str) -> tuple[str, bool]:
    """Remove reasoning blocks; an unclosed opening block hides the rest, a stray closer the start."""
    cleaned = _remove_think_blocks(content)
    cleaned = _STRAY_CLOSE.sub("", cleaned)
    cleaned = _OPEN_THINK.sub("", cleaned)
    return cleaned.strip(), cleaned != content


def tool_name(name: str, known: Collection[str]) -> str:
    """A known action's name, or an unknown one in a form an endpoint accepts back in the history
    (a model may send a name of any length and any characters; the call gets an observation)."""
    if name in known:
        return name
    return _NOT_IN_NAME.sub("_", name)[:MAX_NAME] or "unnamed"


def _new_id() -> str:
    return "call_" + uuid.uuid4().hex[:12]


def _read_arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    if isinstance(raw, dict):
        return clean_value(raw), None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    try:
        value = loads_lenient(str(raw))
    except NestingTooDeepError as exc:
        return {}, f"the arguments are {exc}"
    except ValueError:
        return {}, f"the arguments are not valid JSON: {clean_text(str(raw)[:200])!r}"
    if not isinstance(value, dict):
        return {}, f"the arguments must be a JSON object, got {type(value).__name__}"
    return clean_value(value), None


def _call_from_object(obj: Any, known: Collection[str]) -> ToolCall | None:
    """A tool call spelled as a JSON object: {"name": ..., "arguments": {...}} and its cousins."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):  # {"type": "function", "function": {...}}
        return _call_from_object(obj["function"], known)
    name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name is None or name not in known:
        return None
    raw_args = next((obj[k] for k in _ARGUMENT_KEYS if k in obj), None)
    if raw_args is None:  # {"action": "web_search", "query": "..."}: the rest are the arguments
        raw_args = {k: v for k, v in obj.items() if k not in _NAME_KEYS and k != "type"}
    arguments, error = _read_arguments(raw_args)
    return ToolCall(id=_new_id(), name=name, arguments=arguments, error=error)


_NAMED = re.compile(r'"(?:name|action|tool|function)"\s*:\s*"([A-Za-z0-9_-]{1,64})"')


def _action_named_in(piece: str, known: Collection[str]) -> str | None:
    """The known action an unreadable JSON piece names, e.g. {"name": "web_search", …broken…}."""
    for match in _NAMED.finditer(piece[:2000]):
        if match.group(1) in known:
            return match.group(1)
    return None


def _same_call(one: ToolCall, other: ToolCall) -> bool:
    return one.name == other.name and one.arguments == other.arguments and one.error == other.error


def calls_in_text(text: str, known: Collection[str]) -> list[ToolCall]:
    """Tool calls a model wrote as text: <tool_call> tags, fenced JSON, or bare JSON objects."""
    return _text_calls(text, known)[0]


def _text_calls(text: str, known: Collection[str]) -> tuple[list[ToolCall], list[str], bool]:
    """The calls in `text` (at most MAX_CALLS), a note for each piece that was meant as a call but
    cannot be read (any <tool_call> tag, any JSON nested too deeply: prose has no such thing), and
    whether more was written than was read."""
    tagged = [m.group(1) for m in _TOOL_CALL_TAG.finditer(text)]
    pieces = tagged or balanced_objects(text)  # a JSON list of actions: each of its objects, in order
    calls: list[ToolCall] = []
    notes: list[str] = []
    for piece in pieces[:MAX_CALLS]:  # no reply means thousands
        try:
            obj = loads_lenient(piece)
        except ValueError as exc:
            name = _action_named_in(piece, known)
            if name is not None and not isinstance(exc, NestingTooDeepError):
                # Meant as a call of `name`: the model gets the parse error, as for invalid arguments.
                calls.append(ToolCall(id=_new_id(), name=name, arguments={}, error=str(exc)))
                continue
            if tagged or isinstance(exc, NestingTooDeepError):
                notes.append(
                    f"[note] A tool call written in your reply could not be read: it is {exc}. "
                    "Send it again with the arguments as one flat JSON object."
                )
            continue
        for candidate in obj if isinstance(obj, list) else [obj]:
            call = _call_from_object(candidate, known)
            if call is not None and not any(_same_call(call, earlier) for earlier in calls):
                calls.append(call)  # a call quoted twice (prose, then a fenced copy) runs once
    cut = bool(calls) and max(len(pieces), len(calls)) > MAX_CALLS
    return calls[:MAX_CALLS], notes, cut


def parse_reply(raw: RawReply, mode: ToolMode, known: Collection[str]) -> ModelReply:
    problems: list[str] = []
    text, had_thinking = strip_thinking(clean_text(raw.content or ""))
    if had_thinking:
        problems.append("think_block")

    calls: list[ToolCall] = []
    notes: list[str] = []
    if mode == "native":
        if len(raw.tool_calls) > MAX_CALLS:
            notes.append(
                f"[note] Your reply held {len(raw.tool_calls):,} tool calls; only the first {MAX_CALLS} "
                "were run."
            )
        seen_ids: set[str] = set()
        for call_id, name, arguments in raw.tool_calls[:MAX_CALLS]:
            parsed, error = _read_arguments(arguments)
            call_id = clean_text(str(call_id or ""))[:MAX_NAME]
            if not call_id or call_id in seen_ids:  # each observation must answer one id
                call_id = _new_id()
            seen_ids.add(call_id)
            calls.append(
                ToolCall(
                    id=call_id,
                    name=tool_name(clean_text(str(name or "")), known),
                    arguments=parsed,
                    error=error,
                )
            )
    unreadable: list[str] = []
    if not calls and text:
        calls, unreadable, cut = _text_calls(text, known)
        notes += unreadable
        if cut:  # as for native calls: the model learns the bound
            notes.append(
                f"[note] Your reply held more than {MAX_CALLS} JSON objects; only the first {MAX_CALLS} "
                "actions were run."
            )
        if calls and mode == "native":
            problems.append("text_tool_call")
    if any(call.error for call in calls):
        problems.append("invalid_arguments")
    if unreadable:
        problems.append("unreadable_tool_call")
    elif not calls:
        problems.append("empty_reply" if not text else "no_action")
    if raw.finish_reason == "length":  # the likely cause of broken arguments: say it, with the cure
        problems.append("cut_at_output_limit")
        notes.append(
            "[note] Your last reply was cut off at the endpoint's output limit. Keep each reply short: "
            "write long text in parts (several calls that append), not in one call."
        )

    return ModelReply(
        text=text,
        calls=calls,
        assistant_message=assistant_message("" if "text_tool_call" in problems else text, calls, mode),
        prompt_tokens=raw.prompt_tokens,
        completion_tokens=raw.completion_tokens,
        problems=problems,
        notes=notes,
    )


def assistant_message(text: str, calls: list[ToolCall], mode: ToolMode) -> Message:
    """How a reply is kept in the history: normalised, so the next request is always well-formed."""
    if mode == "json" or not calls:
        return {"role": "assistant", "content": text}
    # A call written as text is kept as a real tool call: the model sees the right form next time.
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
            }
            for call in calls
        ],
    }


def observation_message(call: ToolCall, text: str, mode: ToolMode) -> Message:
    if mode == "native":
        return {"role": "tool", "tool_call_id": call.id, "content": text}
    return {"role": "user", "content": f"Observation from {call.name}:\n{text}"}
