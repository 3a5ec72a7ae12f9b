"""Who is calling the model, and for what: (agent, call), set around each model call by the loop
(the agent's name and its step), the summarizer and the citation judge, and read by the retry and
wait listeners so that an event names the agent whose call was retried. A context variable: agents
that run side by side (research tasks, File operations) each see their own."""

from __future__ import annotations

import contextvars

calling: contextvars.ContextVar[tuple[str, str]] = contextvars.ContextVar("calling", default=("main", ""))
