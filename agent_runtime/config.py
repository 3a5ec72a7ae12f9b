"""Settings: command-line flags over environment variables over a TOML config file over defaults.

Every setting has one name. The environment variable is `DEEP_RESEARCHER_<NAME>` except for
the OpenAI client's own (`OPENAI_API_KEY`, `OPENAI_BASE_URL`); the TOML file uses the name as
its key. The API key is never written to the workspace.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

import agent_runtime.language as lang
from agent_runtime.errors import ConfigError, SettingValueError

COMPACT_WINDOW = 16_384  # tokens: a window this small (a local model on a laptop) gets the compact profile
DEFAULT_CONFIG_FILE = Path("~/.config/deep-researcher/config.toml")

# Settings whose environment variable is not DEEP_RESEARCHER_<NAME>.
_ENV_NAMES = {"api_key": "OPENAI_API_KEY", "base_url": "OPENAI_BASE_URL"}
# Settings that describe the machine or the person, not the run: never stored in run.json.
_NOT_STORED = {"api_key", "quiet", "config", "browser_path"}


class Price(BaseModel):
    """US dollars per million tokens."""

    model_config = ConfigDict(extra="forbid")
    input: float = Field(ge=0)
    output: float = Field(ge=0)


COST_UNKNOWN = "cost unknown (set DEEP_RESEARCHER_PRICE_INPUT / _OUTPUT)"


def describe_cost(cost: float, priced: bool) -> str:
    """A run's cost as printed: `$0.0123`, or COST_UNKNOWN when the model's prices are not known
    (a `$0.0000` would claim that the run was free)."""
    return f"${cost:.4f}" if priced else COST_UNKNOWN


def priced(stored: Mapping[str, Any]) -> bool:
    """Whether a run's stored settings (run.json) know the prices of its model."""
    prices = stored.get("prices")
    return isinstance(prices, dict) and stored.get("model") in prices


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    model: str = "gpt-4o-mini"
    base_url: str | None = None
    api_key: str | None = None
    # How actions are asked for: "native" tool calls, "json" (one JSON action, or a list, in the
    # text), or "auto": native until the model twice writes a JSON action as text, then json for
    # the rest of the run (recorded in run.json).
    tool_mode: Literal["auto", "native", "json"] = "auto"
    # "required" forces every reply of an agent into an action where the server allows it
    # (tool_choice "required" in native mode, a JSON-schema response_format in json mode); a 400
    # naming the parameter falls back one level for the rest of the run. "auto" never forces.
    tool_choice: Literal["auto", "required"] = "required"

    # Budgets: a run that reaches one stops resumably (exit code 3). None means no limit.
    max_steps: int = Field(default=200, ge=1)
    max_tokens: int | None = Field(default=None, ge=1)
    max_cost: float | None = Field(default=None, ge=0)
    max_time: float | None = Field(default=None, gt=0, description="seconds of wall time")
    # The share of the step and token budgets kept for writing: past it the agent is told to finish.
    writing_reserve: float = Field(default=0.15, ge=0, lt=1)

    # Context: the guard nudges past soft_limit and compacts past hard_limit (shares of the window).
    context_window: int = Field(default=64_000, ge=2_000)
    soft_limit: float = Field(default=0.60, gt=0, lt=1)
    hard_limit: float = Field(default=0.85, gt=0, lt=1)
    compression: bool = True  # False replays the whole history (for benchmarks only)
    max_observation_chars: int = Field(default=8_000, ge=500)

    # The model endpoint.
    # After request_timeout seconds without an answer the server is probed: one that still responds
    # is waited for (a slow local model), up to request_deadline for the whole call, retries included.
    request_timeout: float = Field(default=120.0, gt=0, description="seconds before probing a silent server")
    request_deadline: float = Field(
        default=900.0, gt=0, description="seconds for one model call, all included"
    )
    max_retries: int = Field(default=6, ge=0)
    temperature: float | None = None
    # The cap sent with every request (max_tokens): a rambling model stops there, and is told so.
    max_output_tokens: int = Field(default=4096, ge=64, description="tokens of one reply at most")
    prices: dict[str, Price] = Field(default_factory=dict)

    # The File micro agent.
    file_model: str | None = None
    file_max_steps: int = Field(default=10, ge=1)

    # Concurrency: the calls of one reply that can run together do, this many at a time at most
    # (searches, visits, file operations on different files, research tasks).
    parallel: int = Field(default=4, ge=1, le=32, description="actions of one reply run at once")
    # The Research micro agent (research_task): its step limit for depth "quick", "standard", "deep".
    research_steps: dict[str, int] = Field(default_factory=lambda: {"quick": 6, "standard": 12, "deep": 24})

    # Web research (used by the web actions).
    search: str = "duckduckgo"
    corpus: Path | None = None
    allow_private_urls: bool = False
    # No request leaves the machine except to the model endpoint: local search only, no page
    # fetches, no browser (confidential documents with a local model).
    offline: bool = False
    # MCP servers whose tools become actions (actions/mcp): the {"mcpServers": {...}} JSON file that
    # Claude Desktop, Cursor and VS Code use.
    mcp_config: Path | None = None

    # Steering (docs/steering.md): `clarify` offers the main agent `ask_user` before the plan;
    # `review_plan` pauses the run once its first plan is written. A paused run waits for a person
    # (status awaiting_answers / awaiting_review) and goes on with `resume`.
    clarify: bool = False
    review_plan: bool = False

    prompts: Path | None = None
    quiet: bool = False
    # The language of the notes, dashboards and report, and of the report's code-written parts
    # (agent_runtime/language.py): a code ("zh", "en") or a name; None ("auto") means the language of
    # the title and purpose, decided when the run starts and then stored with the run.
    language: str | None = None
    # The citation audit: "lexical" (code only) or "model" (the run's model also judges every cited
    # pair, ten claims of one source a call, counted in the budgets; agent_runtime/domain/citecheck).
    verify_citations: Literal["lexical", "model"] = "model"

    # Web research limits (actions/web): search providers are listed in `search`, comma-separated,
    # in fallback order ("tavily,duckduckgo"); keys come from the environment.
    search_retries: int = Field(default=2, ge=0, le=10, description="retries per provider on 429/5xx")
    snippet_chars: int = Field(default=300, ge=50, le=2_000)
    observation_tokens: int = Field(default=2_000, ge=300, description="bound of a visit_url observation")
    fetch_timeout: float = Field(default=30.0, gt=0, description="seconds for one page, redirects included")
    fetch_max_bytes: int = Field(default=10 * 1024 * 1024, ge=1024, description="bytes kept of one response")
    fetch_concurrency: int = Field(default=10, ge=1, le=64, description="pages fetched at once")
    fetch_per_host: int = Field(default=4, ge=1, le=16, description="pages fetched at once from one host")

    # The browser (actions/browser; needs the [browser] extra and Chromium): visit_url's JavaScript
    # rendering and the Browser micro agent (`browse`).
    browser_path: Path | None = Field(default=None, description="Chromium executable; default: found on PATH")
    browser_steps: int = Field(default=15, ge=1, le=100, description="steps of one browse task")
    browser_timeout: float = Field(default=30.0, gt=0, description="seconds for one page load in the browser")
    browser_vision: bool = False  # screenshots to the browse model (only for vision models)

    @field_validator("language")
    @classmethod
    def _language_code(cls, value: str | None) -> str | None:
        return lang.normalize(value)

    def reply_cap(self) -> int:
        """The output cap sent with each request: the setting, but at most a quarter of the window
        (an 8k local model with a 4k cap would leave too little room for the prompt)."""
        return min(self.max_output_tokens, max(256, self.context_window // 4))

    def compact(self) -> bool:
        """The compact profile: for a window of COMPACT_WINDOW tokens or less, a shorter system
        prompt, brief tool descriptions and only the actions a small model uses well, so that the
        fixed prefix of every request stays near 2,000 tokens."""
        return self.context_window <= COMPACT_WINDOW

    def price(self) -> Price | None:
        return self.prices.get(self.model)

    def require_prices_for_cost_budget(self) -> None:
        """A cost budget counts dollars from the model's prices: without them it could never stop
        the run, so it is refused before the run starts."""
        if self.max_cost is not None and self.price() is None:
            raise SettingValueError(
                f"--max-cost {self.max_cost:g} needs the prices of the model {self.model!r}, which are not "
                "known: set DEEP_RESEARCHER_PRICE_INPUT and DEEP_RESEARCHER_PRICE_OUTPUT (US dollars per "
                f'million tokens), or [prices."{self.model}"] in the config file'
            )

    def stored(self) -> dict[str, Any]:
        """What run.json keeps, so `resume` runs with the same settings (no secrets)."""
        return self.model_dump(mode="json", exclude=_NOT_STORED)


# Where each variable read from a .env file came from ("DEEP_RESEARCHER_MAX_STEPS": (".env line 3",
# "abc")), to name the line when its value is wrong.
_dotenv_origins: dict[str, tuple[str, str]] = {}


def load_dotenv_file(folder: Path | None = None, environ: MutableMapping[str, str] | None = None) -> None:
    """Read FOLDER/.env (the working folder by default) into the environment, below it: a variable
    the environment already has keeps its value (and flags win over both, as over any variable).

    python-dotenv reads it: the usual syntax (comments, quotes, `export`, `${VAR}`). A line that is
    not NAME=value is named in a warning, never shown (it may hold a key)."""
    import io
    import logging
    import sys

    environ = os.environ if environ is None else environ
    path = (folder or Path.cwd()) / ".env"
    if not path.is_file():  # none, or a folder (`python -m venv .env` is a common name for one)
        return
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    from dotenv import dotenv_values
    from dotenv.parser import parse_stream

    logging.getLogger("dotenv.main").setLevel(logging.ERROR)  # its own warning shows the bad line's text
    shown = ".env" if folder is None else str(path)
    lines: dict[str, int] = {}
    for binding in parse_stream(io.StringIO(text)):
        raw = binding.original.string
        line = binding.original.line + raw[: len(raw) - len(raw.lstrip())].count("\n")  # blank lines before it
        if binding.error:
            print(f"deep-researcher: warning: {shown} line {line} is not NAME=value and is ignored", file=sys.stderr)
        elif binding.key is not None:
            lines[binding.key] = line
    for name, value in dotenv_values(stream=io.StringIO(text), interpolate=True).items():
        if value is None or name in environ:
            continue
        environ[name] = value
        _dotenv_origins[name] = (f"{shown} line {lines.get(name, 0)}", value)


def _env_origin(setting: str, env: Mapping[str, str]) -> str:
    """How a value from the environment is named in an error: the variable, and the .env line."""
    variable = env_name(setting)
    origin = _dotenv_origins.get(variable)
    if origin is not None and env.get(variable) == origin[1]:
        return f"{variable} in {origin[0]}"
    return variable


def env_name(setting: str) -> str:
    return _ENV_NAMES.get(setting, "DEEP_RESEARCHER_" + setting.upper())


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in Settings.model_fields:
        raw = env.get(env_name(name))
        if raw is not None and raw.strip() != "" and name != "prices":
            values[name] = raw.strip()
    price_in, price_out = env.get("DEEP_RESEARCHER_PRICE_INPUT"), env.get("DEEP_RESEARCHER_PRICE_OUTPUT")
    if price_in or price_out:
        values["_price"] = {"input": price_in or 0, "output": price_out or 0}
    return values


def _from_file(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from None
    unknown = sorted(set(data) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(f"unknown setting(s) in {path}: {', '.join(unknown)}")
    return data


def config_file_path(explicit: str | Path | None, env: Mapping[str, str]) -> Path | None:
    if explicit:
        return Path(explicit).expanduser()
    if env.get("DEEP_RESEARCHER_CONFIG"):
        return Path(env["DEEP_RESEARCHER_CONFIG"]).expanduser()
    default = DEFAULT_CONFIG_FILE.expanduser()
    return default if default.is_file() else None


def load_settings(
    flags: Mapping[str, Any] | None = None,
    *,
    stored: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    config_file: str | Path | None = None,
) -> Settings:
    """Layer the sources, lowest first: defaults, config file, a resumed run's stored settings,
    environment, flags. `flags` holds only the flags the user actually gave (None = not given)."""
    env = os.environ if env is None else env
    merged: dict[str, Any] = {}
    origin: dict[str, str] = {}  # where each value came from, to name it when it is wrong

    def layer(values: Mapping[str, Any], where: Any) -> None:
        for name, value in values.items():
            merged[name] = value
            origin[name] = where(name)

    path = config_file_path(config_file, env)
    if path is not None:
        layer(_from_file(path), lambda name: f"{name} in {path}")
    if stored:
        layer({k: v for k, v in stored.items() if k in Settings.model_fields}, lambda name: f"{name} in the run's stored settings")
    from_env = _from_env(env)
    env_price = from_env.pop("_price", None)
    layer(from_env, lambda name: _env_origin(name, env))
    layer({k: v for k, v in (flags or {}).items() if v is not None}, lambda name: "--" + name.replace("_", "-"))
    warn_unknown_variables(env)
    merged = {k: _absolute(k, v) for k, v in merged.items()}
    try:
        settings = Settings(**merged)
        if env_price is not None:
            settings.prices = {**settings.prices, settings.model: Price(**env_price)}
    except ValidationError as exc:
        problems = "; ".join(_named(err, merged, origin) for err in exc.errors())
        raise SettingValueError(problems) from None
    if settings.hard_limit <= settings.soft_limit:
        raise ConfigError("hard_limit must be larger than soft_limit")
    if settings.base_url and re.search(r"://(?:[^/@\s]*:)?\*\*\*@", settings.base_url):
        raise ConfigError(
            f"the endpoint {settings.base_url} had credentials in its address, which are never stored: "
            "give --base-url (or OPENAI_BASE_URL) again with them"
        )
    _register_secrets(settings, env)
    return settings


_PATHS = ("corpus", "prompts", "workspace", "config", "browser_path", "mcp_config")


def _absolute(name: str, value: Any) -> Any:
    """A relative path setting, resolved against the folder it was given in: stored absolute, so a
    resume from another folder means the same folder."""
    if name in _PATHS and isinstance(value, str | Path) and str(value).strip():
        try:
            path = Path(value).expanduser()
        except RuntimeError:  # ~nosuchuser/…
            raise SettingValueError(f"--{name.replace('_', '-')}={str(value)!r}: no such user's home folder") from None
        if name == "browser_path" and not path.is_absolute() and "/" not in str(value):
            return value  # a command name looked up on PATH ("chromium"), not a path
        return str(path if path.is_absolute() else Path.cwd() / path)
    return value


def _named(error: Any, merged: Mapping[str, Any], origin: Mapping[str, str]) -> str:
    """One invalid value, said as a flag's error is: where it was given, the value, what it takes."""
    loc = [str(part) for part in error.get("loc", ())]
    name = loc[0] if loc else "?"
    where = origin.get(name, name)
    value = merged.get(name, error.get("input"))
    shown = repr(value) if not isinstance(value, dict) else "…"
    return f"{where}={shown}: {_expected(error)}"


def _expected(error: Any) -> str:
    kind, ctx = error.get("type", ""), error.get("ctx") or {}
    if kind.startswith("int_"):
        return "expected a whole number"
    if kind.startswith("float_"):
        return "expected a number"
    if kind.startswith("bool_"):
        return "expected true or false"
    if kind == "literal_error":
        return f"expected one of {ctx.get('expected', '')}"
    for bound, words in (("ge", "at least"), ("gt", "more than"), ("le", "at most"), ("lt", "less than")):
        if bound in ctx:
            return f"expected a value {words} {ctx[bound]}"
    if kind == "extra_forbidden":
        return "not a setting"
    return str(error.get("msg", "invalid")).rstrip(".").lower()


_OTHER_VARIABLES = {
    "DEEP_RESEARCHER_CONFIG", "DEEP_RESEARCHER_PRICE_INPUT", "DEEP_RESEARCHER_PRICE_OUTPUT",
    "DEEP_RESEARCHER_TRACE_ATTRIBUTES",  # a batch's id on its runs' traces (app/tracing.py)
}  # fmt: skip
_OTHER_VARIABLES |= {"DEEP_RESEARCHER_SERVE_KEY", "DEEP_RESEARCHER_SERVE_KEEP_ALIVE"}  # read by `serve` (app/serve/)
_warned: set[str] = set()


def warn_unknown_variables(env: Mapping[str, str]) -> None:
    """A DEEP_RESEARCHER_* variable no setting reads is a typo more often than not: say so once,
    with the nearest known name."""
    import difflib
    import sys

    known = {env_name(name) for name in Settings.model_fields} | _OTHER_VARIABLES
    for variable in sorted(v for v in env if v.startswith("DEEP_RESEARCHER_") and v not in known):
        if variable in _warned:
            continue
        _warned.add(variable)
        prefix = "DEEP_RESEARCHER_"  # shared by all: compare what follows it
        names = sorted(k[len(prefix) :] for k in known if k.startswith(prefix))
        near = difflib.get_close_matches(variable[len(prefix) :], names, n=1, cutoff=0.75)
        hint = f"; did you mean {prefix}{near[0]}?" if near else ""
        print(f"deep-researcher: warning: {variable} is not a setting and is ignored{hint}", file=sys.stderr)


def _register_secrets(settings: Settings, env: Mapping[str, str]) -> None:
    """The values that must never be written or printed: the API key, the providers' keys, and any
    variable or setting named like a key, token, secret or password."""
    from sandbox.redaction import SECRET_NAME, register_secrets

    named = [*env.items(), *((k, v) for k, v in settings.model_dump().items() if isinstance(v, str))]
    values = [settings.api_key] + [v for k, v in named if SECRET_NAME.search(k) and not v.isdigit()]
    register_secrets(values)
