"""Shared fixtures: the loopback model endpoint. (Shared helpers that are not fixtures live in
`tests/support/`, which test modules import; no test module imports another.)"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator

import pytest

from agent_runtime.testing import Script, ScriptedEndpoint

# What `check` notes about endpoints goes to the user's cache: in tests, to a folder of their own,
# so that no test sees another's notes (a port is reused) and nothing lands in the real home.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="deep-researcher-test-cache-")


@pytest.fixture
def endpoint() -> Iterator[Callable[[Script], ScriptedEndpoint]]:
    """`endpoint(script)` starts a scripted OpenAI-compatible server; all stop after the test."""
    started: list[ScriptedEndpoint] = []

    def start(script: Script) -> ScriptedEndpoint:
        server = ScriptedEndpoint(script).__enter__()
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()
