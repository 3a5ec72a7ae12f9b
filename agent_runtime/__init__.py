"""Deep Researcher V2: the runtime.

The public API:

    from agent_runtime import research, resume
    result = await research("Solid-state batteries in 2026", purpose="an investment memo", workspace="ssb")
    result = await resume("ssb", max_steps=400)
    result = await research("batteries", clarify=True, review_plan=True)   # may pause: status awaiting_*
    result = await follow_up_research("ssb", "What changed in 2026?")      # builds on a finished run

`Researcher` gives the same reach as a class; `agent_runtime.testing` holds the scripted model
and the loopback endpoint for tests. `check_citation(claim, source_text, judge=None)` checks
whether a source states a claim (agent_runtime/domain/citecheck).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_runtime.app.follow_up import follow_up_research
    from agent_runtime.app.researcher import Researcher, RunResult, research, resume
    from agent_runtime.domain.citecheck import check_citation

__all__ = ["Researcher", "RunResult", "check_citation", "follow_up_research", "research", "resume"]


def __getattr__(name: str) -> Any:
    # Lazy, so that `import actions` (which imports agent_runtime's modules) works on its own:
    # researcher.py imports the actions, and an eager import here would close the circle.
    if name == "check_citation":
        from agent_runtime.domain.citecheck import check_citation

        return check_citation
    if name == "follow_up_research":
        from agent_runtime.app.follow_up import follow_up_research

        return follow_up_research
    if name in __all__:
        import importlib

        return getattr(importlib.import_module("agent_runtime.app.researcher"), name)
    raise AttributeError(f"module 'agent_runtime' has no attribute {name!r}")
