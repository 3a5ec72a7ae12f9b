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

import difflib
import inspect
import re
import traceback
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic import Field as PydanticField

from agent_runtime.context import ActionContext
from agent_runtime.errors import ActionError, SandboxError, StorageError
from agent_runtime.messages import ToolSchema


@dataclass
class Observation:
    text: str
    finished: bool = False  # ends the agent's loop (all_finished, finish)
    result: str | None = None  # the answer of a finishing action
    reset_context: bool = False  # a dashboard changed: rebuild the history from the files
    error: bool = False


ActionFunction = Callable[..., Awaitable["Observation | str"]]
# What a call touches (the files it changes): concurrent calls of one reply sharing a key run in
# the order the model gave them. "*" stands for anything (a call that names no file).
ConflictKeys = Callable[[dict[str, Any]], frozenset[str]]
ANYTHING = "*"

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

    def schema(self) -> ToolSchema:
        parameters = _strip_titles(self.params.model_json_schema())
        parameters.setdefault("properties", {})
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": parameters},
        }

    def signature_text(self) -> str:
        """`name(arg, arg=default)` for prompts in json tool mode."""
        parts = []
        for pname, info in self.params.model_fields.items():
            parts.append(pname if info.is_required() else f"{pname}={info.default!r}")
        return f"{self.name}({', '.join(parts)})"

    async def run(self, ctx: ActionContext | None, arguments: dict[str, Any]) -> Observation:
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

    @classmethod
    def of(cls, actions: Iterable[Action]) -> ActionSet:
        return cls({a.name: a for a in actions})

    def __iter__(self) -> Iterator[Action]:
        return iter(self.actions.values())

    def __contains__(self, name: object) -> bool:
        return name in self.actions

    def names(self) -> list[str]:
        return list(self.actions)

    def schemas(self) -> list[ToolSchema]:
        return [a.schema() for a in self.actions.values()]

    async def run(self, ctx: ActionContext | None, name: str, arguments: dict[str, Any]) -> Observation:
        found = self.actions.get(name)
        if found is None:
            return Observation(self._unknown(name), error=True)
        return await found.run(ctx, arguments)

    def _unknown(self, name: str) -> str:
        """The observation for a name no action has: the name (bounded), a close match, the list."""
        shown = repr(name) if len(name) <= 80 else f"{name[:80]!r}… ({len(name):,} characters)"
        close = difflib.get_close_matches(name[:80], self.actions, n=1)
        suggestion = f" Did you mean {close[0]}?" if close else ""
        return (
            f"Error: there is no action named {shown}.{suggestion} "
            f"Available actions: {', '.join(self.actions)}."
        )
