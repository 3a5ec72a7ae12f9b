"""The dependencies point one way:

    errors ← sandbox, language, config ← engine ← domain ← actions ← app

Walks every module's imports with `ast` (module-level and function-level alike; only imports under
`if TYPE_CHECKING:` are left out, as they never run) and checks the floors of `agent_runtime` and that
the module graph has no cycle, so that no function-level import is hiding one."""

from __future__ import annotations

import ast

from tests.support.import_graph import PACKAGES, ROOT, graph

# The shared leaves at the top of agent_runtime: every floor may use them, they use none.
LEAVES = {"agent_runtime.errors", "agent_runtime.config", "agent_runtime.language"}
# The public entrances at the top: the package (its API is the app's, loaded lazily) and the test doubles.
PUBLIC = {"agent_runtime", "agent_runtime.testing"}


def floor(module: str) -> str:
    """engine, domain, app, leaf, public, actions, sandbox, or other (prompts, templates)."""
    if module in LEAVES:
        return "leaf"
    if module in PUBLIC:
        return "public"
    for name in ("engine", "domain", "app"):
        if module == f"agent_runtime.{name}" or module.startswith(f"agent_runtime.{name}."):
            return name
    head = module.split(".")[0]
    return head if head in ("actions", "sandbox") else "other"


# What each floor may import (besides itself).
ALLOWED = {
    "leaf": {"leaf", "sandbox"},
    "engine": {"leaf", "sandbox", "other"},
    "domain": {"engine", "leaf", "sandbox", "other"},
    "actions": {"domain", "engine", "leaf", "sandbox", "other"},
    "app": {"actions", "domain", "engine", "leaf", "sandbox", "other", "public"},
}


def test_each_floor_imports_only_the_floors_below_it() -> None:
    edges = graph()
    for module, targets in sorted(edges.items()):
        allowed = ALLOWED.get(floor(module))
        if allowed is None:
            continue
        bad = sorted(t for t in targets if floor(t) != floor(module) and floor(t) not in allowed)
        assert not bad, f"{module} ({floor(module)}) imports {bad}"


def test_only_the_app_imports_the_actions() -> None:
    edges = graph()
    for module, targets in sorted(edges.items()):
        if floor(module) in ("actions", "app"):
            continue
        assert not any(floor(t) == "actions" for t in targets), f"{module} imports an action"


def test_every_module_of_agent_runtime_lives_on_a_floor() -> None:
    """No loose module at the top but the leaves and the public entrances."""
    for module in graph():
        if module.startswith("agent_runtime"):
            assert floor(module) in ("leaf", "public", "engine", "domain", "app"), module


def test_the_sandbox_imports_nothing_of_the_project_but_the_exception_tree() -> None:
    edges = graph()
    assert edges["agent_runtime.errors"] == set()  # the ground floor's ground floor
    for module, targets in edges.items():
        if module.startswith("sandbox"):
            assert all(t.startswith("sandbox") or t == "agent_runtime.errors" for t in targets), (
                module,
                targets,
            )


def test_every_project_exception_derives_from_the_one_root() -> None:
    """One exception module: no other module defines an exception outside the tree's root."""
    import inspect

    import agent_runtime.errors as errors

    for path in (p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                in_tree = path.relative_to(ROOT).as_posix() == "agent_runtime/errors.py"
                assert in_tree or not bases & {"Exception", "ValueError", "RuntimeError", "OSError"}, (
                    f"{path.relative_to(ROOT)}: {node.name} is outside the exception tree"
                )
    for name, cls in inspect.getmembers(errors, inspect.isclass):
        assert issubclass(cls, errors.DeepResearcherError), name


def test_there_is_no_import_cycle() -> None:
    edges = graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(edges[module]):
            if state.get(target) == 1:
                cycle = [*path[path.index(target) :], target]
                raise AssertionError("import cycle: " + " → ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module)


# Inside the engine, the files and the loop are floors of their own (issue 35): each module below
# may use those above it in this list, never one below it (directly or through another module), so
# the workspace never reaches into the loop, and the loop is the only one that loops.
ENGINE_ORDER = (
    "agent_runtime.engine.file_key",  # has this file changed: (inode, size, mtime_ns)
    "agent_runtime.engine.file_exchange",  # renameat2's exchange
    "agent_runtime.engine.writers",  # is someone still writing a file
    "agent_runtime.engine.run_lock",  # one run per workspace
    "agent_runtime.engine.state_files",  # settled reads, whole writes, versions and trash
    "agent_runtime.engine.workspace",  # where things are, how a workspace is made
    "agent_runtime.engine.run_record",  # run.json and the event log
    "agent_runtime.engine.run_context",  # what one run shares
    "agent_runtime.engine.context_guard",  # the window: compaction, cuts, the learned window
    "agent_runtime.engine.summaries",  # folding the history into the memory file
    "agent_runtime.engine.loop",  # the loop
)
# The modules of the files that import nothing of the project at all: anyone may use them.
SELF_CONTAINED = ("agent_runtime.engine.file_key", "agent_runtime.engine.file_exchange")


def reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    pending = [start]
    while pending:
        for target in edges[pending.pop()]:
            if target not in seen:
                seen.add(target)
                pending.append(target)
    return seen


def test_the_engine_s_files_sit_below_its_loop() -> None:
    edges = graph()
    for index, module in enumerate(ENGINE_ORDER):
        later = set(ENGINE_ORDER[index + 1 :])
        bad = sorted(reachable(edges, module) & later)
        assert not bad, f"{module} reaches {bad}, which sit above it (tests/test_import_graph.py ENGINE_ORDER)"
    for module in SELF_CONTAINED:
        assert edges[module] == set(), (module, edges[module])


def test_no_engine_module_reaches_the_domain_the_actions_or_the_app() -> None:
    """Not even through a leaf or the sandbox: the engine's whole closure stays out of the floors above."""
    edges = graph()
    for module in (m for m in edges if floor(m) == "engine"):
        above = sorted(t for t in reachable(edges, module) if floor(t) in ("domain", "actions", "app", "public"))
        assert not above, f"{module} reaches {above}"


def test_the_domain_types_what_it_keeps_in_the_engine_s_record() -> None:
    """The research's fields of run.json are the domain's (RunMeta.extra): the engine's model has none."""
    from agent_runtime.engine.run_record import RunMeta

    research = {"report_path", "report_problems", "finish_refusals"}
    assert not research & set(RunMeta.model_fields)
    assert "agent_runtime.engine.run_record" in graph()["agent_runtime.domain.report_record"]


# What the engine must not name (issue 35): the research layout and its words. The domain hands
# the engine its state files (engine.workspace.Layout); a name or a string of the engine's own that
# holds one of these means the engine knows the research again. Comments and docstrings may still
# mention them as examples. Matched in any case, but the purpose line's label: the run record's
# `purpose` (the run's input, as its `title`) is not the dashboard's "**Purpose:**".
RESEARCH_WORDS = ("dashboard", "notebook", "report.md", "citations")
RESEARCH_LABELS = ("Purpose",)


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _names_and_strings(tree: ast.AST) -> list[str]:
    """Every identifier a module defines or uses, and every string constant but its docstrings."""
    skipped = _docstrings(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            found.append(node.value)
        elif isinstance(node, ast.Name):
            found.append(node.id)
        elif isinstance(node, ast.Attribute):
            found.append(node.attr)
        elif isinstance(node, ast.arg) or (isinstance(node, ast.keyword) and node.arg is not None):
            found.append(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.append(node.name)
        elif isinstance(node, ast.alias):
            found.extend(filter(None, (node.name, node.asname)))
    return found


def test_the_engine_names_nothing_of_the_research_layout() -> None:
    for path in sorted((ROOT / "agent_runtime" / "engine").rglob("*.py")):
        named = _names_and_strings(ast.parse(path.read_text("utf-8")))
        bad = sorted(
            {
                text
                for text in named
                if any(word in text.casefold() for word in RESEARCH_WORDS)
                or any(label in text for label in RESEARCH_LABELS)
            }
        )
        assert not bad, f"{path.relative_to(ROOT)} names the research layout: {bad}"


def test_the_research_words_rule_catches_a_name_and_a_string() -> None:
    tree = ast.parse(
        '"""A docstring may say dashboard."""\nNOTEBOOK = "Notebook"\nx = f(label="**Purpose:**")\n'
    )
    named = _names_and_strings(tree)
    assert "NOTEBOOK" in named and "Notebook" in named and "**Purpose:**" in named
    assert not any("docstring" in text for text in named)
