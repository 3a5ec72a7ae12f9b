"""The fixed prefix of every request: the system prompt and the tool list, which no compaction can
shrink, for the main agent and the File agent, at 8k, 32k and 128k windows, in both tool modes.
Goal: at most 2,000 tokens at 8k (the compact profile) for the main agent, where it was about 3,200,
40% of the window, and for the File agent (whose calls are most of a small model's run), where it
was 2,179 native and 2,392 in json mode.

    python benchmarks/bench_prefix.py

Tokens by the runtime's own estimator (four ASCII characters a token, one a CJK character), the
figure the context guard works with, and as a share of the window. An English and a Chinese title.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from actions.file_operation import ANSWER_LIMIT
from actions.files import file_actions
from agent_runtime.app.researcher import Researcher
from agent_runtime.config import load_settings
from agent_runtime.engine.prompts import Prompts
from agent_runtime.engine.registry import ActionSet
from agent_runtime.engine.tokens import TokenEstimator
from agent_runtime.testing import ScriptedModel, reply

WINDOWS = (8_000, 32_000, 128_000)
TITLES = ("libffi calling conventions on ARM64", "libffi 在 ARM64 上的调用约定")


def main_prefix(title: str, window: int, mode: str) -> tuple[int, int]:
    """(system prompt, tool list) tokens of the main agent."""
    with tempfile.TemporaryDirectory() as scratch:
        settings = load_settings({"tool_mode": mode, "context_window": window}, env={})
        researcher = Researcher.start(
            title,
            workspace=Path(scratch) / "ws",
            settings=settings,
            model=ScriptedModel(lambda m, t: reply()),
        )
        try:
            estimator = TokenEstimator()
            system = estimator.request([{"role": "system", "content": researcher.system_prompt()}], [])
            tools = estimator.request([], researcher.actions.schemas()) if mode == "native" else 0
        finally:
            researcher.close()
    return system, tools


def file_prefix(window: int, mode: str) -> tuple[int, int]:
    compact = load_settings({"context_window": window}, env={}).compact()
    actions = ActionSet.of(file_actions(compact), brief=compact)
    prompt = Prompts().render(
        "file_system.j2",
        tool_mode=mode,
        actions=list(actions),
        max_steps=10,
        answer_limit=ANSWER_LIMIT,
        brief=compact,
    )
    estimator = TokenEstimator()
    tools = estimator.request([], actions.schemas()) if mode == "native" else 0
    return estimator.request([{"role": "system", "content": prompt}], []), tools


def main() -> None:
    print(
        f"{'agent':<6} {'window':>7} {'mode':<6} {'title':<8} {'system':>7} {'tools':>6} {'prefix':>7} {'share':>6}"
    )
    for window in WINDOWS:
        for mode in ("native", "json"):
            for title in TITLES:
                system, tools = main_prefix(title, window, mode)
                language = "zh" if any("\u4e00" <= c <= "\u9fff" for c in title) else "en"
                share = (system + tools) / window
                print(
                    f"{'main':<6} {window:>7,} {mode:<6} {language:<8} {system:>7,} {tools:>6,} {system + tools:>7,} {share:>6.0%}"
                )
            system, tools = file_prefix(window, mode)
            share = (system + tools) / window
            print(
                f"{'file':<6} {window:>7,} {mode:<6} {'-':<8} {system:>7,} {tools:>6,} {system + tools:>7,} {share:>6.0%}"
            )


if __name__ == "__main__":
    main()
