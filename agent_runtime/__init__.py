"""Deep Researcher V2: the runtime.

The public API:

    from agent_runtime import research, resume
    result = await research("Solid-state batteries in 2026", purpose="an investment memo", workspace="ssb")
    result = await resume("ssb", max_steps=400)

`Researcher` gives the same reach as a class; `agent_runtime.testing` holds the scripted model
and the loopback endpoint for tests.
"""

from agent_runtime.research import Researcher, RunResult, research, resume

__all__ = ["Researcher", "RunResult", "research", "resume"]
