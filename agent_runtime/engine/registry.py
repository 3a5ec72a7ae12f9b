"""Actions from typed async functions: the signature and docstring become the tool schema,
pydantic validates the arguments, and every failure comes back as an observation.

    @action
    async def web_search(ctx: ActionContext, query: str, max_results: int = 10) -> str:
        '''Search the web.

        Args:
            query: what to search for.
            max_results: how many results, 1-20.
        '''

The first parameter, when annotated `ActionContext`, receives the run's services and is not
part of the schema.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import json
import re
import traceback
import types
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Union, get_args, get_origin, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic import Field as PydanticField

from agent_runtime.engine import tracing
from agent_runtime.engine.messages import ToolSchema
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import ActionError, SandboxError, StorageError


@dataclass
class Observation:
    text: str
    finished: bool = False  # ends the agent's loop (all_finished, finish)
    result: str | None = None  # the answer of a finishing action
    error: bool = False
    # Ends the loop to wait for a person: the status the run waits in (e.g. "awaiting_review").
    waiting: str | None = None


ActionFunction = Callable[..., Awaitable["Observation | str"]]
# What a call touches (the files it changes): concurrent calls of one reply sharing a key run in
# the order the model gave them. "*" stands for anything (a call that names no file).
ConflictKeys = Callable[[dict[str, Any]], frozenset[str]]
ANYTHING = "*"

# The key of an object that only wraps text ({"text": "…"}): the text is what was meant.
_TEXT_KEYS = frozenset({"text", "content", "markdown", "body", "value"})
_MAX_HEADING = 6  # Markdown's deepest heading; deeper objects become nested bullets

_ARGS_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$", re.MULTILINE)
_ARG_LINE = re.compile(r"^\s{2,}(\w+)\s*(?:\([^)]*\))?:\s*(.*)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    doc = inspect.cleandoc(doc)
    match = _ARGS_SECTION.search(doc)
    if not match:
        return doc.strip(), {}
    description, params, current = doc[: match.start()].strip(), {}, ""
    for line in doc[match.end() :].splitlines():
        arg = _ARG_LINE.match(line)
        if arg:
            current = arg.group(1)
            params[current] = arg.group(2).strip()
        elif current and line.strip() and line.startswith((" ", "\t")):
            params[current] += " " + line.strip()
        elif line.strip():  # another section begins
            current = ""
    return description, params


def _strip_titles(schema: Any) -> Any:
    """Pydantic's `title` keys only cost tokens; the descriptions carry the meaning."""
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title" or not isinstance(v, str)}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


# A sentence ends at . ! ? followed by space, but not in "e.g." or "i.e.".
_SENTENCE_END = re.compile(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s+")


def first_sentence(text: str) -> str:
    return _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]


def _briefly(schema: Any) -> Any:
    """A JSON schema with each description cut to its first sentence."""
    if isinstance(schema, dict):
        return {
            k: first_sentence(v) if k == "description" and isinstance(v, str) else _briefly(v)
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_briefly(v) for v in schema]
    return schema


@dataclass(frozen=True)
class Action:
    name: str
    description: str
    params: type[BaseModel]
    function: ActionFunction
    takes_context: bool
    # True: may run at the same time as the other concurrent calls of its reply (searches, visits,
    # delegated tasks). False: runs alone, after them, in the order of the calls (dashboard updates,
    # all_finished, anything that changes what the others see).
    concurrent: bool = False
    conflicts: ConflictKeys | None = None

    def conflict_keys(self, arguments: dict[str, Any]) -> frozenset[str]:
        if self.conflicts is None:
            return frozenset()
        try:
            return self.conflicts(arguments)
        except Exception:  # the arguments are the model's: unreadable ones conflict with everything
            return frozenset({ANYTHING})

    def schema(self, brief: bool = False) -> ToolSchema:
        """The tool schema; `brief`: every description cut to its first sentence (the compact
        profile of a small context window, where the fixed prefix must stay small)."""
        parameters = _strip_titles(self.params.model_json_schema())
        parameters.setdefault("properties", {})
        description = self.description
        if brief:
            parameters, description = _briefly(parameters), first_sentence(description)
        return {
            "type": "function",
            "function": {"name": self.name, "description": description, "parameters": parameters},
        }

    def signature_text(self) -> str:
        """`name(arg, arg=default)` for prompts in json tool mode."""
        parts = []
        for pname, info in self.params.model_fields.items():
            parts.append(pname if info.is_required() else f"{pname}={info.default!r}")
        return f"{self.name}({', '.join(parts)})"

    async def run(self, ctx: ActionContext | None, arguments: dict[str, Any]) -> Observation:
        arguments, rewritten = markdown_for_text_arguments(arguments, self._text_parameters())
        observation = await self._run(ctx, arguments)
        if not rewritten:
            return observation
        # The action ran with readable text; the model learns the form it should have sent.
        notes = [
            f"[note] {name} was a JSON {kind}, not text; it was written as Markdown. "
            f"Next time, send {name} as one string of text."
            for name, kind in rewritten.items()
        ]
        return dataclasses.replace(observation, text="\n\n".join([observation.text, *notes]))

    def _text_parameters(self) -> frozenset[str]:
        return frozenset(
            name
            for name, info in self.params.model_fields.items()
            if name in PROSE_PARAMETERS and _takes_only_text(info.annotation)
        )

    async def _run(self, ctx: ActionContext | None, arguments: dict[str, Any]) -> Observation:
        try:
            params = self.params.model_validate(arguments)
        except ValidationError as exc:
            return Observation(self._validation_text(exc), error=True)
        values = {name: getattr(params, name) for name in self.params.model_fields}
        try:
            outcome = await (self.function(ctx, **values) if self.takes_context else self.function(**values))
        except (ActionError, SandboxError) as exc:
            return Observation(f"Error in {self.name}: {exc}", error=True)
        except StorageError:  # a full or read-only disk: no other approach works, the run stops
            raise
        except Exception as exc:  # an action's bug must not end the run; the model may route around it
            where = traceback.extract_tb(exc.__traceback__)[-1]
            return Observation(
                f"Error in {self.name}: unexpected {type(exc).__name__}: {exc} "
                f"(at {where.filename.rsplit('/', 1)[-1]}:{where.lineno}); try a different approach",
                error=True,
            )
        return outcome if isinstance(outcome, Observation) else Observation(str(outcome))

    def _validation_text(self, exc: ValidationError) -> str:
        problems = []
        for err in exc.errors():
            location = ".".join(str(part) for part in err["loc"]) or "arguments"
            problems.append(f"- {location}: {err['msg']}")
        return (
            f"Error: invalid arguments for {self.name}:\n"
            + "\n".join(problems)
            + f"\nExpected: {self.signature_text()}. "
            "Call it again with corrected arguments."
        )


# The parameters that carry prose a person reads (a dashboard, a note, an answer): an object sent
# for one of them is written as Markdown. A path, a URL, a query or a pattern sent as an object or a
# list is a mistake, refused with the validation error.
PROSE_PARAMETERS = frozenset({"content", "answer", "result", "text", "new_text", "summary"})


def markdown_for_text_arguments(
    arguments: dict[str, Any], text_parameters: Iterable[str]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The arguments with a JSON object or list sent for a text parameter written as Markdown, and
    what was rewritten (parameter → "object" or "list"). Small models send a dashboard or a note as
    {"Findings": [...], ...}: refusing it costs a step and often brings the same object back, while
    the content is all there and reads well as headings and bullets."""
    rewritten: dict[str, str] = {}
    fixed = dict(arguments)
    for name in text_parameters:
        value = arguments.get(name)
        if isinstance(value, dict | list):
            fixed[name] = as_markdown(value)
            rewritten[name] = "object" if isinstance(value, dict) else "list"
    return fixed, rewritten


def as_markdown(value: dict[str, Any] | list[Any]) -> str:
    """A parsed JSON object or list as Markdown: an object of plain values as `- key: value`
    bullets, any other object as a heading per key, lists as (nested) bullets; an object that
    only wraps text ({"text": "…"}) as that text."""
    if isinstance(value, dict) and len(value) == 1:
        ((key, only),) = value.items()
        if str(key).lower() in _TEXT_KEYS and isinstance(only, str):
            return only
    lines = _sections(value, 2) if isinstance(value, dict) else _bullets(value, 0)
    return "\n".join(lines).strip("\n")


def _sections(value: dict[str, Any], level: int) -> list[str]:
    """An object at heading level: a heading per key when any value is more than a short phrase."""
    plain = all(not isinstance(v, dict | list) and "\n" not in _plain(v) for v in value.values())
    if plain or level > _MAX_HEADING:
        return _bullets(value, 0)
    lines: list[str] = []
    for key, item in value.items():
        if lines and lines[-1]:  # one blank line between a section and the next heading
            lines.append("")
        lines += [f"{'#' * level} {' '.join(str(key).split())}", ""]  # a heading is one line
        if isinstance(item, dict):
            lines += _sections(item, level + 1)
        elif isinstance(item, list):
            lines += _bullets(item, 0)
        else:
            lines.append(_plain(item))
    return lines


def _bullets(value: dict[str, Any] | list[Any], depth: int) -> list[str]:
    """Bullets indented by `depth`: an object's keys as `- key: value`, a list's items in order; a
    list item that is an object of plain values is one bullet, `key: value; key: value`."""
    pad = "  " * depth
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict | list):
                lines += [f"{pad}- {key}:", *_bullets(item, depth + 1)]
            else:
                lines.append(_bullet(pad, f"{key}: {_plain(item)}"))
        return lines
    for item in value:
        if isinstance(item, dict) and item and not any(isinstance(v, dict | list) for v in item.values()):
            lines.append(_bullet(pad, "; ".join(f"{k}: {_plain(v)}" for k, v in item.items())))
        elif isinstance(item, dict | list):
            lines += _bullets(item, depth + 1)
        else:
            lines.append(_bullet(pad, _plain(item)))
    return lines


def _bullet(pad: str, text: str) -> str:
    """One bullet; the lines of a multi-line text stay inside it."""
    return f"{pad}- " + text.replace("\n", f"\n{pad}  ")


def _plain(value: Any) -> str:
    return value.strip() if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _takes_only_text(annotation: Any) -> bool:
    """True for `str` and `str | None`: a parameter that takes a list or an object as well (a URL
    or a list of URLs) gets the value as it was sent."""
    if annotation is str:
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        members = get_args(annotation)
        return str in members and all(m in (str, type(None)) for m in members)
    return False


@overload
def action(function: ActionFunction, *, name: str | None = None) -> Action: ...
@overload
def action(
    function: None = None,
    *,
    name: str | None = None,
    concurrent: bool = False,
    conflicts: ConflictKeys | None = None,
) -> Callable[[ActionFunction], Action]: ...
def action(
    function: ActionFunction | None = None,
    *,
    name: str | None = None,
    concurrent: bool = False,
    conflicts: ConflictKeys | None = None,
) -> Action | Callable[[ActionFunction], Action]:
    """Decorator: turn a typed async function with a docstring into an `Action`. Its first
    parameter, when annotated `ActionContext`, receives the run's context; the others become the
    tool's arguments. `concurrent=True` lets the calls of one reply run together (`conflicts` names
    what a call touches, so two calls on one file keep their order)."""

    def build(fn: ActionFunction) -> Action:
        if not inspect.iscoroutinefunction(fn):
            raise TypeError(f"action {fn.__name__} must be an async function")
        hints = get_type_hints(fn)
        description, param_docs = _parse_docstring(fn.__doc__ or "")
        fields: dict[str, Any] = {}
        takes_context = False
        for index, (pname, param) in enumerate(inspect.signature(fn).parameters.items()):
            annotation = hints.get(pname, Any)
            if index == 0 and annotation is ActionContext:
                takes_context = True
                continue
            default = ... if param.default is inspect.Parameter.empty else param.default
            fields[pname] = (annotation, PydanticField(default, description=param_docs.get(pname)))
        params = create_model(f"{fn.__name__}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
        return Action(name or fn.__name__, description, params, fn, takes_context, concurrent, conflicts)

    return build(function) if function is not None else build


@dataclass
class ActionSet:
    """The actions one agent may call, in a fixed order (the tool list must be byte-stable)."""

    actions: dict[str, Action] = field(default_factory=dict)
    brief: bool = False  # the compact profile: descriptions cut to their first sentence

    @classmethod
    def of(cls, actions: Iterable[Action], brief: bool = False) -> ActionSet:
        return cls({a.name: a for a in actions}, brief)

    def __iter__(self) -> Iterator[Action]:
        return iter(self.actions.values())

    def __contains__(self, name: object) -> bool:
        return name in self.actions

    def names(self) -> list[str]:
        return list(self.actions)

    def schemas(self) -> list[ToolSchema]:
        return [a.schema(self.brief) for a in self.actions.values()]

    async def run(self, ctx: ActionContext | None, name: str, arguments: dict[str, Any]) -> Observation:
        found = self.actions.get(name)
        if found is None:
            return Observation(self._unknown(name), error=True)
        with tracing.tool_call(name, arguments) as span:
            observation = await found.run(ctx, arguments)
            tracing.tool_result(span, observation.text, observation.error)
        return observation

    def _unknown(self, name: str) -> str:
        """The observation for a name no action has: the name (bounded), a close match, the list."""
        shown = repr(name) if len(name) <= 80 else f"{name[:80]!r}… ({len(name):,} characters)"
        close = difflib.get_close_matches(name[:80], self.actions, n=1)
        suggestion = f" Did you mean {close[0]}?" if close else ""
        return (
            f"Error: there is no action named {shown}.{suggestion} "
            f"Available actions: {', '.join(self.actions)}."
        )
