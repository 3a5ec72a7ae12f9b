"""A figure's files under `Notebook/figures/`: `<name>.svg`, `<name>.png` and `<name>.json` (the
checked spec, with the digests of the files as drawn). Every path is made from the title's slug
and checked by the workspace's path policy, so no title, however written, leads elsewhere. The
record is written last: a figure without one was never finished, and is drawn again."""

from __future__ import annotations

from pathlib import Path

from agent_runtime.domain.charts.draw import Drawing, digest
from agent_runtime.domain.charts.spec import FIGURES, ChartError, ChartSpec
from agent_runtime.errors import SandboxError
from sandbox.paths import PathPolicy
from sandbox.safe_write import atomic_write_bytes

MAX_RECORD_BYTES = 1_000_000
SUFFIXES = ("svg", "png")


def figure_path(name: str, suffix: str) -> str:
    """The file's path relative to the workspace."""
    return f"{FIGURES}/{name}.{suffix}"


def save(root: Path, spec: ChartSpec, drawing: Drawing, name: str | None = None) -> None:
    """The figure's files (named `name`, else from the title), each written atomically; the record
    last."""
    name = name or spec.name
    policy = PathPolicy(root)
    folder = policy.check_writable(FIGURES)
    folder.mkdir(parents=True, exist_ok=True)
    spec.digests = {**drawing.digests(), "spec": spec.drawn_digest()}
    for suffix, data in (("svg", drawing.svg), ("png", drawing.png), ("json", spec.to_json().encode("utf-8"))):
        atomic_write_bytes(policy.check_writable(figure_path(name, suffix)), data)


def load(root: Path, name: str) -> ChartSpec:
    """The checked spec of the figure `name`; ChartError when it is missing or damaged."""
    try:
        data = PathPolicy(root).read_bytes(figure_path(name, "json"), limit=MAX_RECORD_BYTES)
    except SandboxError as exc:
        raise ChartError(f"its record {figure_path(name, 'json')} cannot be read ({exc}): draw it again with chart") from None
    try:
        return ChartSpec.from_json(data.decode("utf-8", errors="replace"))
    except ValueError as exc:  # JSONDecodeError, or a record a person edited into nonsense
        raise ChartError(f"its record {figure_path(name, 'json')} is damaged ({exc}): draw it again with chart") from None


def title_of(root: Path, name: str) -> str | None:
    """The title of the figure already saved as `name`, if one is (None also for a damaged one,
    which a new chart may replace)."""
    if not (root / figure_path(name, "json")).is_file():
        return None
    try:
        return load(root, name).title
    except ChartError:
        return None


def unchanged(root: Path, name: str, spec: ChartSpec) -> bool:
    """Whether both files are there as they were drawn from the record as it is (a deleted or
    edited file is not, nor a picture of values the record no longer holds)."""
    if spec.digests.get("spec") != spec.drawn_digest():
        return False
    policy = PathPolicy(root)
    for suffix in SUFFIXES:
        try:
            data = policy.read_bytes(figure_path(name, suffix))
        except SandboxError:
            return False
        if digest(data) != spec.digests.get(suffix):
            return False
    return True
