"""`anamnesis config` in words: a typo gets a guess instead of every setting, `get` says
where the value in force comes from, `set` and `unset` say what they changed. Real
processes of the console script."""

from __future__ import annotations

from anamnesis.cli.config_file import config_keys
from cli_testing import Env


def test_a_typo_gets_a_guess_and_where_the_settings_are_listed(env: Env) -> None:
    typo = env.run_process("config", "set", "llm.provdier", "x")
    assert typo.code == 2 and typo.out == ""
    assert typo.err_lines == [
        "anamnesis config set: unknown setting llm.provdier; did you mean llm.provider? "
        "(`anamnesis config list --all` shows every setting)"
    ]
    both = env.run_process("config", "get", "prompt_recall")
    assert both.code == 2
    assert "did you mean prompt_recall.budget or prompt_recall.enabled?" in both.err
    nothing_close = env.run_process("config", "unset", "colour")
    assert nothing_close.code == 2 and "did you mean" not in nothing_close.err
    assert len(nothing_close.err) < 200  # one short line, never the list of every setting
    assert not (env.home / "config.json").exists()


def test_get_says_where_the_value_in_force_comes_from(env: Env) -> None:
    default = env.run_process("config", "get", "llm.provider")
    assert default.code == 0 and default.out == ""
    assert default.err_lines == [
        "anamnesis: llm.provider: not set: the default applies (heuristic)"
    ]
    assert env.run_process("config", "set", "llm.provider", "openai").code == 0
    stored = env.run_process("config", "get", "llm.provider")
    assert (stored.code, stored.out) == (0, "openai\n")
    assert stored.err_lines == ["anamnesis: llm.provider: from config.json"]
    env.variables["ANAMNESIS_LLM_PROVIDER"] = "anthropic"
    overridden = env.run_process("config", "get", "llm.provider", "--json")
    assert overridden.code == 0
    assert overridden.json() == {
        "key": "llm.provider",
        "value": "anthropic",
        "source": "environment",
        "variable": "ANAMNESIS_LLM_PROVIDER",
        "config_value": "openai",
        "default": "heuristic",
        "problem": None,
    }
    said = env.run_process("config", "get", "llm.provider")
    assert said.out == "anthropic\n"
    assert "from ANAMNESIS_LLM_PROVIDER, over config.json's openai" in said.err


def test_a_value_that_is_ignored_is_said_to_be(env: Env) -> None:
    env.home.mkdir(parents=True, exist_ok=True)
    (env.home / "config.json").write_text('{"keyword_ranking": "bm42"}')
    got = env.run_process("config", "get", "keyword_ranking")
    assert got.code == 0 and got.out == "bm42\n"
    assert "from config.json; ignored: the default applies" in got.err
    assert "must be one of content, spec" in got.err


def test_a_variable_holding_a_key_is_named_never_shown(env: Env) -> None:
    env.variables["ANAMNESIS_LLM_API_KEY"] = "sk-proj-do-not-print-me"
    got = env.run_process("config", "get", "llm.api_key_env")
    assert got.code == 0 and got.out == "ANAMNESIS_LLM_API_KEY\n"
    every = env.run_process("config", "list", "--all")
    assert "sk-proj" not in got.out + got.err + every.out + every.err
    assert "llm.api_key_env = ANAMNESIS_LLM_API_KEY (from ANAMNESIS_LLM_API_KEY)" in every.out


def test_set_and_unset_say_what_they_changed(env: Env) -> None:
    first = env.run_process("config", "set", "llm.provider", "openai")
    assert first.code == 0 and first.err == ""
    assert first.out == "llm.provider = openai (was: not set, default heuristic)\n"
    second = env.run_process("config", "set", "llm.provider", " anthropic ")
    assert second.out == "llm.provider = anthropic (was: openai)\n"
    again = env.run_process("config", "set", "llm.provider", "anthropic")
    assert again.out == "llm.provider = anthropic (unchanged)\n"
    env.variables["ANAMNESIS_LLM_PROVIDER"] = "claude-code"
    shadowed = env.run_process("config", "set", "llm.provider", "openai")
    assert shadowed.code == 0
    assert "ANAMNESIS_LLM_PROVIDER is set in this environment and overrides" in shadowed.err
    del env.variables["ANAMNESIS_LLM_PROVIDER"]
    unset = env.run_process("config", "unset", "llm.provider")
    assert unset.out == ("llm.provider unset (was: openai); the default applies: heuristic\n")
    twice = env.run_process("config", "unset", "llm.provider")
    assert twice.out == "llm.provider was not set; the default applies: heuristic\n"


def test_list_all_names_every_setting_with_its_value_and_help(env: Env) -> None:
    done = env.run_process("config", "set", "remote", "https://me:hunter2@example.com/m.git")
    assert done.code == 0 and "hunter2" not in done.out  # said as `config list` shows it
    assert done.out.startswith("remote = https://me:***@example.com/m.git (was: not set")
    listed = env.run_process("config", "list", "--all")
    assert listed.code == 0 and "hunter2" not in listed.out
    lines = listed.out.splitlines()
    for key, declared in config_keys().items():
        assert any(line.startswith((f"{key} = ", f"{key}: ")) for line in lines), key
        assert f"    {declared.help}" in lines, key
    assert "remote = https://me:***@example.com/m.git (from config.json)" in lines
    as_json = env.run_process("config", "list", "--all", "--json").json()
    assert [item["key"] for item in as_json] == list(config_keys())
    assert len(env.run_process("config", "list").out.splitlines()) == 1  # the file's alone
