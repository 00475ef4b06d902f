"""The process entry: hooks on the fast path, the MCP server by default, versions, help."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from anamnesis.cli import __main__ as entry
from anamnesis.cli.agent_config import mcp_registration
from anamnesis.cli.app import main
from anamnesis.cli.setup import add_mcp_extra
from cli_testing import Env, anamnesis_script, bare_remote


def test_hook_commands_skip_typer_rich_pydantic_and_mcp(env: Env, tmp_path: Path) -> None:
    assert env.run("write", "--title", "Global rule", "lint first").code == 0
    environment = {**os.environ, **env.variables}
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "anamnesis.cli", "inject", "--cwd",
         str(tmp_path)],
        input=b"{}", capture_output=True, env=environment, timeout=60, check=True,
    )  # fmt: skip
    assert b"Global rule" in done.stdout
    imported = {line.split("|")[-1].strip() for line in done.stderr.decode().splitlines()}
    for heavy in ("typer", "rich", "pydantic", "mcp", "dulwich", "yaml", "click"):
        assert heavy not in imported, heavy


HEAVY = ("typer", "rich", "pydantic", "mcp", "click")


def imported_modules(stderr: str) -> set[str]:
    """Module names from ``-X importtime`` output."""
    return {line.split("|")[-1].strip() for line in stderr.splitlines() if "|" in line}


def test_capture_through_the_script_writes_the_session_note(env: Env, tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    records = [
        {"type": "user", "message": {"role": "user", "content": "fix the flaky parser test"}},
        {"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "text", "text": "Fixed: the parser now retries on EAGAIN."}]}},
    ]  # fmt: skip
    transcript.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    hook_input = {"session_id": "sess-9", "cwd": str(tmp_path),
                  "transcript_path": str(transcript), "hook_event_name": "SessionEnd"}  # fmt: skip
    env.variables["PYTHONPROFILEIMPORTTIME"] = "1"
    done = env.run_process("capture", "--no-sync", stdin=json.dumps(hook_input))
    del env.variables["PYTHONPROFILEIMPORTTIME"]
    assert done.code == 0 and done.out == ""
    assert "anamnesis.store" in imported_modules(done.err)  # the profile did run
    for heavy in HEAVY:
        assert heavy not in imported_modules(done.err), heavy
    deadline = time.monotonic() + 60  # the background worker files the note
    while True:
        # Until the worker has filed it there may be no store yet: `list` then says so.
        listed = env.run_process("list", "--type", "episodic", "--json")
        if listed.code == 0 and (notes := listed.json()):
            break
        assert time.monotonic() < deadline, f"the note never reached the store: {listed.err}"
        time.sleep(0.1)
    assert [(n["prov_session"], n["machine_id"]) for n in notes] == [("sess-9", "laptop")]


def test_sync_quiet_through_the_script_pushes_without_typer(env: Env, tmp_path: Path) -> None:
    from dulwich.refs import Ref
    from dulwich.repo import Repo

    remote = bare_remote(tmp_path / "remote.git")
    assert env.run_process("init", "--yes", "--remote", str(remote)).code == 0
    assert env.run_process("write", "--title", "travels", "pushed by the hook").code == 0
    env.variables["PYTHONPROFILEIMPORTTIME"] = "1"
    done = env.run_process("sync", "--quiet")
    del env.variables["PYTHONPROFILEIMPORTTIME"]
    assert done.code == 0 and done.out == ""
    assert "anamnesis.store" in imported_modules(done.err)  # the profile did run
    for heavy in HEAVY:
        assert heavy not in imported_modules(done.err), heavy
    with Repo(str(env.home / "memory")) as local, Repo(str(remote)) as shared:
        assert shared.refs[Ref(b"refs/heads/main")] == local.head()
    assert env.run_process("status", "--json").json()["sync"]["dirty"] is False


# Simulates an install without the `mcp` extra: the SDK and our server cannot be imported.
NO_MCP = """
import importlib.abc, sys

class NoMcp(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "mcp" or name.startswith("anamnesis.mcp"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoMcp())
"""


def test_without_the_mcp_extra_the_real_script_says_how_to_install(
    env: Env, tmp_path: Path
) -> None:
    site = tmp_path / "no-mcp"
    site.mkdir()
    (site / "sitecustomize.py").write_text(NO_MCP)
    env.variables["PYTHONPATH"] = str(site)
    probe = subprocess.run([sys.executable, "-c", "import mcp"], env=env.environment(),
                           capture_output=True, check=False)  # fmt: skip
    assert probe.returncode != 0  # the simulation holds
    # The fix names how this copy is installed (here: the workspace's environment), never
    # the package index's older release of the same name.
    install = add_mcp_extra()
    assert "'anamnesis-memory[mcp]'" not in install
    bare = env.run_process()
    assert bare.code == 1 and bare.out == ""
    assert bare.err_lines == [
        f"anamnesis: the MCP server is not installed; install it with: {install}"
    ]
    served = env.run_process("serve")
    assert served.code == 1
    assert served.err_lines == [
        f"anamnesis serve: the MCP server is not installed; install it with: {install}"
    ]
    plan = env.run_process("init", "--print", "--local-only")
    assert plan.code == 0 and "skipped: the MCP server is not installed" in plan.out
    assert (
        env.run_process("write", "--title", "still works", "hooks and the CLI need no SDK").code
        == 0
    )
    injected = env.run_process("inject", "--cwd", str(tmp_path), stdin="{}")
    assert injected.code == 0 and "still works" in injected.out


def test_hook_commands_always_exit_0(env: Env) -> None:
    bad = env.run("capture", "--bogus-flag")
    assert bad.code == 0 and "bad command line" in bad.err
    assert "bad command line" in (env.home / "logs" / "hooks.log").read_text()
    nothing = env.run("inject", stdin="not json")
    assert nothing.code == 0 and nothing.out == ""  # no store yet: nothing to say


def test_help_for_hook_commands_comes_from_the_app(env: Env) -> None:
    result = env.run("inject", "--help")
    assert result.code == 0 and "SessionStart hook" in result.out
    assert env.run("--help").code == 0


def test_is_hook_call() -> None:
    assert entry.is_hook_call(["inject"])
    assert entry.is_hook_call(["prompt", "--format", "json"])
    assert entry.is_hook_call(["capture", "--source", "precompact", "--no-sync"])
    assert entry.is_hook_call(["sync", "--quiet"])
    assert not entry.is_hook_call(["sync"])
    assert not entry.is_hook_call(["inject", "--help"])
    assert not entry.is_hook_call(["prompt", "--help"])
    assert not entry.is_hook_call([])
    assert not entry.is_hook_call(["search", "inject"])


def test_version_names_every_package(env: Env) -> None:
    result = env.run("--version")
    assert result.code == 0
    line = result.out.strip()
    assert line.startswith("anamnesis 0.")
    for name in ("store", "sync", "hooks", "mcp"):
        assert f"{name} 0." in line


@pytest.mark.parametrize("args", [[], ["serve"]])
def test_no_command_and_serve_run_the_mcp_server(env: Env, args: list[str]) -> None:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    assert env.run("write", "--title", "served note", "over stdio").code == 0
    command = anamnesis_script()
    params = StdioServerParameters(
        command=command[0], args=[*command[1:], *args], env={**os.environ, **env.variables}
    )

    async def session() -> list[dict[str, object]]:
        with Path(os.devnull).open("w") as quiet:
            async with Client(stdio_client(params, errlog=quiet), mode="legacy") as client:
                assert len((await client.list_tools()).tools) == 5
                found = await client.call_tool("memory_search", {"query": "served"})
                block = found.content[0]
                return json.loads(getattr(block, "text", "[]"))  # type: ignore[no-any-return]

    hits = anyio.run(session)
    assert [hit["title"] for hit in hits] == ["served note"]


@pytest.mark.parametrize("args", [["serve"], ["serve", "--machine-id", "box"]])
def test_serve_starts_without_typer_below_the_hooks_priority(env: Env, args: list[str]) -> None:
    # The server's start-up is over a second of CPU (the MCP SDK); twenty at once held every
    # session's hooks back. It skips typer's imports (the SDK brings click and rich of its
    # own) and runs at the background nice, from before the SDK loads.
    from anamnesis.store import BACKGROUND_NICE

    env.variables["PYTHONPROFILEIMPORTTIME"] = "1"
    server = subprocess.Popen(
        [*anamnesis_script(), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=env.environment(), cwd=env.root,
    )  # fmt: skip
    assert server.stdin is not None
    try:
        if Path(f"/proc/{server.pid}/stat").exists():  # Linux: read its nice while it runs
            deadline = time.monotonic() + 60
            while _nice(server.pid) < BACKGROUND_NICE and time.monotonic() < deadline:
                time.sleep(0.02)
            assert _nice(server.pid) == max(BACKGROUND_NICE, os.getpriority(os.PRIO_PROCESS, 0))
    finally:
        _out, err = server.communicate(b"", timeout=120)  # end of input: the server stops
    imported = imported_modules(err.decode())
    assert "mcp" in imported and "anamnesis.mcp.server" in imported  # it did start
    assert "typer" not in imported


def _nice(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[16])  # field 19 of stat(5)


def test_without_the_mcp_extra_serve_says_how_to_install(
    env: Env, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(mcp_registration, "mcp_extra_installed", lambda: False)
    assert main(["serve"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"anamnesis serve: the MCP server is not installed; install it with: {add_mcp_extra()}"
    ]
    assert entry._serve() == 1
    assert add_mcp_extra() in capsys.readouterr().err
