"""The project's module graph, read with `ast`: which project modules each module imports
(module-level and function-level alike; only imports under `if TYPE_CHECKING:` are left out, as they
never run). The layering tests (tests/test_import_graph.py, the view's test_layering.py) and the
tests' own layout test (tests/test_tests_layout.py) read it."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


PACKAGES = ("agent_runtime", "actions", "sandbox", "prompts", "workspace_template")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(path: Path, packages: Iterable[str] = PACKAGES, source: str | None = None) -> set[str]:
    """The modules of `packages` that `path` imports, as absolute module names (from `source` in
    place of the file's text, if given: `path` then only places it in the project)."""
    tree = ast.parse(path.read_text("utf-8") if source is None else source)
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _type_checking_only(node):
            skipped.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    found: set[str] = set()
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    heads = set(packages)
    return {name for name in found if name.split(".")[0] in heads}


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        # `from x import y` names a module or a symbol: keep what is a module, else its module.
        targets = {t if t in modules else t.rpartition(".")[0] for t in imports_of(path)}
        edges[name] = {t for t in targets if t in modules and t != name}
    return edges
