"""The engine: one generic micro-agent loop and what it stands on.

The loop (`loop`), the model client (`model`) and how replies are read (`replies`, `json_repair`,
`tool_modes`), actions from typed functions (`registry`, `scheduling`), what one run shares
(`run_context`, `services`, `calling`), the context window (`context_guard`: compaction and the window
learned from the endpoint, `tokens`, `summaries`: the summarizing call), loops of a weak model
(`repeats`), prompts (`prompts`), the workspace folder (`workspace`: where things are; `state_files`:
the files the context is rebuilt from, read settled and written whole; `run_lock`; `writers`;
`file_key`; `file_exchange`), the run's record (`run_record`), chat messages (`messages`).

It knows no action and nothing of research (sources, citations, reports): the domain hands it
its workspace's `Layout` (the state files the context is rebuilt from) and the app's wiring its
`AgentSpec` (which actions rewrite the state files: `AgentSpec.compresses`). It imports only the shared leaves at the top of `agent_runtime` (errors, config,
language) and the sandbox.
"""
