"""Every exception the project raises on purpose, in one tree (this module imports nothing, so that
every layer, the sandbox included, can use it):

    DeepResearcherError                  the root
    ├── ConfigError                      a setting is missing or invalid; the message says what to set
    │   └── SettingValueError            a value given for a setting is not one it takes (exit 2, usage)
    ├── WorkspaceError                   the workspace cannot be created, read, locked or resumed
    │   ├── StateEditedError             a person edited a state file (a dashboard) about to be replaced
    │   └── StorageError                 the disk refused a write (full, quota, read-only, permission)
    ├── ModelError                       the model endpoint failed in a way retrying did not fix
    │   ├── ModelUnreachableError        refused, silent, too slow, or failing past the retries
    │   ├── ModelRequestRefusedError     400/401/403/404: retrying would not help
    │   │   ├── ContextOverflowError     the request is longer than the model's context window
    │   │   └── ToolsRefusedError        the server takes no tool list (llama-server without --jinja)
    │   └── NotACompletionError          a 200 whose body is no chat completion (retried like a 5xx)
    ├── ReplyError                       a model's reply cannot be read
    │   └── NestingTooDeepError          JSON nested past the depth limit
    ├── ExportError                      a report cannot be exported (no finished report, no
    │                                    Chromium for a PDF, an output that cannot be written)
    └── ActionError                      an action could not do what was asked: the message is the
        │                                observation the model reads, and the run goes on
        ├── SandboxError                 a path or URL the sandbox refused
        │   ├── PathEscapeError          `..`, an absolute path, `~`, a symlink to outside
        │   ├── InvalidPathError         not a usable workspace path
        │   ├── ReadOnlyPathError        a part of the workspace only the runtime changes
        │   └── URLRefusedError          a private or reserved address (SSRF protection)
        ├── BinaryFileError              a file that is not text
        ├── PatternTooSlowError          a search pattern past its time limit
        ├── SearchError                  a search provider failed (`retryable`, `retry_after`)
        │   └── AllProvidersFailedError  every configured provider failed
        ├── CorpusError                  a local-corpus document that cannot be opened
        ├── FetchError                   a page that could not be fetched
        ├── ExtractionError              content that cannot be turned into text
        ├── BrowserUnavailableError      no browser here (the extra or Chromium is missing)
        ├── BrowserError                 the browser would not start, or died
        ├── RenderError                  the browser could not load a page
        └── CDPError                     a DevTools command failed or its connection is gone

The CLI maps the tree to exit codes in one place (`agent_runtime.app.cli`): ActionErrors never reach it
(they become observations); everything else is exit 1 with its message, never a traceback.
ReplyError, NotACompletionError and SandboxError are ValueErrors too, as the parsing code they
come from expects.
"""

from __future__ import annotations

# How a run ends, as the CLI's exit code: finished, error, usage, stopped by a budget (resumable),
# interrupted (resumable).
EXIT_FINISHED, EXIT_ERROR, EXIT_USAGE, EXIT_BUDGET, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class DeepResearcherError(Exception):
    """The root of every exception the project raises on purpose."""


# -- conditions a run cannot continue from ------------------------------------------------------
class ConfigError(DeepResearcherError):
    """A setting is missing or invalid; the message says what to set."""


class SettingValueError(ConfigError):
    """A value given for a setting (a flag, a variable, a config file's key) is not one it takes:
    a usage error, named where it came from, as argparse names a bad flag."""


class WorkspaceError(DeepResearcherError):
    """The workspace cannot be created, read, locked or resumed."""


class StateEditedError(WorkspaceError):
    """A state file (a research run's dashboard) changed since the runtime last read it into the
    context or wrote it: a person edited it. Nothing was written; `text` is the file as it is now
    (the action that wrote it turns it into an observation: the model merges again)."""

    def __init__(self, name: str, text: str) -> None:
        super().__init__(f"{name} was edited since it was last read")
        self.name, self.text = name, text


class StorageError(WorkspaceError):
    """The disk refused a write: full, over quota, read-only, or the folder is not writable.

    No action can work around that, so the run stops at once, resumably, with this message (it
    names the folder and the cause). Not an OSError, so that no `except OSError` in an action turns
    it into an observation the model would retry."""


class ModelError(DeepResearcherError):
    """The model endpoint failed in a way retrying did not (or must not) fix."""


class ModelUnreachableError(ModelError):
    """Connection errors, silence, slowness or 5xx answers outlasted the retries and the deadline."""


class ModelRequestRefusedError(ModelError):
    """The endpoint refused the request (400/401/403/404): retrying would not help."""


class ToolsRefusedError(ModelRequestRefusedError):
    """The server refuses any request with a tool list (llama-server without --jinja answers 500,
    Ollama 400 for a model without tool support): only json mode can work with it."""


class ContextOverflowError(ModelRequestRefusedError):
    """The endpoint refused the request as longer than the model's context window. `window` and
    `prompt_tokens` are what the server stated (None when it did not say)."""

    def __init__(self, message: str, *, window: int | None = None, prompt_tokens: int | None = None) -> None:
        super().__init__(message)
        self.window = window
        self.prompt_tokens = prompt_tokens


class NotACompletionError(ModelError, ValueError):
    """The endpoint answered 200 with a body that is not a complete chat completion."""


# -- a model's reply ----------------------------------------------------------------------------
class ReplyError(DeepResearcherError, ValueError):
    """A model's reply (or a part of it, like tool-call arguments) cannot be read."""


class NestingTooDeepError(ReplyError):
    """The text nests brackets deeper than the depth limit."""


# -- exporting a finished report ----------------------------------------------------------------
class ExportError(DeepResearcherError):
    """`deep-researcher export` (or the view's Export) cannot write the file; the message says why
    and what to do: finish or resume the run, install Chromium, choose another output."""


# -- an action's failure: an observation for the model -------------------------------------------
class ActionError(DeepResearcherError):
    """Raised by an action to report a failure; the message is the observation the model reads."""


class SandboxError(ActionError, ValueError):
    """A path or URL was refused by the sandbox; the message says what and why."""


class PathEscapeError(SandboxError):
    """A path leads outside the workspace: `..`, an absolute path, `~`, or a symlink to outside."""


class InvalidPathError(SandboxError):
    """A path that is not a usable workspace path: not text, empty, NUL, too long, a symlink loop."""


class ReadOnlyPathError(SandboxError):
    """A write to a part of the workspace that only the runtime changes (dashboards, sources/…)."""


class URLRefusedError(SandboxError):
    """A URL, or the address it resolves to, was refused by the URL policy (SSRF protection).

    Raised before any byte is sent to the refused server; the message says which rule refused it."""


class BinaryFileError(ActionError):
    """The file is not text; grep skips such files, the other actions say so."""


class PatternTooSlowError(ActionError):
    """A search pattern ran past its time limit on one file."""


class SearchError(ActionError):
    """A provider failed. `retryable`: a rate limit (429), a server error (5xx) or a network
    failure, worth another try after a pause (`retry_after` seconds when the API said so)."""

    def __init__(self, message: str, *, retryable: bool = False, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


class AllProvidersFailedError(SearchError):
    """Every configured provider failed; `failures` has one line per provider, saying why."""

    def __init__(self, failures: list[str]) -> None:
        super().__init__("; ".join(failures))
        self.failures = failures


class CorpusError(ActionError):
    """A corpus URL that cannot be opened; the message is written for the model."""


class FetchError(ActionError):
    """A page could not be fetched; the message is written for the model."""


class ExtractionError(ActionError):
    """The content cannot be turned into text; the message is written for the model."""


class BrowserUnavailableError(ActionError):
    """No browser on this machine; the message says what is missing and how to install it."""


class BrowserError(ActionError):
    """The browser failed (it would not start, or died); the message is written for the model."""


class RenderError(ActionError):
    """The browser could not load the page; the message is written for the model. `http_fallback`:
    the document is not a web page (a PDF, a download), so reading it over HTTP is the way."""

    def __init__(self, message: str, *, http_fallback: bool = False) -> None:
        super().__init__(message)
        self.http_fallback = http_fallback


class CDPError(ActionError):
    """A DevTools command failed, timed out, or the connection to the browser is gone."""
