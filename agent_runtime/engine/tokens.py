"""Token estimates without a tokenizer download: a character heuristic checked against `usage`.

ASCII text runs near four characters a token in the common BPE vocabularies; other scripts
(CJK above all) run near one. The raw estimate is multiplied by a calibration factor learned from
the `usage.prompt_tokens` each reply reports, never below 1.0, so that the guard can only
err towards a smaller request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from agent_runtime.engine.messages import Message, ToolSchema

ASCII_CHARS_PER_TOKEN = 4.0
MESSAGE_OVERHEAD_TOKENS = 4  # role and separators per message


def raw_text_tokens(text: str) -> float:
    ascii_count = len(text.encode("ascii", errors="ignore"))
    return ascii_count / ASCII_CHARS_PER_TOKEN + (len(text) - ascii_count)


def raw_message_tokens(message: Message) -> float:
    return MESSAGE_OVERHEAD_TOKENS + raw_text_tokens(json.dumps(message, ensure_ascii=False))


def raw_tools_tokens(tools: Sequence[ToolSchema]) -> float:
    return raw_text_tokens(json.dumps(list(tools), ensure_ascii=False)) if tools else 0.0


def raw_request_tokens(messages: Sequence[Message], tools: Sequence[ToolSchema] = ()) -> float:
    return sum(raw_message_tokens(m) for m in messages) + raw_tools_tokens(tools)


class TokenEstimator:
    def __init__(self) -> None:
        self.factor = 1.0
        self.samples = 0

    def text(self, text: str) -> int:
        return int(raw_text_tokens(text) * self.factor) + 1

    def request(self, messages: Sequence[Message], tools: Sequence[ToolSchema] = ()) -> int:
        return self.scale(raw_request_tokens(messages, tools))

    def raw(self, messages: Sequence[Message], tools: Sequence[ToolSchema] = ()) -> float:
        return raw_request_tokens(messages, tools)

    def scale(self, raw: float) -> int:
        """A raw (uncalibrated) estimate in calibrated tokens."""
        return int(raw * self.factor) + 1

    def observe(self, raw: float, prompt_tokens: int) -> None:
        """Learn from a reply's usage (`raw` is the request's raw estimate): the factor follows the
        largest recent ratio, slowly forgetting."""
        if raw <= 0 or prompt_tokens <= 0:
            return
        ratio = prompt_tokens / raw
        self.samples += 1
        blended = ratio if self.samples == 1 else 0.7 * self.factor + 0.3 * ratio
        self.factor = max(1.0, ratio, blended) if ratio > self.factor else max(1.0, blended)
