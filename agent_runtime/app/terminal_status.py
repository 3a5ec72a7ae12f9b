"""What the CLI shows while a run works: one live status line on a terminal, plain lines otherwise."""

from __future__ import annotations

import time
from typing import Any, TextIO

from agent_runtime.config import Settings
from agent_runtime.engine.run_record import EventLog, duration

MAX_AGENTS_SHOWN = 3  # research agents named on the status line; the others are counted


class LiveView:
    def __init__(self, stream: TextIO, settings: Settings) -> None:
        self.stream = stream
        self.settings = settings
        self.tty = stream.isatty()
        self.started = time.monotonic()
        self.step = 0
        self.tokens = 0
        self.action = "starting"
        # Delegated agents that run beside the main agent (research tasks), each with what it does
        # now: several at once share the one status line instead of overwriting each other's action.
        self.agents: dict[str, str] = {}
        self._next_wait_line = 0.0  # plain output: a line when waiting starts, then at 30 s, 60 s, 120 s…

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event["event"]
        agent = str(event.get("agent") or "main")
        # The research tasks log a task number: they are shown beside the main agent.
        if kind == "agent_started" and event.get("task") is not None:
            self.agents[agent] = "starting"
            self.action = "research_task"
            if not self.tty:
                self._line(
                    f"step {self.step or event.get('step')} {agent} started: {str(event.get('question'))[:100]} "
                    f"→ {event.get('notes_file')} ({event.get('depth')})"
                )
        elif kind == "agent_ended" and agent in self.agents:
            del self.agents[agent]
            if not self.tty:
                reason = f": {str(event.get('reason'))[:120]}" if event.get("outcome") != "finished" else ""
                self._line(
                    f"step {self.step or event.get('step')} {agent} {event.get('outcome')} after "
                    f"{event.get('steps')} steps{reason}"
                )
        elif kind == "model_call":
            self.tokens += int(event.get("prompt_tokens") or 0) + int(event.get("completion_tokens") or 0)
            if agent == "main":
                self.step = int(event.get("step") or self.step)
            if agent in self.agents:
                self.agents[agent] = "thinking"
            else:
                self.action = "thinking"
            self._next_wait_line = 0.0
        elif kind == "model_waiting":
            seconds = float(event.get("seconds") or 0)
            self.action = f"waiting for the model ({duration(seconds)})"
            if not self.tty and seconds >= self._next_wait_line:
                self._line(
                    f"step {event.get('step')} waiting for the model: {duration(seconds)} so far "
                    "(it is working; a local model can take minutes)"
                )
                self._next_wait_line = max(30.0, 2 * seconds)
        elif kind == "model_retry" and not self.tty:
            self._line(f"step {event.get('step')} model call failed ({event.get('reason')}); retrying")
        elif kind == "action":
            shown = str(event["action"]) if agent == "main" else f"{agent}:{event['action']}"
            if agent in self.agents:
                self.agents[agent] = str(event["action"])
            else:
                self.action = shown
            if not self.tty:
                error = f" — error: {event['error'][:120]}" if event.get("error") else ""
                # A delegated agent counts its own steps from 1: the line shows the run's step.
                step = event.get("step") if agent == "main" else self.step or event.get("step")
                self._line(f"step {step} {shown} ({event.get('observation_chars')} chars){error}")
        elif kind == "compaction" and not self.tty:
            self._line(
                f"step {event.get('step')} context compacted ({event.get('tokens_before')} → {event.get('tokens_after')} tokens)"
            )
        elif kind == "run_ended":
            if self.tty:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
            return
        if self.tty:
            elapsed = int(time.monotonic() - self.started)
            self.stream.write(
                f"\r\x1b[Kstep {self.step}/{self.settings.max_steps} · {self.action}{self._agents_text()} · "
                f"{self.tokens:,} tokens · {elapsed // 60}m{elapsed % 60:02d}s"
            )
            self.stream.flush()

    def _agents_text(self) -> str:
        """ " [research-1 web_search · research-2 thinking · +1 more]": what each running research
        agent does, the first few named, so the line stays on one terminal row."""
        if not self.agents:
            return ""
        items = [f"{name} {doing}" for name, doing in self.agents.items()]
        shown = items[:MAX_AGENTS_SHOWN] + (
            [f"+{len(items) - MAX_AGENTS_SHOWN} more"] if len(items) > MAX_AGENTS_SHOWN else []
        )
        return " [" + " · ".join(shown) + "]"

    def _line(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()


def attach_live_view(events: EventLog, settings: Settings, stream: TextIO) -> LiveView:
    view = LiveView(stream, settings)
    events.listeners.append(view)
    return view
