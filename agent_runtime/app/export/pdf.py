"""The PDF: the exported HTML page printed by headless Chromium (`--print-to-pdf`).

Chromium lays out CJK text, tables and long URLs as the HTML export shows them, and keeps the
citation links working inside the PDF; a Python PDF library would be a second layout engine to
keep in step (and WeasyPrint needs Pango on the system anyway). Chinese needs a CJK font on the
machine (Debian: fonts-noto-cjk), as any program printing Chinese does.

Chromium is the one the user names (`--browser-path`), else the `browser_path` setting
(DEEP_RESEARCHER_BROWSER_PATH or the config file), else the first of CANDIDATES on PATH. It runs
in a fresh profile in a temporary folder, with every background service off, in its own process
group, so a timeout ends all of its processes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
from pathlib import Path

from agent_runtime.errors import ConfigError, ExportError
from sandbox.chromium import locate_chromium

TIMEOUT = 120.0  # seconds: a cold start and a long report take a few; a hung browser is ended
_NO_CHROMIUM = (
    "install Chromium (sudo apt-get install chromium) or give its path with --browser-path; "
    "or export --format html (print it from any browser) or --format docx"
)


def find_browser(browser_path: Path | None) -> Path:
    configured = browser_path if browser_path is not None else _configured()
    found = locate_chromium(configured)
    if found is not None:
        return found
    if configured is not None:
        raise ExportError(
            f"a PDF is printed by Chromium, and {configured.expanduser()} is not an executable browser: "
            f"{_NO_CHROMIUM}"
        )
    raise ExportError(f"a PDF is printed by Chromium, which was not found on this machine: {_NO_CHROMIUM}")


def _configured() -> Path | None:
    from agent_runtime.config import load_settings

    try:
        return load_settings().browser_path
    except ConfigError:  # a setting that has nothing to do with printing must not stop it
        return None


def print_pdf(page: str, browser_path: Path | None = None, *, timeout: float = TIMEOUT) -> bytes:
    """The PDF of the HTML `page`, as bytes."""
    browser = find_browser(browser_path)
    with tempfile.TemporaryDirectory(prefix="deep-researcher-pdf-", ignore_cleanup_errors=True) as folder:
        source, target = Path(folder) / "report.html", Path(folder) / "report.pdf"
        source.write_text(page, "utf-8")
        command = [
            str(browser),
            "--headless",
            *_sandbox_flags(),
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={Path(folder) / 'profile'}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={target}",
            source.as_uri(),
        ]
        errors = _run(command, timeout)
        try:
            data = target.read_bytes()
        except OSError:
            data = b""
    if not data.startswith(b"%PDF") and "No usable sandbox" in errors:
        raise ExportError(
            f"Chromium ({browser}) cannot start its sandbox here (it needs unprivileged user namespaces), "
            "and a report from the web is printed only inside it: export --format html and print it "
            "from a browser, or export --format docx"
        )
    if not data.startswith(b"%PDF"):
        raise ExportError(f"Chromium ({browser}) did not print the PDF{_last_words(errors)}")
    return data


def _sandbox_flags() -> list[str]:
    """Chromium's sandbox stays on: the report's text comes from the web, and the sandbox contains
    a renderer bug that text might reach (the page's policy stops scripts, not a bug in the layout
    or font code). Only as root, where Chromium refuses to start sandboxed, is it turned off."""
    return ["--no-sandbox"] if os.geteuid() == 0 else []


def _run(command: list[str], timeout: float) -> str:
    """Run Chromium to its end; its stderr, for the message if no PDF came of it."""
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: the renderer and GPU processes end with it
        )
    except OSError as exc:
        raise ExportError(f"cannot start {command[0]}: {exc.strerror or exc}; {_NO_CHROMIUM}") from None
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise ExportError(f"Chromium did not finish printing the PDF in {timeout:.0f} s") from None
    except BaseException:  # Ctrl-C: no browser is left behind
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    with contextlib.suppress(OSError):  # a helper (crashpad) that outlived the browser
        os.killpg(process.pid, signal.SIGKILL)
    return stderr.decode("utf-8", errors="replace")


def _last_words(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if "ERROR" in line or "FATAL" in line]
    return f": {lines[-1][:300]}" if lines else ""
