"""The public API stays what it was, whatever has been imported before: a subpackage named like a
public function would shadow it once imported (Python sets the submodule as the package's
attribute)."""

from __future__ import annotations

import subprocess
import sys

import agent_runtime

PUBLIC = ("research", "resume", "Researcher", "RunResult", "check_citation")


def test_no_subpackage_is_named_like_a_public_name() -> None:
    import pkgutil

    subpackages = {module.name for module in pkgutil.iter_modules(agent_runtime.__path__)}
    assert not subpackages & set(PUBLIC), subpackages & set(PUBLIC)


def test_the_public_names_are_the_functions_and_classes_after_every_floor_is_imported() -> None:
    code = (
        "import importlib, pkgutil, inspect, agent_runtime\n"
        "for m in pkgutil.walk_packages(agent_runtime.__path__, 'agent_runtime.'):\n"
        "    if '.view' not in m.name and '.export' not in m.name: importlib.import_module(m.name)\n"
        "from agent_runtime import research, resume, Researcher, check_citation\n"
        "assert inspect.iscoroutinefunction(research) and inspect.iscoroutinefunction(resume), research\n"
        "assert inspect.isclass(Researcher) and callable(check_citation)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
