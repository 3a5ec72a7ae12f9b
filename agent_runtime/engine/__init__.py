"""The engine: one generic micro-agent loop and what it stands on.

The loop (`loop`), the model client (`model`) and how replies are read (`replies`, `json_repair`,
`tool_modes`), actions from typed functions (`registry`, `scheduling`), the run's shared context and
services (`context`, `services`, `calling`), the context window (`context_guard`, `tokens`,
`summaries`), loops of a weak model (`repeats`), prompts (`prompts`), the workspace folder and the
run's record (`workspace`, `run_record`), chat messages (`messages`).

It knows no action and nothing of research (sources, citations, reports): the domain hands it
its workspace's `Layout` (the state files the context is rebuilt from) and the app's wiring its
`AgentSpec`. It imports only the shared leaves at the top of `agent_runtime` (errors, config,
language) and the sandbox.
"""
