"""`anamnesis init`: hooks merged into a user's real settings, MCP registration, uninstall."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest

from anamnesis.cli.agent_config.hooks_settings import hook_entries, is_our_command, read_command
from cli_testing import Env, anamnesis_script, bare_remote, claude_calls

# A user's settings with hooks of their own, including look-alikes that mention us.
FOREIGN: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]},
            {
                "matcher": "startup|resume",
                "hooks": [
                    {"type": "command", "command": "echo 'anamnesis inject --format json'"},
                    {"type": "command", "command": "ANAMNESIS_HOME=/x my-own-tool inject"},
                ],
            },
        ],
        "PostToolUse": [
            {"matcher": "Edit", "hooks": [{"type": "command", "command": "ruff format"}]}
        ],
        "SessionEnd": [
            {"hooks": [{"type": "command", "command": "/opt/anamnesis-backup/anamnesis.sh"}]}
        ],
    },
}


def ours(settings: dict[str, Any]) -> list[tuple[str, str | None, dict[str, Any]]]:
    found = []
    for event, groups in settings.get("hooks", {}).items():
        for group in groups:
            for entry in group["hooks"]:
                if is_our_command(entry["command"]):
                    found.append((event, group.get("matcher"), entry))
    return found


def foreign(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings with our hooks taken out (groups we emptied dropped)."""
    out: dict[str, Any] = json.loads(json.dumps(settings))
    for event in list(out.get("hooks", {})):
        groups = []
        for group in out["hooks"][event]:
            kept = [e for e in group["hooks"] if not is_our_command(e["command"])]
            if kept:
                groups.append({**group, "hooks": kept})
        out["hooks"][event] = groups
        if not groups:
            del out["hooks"][event]
    return out


def backups(env: Env) -> list[Path]:
    return sorted(env.claude.glob("settings.json.anamnesis-backup-*"))


def test_init_merges_hooks_and_keeps_every_foreign_setting(env: Env) -> None:
    env.claude.mkdir(parents=True)
    env.settings.write_text(json.dumps(FOREIGN, indent=4))
    log = env.fake_claude()
    result = env.run("init", "--yes", "--local-only")
    assert result.code == 0, result.err
    settings = json.loads(env.settings.read_text())
    assert foreign(settings) == FOREIGN  # every foreign hook and setting, same meaning
    installed = ours(settings)
    assert [(event, matcher) for event, matcher, _ in installed] == [
        ("SessionStart", "startup|resume|clear|compact"),
        ("SessionStart", "startup|resume"),
        ("SessionEnd", None),  # the user's settings had this event: ours joins it
        ("UserPromptSubmit", None),
        ("PreCompact", None),
    ]
    by_args = {tuple(shlex.split(e["command"])[1:]): e for _, _, e in installed}
    script = str(Path(anamnesis_script()[0]))
    # The async sync is work no session waits on: it starts below the others (nice).
    assert set(by_args) == {
        (*(("nice", "-n", "10") if spec.background else ()), script, *spec.args)
        for spec in hook_entries()
    }
    sync_hook = by_args[("nice", "-n", "10", script, "sync", "--quiet")]
    assert sync_hook["async"] is True
    assert all(0 < e["timeout"] <= 120 for _, _, e in installed)
    for _, _, entry in installed:  # absolute program, and the store it must use
        read = read_command(entry["command"])
        assert read is not None and read.env == {"ANAMNESIS_HOME": str(env.home)}
        assert Path(read.program).is_absolute() and Path(read.program).exists()
    assert json.loads(backups(env)[0].read_text()) == FOREIGN
    config = json.loads((env.home / "config.json").read_text())
    assert config == {"machine_id": "laptop"}  # ANAMNESIS_MACHINE_ID, made permanent
    assert oct((env.home / "config.json").stat().st_mode & 0o777) == "0o600"
    assert claude_calls(log)[-1] == [
        "mcp", "add", "--scope", "user", "--transport", "stdio", "anamnesis",
        "-e", f"ANAMNESIS_HOME={env.home}", "--", *anamnesis_script(), "serve",
    ]  # fmt: skip
    assert claude_calls(log)[0][:2] == ["mcp", "remove"]


def test_init_is_idempotent(env: Env) -> None:
    env.fake_claude()
    assert env.run("init", "--yes", "--local-only").code == 0
    first = env.settings.read_text()
    again = env.run("init", "--yes", "--local-only")
    assert again.code == 0
    assert env.settings.read_text() == first
    assert len(ours(json.loads(first))) == len(hook_entries()) == 5
    assert backups(env) == []  # there was no file to back up, and nothing changed since
    assert "hooks already installed" in again.out


def test_an_existing_registration_is_not_redone(env: Env) -> None:
    log = env.fake_claude()
    command = anamnesis_script()
    entry = {"type": "stdio", "command": command[0], "args": [*command[1:], "serve"],
             "env": {"ANAMNESIS_HOME": str(env.home)}}  # fmt: skip
    env.claude.mkdir(parents=True)
    (env.claude / ".claude.json").write_text(json.dumps({"mcpServers": {"anamnesis": entry}}))
    assert env.run("init", "--yes", "--local-only").code == 0
    assert claude_calls(log) == []


@pytest.mark.parametrize(
    "content",
    ["{not json", '["a list"]', '{"hooks": ["not", "an", "object"]}', '{"hooks": {"X": {}}}'],
)
def test_invalid_settings_stop_init_before_any_side_effect(bare: Env, content: str) -> None:
    bare.claude.mkdir(parents=True)
    bare.settings.write_text(content)
    log = bare.fake_claude()
    result = bare.run("init", "--yes", "--local-only")
    assert result.code == 1
    assert len(result.err_lines) == 1 and str(bare.settings) in result.err
    assert bare.settings.read_text() == content
    assert not bare.home.exists()  # no config, no store
    assert claude_calls(log) == []
    assert backups(bare) == []


def test_print_shows_the_plan_and_writes_nothing(bare: Env) -> None:
    log = bare.fake_claude()
    result = bare.run("init", "--print", "--remote", "git@example.com:me/memory.git")
    assert result.code == 0
    assert "nothing will be written" in result.out
    assert "git@example.com:me/memory.git" in result.out
    assert "inject --format json" in result.out and "claude mcp add" in result.out
    assert not bare.home.exists() and not bare.claude.exists()
    assert claude_calls(log) == []


def test_without_claude_on_path_the_command_is_printed(env: Env) -> None:
    result = env.run("init", "--yes", "--local-only")
    assert result.code == 0
    assert "`claude` is not on PATH" in result.out
    assert (
        f"claude mcp add --scope user --transport stdio anamnesis -e ANAMNESIS_HOME={env.home}"
        in result.out
    )


def test_a_failing_claude_is_reported(env: Env) -> None:
    env.fake_claude(fail=True)
    result = env.run("init", "--yes", "--local-only")
    assert result.code == 1
    assert "claude mcp add" in result.err and "failed" in result.err
    assert len(ours(json.loads(env.settings.read_text()))) == 5  # the rest was done


def test_a_new_remote_takes_effect_on_rerun(env: Env, tmp_path: Path) -> None:
    first = bare_remote(tmp_path / "first.git")
    second = bare_remote(tmp_path / "second.git")
    assert env.run("init", "--yes", "--local-only").code == 0
    assert env.run("write", "--title", "before any remote", "x").code == 0
    assert env.run("init", "--yes", "--remote", str(first)).code == 0
    assert json.loads((env.home / "config.json").read_text())["remote"] == str(first)
    moved = env.run("init", "--yes", "--remote", str(second))
    assert moved.code == 0, moved.err
    assert "pushed" in moved.out
    from dulwich.repo import Repo

    with Repo(str(second)) as repo:
        assert b"refs/heads/main" in repo.refs.as_dict()


def test_first_sync_failure_is_the_exit_status(env: Env, tmp_path: Path) -> None:
    result = env.run("init", "--yes", "--remote", str(tmp_path / "missing.git"))
    assert result.code == 1
    assert "first sync" in result.err and "missing.git" in result.err
    assert len(result.err_lines) == 1
    assert json.loads((env.home / "config.json").read_text())["remote"].endswith("missing.git")


def test_contradicting_flags_are_a_usage_error(env: Env) -> None:
    result = env.run("init", "--remote", "x", "--local-only", "--yes")
    assert result.code == 2 and "contradict" in result.err


def test_uninstall_removes_exactly_ours_and_keeps_the_notes(env: Env) -> None:
    env.claude.mkdir(parents=True)
    env.settings.write_text(json.dumps(FOREIGN))
    log = env.fake_claude()
    assert env.run("init", "--yes", "--local-only").code == 0
    assert env.run("write", "--title", "keep me", "body").code == 0
    result = env.run("init", "--uninstall", "--yes")
    assert result.code == 0, result.err
    assert json.loads(env.settings.read_text()) == FOREIGN
    assert claude_calls(log)[-1] == ["mcp", "remove", "--scope", "user", "anamnesis"]
    assert [n["title"] for n in env.run("list", "--json").json()] == ["keep me"]
    again = env.run("init", "--uninstall", "--yes")
    assert again.code == 0 and "no Anamnesis hooks" in again.out


# What `anamnesis init` of 0.2 (hooks 0.2) wrote: four hooks, no prompt-time recall.
def older_settings(env: Env) -> dict[str, Any]:
    program = shlex.quote(anamnesis_script()[0])
    home = f"ANAMNESIS_HOME={shlex.quote(str(env.home))}"

    def group(command: str, timeout: int, matcher: str | None = None) -> dict[str, Any]:
        entry = {"type": "command", "command": f"{home} {program} {command}", "timeout": timeout}
        return {**({"matcher": matcher} if matcher else {}), "hooks": [entry]}

    return {
        "theme": "dark",
        "hooks": {
            "SessionStart": [
                group("inject --format json", 15, "startup|resume|clear|compact"),
                group("sync --quiet", 120, "startup|resume"),
            ],
            "SessionEnd": [group("capture", 10)],
            "PreCompact": [group("capture --source precompact --no-sync", 60)],
        },
    }


def test_init_adds_the_prompt_hook_to_settings_an_older_init_wrote(env: Env) -> None:
    env.claude.mkdir(parents=True)
    env.settings.write_text(json.dumps(older_settings(env)))
    assert env.run("init", "--yes", "--local-only").code == 0  # makes the store
    env.settings.write_text(json.dumps(older_settings(env)))
    checks = {c["name"]: c for c in env.run("doctor", "--offline", "--json").json()["checks"]}
    assert checks["hooks"]["status"] == "fail"
    assert "4 of 5 Anamnesis hooks" in checks["hooks"]["detail"]
    assert "missing: UserPromptSubmit (prompt --format json)" in checks["hooks"]["detail"]
    assert checks["hooks"]["fix"] == "run `anamnesis init`"
    result = env.run("init", "--yes", "--local-only")
    assert result.code == 0, result.err
    settings = json.loads(env.settings.read_text())
    installed = ours(settings)
    assert len(installed) == 5
    [(_, matcher, entry)] = [hook for hook in installed if hook[0] == "UserPromptSubmit"]
    assert matcher is None and entry["timeout"] == 5 and "async" not in entry
    assert shlex.split(entry["command"])[1:] == [anamnesis_script()[0], "prompt", "--format",
                                                 "json"]  # fmt: skip
    assert settings["theme"] == "dark"
    checks = {c["name"]: c for c in env.run("doctor", "--offline", "--json").json()["checks"]}
    assert checks["hooks"]["status"] == "ok" and checks["hooks"]["detail"].startswith("5 hooks")
    assert env.run("init", "--uninstall", "--yes").code == 0
    assert json.loads(env.settings.read_text()) == {"theme": "dark"}


def test_uninstall_from_a_file_with_only_our_hooks_leaves_no_trace(env: Env) -> None:
    env.claude.mkdir(parents=True)
    env.settings.write_text('{"theme": "dark"}')
    assert env.run("init", "--yes", "--local-only").code == 0
    assert env.run("init", "--uninstall", "--yes").code == 0
    assert json.loads(env.settings.read_text()) == {"theme": "dark"}


def test_a_symlinked_settings_file_stays_a_symlink(env: Env, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"theme": "dark"}')
    dotfiles.chmod(0o600)
    env.claude.mkdir(parents=True)
    env.settings.symlink_to(dotfiles)
    assert env.run("init", "--yes", "--local-only").code == 0
    assert env.settings.is_symlink()
    assert len(ours(json.loads(dotfiles.read_text()))) == 5
    assert oct(dotfiles.stat().st_mode & 0o777) == "0o600"


def test_claude_config_dir_is_honoured(env: Env, tmp_path: Path) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    assert env.settings.exists()
    assert not (Path(env.variables["HOME"]) / ".claude").exists()


def test_hooks_written_by_init_run_and_fail_open(env: Env, tmp_path: Path) -> None:
    """Run the installed hook commands through a shell, as Claude Code does."""
    import subprocess

    assert env.run("init", "--yes", "--local-only").code == 0
    assert env.run("write", "--title", "Global rule", "always run the linter").code == 0
    settings = json.loads(env.settings.read_text())
    inject = next(
        e for ev, _, e in ours(settings) if ev == "SessionStart" and "inject" in e["command"]
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ANAMNESIS_")}
    done = subprocess.run(
        inject["command"], shell=True, input=json.dumps({"cwd": str(tmp_path)}).encode(),
        capture_output=True, env=environment, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Global rule" in context
    work = tmp_path / "work"
    work.mkdir()
    (work / ".anamnesis").mkdir()
    (work / ".anamnesis" / "project").write_text("acme/web\n")
    assert env.run("write", "--title", "Deploy checklist", "--project", "acme/web",
                   "deploy the web frontend after the canary checks pass").code == 0  # fmt: skip
    prompt = next(e for ev, _, e in ours(settings) if ev == "UserPromptSubmit")
    asked = {"session_id": "s1", "cwd": str(work), "prompt": "how do we deploy the web frontend?"}
    done = subprocess.run(
        prompt["command"], shell=True, input=json.dumps(asked).encode(),
        capture_output=True, env=environment, timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, b"")
    recalled = json.loads(done.stdout)["hookSpecificOutput"]
    assert recalled["hookEventName"] == "UserPromptSubmit"
    assert "Deploy checklist" in recalled["additionalContext"]


def test_init_takes_the_remote_from_anamnesis_git_remote(bare: Env, tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "from-env.git")
    bare.variables["ANAMNESIS_GIT_REMOTE"] = str(remote)
    plan = bare.run("init", "--print")
    assert plan.code == 0
    assert f"remote     = {remote}  (from ANAMNESIS_GIT_REMOTE)" in plan.out
    assert "machine_id = laptop  (from ANAMNESIS_MACHINE_ID)" in plan.out
    assert not bare.home.exists()
    bare.create_store()  # a note written before init (as a store made by hand holds)
    assert bare.run("write", "--title", "travels", "through the remote").code == 0
    done = bare.run("init", "--yes")
    assert done.code == 0, done.err
    # Written down, so that the MCP server (started by Claude Code without this variable)
    # and every later command use the same remote.
    config = json.loads((bare.home / "config.json").read_text())
    assert config == {"machine_id": "laptop", "remote": str(remote)}
    from dulwich.repo import Repo

    with Repo(str(remote)) as shared:
        assert b"refs/heads/main" in shared.refs.as_dict()
    del bare.variables["ANAMNESIS_GIT_REMOTE"]
    assert bare.run("status", "--json").json()["sync"]["remote"] == str(remote)


def test_local_only_syncs_with_no_remote_whatever_the_environment_says(
    env: Env, tmp_path: Path
) -> None:
    elsewhere = bare_remote(tmp_path / "from-env.git")
    env.variables["ANAMNESIS_GIT_REMOTE"] = str(elsewhere)
    assert env.run("write", "--title", "stays here", "this machine only").code == 0
    done = env.run("init", "--yes", "--local-only")
    assert done.code == 0, done.err
    assert "remote" not in json.loads((env.home / "config.json").read_text())
    from dulwich.repo import Repo

    with Repo(str(elsewhere)) as untouched:  # the first sync used the settings init chose
        assert untouched.refs.as_dict() == {}
    with Repo(str(env.home / "memory")) as local:  # and committed the note here
        assert b"refs/heads/main" in local.refs.as_dict()


def test_flags_win_over_anamnesis_git_remote(env: Env, tmp_path: Path) -> None:
    flagged = bare_remote(tmp_path / "flag.git")
    env.variables["ANAMNESIS_GIT_REMOTE"] = str(tmp_path / "from-env.git")
    assert env.run("init", "--yes", "--remote", str(flagged)).code == 0
    assert json.loads((env.home / "config.json").read_text())["remote"] == str(flagged)
    assert env.run("init", "--yes", "--local-only", "--no-sync").code == 0
    assert "remote" not in json.loads((env.home / "config.json").read_text())
    env.variables["ANAMNESIS_GIT_REMOTE"] = "has a space"
    bad = env.run("init", "--print")
    assert bad.code == 1 and bad.err.startswith("anamnesis init: ANAMNESIS_GIT_REMOTE: ")
