"""The documentation stays true: every Python example of the README and of the docs site runs as
written, and the site's nav lists every page. (`mkdocs build --strict`, in the README's tests block,
checks the links and anchors; this checks what a build cannot: that the examples work.)

An example runs unless the line before its fence says why not (`<!-- not run: REASON -->`), so a
new example is tried by default. `<!-- prints: TEXT -->` before a fence also checks its output.
Each runs in a fresh folder, in a fresh interpreter, against the scripted demo researcher served as
a real OpenAI-compatible endpoint on 127.0.0.1, with a local corpus: no key and no network."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.testing import ScriptedEndpoint, demo_script
from tests.support.cli import cli_env

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^```python\n(?P<code>.*?)^```$", re.M | re.S)
MARK = re.compile(r"<!-- (?P<kind>not run|prints): (?P<text>.+?) -->")


@dataclass(frozen=True)
class Example:
    page: Path
    line: int
    code: str
    skip: str | None  # why it is not run
    prints: str | None  # what its output must contain

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def examples(page: Path) -> list[Example]:
    text = page.read_text("utf-8")
    found = []
    for block in FENCE.finditer(text):
        before = text[: block.start()].rstrip().rsplit("\n", 1)[-1]  # the last line before the fence
        mark = MARK.fullmatch(before.strip())
        found.append(
            Example(
                page,
                text.count("\n", 0, block.start()) + 1,
                block["code"],
                mark["text"] if mark and mark["kind"] == "not run" else None,
                mark["text"] if mark and mark["kind"] == "prints" else None,
            )
        )
    return found


ALL = [example for page in PAGES for example in examples(page)]


def test_the_docs_have_python_examples_to_run() -> None:
    where = {example.page.name for example in ALL if example.skip is None}
    assert {"README.md", "python-api.md", "citations.md", "testing.md"} <= where, where


@pytest.mark.slow
@pytest.mark.parametrize("example", ALL, ids=[example.name for example in ALL])
def test_a_python_example_runs_as_written(example: Example, tmp_path: Path) -> None:
    if example.skip is not None:
        pytest.skip(f"{example.name}: {example.skip}")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "ssb.md").write_text(
        "# Solid-state batteries\n\nSolid-state batteries in 2026 reach pilot production lines.\n", "utf-8"
    )
    work = tmp_path / "work"
    work.mkdir()
    with ScriptedEndpoint(demo_script) as server:
        done = subprocess.run(
            [sys.executable, "-c", example.code], cwd=work, capture_output=True, text=True, timeout=120,
            env=cli_env(server.url, DEEP_RESEARCHER_SEARCH="local", DEEP_RESEARCHER_CORPUS=str(corpus)),
        )  # fmt: skip
    assert done.returncode == 0, f"{example.name}\n{example.code}\n{done.stderr}"
    if example.prints is not None:
        assert example.prints in done.stdout, f"{example.name}: {done.stdout!r}"


def nav_pages(nav: Any) -> list[str]:
    """Every page a mkdocs nav names, at any depth."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    if isinstance(nav, list):
        return [page for item in nav for page in nav_pages(item)]
    return []


def mkdocs_config() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with the [docs] extra (mkdocs)")
    config: dict[str, Any] = yaml.safe_load((REPO / "mkdocs.yml").read_text("utf-8"))
    return config


def test_the_nav_lists_every_page_once_and_only_pages_that_exist() -> None:
    listed = nav_pages(mkdocs_config()["nav"])
    on_disk = sorted(path.name for path in DOCS.glob("*.md"))
    assert sorted(listed) == on_disk, (sorted(set(on_disk) - set(listed)), sorted(set(listed) - set(on_disk)))
    assert len(listed) == len(set(listed)), listed


@pytest.mark.slow
def test_the_site_builds_strictly_and_fetches_nothing() -> None:
    """Strict, so that a broken link, anchor or nav fails the build; no web fonts and no plugin but
    the built-in search, so that a build needs no network."""
    config = mkdocs_config()
    assert config["strict"] is True
    assert config["theme"]["name"] == "material" and config["theme"]["font"] is False
    assert config.get("plugins") == ["search"], config.get("plugins")
    assert all(
        config["validation"][check] == "warn" for check in ("omitted_files", "unrecognized_links", "anchors")
    )


def test_the_readme_is_an_entry_that_links_to_every_page() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    assert len(readme.splitlines()) <= 300
    missing = [
        path.name
        for path in DOCS.glob("*.md")
        if path.name != "index.md" and f"(docs/{path.name}" not in readme
    ]
    assert not missing, missing
    # The first run with a local model names the window, and warns about a server's default one.
    local = readme[readme.index("### With a local model") : readme.index("## Inspect and resume")]
    assert "--context-window" in local and "Ollama's small default silently cuts long prompts" in local
