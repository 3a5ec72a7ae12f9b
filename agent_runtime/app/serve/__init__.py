"""`deep-researcher serve`: the research as an OpenAI-compatible endpoint (server.py says how)."""

from agent_runtime.app.serve.server import serve_openai

__all__ = ["serve_openai"]
