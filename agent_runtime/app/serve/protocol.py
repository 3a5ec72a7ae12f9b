"""The OpenAI Chat Completions wire format as `serve` speaks it: a request read into what the
research needs, errors in OpenAI's shape, and the chunks of a streamed answer.

A chat app sends the whole conversation every time. The last user message is the research title;
the conversation before it becomes the purpose (the person's earlier words, the app's system prompt,
and the earlier answers cut short, since a report would fill the purpose alone). An earlier answer of
this server carries a marker naming its workspace, so that the next message continues that research.
The marker is a Markdown link reference definition, `[//]: # (deep-researcher workspace NAME)`:
every CommonMark renderer (Open WebUI's, LibreChat's, LobeChat's) shows nothing for it, where an
HTML comment is shown as text by renderers that escape HTML. It is the first line of the answer's
content, so that an answer cut off by a disconnect still carries it.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any

from agent_runtime import language as lang
from agent_runtime.domain.layout import MAX_PURPOSE_CHARS, MAX_TITLE_CHARS
from agent_runtime.errors import DeepResearcherError

MODEL = "deep-researcher"
MARKER = "[//]: # (deep-researcher workspace {name})"
_MARKER = re.compile(r"^\[//\]: # \(deep-researcher workspace ([^()\s/\\]+)\)[ \t]*$", re.M)
# What an app keeps of the thinking in an answer's text (Open WebUI's <details type="reasoning">).
_DETAILS = re.compile(r"<details\b[^>]*>.*?</details>", re.S | re.I)
EARLIER_ANSWER_CHARS = 600  # of each earlier answer, what the purpose keeps
# Open WebUI asks the chat's own model for a title, tags and follow-up suggestions, with prompts that
# begin "### Task:" and quote the chat in <chat_history>: each would otherwise start a research.
_APP_TASK = re.compile(r"^\s*### Task:.*<chat_history>", re.S)
_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


class OpenAIError(DeepResearcherError):
    """A request refused with an HTTP status, in OpenAI's error shape."""

    def __init__(
        self, status: int, message: str, kind: str = "invalid_request_error", code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:  # fmt: skip
        super().__init__(message)
        self.status = status
        self.message = message
        self.kind = kind
        self.code = code
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return error_body(self.message, self.kind, self.code)


def error_body(message: str, kind: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


@dataclass(frozen=True)
class Ask:
    """One chat-completion request, as the research reads it."""

    title: str
    purpose: str | None
    marked: str | None  # the workspace named by the latest earlier answer of this server, if any
    stream: bool
    include_usage: bool
    language: str  # of the title and the conversation: the progress lines are written in it


def _bad(message: str, code: str | None = None) -> OpenAIError:
    return OpenAIError(400, message, code=code)


def text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of parts (images are left out)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") in ("text", "input_text")]
        return "\n".join(p for p in parts if isinstance(p, str))
    raise _bad("a message's content must be text or a list of content parts")


def parse_request(body: object) -> Ask:
    """The request's Ask, or OpenAIError(400) naming what is wrong."""
    if not isinstance(body, dict):
        raise _bad('the body must be a JSON object: {"model": "deep-researcher", "messages": [...]}')
    model = body.get("model")
    if model != MODEL:
        shown = "no model" if model is None else f"the model {str(model)[:100]!r}"
        raise _bad(f"{shown} is not served here; the model is {MODEL!r}", "model_not_found")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _bad("messages must be a non-empty list of {role, content}", "empty_messages")
    turns: list[tuple[str, str]] = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in _ROLES:
            raise _bad("each message must be an object with a role (system, user, assistant…) and content")
        turns.append((str(message["role"]), text_of(message.get("content"))))
    last_user = max((i for i, (role, _) in enumerate(turns) if role == "user"), default=None)
    if last_user is None:
        raise _bad("the messages hold no user message: the last one is the research title", "no_user_message")
    if _APP_TASK.match(turns[last_user][1]):
        raise _bad(
            "this is the chat app's own task (a title, tags or suggestions for the chat), not a research: "
            "set another model as the app's task model (Open WebUI: Admin Panel > Settings > Interface)",
            "app_task_not_research",
        )
    title = " ".join(turns[last_user][1].split())
    if not title:
        raise _bad("the last user message is empty: it is the research title", "empty_title")
    if len(title) > MAX_TITLE_CHARS:
        raise _bad(
            f"the last message has {len(title):,} characters; a research title takes at most "
            f"{MAX_TITLE_CHARS:,}: put the background in an earlier message or the system prompt, which "
            "become the research's purpose",
            "title_too_long",
        )
    earlier = turns[:last_user]
    stream = body.get("stream") is True
    options = body.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    # the research's language is its title's (a Chinese title under an English system prompt is a
    # Chinese research); a short Latin title ("continue") takes the conversation's
    said = title if re.search(r"[\u3000-\u9fff]", title) or len(title.split()) >= 3 else None
    language = lang.detect(said) if said else lang.detect(title, *(text for _, text in earlier))
    return Ask(title, purpose_of(earlier, language), marked_workspace(earlier), stream, include_usage, language)


def marked_workspace(turns: list[tuple[str, str]]) -> str | None:
    """The workspace named by the latest earlier answer that carries the marker."""
    for role, text in reversed(turns):
        if role == "assistant":
            found = _MARKER.findall(text)
            if found:
                return str(found[-1])
    return None


_LABELS = {
    "en": {"system": "Instructions", "user": "The person asked earlier", "assistant": "The answer then"},
    "zh": {"system": "说明", "user": "此前的提问", "assistant": "当时的回答"},
}


def purpose_of(turns: list[tuple[str, str]], language: str) -> str | None:
    """The conversation before the title as the research's purpose, within MAX_PURPOSE_CHARS: the
    earliest turns go first when it is longer (the instructions stay)."""
    labels = _LABELS.get(language, _LABELS["en"])
    kept: list[str] = []
    instructions: list[str] = []
    for role, text in turns:
        text = _MARKER.sub("", _DETAILS.sub("", text)).strip()
        if not text or role in ("tool", "function"):
            continue
        if role == "assistant" and len(text) > EARLIER_ANSWER_CHARS:
            text = text[:EARLIER_ANSWER_CHARS].rstrip() + " …"
        line = f"{labels.get(role, labels['system'])}: {text}"
        (instructions if role in ("system", "developer") else kept).append(line)
    room = MAX_PURPOSE_CHARS - sum(len(line) + 2 for line in instructions)
    while kept and sum(len(line) + 2 for line in kept) > room:
        kept.pop(0)
    purpose = "\n\n".join([*instructions, *kept]).strip()
    return purpose[:MAX_PURPOSE_CHARS] or None


# -- answers ----------------------------------------------------------------------------------------


def completion_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex[:24]


def usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def completion(ident: str, content: str, finish: str, used: dict[str, int]) -> dict[str, Any]:
    """A whole (not streamed) answer."""
    return {
        "id": ident, "object": "chat.completion", "created": int(time.time()), "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": used,
    }  # fmt: skip


def chunk(
    ident: str, delta: dict[str, Any], finish: str | None = None, used: dict[str, int] | None = None,
    empty: bool = False,
) -> str:  # fmt: skip
    """One SSE event of a streamed answer; `empty`: the usage-only chunk (no choices) that
    `stream_options.include_usage` asks for."""
    payload: dict[str, Any] = {
        "id": ident, "object": "chat.completion.chunk", "created": int(time.time()), "model": MODEL,
        "choices": [] if empty else [{"index": 0, "delta": delta, "finish_reason": finish}],
    }  # fmt: skip
    if used is not None:
        payload["usage"] = used
    return sse(payload)


def sse(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return f"data: {text.encode('utf-8', 'backslashreplace').decode('utf-8')}\n\n"


DONE = "data: [DONE]\n\n"
KEEP_ALIVE = ": keep-alive\n\n"
