"""The two ways actions are asked for, and the move from one to the other.

`native` sends the tool list and reads `tool_calls`; `json` describes the actions in the system
prompt and reads JSON actions from the text (agent_runtime/engine/replies). Where the server allows it,
the reply is forced into an action (agent_runtime/engine/model): `tool_choice: "required"` in native
mode, a JSON-schema `response_format` built here in json mode.

With `--tool-mode auto` a run starts native. A small model served without a tool-call parser
writes its calls as JSON text instead: they are still run, and after `SWITCH_AFTER` such replies in
a row the run switches to json for the rest of its life (RunMeta.tool_mode), where that form is
the one asked for and the one the server can force.
"""

from __future__ import annotations

import json
from typing import Any

from agent_runtime.engine.messages import Message, ToolSchema, user

SWITCH_AFTER = 2  # replies in a row whose only action was JSON text: the model's own form
MAX_ACTIONS_PER_REPLY = 8  # what the schema lets a forced json reply hold


def action_schema(tools: list[ToolSchema]) -> dict[str, Any]:
    """The JSON schema of one json-mode reply: one action object, or a list of them, each with its
    name and its own parameters. A server that decodes by grammar (llama.cpp, vLLM, Ollama) can
    then only produce an action the runtime can run."""
    variants = [
        {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": [tool["function"]["name"]]},
                "arguments": tool["function"]["parameters"],
            },
            "required": ["action", "arguments"],
        }
        for tool in tools
    ]
    one = {"anyOf": variants}
    return {
        "$defs": {"action": one},
        "anyOf": [
            {"$ref": "#/$defs/action"},
            {
                "type": "array",
                "items": {"$ref": "#/$defs/action"},
                "minItems": 1,
                "maxItems": MAX_ACTIONS_PER_REPLY,
            },
        ],
    }


def as_json_history(messages: list[Message]) -> list[Message]:
    """A native-mode history in the json form: tool calls as the JSON text a json-mode reply holds,
    observations as the user messages json mode sends. A server given no tool list refuses
    `tool` messages, and the model learns the form it must now use from its own past replies."""
    names: dict[str, str] = {}
    converted: list[Message] = []
    for message in messages:
        calls = message.get("tool_calls") or []
        if message.get("role") == "assistant" and calls:
            actions = []
            for call in calls:
                function = call["function"]
                names[str(call.get("id", ""))] = function["name"]
                try:
                    arguments = json.loads(function["arguments"] or "{}")
                except ValueError:
                    arguments = {}
                actions.append({"action": function["name"], "arguments": arguments})
            form: object = actions[0] if len(actions) == 1 else actions
            text = (str(message.get("content") or "") + "\n" + json.dumps(form, ensure_ascii=False)).strip()
            converted.append({"role": "assistant", "content": text})
        elif message.get("role") == "tool":
            name = names.get(str(message.get("tool_call_id", "")), "the action")
            converted.append(user(f"Observation from {name}:\n{message.get('content') or ''}"))
        else:
            converted.append(message)
    return converted


class ModeWatch:
    """Counts native-mode replies whose actions came only as JSON text."""

    def __init__(self) -> None:
        self.in_a_row = 0

    def reply(self, problems: list[str], had_calls: bool) -> bool:
        """True when this reply completes the evidence for switching to json mode."""
        if "text_tool_call" in problems:
            self.in_a_row += 1
        elif had_calls:  # a native call came back: the server parses tool calls after all
            self.in_a_row = 0
        return self.in_a_row >= SWITCH_AFTER
