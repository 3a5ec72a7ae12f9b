"""Confinement that holds whatever the model says: workspace paths, safe writes, URL policy.

Nothing here imports the runtime; the runtime and the actions import this package.
"""

from sandbox.errors import SandboxError
from sandbox.safe_write import atomic_write_text

__all__ = ["SandboxError", "atomic_write_text"]
