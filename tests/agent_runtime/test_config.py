import re
from pathlib import Path

import pytest

from agent_runtime.config import load_settings
from agent_runtime.errors import ConfigError, SettingValueError


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_flags_over_env_over_file_over_defaults(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", 'model = "from-file"\nmax_steps = 7\ncontext_window = 9000\n')
    env = {"DEEP_RESEARCHER_MODEL": "from-env", "DEEP_RESEARCHER_MAX_STEPS": "8", "OPENAI_API_KEY": "k"}
    settings = load_settings({"model": "from-flag"}, env=env, config_file=config)
    assert settings.model == "from-flag"
    assert settings.max_steps == 8
    assert settings.context_window == 9000
    assert settings.api_key == "k"
    assert settings.soft_limit == 0.6  # default


def test_stored_settings_of_a_resumed_run_sit_under_env_and_flags(tmp_path: Path) -> None:
    stored = {"model": "stored", "max_steps": 5}
    assert load_settings({}, stored=stored, env={}).max_steps == 5
    assert load_settings({"max_steps": 50}, stored=stored, env={}).max_steps == 50
    assert load_settings({}, stored=stored, env={"DEEP_RESEARCHER_MODEL": "env"}).model == "env"


def test_prices_from_file_and_env(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", 'model = "m"\n[prices.m]\ninput = 2.0\noutput = 8.0\n')
    assert load_settings({}, env={}, config_file=config).price() is not None
    env = {"DEEP_RESEARCHER_PRICE_INPUT": "1", "DEEP_RESEARCHER_PRICE_OUTPUT": "3"}
    price = load_settings({"model": "x"}, env=env).price()
    assert price is not None and (price.input, price.output) == (1.0, 3.0)


def test_api_key_is_never_stored() -> None:
    settings = load_settings({"api_key": "secret"}, env={})
    assert "secret" not in str(settings.stored())


@pytest.mark.parametrize(
    ("flags", "env", "message"),
    [
        ({"max_steps": 0}, {}, "--max-steps=0: expected a value at least 1"),
        ({}, {"DEEP_RESEARCHER_CONTEXT_WINDOW": "lots"}, "DEEP_RESEARCHER_CONTEXT_WINDOW='lots': expected a whole number"),
        ({}, {"DEEP_RESEARCHER_MAX_STEPS": "abc"}, "DEEP_RESEARCHER_MAX_STEPS='abc': expected a whole number"),
        ({"tool_mode": "xml"}, {}, "--tool-mode='xml': expected one of 'auto', 'native' or 'json'"),
    ],
)
def test_invalid_settings_name_where_they_were_given(
    flags: dict[str, object], env: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingValueError) as caught:
        load_settings(flags, env=env)
    assert str(caught.value) == message


def test_a_bad_value_in_the_config_file_names_the_file_and_the_key(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", "max_steps = 'many'\n")
    with pytest.raises(SettingValueError, match=rf"^max_steps in {re.escape(str(config))}='many': expected a whole number$"):
        load_settings({}, env={}, config_file=config)


def test_an_unknown_variable_is_named_with_the_nearest_known_one(capsys: pytest.CaptureFixture[str]) -> None:
    load_settings({}, env={"DEEP_RESEARCHER_MAX_STEP": "5", "DEEP_RESEARCHER_ZZZZ_QQQ": "1"})
    err = capsys.readouterr().err
    assert "DEEP_RESEARCHER_MAX_STEP is not a setting and is ignored; did you mean DEEP_RESEARCHER_MAX_STEPS?" in err
    assert "DEEP_RESEARCHER_ZZZZ_QQQ is not a setting and is ignored\n" in err


def test_relative_paths_are_stored_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings({"corpus": Path("corpus"), "prompts": "my prompts"}, env={})
    assert settings.corpus == tmp_path / "corpus" and settings.prompts == tmp_path / "my prompts"
    assert settings.stored()["corpus"] == str(tmp_path / "corpus")
    assert load_settings({"browser_path": "chromium"}, env={}).browser_path == Path("chromium")  # a command


def test_bad_config_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_settings({}, env={}, config_file=tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings({}, env={}, config_file=write(tmp_path / "bad.toml", "model = \n"))
    with pytest.raises(ConfigError, match="unknown setting"):
        load_settings({}, env={}, config_file=write(tmp_path / "u.toml", "modle = 'x'\n"))
