"""config.json: a broken file is never overwritten, only reported; values are checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anamnesis.cli.config_file import check_machine_id
from anamnesis.cli.errors import CliError
from anamnesis.store import NoteLimits, default_machine_id
from cli_testing import Env, claude_calls

# A config cut short by a crash or a bad hand edit: the remote in it must survive.
BROKEN = '{"machine_id": "vm", "remote": "git@example.com:me/memory.git",'


@pytest.fixture
def broken(env: Env) -> Path:
    env.home.mkdir(parents=True, exist_ok=True)
    path = env.home / "config.json"
    path.write_text(BROKEN)
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["init", "--yes"],
        ["init", "--yes", "--local-only"],
        ["init", "--yes", "--remote", "/srv/memory.git"],
        ["init", "--print"],
        ["config", "set", "machine_id", "desk"],
        ["config", "set", "remote", "/srv/memory.git"],
        ["config", "unset", "remote"],
    ],
)
def test_commands_that_write_the_config_refuse_a_broken_one(
    env: Env, broken: Path, args: list[str]
) -> None:
    log = env.fake_claude()
    result = env.run(*args)
    assert result.code == 1, result.out
    assert len(result.err_lines) == 1, result.err
    line = result.err_lines[0]
    assert line.startswith(f"anamnesis {' '.join(args[:2]) if args[0] == 'config' else 'init'}:")
    assert str(broken) in line and "not valid JSON" in line
    assert "fix it by hand, or move it aside and run `anamnesis init`" in line
    assert broken.read_text() == BROKEN  # the remote is still in there
    assert not env.settings.exists()  # init stopped before any side effect
    assert claude_calls(log) == []


def test_reading_commands_warn_once_and_go_on(env: Env, broken: Path) -> None:
    assert env.run("write", "--title", "t", "body").code == 0
    listed = env.run("config", "list")
    assert listed.code == 0 and listed.out == ""
    assert len(listed.err_lines) == 1
    assert str(broken) in listed.err and "settings (machine_id, remote) are ignored" in listed.err
    got = env.run("config", "get", "remote", "--json")
    assert got.code == 0 and got.json()["value"] is None and got.json()["source"] == "default"
    assert len(got.err_lines) == 1 and "are ignored" in got.err_lines[0]
    status = env.run("status", "--json")
    assert status.code == 0 and status.json()["sync"]["remote"] is None
    assert len(status.err_lines) == 1 and str(broken) in status.err
    human = env.run("status")
    assert "remote:   (none" in human.out and str(broken) in human.err
    doctor = {c["name"]: c for c in env.run("doctor", "--offline", "--json").json()["checks"]}
    assert doctor["config"]["status"] == "fail"
    assert "not valid JSON" in doctor["config"]["detail"]
    assert broken.read_text() == BROKEN


@pytest.mark.parametrize(
    ("content", "problem"),
    [("[1, 2]", "is not a JSON object"), (b"\xff\xfe{}", "is not UTF-8 text")],
)
def test_other_kinds_of_broken_config_are_refused_too(
    env: Env, content: str | bytes, problem: str
) -> None:
    env.home.mkdir(parents=True, exist_ok=True)
    path = env.home / "config.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    before = path.read_bytes()
    result = env.run("config", "set", "machine_id", "desk")
    assert result.code == 1 and problem in result.err and len(result.err_lines) == 1
    assert path.read_bytes() == before


def test_an_empty_config_object_is_healthy(env: Env) -> None:
    assert env.run("write", "--title", "t", "body").code == 0
    (env.home / "config.json").write_text("{}")
    (env.home / "config.json").chmod(0o600)
    checks = {c["name"]: c for c in env.run("doctor", "--offline", "--json").json()["checks"]}
    assert checks["config"]["status"] == "ok", checks["config"]
    listed = env.run("config", "list", "--json")
    assert listed.code == 0 and listed.json() == {} and listed.err == ""


def test_config_get_json(env: Env) -> None:
    assert env.run("config", "set", "remote", "https://me:pw@example.com/m.git").code == 0
    got = env.run("config", "get", "remote", "--json")
    assert got.code == 0 and got.json() == {
        "key": "remote",
        "value": "https://me:pw@example.com/m.git",
        "source": "config.json",
        "variable": None,
        "config_value": "https://me:pw@example.com/m.git",
        "default": "none: notes stay on this machine",
        "problem": None,
    }
    missing = env.run("config", "get", "embed_model", "--json")
    assert missing.code == 0 and missing.err == ""
    assert missing.json()["value"] is None and missing.json()["source"] == "default"


BAD_MACHINE_IDS = ["two\nlines", "tab\there", "a/b", "back\\slash", "x" * 129, "esc\x1b[31m"]


@pytest.mark.parametrize("bad", BAD_MACHINE_IDS)
def test_a_bad_machine_id_is_refused_before_anything_is_written(bare: Env, bad: str) -> None:
    flag = bare.run("init", "--yes", "--local-only", "--machine-id", bad)
    assert flag.code == 2, flag.err
    assert len(flag.err_lines) == 1 and "anamnesis init: --machine-id " in flag.err
    assert not bare.home.exists() and not bare.settings.exists()
    setting = bare.run("config", "set", "machine_id", bad)
    assert setting.code == 2 and len(setting.err_lines) == 1
    assert setting.err.startswith("anamnesis config set: machine_id ")
    assert not (bare.home / "config.json").exists()
    bare.variables["ANAMNESIS_MACHINE_ID"] = bad
    from_env = bare.run("init", "--yes", "--local-only")
    assert from_env.code == 1 and "ANAMNESIS_MACHINE_ID" in from_env.err
    assert len(from_env.err_lines) == 1
    assert not bare.home.exists()


def test_a_good_machine_id_is_stored_trimmed(env: Env) -> None:
    assert env.run("config", "set", "machine_id", "  build-01  ").code == 0
    assert json.loads((env.home / "config.json").read_text()) == {"machine_id": "build-01"}
    assert env.run("init", "--yes", "--local-only", "--machine-id", "Alice's laptop").code == 0
    assert json.loads((env.home / "config.json").read_text())["machine_id"] == "Alice's laptop"


def acceptable(value: str) -> bool:
    text = value.strip()
    return (
        0 < len(text) <= NoteLimits.MACHINE_ID_CHARS
        and text.isprintable()
        and "/" not in text
        and "\\" not in text
    )


@given(st.text(max_size=80))
def test_check_machine_id_accepts_only_short_printable_names(value: str) -> None:
    if not acceptable(value):
        with pytest.raises(CliError) as refused:
            check_machine_id(value)
        assert refused.value.code == 2 and "\n" not in refused.value.message
        return
    checked = check_machine_id(value)
    assert checked == value.strip()


def test_the_default_machine_id_is_valid() -> None:
    assert check_machine_id(default_machine_id()) == default_machine_id()


def test_embed_model_path_must_hold_a_model_and_is_stored_absolute(
    env: Env, tmp_path: Path
) -> None:
    missing = env.run("config", "set", "embed_model_path", str(tmp_path / "nowhere"))
    assert missing.code == 2 and len(missing.err_lines) == 1
    assert "is not an existing folder" in missing.err
    empty = tmp_path / "models" / "empty"
    empty.mkdir(parents=True)
    no_model = env.run("config", "set", "embed_model_path", str(empty))
    assert no_model.code == 2 and "holds no .onnx model file" in no_model.err
    assert not (env.home / "config.json").exists()  # nothing written on a refusal
    model = tmp_path / "models" / "minilm"
    model.mkdir()
    (model / "model.onnx").write_bytes(b"weights")
    relative = env.run("config", "set", "embed_model_path", "minilm", cwd=tmp_path / "models")
    assert relative.code == 0, relative.err
    assert env.run("config", "get", "embed_model_path", "--json").json()["config_value"] == str(
        model
    )


def test_search_mode_is_one_of_the_modes(env: Env) -> None:
    bad = env.run("config", "set", "search_mode", "fast")
    assert bad.code == 2 and bad.err_lines == [
        "anamnesis config set: search_mode must be one of keyword, vector, hybrid, got 'fast'"
    ]
    assert env.run("config", "set", "search_mode", " hybrid ").code == 0
    assert json.loads((env.home / "config.json").read_text()) == {"search_mode": "hybrid"}


def test_keyword_ranking_switches_search_to_the_spec_and_back(env: Env) -> None:
    assert env.run("write", "--title", "Rotate the deploy keys", "vault, every 90 days").code == 0
    assert env.run("write", "--title", "Lunch", "what is there to eat").code == 0
    query = ["search", "how do I rotate what is in the keys", "--mode", "keyword", "--json"]
    assert [hit["title"] for hit in env.run(*query).json()] == ["Rotate the deploy keys"]
    bad = env.run("config", "set", "keyword_ranking", "bm42")
    assert bad.code == 2 and bad.err_lines == [
        "anamnesis config set: keyword_ranking must be one of content, spec, got 'bm42'"
    ]
    assert env.run("config", "set", "keyword_ranking", "spec").code == 0
    assert len(env.run(*query).json()) == 2  # every word counts: "what", "is" find Lunch


def test_doctor_warns_of_a_hand_edited_setting_the_store_ignores(env: Env) -> None:
    assert env.run("write", "--title", "t", "body").code == 0
    path = env.home / "config.json"
    path.write_text(json.dumps({"search_mode": "semantic"}))
    path.chmod(0o600)
    checks = {c["name"]: c for c in env.run("doctor", "--offline", "--json").json()["checks"]}
    config = checks["config"]
    assert config["status"] == "warn"
    assert f"search_mode in {path} must be one of keyword, vector, hybrid" in config["detail"]
    assert "anamnesis config unset search_mode" in config["fix"]
