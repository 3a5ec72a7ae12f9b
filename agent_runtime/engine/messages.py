"""Chat messages in the OpenAI wire format, and the small vocabulary the runtime builds them with."""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]
ToolSchema = dict[str, Any]


def system(text: str) -> Message:
    return {"role": "system", "content": text}


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def message_text(message: Message) -> str:
    """The text a message carries, whatever its role (tool calls included)."""
    content = message.get("content") or ""
    if isinstance(content, list):  # content parts
        content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    calls = message.get("tool_calls") or []
    call_text = "".join(
        str(call.get("function", {}).get("name", "")) + str(call.get("function", {}).get("arguments", ""))
        for call in calls
    )
    return str(content) + call_text
