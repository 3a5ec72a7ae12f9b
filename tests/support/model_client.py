"""The real model client against a scripted endpoint: a client on its URL, and scripts that fail
before they succeed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_runtime.engine.model import OpenAIModel
from agent_runtime.testing import Fault, Reply, call, reply

MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def faults_then_success(*faults: Fault) -> Callable[[Any, Any], Reply | Fault]:
    remaining = list(faults)

    def script(messages: Any, tools: Any) -> Reply | Fault:
        return remaining.pop(0) if remaining else reply(call("all_finished", result="r", report_path="x"))

    return script


def client(url: str, **kwargs: Any) -> OpenAIModel:
    options: dict[str, Any] = {
        "request_timeout": 5.0,
        "deadline": 20.0,
        "max_retries": 4,
        "backoff_base": 0.05,
    }
    options.update(kwargs)
    return OpenAIModel("m", api_key="k", base_url=url, **options)
