"""`deep-researcher export WORKSPACE --format html|docx|pdf`: a finished run's report.md as a file
to read, send or print (the live view's Export buttons call the same function).

- html: one self-contained page, styles inline, nothing loaded from elsewhere (`export.html`);
- docx: a Word document with real headings, lists, tables and the References (`export.docx`);
- pdf: that HTML page printed by headless Chromium (`export.pdf`).

Every failure a user can cause (not a workspace, no report yet, a report.md that links to outside
the workspace, no Chromium, an output that cannot be written) is an ExportError with one message;
the file is written atomically, so a failed export never leaves half a file, nor spoils an earlier
export.

The libraries (markdown-it, python-docx) are imported only when an export runs: the CLI's start
stays light.
"""

from __future__ import annotations

from pathlib import Path

from agent_runtime.app.export.report import (
    Citation,
    Report,
    load_citations,
    load_report,
    output_path,
)
from agent_runtime.errors import ExportError
from sandbox.safe_write import atomic_write_bytes

FORMATS = ("html", "docx", "pdf")

__all__ = ["FORMATS", "Citation", "Report", "export_report", "load_citations", "load_report"]


def export_report(
    workspace: Path,
    fmt: str,
    *,
    output: Path | str | None = None,
    browser_path: Path | None = None,
    warnings: list[str] | None = None,
) -> Path:
    """Write the report of the run in `workspace` as `fmt`; returns the file written (by default
    WORKSPACE/report.FORMAT; `output` may be a folder, which a string ending in "/" always means).
    `browser_path`: the Chromium to print a PDF with (default: the
    browser_path setting, else chromium on PATH). `warnings` receives what the export went on
    without: each figure whose file could not be shown, named."""
    if fmt not in FORMATS:
        raise ExportError(f"cannot export as {fmt!r}: the formats are {', '.join(FORMATS)}")
    report = load_report(Path(workspace))
    target = output_path(report, fmt, output)
    if fmt == "docx":
        from agent_runtime.app.export.docx import render_docx

        _write(target, render_docx(report))
        _warn(report, warnings)
        return target
    from agent_runtime.app.export.html import render_html

    page = render_html(report)
    if fmt == "html":
        _write(target, page.encode("utf-8"))
        _warn(report, warnings)
        return target
    from agent_runtime.app.export.pdf import print_pdf

    _write(target, print_pdf(page, Path(browser_path) if browser_path is not None else None))
    _warn(report, warnings)
    return target


def _warn(report: Report, warnings: list[str] | None) -> None:
    if warnings is not None:
        warnings += [f"a figure was left out of the export: {broken}" for broken in report.broken_figures]


def _write(target: Path, data: bytes) -> None:
    """The export, whole or not at all (sandbox's atomic write), with the permissions the umask
    gives: a file made to be handed on, not one of the workspace's private ones."""
    try:
        atomic_write_bytes(target, data, shared=True)
    except OSError as exc:
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from None
