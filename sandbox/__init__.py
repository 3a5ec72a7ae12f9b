"""Confinement that holds whatever the model says: workspace paths, safe writes, URL policy, and
the redaction of secrets from everything written or printed.

Nothing here imports the runtime but its exception tree (`agent_runtime.errors`, a module that
imports nothing); the runtime and the actions import this package.
"""

from sandbox.redaction import redact
from sandbox.safe_write import atomic_write_text, is_temp_name, storage_error

__all__ = ["atomic_write_text", "is_temp_name", "redact", "storage_error"]
