"""Prompts are Jinja2 templates (StrictUndefined: a missing variable is an error, not a blank)
shipped in the `prompts` package; a folder of templates with the same names overrides them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PackageLoader, StrictUndefined, TemplateError

from agent_runtime.errors import ConfigError


class Prompts:
    def __init__(self, override_dir: Path | None = None) -> None:
        loaders: list[Any] = []
        if override_dir is not None:
            if not Path(override_dir).is_dir():
                raise ConfigError(f"--prompts {override_dir}: not a folder")
            loaders.append(FileSystemLoader(str(override_dir)))
        loaders.append(PackageLoader("prompts", ""))
        self.env = Environment(
            loader=ChoiceLoader(loaders),
            undefined=StrictUndefined,
            keep_trailing_newline=False,
            trim_blocks=True,
            lstrip_blocks=True,
            autoescape=False,
        )

    def render(self, name: str, **variables: Any) -> str:
        try:
            return self.env.get_template(name).render(**variables).strip()
        except TemplateError as exc:
            raise ConfigError(f"prompt template {name}: {exc}") from None
