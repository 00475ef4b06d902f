"""One memory for two agents: a Codex session is captured through the hooks `anamnesis init
--agent all` wrote into Codex's hooks.json, and what it learned is injected when Claude Code
starts a session on the same project, through the hooks init wrote into Claude Code's
settings. Once with the rollout the real Codex wrote (the hooks package's fixture, and the
JSON Codex gave its hooks), once with the real Codex CLI running a session against a
stand-in for the model's API on 127.0.0.1 (skipped where Codex is not installed)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport.agent_clis import agent_cli
from anamnesis_testsupport.responses_stand_in import (
    KEY_VARIABLE,
    ResponsesStandIn,
    codex_provider,
    developer_texts,
    patch,
    say,
    shell,
)

from e2e_support import TIMEOUT_S, Done, Machine, check, project_checkout

CODEX_DATA = Path(__file__).resolve().parents[1] / "packages/anamnesis-hooks/tests/data/codex"
REMOTE_URL = "git@github.com:acme/webapp.git"
# Found before any test narrows PATH.
CODEX = shutil.which("codex")
NODE = shutil.which("node")


def codex_machine(tmp_path: Path) -> Machine:
    machine = Machine(tmp_path, "laptop")
    machine.env["CODEX_HOME"] = str(machine.user / ".codex")
    # A person who uses Codex has its folder: `init --agent all` sets up the agents found.
    (machine.user / ".codex").mkdir(parents=True, exist_ok=True)
    return machine


def set_up(machine: Machine) -> None:
    done = machine.ok("init", "--agent", "all", "--yes", "--local-only", "--no-sync")
    assert "/hooks" in done.out  # Codex asks the person to trust new hooks: init says so
    machine.ok("config", "set", "search_mode", "keyword")


def codex_hooks(machine: Machine, event: str, payload: dict[str, Any]) -> list[Done]:
    """Run ``event``'s hooks as Codex does: the commands from its hooks.json through a
    shell, the hook JSON on stdin, in the session's folder (the async ones too: Codex starts
    them without waiting; here they are waited for). The background sync is left out, as
    Claude Code's side leaves it out."""
    hooks = json.loads((Path(machine.env["CODEX_HOME"]) / "hooks.json").read_text())
    source = str(payload.get("source") or payload.get("trigger") or "")
    results = []
    for group in hooks["hooks"].get(event, []):
        matcher = group.get("matcher")
        if matcher and event in ("SessionStart", "PreCompact") and not re.search(matcher, source):
            continue
        for hook in group["hooks"]:
            if " sync " in hook["command"]:
                continue
            completed = subprocess.run(
                ["/bin/sh", "-c", hook["command"]],
                input=json.dumps(payload),
                capture_output=True,
                text=True,
                env=machine.env,
                cwd=payload["cwd"],
                timeout=TIMEOUT_S,
                check=False,
            )
            done = Done(
                (hook["command"],), completed.returncode, completed.stdout, completed.stderr
            )
            results.append(check(done))
    assert results, f"no {event} hook of ours in Codex's hooks.json"
    return results


_FILED = re.compile(r" capture: (captured|unchanged) ")


def wait_for_captures(machine: Machine, count: int) -> None:
    """Until ``count`` captures were filed (a note written, or found as it was)."""
    deadline = time.monotonic() + TIMEOUT_S
    queue = machine.home / "queue" / "captures"
    while time.monotonic() < deadline:
        captured = [line for line in machine.log_lines() if _FILED.search(line)]
        if len(captured) >= count and not any(queue.glob("*.json")):
            return
        time.sleep(0.2)
    raise AssertionError(f"{count} captures not filed: {machine.log_lines()}")


def session_notes(machine: Machine, session: str) -> list[Any]:
    return [n for n in machine.listed() if n["prov_session"] == session]


def test_a_fact_from_the_recorded_codex_session_reaches_claude_code(tmp_path: Path) -> None:
    laptop = codex_machine(tmp_path)
    set_up(laptop)
    webapp = project_checkout(laptop.user / "code" / "webapp", REMOTE_URL)
    rollout_source = next(CODEX_DATA.glob("rollout-*.jsonl"))
    rollout = Path(laptop.env["CODEX_HOME"]) / "sessions/2026/11/29" / rollout_source.name
    rollout.parent.mkdir(parents=True)
    shutil.copyfile(rollout_source, rollout)

    session = ""
    for recorded in sorted((CODEX_DATA / "hook-inputs").glob("*.json")):
        payload = json.loads(recorded.read_text())
        payload.update(transcript_path=str(rollout), cwd=str(webapp))
        session = payload["session_id"]
        event = recorded.stem.split("-", 1)[1]
        if event == "PostCompact":
            continue  # we run nothing there
        for done in codex_hooks(laptop, event, payload):
            if event in ("SessionStart", "UserPromptSubmit") and done.out.strip():
                assert json.loads(done.out)["hookSpecificOutput"]["hookEventName"] == event
    wait_for_captures(laptop, 5)  # two Stops, two SessionEnds, a PreCompact
    (note,) = session_notes(laptop, session)  # one note for the session
    assert note["project"] == "github.com/acme/webapp"
    assert note["prov_agent"] == "codex"  # whose session it was

    # Claude Code, same machine, same project: its SessionStart hook injects the note, and
    # says which agent it came from.
    context = laptop.inject(webapp)
    assert "Port 8123 comes from tests/test_server.py" in context
    assert note["title"][:40] in context
    assert "_captured via codex · " in context


@pytest.fixture
def codex_bin(tmp_path: Path) -> Path:
    """A folder holding only `codex` and the `node` its launcher runs (skipped, saying how
    to get Codex, where it is not installed): the e2e PATH stays free of git."""
    codex = CODEX or agent_cli("codex")
    if NODE is None:
        pytest.skip("`node` is not installed here: the `codex` launcher needs it")
    folder = tmp_path / "agent-bin"
    folder.mkdir()
    (folder / "codex").symlink_to(Path(codex).resolve())
    (folder / "node").symlink_to(Path(NODE).resolve())
    return folder


FLAKY = "tests/test_server.py is flaky: it connects before the server is up. Make it wait."
FACT = "The test server listens on port 8123; CI starts it there."
WAIT_PATCH = (
    "*** Begin Patch\n*** Add File: tests/wait.py\n+def wait_for_port(port):\n"
    "+    return port\n*** End Patch\n"
)


def run_codex(machine: Machine, cwd: Path, prompt: str) -> subprocess.CompletedProcess[str]:
    """`codex exec` as a person runs it in a script; the hooks run without Codex asking for
    trust (the flag Codex has for automation that vets its hooks itself)."""
    return subprocess.run(
        ["codex", "exec", "--dangerously-bypass-hook-trust", "-s", "workspace-write", prompt],
        capture_output=True,
        text=True,
        env={**machine.env, KEY_VARIABLE: "stand-in"},
        cwd=cwd,
        timeout=TIMEOUT_S,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def test_a_real_codex_session_is_captured_and_recalled_by_both_agents(
    tmp_path: Path, codex_bin: Path
) -> None:
    laptop = codex_machine(tmp_path)
    laptop.env["PATH"] = os.pathsep.join([laptop.env["PATH"], str(codex_bin)])
    webapp = project_checkout(laptop.user / "code" / "webapp", REMOTE_URL)
    turns = [
        [shell("call_grep", "grep -rn connect tests || true")],
        [patch("call_patch", WAIT_PATCH)],
        [say(f"tests/wait.py now has wait_for_port(). {FACT}")],
    ]
    with ResponsesStandIn(*turns) as model:
        codex_home = Path(laptop.env["CODEX_HOME"])
        codex_home.mkdir(parents=True, exist_ok=True)
        own = "# my Codex settings\n" + codex_provider(model.url)
        (codex_home / "config.toml").write_text(own)
        set_up(laptop)
        assert (codex_home / "config.toml").read_text().startswith(own)  # theirs, kept

        first = run_codex(laptop, webapp, FLAKY)
        assert first.returncode == 0, first.stderr
        assert (webapp / "tests" / "wait.py").exists()  # Codex ran the session for real
        # Its SessionEnd's capture (the Stop's runs async, and `codex exec` ends its
        # session, stopping async hooks, right after the turn: SessionEnd is the one that
        # must not miss).
        wait_for_captures(laptop, 1)
        (session,) = {
            path.stem.split("-", 6)[-1]
            for path in (codex_home / "sessions").rglob("rollout-*.jsonl")
        }
        (listed,) = session_notes(laptop, session)
        note = laptop.ok("show", listed["id"], "--json").json()
        assert note["title"].startswith("tests/test_server.py is flaky")
        assert "tests/wait.py" in note["body"] and "port 8123" in note["body"]

        # Claude Code on the same project is told.
        assert FACT in laptop.inject(webapp)

        # And the next Codex session too: Codex hands our block to the model.
        model.turns.append([say("Noted.")])
        before = len(model.received)
        second = run_codex(laptop, webapp, "What port does the test server use?")
        assert second.returncode == 0, second.stderr
        shown = "\n".join(developer_texts(model.received[before]))
        assert FACT in shown and note["title"][:40] in shown
