"""A server's tools as actions named `mcp__<server>__<tool>`, with the server's own JSON schema.

The arguments are checked against that schema here (jsonschema, which the SDK itself uses), so
a wrong call costs no round trip and comes back as the same kind of observation as any action's.
A result becomes a bounded observation: its text up to the run's observation budget, the whole
in `.runtime/observations/…` with a pointer beyond it. A result that carries a document — an
embedded resource with its URI, or text answering a call that named one http(s) URL (a fetch) —
is saved as a source (`sources/S<n>.md`, through visit_url's own `record_page`) and shown with its
`[S<n>]`, so it is cited and checked like a page. Errors of any kind are observations: the
server's own (`isError`), a timeout, and a server that died, which is restarted once.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import ConfigDict, create_model

from actions.mcp.config import safe_name
from actions.mcp.servers import McpServer, McpServers, ServerGone
from actions.web.digest import chars_for_tokens, cut, fence, fence_note, new_boundary, one_line, opening
from actions.web.extract import Extracted
from actions.web.visit import Fetched, record_page
from agent_runtime.domain.sources.ledger import ledger_for
from agent_runtime.engine.messages import ToolSchema
from agent_runtime.engine.registry import Action, Observation, first_sentence
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import StorageError
from sandbox import atomic_write_text

PREFIX = "mcp__"
MAX_NAME = 64  # OpenAI's limit for a function name
LABEL = "MCP RESULT"
_URL = re.compile(r"^https?://\S+$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*$", re.MULTILINE)
_Arguments = create_model("mcp_arguments", __config__=ConfigDict(extra="allow"))


def tool_action_name(server: str, tool: str) -> str:
    name = f"{PREFIX}{safe_name(server)}__{safe_name(tool)}"
    return name[:MAX_NAME]


@dataclass(frozen=True)
class McpToolAction(Action):
    """One tool of one server. `run` validates against the server's schema and calls it."""

    server: McpServer | None = None
    tool: str = ""
    input_schema: dict[str, Any] = field(default_factory=dict)

    def schema(self, brief: bool = False) -> ToolSchema:
        parameters = dict(self.input_schema) or {"type": "object"}
        parameters.setdefault("type", "object")
        parameters.setdefault("properties", {})
        description = self.description
        if brief:
            description = first_sentence(description)
        return {
            "type": "function",
            "function": {"name": self.name, "description": description, "parameters": parameters},
        }

    def signature_text(self) -> str:
        properties = self.input_schema.get("properties") or {}
        required = set(self.input_schema.get("required") or [])
        parts = [p if p in required else f"{p}=…" for p in properties]
        return f"{self.name}({', '.join(parts)})"

    def _text_parameters(self) -> frozenset[str]:
        return frozenset()  # the server's schema says what each argument is: sent as given

    async def _run(self, ctx: ActionContext | None, arguments: dict[str, Any]) -> Observation:
        problems = _schema_problems(self.input_schema, arguments)
        if problems:
            return Observation(
                f"Error: invalid arguments for {self.name}:\n" + "\n".join(f"- {p}" for p in problems)
                + f"\nExpected: {self.signature_text()}. Call it again with corrected arguments.",
                error=True,
            )  # fmt: skip
        try:
            outcome = await self.function(ctx, **arguments)
        except StorageError:  # a full or read-only disk stops the run, as for any action
            raise
        except Exception as exc:  # a bug here must not end the run: the model may go another way
            return Observation(f"Error in {self.name}: unexpected {type(exc).__name__}: {exc}", error=True)
        return outcome if isinstance(outcome, Observation) else Observation(str(outcome))


def _schema_problems(schema: dict[str, Any], arguments: dict[str, Any]) -> list[str]:
    import jsonschema

    try:
        validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        validator = validator_class(schema)
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
    except (jsonschema.SchemaError, TypeError, ValueError):  # the server's schema is broken: let it judge
        return []
    return [f"{'.'.join(str(p) for p in e.path) or 'arguments'}: {e.message}"[:300] for e in errors[:8]]


def tool_actions(servers: McpServers, brief: bool = False) -> list[Action]:
    """The tools of every server the user lets the agent call, servers in the config's order, each
    server's tools in its own order: the same list at every step."""
    made: list[Action] = []
    taken: set[str] = set()
    for server in servers.servers:
        for tool in server.tools:
            if not server.config.offers(tool.name):
                continue
            name = tool_action_name(server.config.name, tool.name)
            if name in taken:  # two tools whose names differ only in unsafe characters
                continue
            taken.add(name)
            made.append(_make(server, tool.name, name, tool.description, tool.input_schema))
    return made


def _make(server: McpServer, tool: str, name: str, description: str, schema: dict[str, Any]) -> Action:
    async def call(ctx: ActionContext, **arguments: Any) -> Observation:
        return await call_tool(ctx, server, tool, name, arguments)

    described = " ".join(description.split()) or f"The tool {tool} of the MCP server {server.config.name}."
    described = f"[MCP server {server.config.name}] {described}"[:1_500]
    return McpToolAction(
        name=name,
        description=described,
        params=_Arguments,
        function=call,
        takes_context=True,
        concurrent=True,
        # Calls to one server keep the order the model gave (a server may keep state between
        # calls); calls to different servers run together.
        conflicts=lambda _arguments: frozenset({f"mcp:{server.config.name}"}),
        server=server,
        tool=tool,
        input_schema=schema,
    )


async def call_tool(
    ctx: ActionContext, server: McpServer, tool: str, name: str, arguments: dict[str, Any]
) -> Observation:
    from mcp import MCPError

    label = f"{server.config.name}/{tool}"
    try:
        result = await server.call(tool, arguments)
    except ServerGone as gone:
        return await _server_died(ctx, server, label, str(gone))
    except MCPError as exc:
        return Observation(f"Error from {label}: {one_line(exc.message)[:800]}", error=True)
    except TimeoutError:
        return Observation(
            f"Error from {label}: no answer within {server.config.timeout:.0f} seconds; try other arguments "
            "or another way", error=True,
        )  # fmt: skip
    return await render_result(ctx, server.config.name, tool, name, arguments, result)


async def _server_died(ctx: ActionContext, server: McpServer, label: str, why: str) -> Observation:
    """The first death: an observation and one restart. After that, the server's tools say so."""
    tail = server.stderr_tail()
    told = f" Its stderr ended with: {cut(one_line(tail), 400)}" if tail else ""
    ctx.events.append("mcp_server_died", step=ctx.step, server=server.config.name, reason=why[:300],
                      restarts=server.restarts)  # fmt: skip
    if server.restarts >= 1:
        return Observation(
            f"Error from {label}: the MCP server {server.config.name} stopped again ({cut(why, 200)}) and is not "
            f"restarted a second time: its tools are unavailable for the rest of this run.{told}",
            error=True,
        )
    try:
        await server.restart()
    except Exception as exc:
        ctx.events.append("mcp_server_restart_failed", server=server.config.name, error=str(exc)[:300])
        return Observation(
            f"Error from {label}: the MCP server {server.config.name} stopped ({cut(why, 200)}) and could not be "
            f"restarted: its tools are unavailable for the rest of this run.{told}",
            error=True,
        )
    ctx.events.append("mcp_server_restarted", step=ctx.step, server=server.config.name)
    return Observation(
        f"Error from {label}: the MCP server {server.config.name} stopped during the call ({cut(why, 200)}); "
        f"it was restarted, so the call can be made again.{told}",
        error=True,
    )


@dataclass
class _Parts:
    text: list[str] = field(default_factory=list)
    documents: list[tuple[str, str]] = field(default_factory=list)  # (uri, text)
    notes: list[str] = field(default_factory=list)


def _parts(result: Any) -> _Parts:
    parts = _Parts()
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.text.append(block.text)
        elif kind == "resource":
            resource = block.resource
            uri = str(resource.uri)
            text = getattr(resource, "text", None)
            if isinstance(text, str) and text.strip():
                parts.documents.append((uri, text))
            else:
                parts.notes.append(f"[a binary resource {uri} ({resource.mime_type or 'unknown type'}) — not shown]")
        elif kind == "resource_link":
            parts.notes.append(f"[a resource link: {block.uri} {block.name or ''}]".replace(" ]", "]"))
        else:
            mime = getattr(block, "mime_type", None) or "unknown type"
            parts.notes.append(f"[{kind or 'a'} content ({mime}) — not shown]")
    if not parts.text and not parts.documents and result.structured_content is not None:
        parts.text.append(json.dumps(result.structured_content, ensure_ascii=False, indent=2))
    return parts


def _url_argument(arguments: dict[str, Any]) -> str | None:
    """The one http(s) URL a call named (a fetch), else None."""
    urls = {v.strip() for v in arguments.values() if isinstance(v, str) and _URL.match(v.strip())}
    return urls.pop() if len(urls) == 1 else None


async def render_result(
    ctx: ActionContext, server: str, tool: str, name: str, arguments: dict[str, Any], result: Any
) -> Observation:
    parts = _parts(result)
    label = f"{server}/{tool}"
    if result.is_error:
        text = " ".join(one_line(t) for t in parts.text) or "the tool reported an error"
        return Observation(f"Error from {label}: {cut(text, 1_500)}", error=True)
    documents = list(parts.documents)
    url = _url_argument(arguments)
    if not documents and url and "".join(parts.text).strip():
        documents, parts.text = [(url, "\n\n".join(parts.text))], []
    sections = [f"{name}: result of {label}"]
    budget = chars_for_tokens(ctx.settings.observation_tokens, "".join(parts.text) or "x", ctx.estimator)
    budget = min(budget, ctx.settings.max_observation_chars - 400)
    if documents:
        sections.append(fence_note(LABEL))
        with ledger_for(ctx).batch():
            for uri, text in documents:
                room = max(300, budget // (len(documents) + (1 if parts.text else 0)))
                sections.append(await _document(ctx, label, uri, text, room))
        budget = max(300, budget // (len(documents) + 1))
    if parts.text:
        sections.append(_text_section(ctx, server, tool, "\n\n".join(parts.text), budget))
    sections.extend(parts.notes)
    if len(sections) == 1:
        sections.append("(the tool returned nothing)")
    return Observation("\n\n".join(sections))


async def _document(ctx: ActionContext, label: str, uri: str, text: str, room: int) -> str:
    """Save one document as a source and show its digest, as visit_url shows a page."""
    heading = _HEADING.search(text)
    title = cut(one_line(heading.group(1)), 200) if heading else uri
    extracted = Extracted(title, text.strip(), "markdown", f"MCP tool {label}")
    fetched = Fetched(uri, uri, text.encode("utf-8"), "text/markdown", extracted, False, [])
    page = await record_page(ctx, ledger_for(ctx), fetched)
    record = page.record
    shown = opening(text, room)
    more = "" if len(shown) >= len(text.strip()) else " (continues in the full text)"
    head = [
        f"## [{record.id}] {uri}",
        f"{len(text.split()):,} words · full text: {record.snapshot} (read more with file_operation); cite it as [{record.id}]",
    ]
    body = f"Title: {title}\n\nOpening{more}:\n{shown}"
    return "\n".join([*head, fence(body, f"{LABEL} {record.id}", new_boundary(), explain=False)])


def _text_section(ctx: ActionContext, server: str, tool: str, text: str, budget: int) -> str:
    if len(text) <= budget:
        return text.strip()
    path = ctx.workspace.observations_dir / f"step-{ctx.step:05d}-mcp-{safe_name(server)}-{safe_name(tool)}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text, durable=False)
    shown = opening(text, budget)
    return (
        f"{shown}\n\n[… {len(text) - len(shown):,} more characters: the whole result is in "
        f"{ctx.workspace.relative(path)} (read it with file_operation)]"
    )


def mcp_actions_for(ctx: ActionContext) -> list[Action]:
    """The run's MCP tools as actions (none when no server is configured), for a micro agent's list."""
    servers = ctx.services.peek(McpServers)
    return list(servers.actions) if servers is not None else []
