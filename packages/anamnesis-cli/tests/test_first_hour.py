"""What a new user meets in the first hour: doctor without Claude Code, ids by prefix, a
bare `anamnesis` on a terminal, hand-written notes, and a model folder set by init."""

from __future__ import annotations

import os
import pty
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.offline import ENDPOINT_ENV, refused_endpoint

from anamnesis.cli import installation
from anamnesis.cli.agent_config.mcp_registration import add_argv
from anamnesis.cli.locations import anamnesis_command
from anamnesis.store import Memory, MemoryStore, derived_id, vector_support
from cli_testing import Env, anamnesis_script, write


@pytest.fixture
def offline_host(env: Env) -> Iterator[str]:
    """The model's download host refuses every connection (no network), for `env`."""
    with refused_endpoint() as url:
        env.variables[ENDPOINT_ENV] = url
        yield url


def test_doctor_without_claude_warns_with_the_exact_line_to_run_later(env: Env) -> None:
    init = env.run("init", "--yes", "--local-only")
    assert init.code == 0, init.err
    line = shlex.join(add_argv(anamnesis_command(), {"ANAMNESIS_HOME": str(env.home)}))
    assert line in init.out  # init already said what to run
    doctor = env.run("doctor", "--json", "--offline")
    checks = {c["name"]: c for c in doctor.json()["checks"]}
    assert checks["mcp"]["status"] == "warn"
    assert checks["mcp"]["fix"] == f"once Claude Code is installed, run: `{line}`"
    assert "anamnesis init" not in checks["mcp"]["fix"]  # no loop back to init
    assert [c["name"] for c in checks.values() if c["status"] == "fail"] == []
    assert doctor.code == 0 and doctor.json()["ok"] is True


def test_doctor_says_how_this_copy_is_installed_and_how_to_update_it(env: Env) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    human = env.run("doctor", "--offline")
    inst = installation.detect()
    assert f"[ok  ] install  {inst.describe()}" in human.out
    assert f"tip: update: {installation.update_hint(inst)}" in human.out
    assert f"`{installation.update_command(inst)}`" in human.out  # a command, in backticks
    # Every hint names this copy's source: never the index's older release by name.
    assert "'anamnesis-memory[" not in human.out


def test_show_delete_and_supersedes_take_a_unique_prefix(env: Env) -> None:
    first = write(env, "Use WAL mode", "busy_timeout everywhere")
    shown = env.run("show", first[:6].lower())
    assert shown.code == 0 and shown.out.startswith("# Use WAL mode\n")
    second = write(env, "Use WAL mode, v2", "and a 5 s busy_timeout", "--supersedes", first[:8])
    assert env.run("show", second, "--json").json()["supersedes"] == [first]
    deleted = env.run("delete", second[:10], "--yes", "--json")
    assert deleted.code == 0 and deleted.json()["id"] == second


def test_an_ambiguous_or_short_prefix_says_what_to_do(env: Env) -> None:
    # Ids made for the same millisecond share their first 10 characters (the time part).
    ids = [derived_id(f"note {i}", time_ms=1_750_000_000_000) for i in range(3)]
    with MemoryStore(env.home) as store:
        for i, memory_id in enumerate(ids):
            store.put(Memory(id=memory_id, type="semantic", title=f"note {i}", body="body"))
    common = ids[0][:10]
    assert all(memory_id.startswith(common) for memory_id in ids)
    ambiguous = env.run("show", common[:6])
    assert ambiguous.code == 1 and ambiguous.out == ""
    (line,) = ambiguous.err_lines
    assert line.startswith(f"anamnesis show: {common[:6]} is the start of 3 notes' ids: ")
    assert all(memory_id in line for memory_id in ids) and "give more of the id" in line
    short = env.run("show", ids[0][:5])
    assert short.code == 1 and "at least 6 characters" in short.err
    missing = env.run("show", "7ZZZZZZZZ")
    assert missing.code == 1 and "a unique prefix of 6 or more characters" in missing.err


def test_a_bare_anamnesis_on_a_terminal_prints_help_and_exits_0(env: Env) -> None:
    controller, terminal = pty.openpty()
    try:
        done = subprocess.run(
            anamnesis_script(),
            stdin=terminal,
            capture_output=True,
            env=env.environment(),
            timeout=60,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "Usage: anamnesis" in out and "init" in out and "anamnesis serve" in out


def test_reindex_adopts_a_hand_written_note_and_says_so(env: Env) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    path = env.home / "memory" / "procedural" / "wal.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\ntitle: Use WAL mode\n---\nSet busy_timeout on every connection.\n")
    report = env.run("reindex", "--json").json()
    (adopted,) = report["adopted"]
    assert adopted["path"] == str(path)
    shown = env.run("show", adopted["id"], "--raw")
    assert shown.code == 0, shown.err
    assert shown.out == path.read_text()
    assert [h["id"] for h in env.run("search", "busy_timeout", "--json").json()] == [adopted["id"]]
    assert env.run("reindex", "--json").json()["adopted"] == []


def test_init_sets_a_model_folder_and_refuses_one_without_a_model(env: Env, tmp_path: Path) -> None:
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    refused = env.run("init", "--yes", "--local-only", "--embed-model-path", str(empty))
    assert refused.code == 2 and "holds no .onnx model file" in refused.err
    assert not (env.home / "config.json").exists()  # nothing was written
    model = tmp_path / "model"
    model.mkdir()
    (model / "model.onnx").write_bytes(b"weights")
    done = env.run("init", "--yes", "--local-only", "--embed-model-path", str(model))
    assert done.code == 0, done.err
    assert env.run("config", "get", "embed_model_path", "--json").json()["config_value"] == str(
        model.resolve()
    )


@pytest.mark.skipif(not vector_support().available, reason="the vectors extra cannot run here")
def test_init_says_once_how_to_give_a_model_that_cannot_be_downloaded(
    env: Env, offline_host: str
) -> None:
    del env.variables["ANAMNESIS_EMBED_MODEL_PATH"]  # nothing configured: init must find out
    done = env.run("init", "--yes", "--local-only")
    assert done.code == 0, done.err
    (line,) = [line for line in done.out.splitlines() if line.startswith("vector search:")]
    assert "cannot be reached" in line
    assert "`anamnesis config set embed_model_path FOLDER`" in line
    assert "A local copy of the embedding model" in line  # where the folder is explained


@pytest.mark.skipif(not vector_support().available, reason="the vectors extra cannot run here")
def test_a_default_hybrid_search_that_falls_back_says_so_as_a_default(env: Env) -> None:
    del env.variables["ANAMNESIS_SEARCH_MODE"]  # the store's default: hybrid, the extra runs
    write(env, "SQLite: database is locked", "Use WAL mode")
    found = env.run("search", "sqlite locked")
    assert found.code == 0 and "locked" in found.out
    (line,) = found.err_lines
    assert line.startswith("anamnesis: keyword search: 1 result (hybrid is the default here, but")


@pytest.mark.skipif(not vector_support().available, reason="the vectors extra cannot run here")
def test_status_says_when_the_model_is_not_downloaded_yet(env: Env) -> None:
    del env.variables["ANAMNESIS_EMBED_MODEL_PATH"]  # no local copy: it would be downloaded
    env.variables["ANAMNESIS_SEARCH_MODE"] = "keyword"  # nothing here may load the model
    write(env, "a note", "so that the store exists")
    assert env.run("status", "--json").json()["vectors"]["needs_download"] is True
    assert "the model is not downloaded yet" in env.run("status").out


def test_status_reindex_and_doctor_report_and_sweep_leftovers_of_killed_writes(env: Env) -> None:
    import time as clock

    note = write(env, "kept", "body")
    folder = Path(env.run("show", note, "--json").json()["path"]).parent
    past = clock.time() - 3600

    def leftover(name: str) -> Path:
        path = folder / f".{note}.md.{name}.tmp"
        path.write_bytes(b"x" * 500)
        os.utime(path, (past, past))
        return path

    first = leftover("0badc0de")
    status = env.run("status", "--json").json()
    assert status["swept"] == [{"path": str(first), "bytes": 500}] and not first.exists()
    second = leftover("00c0ffee")
    assert env.run("reindex", "--json").json()["swept"] == [{"path": str(second), "bytes": 500}]
    third = leftover("0ddba11a")
    store = {c["name"]: c for c in env.run("doctor", "--json", "--offline").json()["checks"]}
    assert (
        "removed 1 temp file(s) left by interrupted writes (500 bytes)" in store["index"]["detail"]
    )
    assert not third.exists()


class Terminal:
    """A real `anamnesis` process on a pseudo-terminal, answered like a person would."""

    def __init__(self, env: Env, *args: str) -> None:
        import subprocess

        self.controller, terminal = pty.openpty()
        self.seen = b""
        self.process = subprocess.Popen(
            [*anamnesis_script(), *args],
            stdin=terminal,
            stdout=terminal,
            stderr=terminal,
            env={**env.environment(), "TERM": "dumb", "COLUMNS": "200"},
            cwd=env.root,
        )
        os.close(terminal)

    def expect(self, text: str, timeout: float = 60) -> None:
        import select
        import time as clock

        deadline = clock.monotonic() + timeout
        while text.encode() not in self.seen:
            left = deadline - clock.monotonic()
            assert left > 0, f"never saw {text!r} in {self.seen.decode(errors='replace')}"
            ready, _, _ = select.select([self.controller], [], [], left)
            if ready:
                try:
                    self.seen += os.read(self.controller, 65536)
                except OSError:  # the process ended: no more output
                    break
        assert text.encode() in self.seen, self.seen.decode(errors="replace")

    def answer(self, line: str) -> None:
        os.write(self.controller, line.encode() + b"\r")

    def finish(self) -> int:
        code = self.process.wait(timeout=60)
        os.close(self.controller)
        return code


@pytest.mark.skipif(not vector_support().available, reason="the vectors extra cannot run here")
def test_init_on_a_terminal_asks_for_a_model_folder_again_after_a_typo(
    env: Env, tmp_path: Path, offline_host: str
) -> None:
    del env.variables["ANAMNESIS_EMBED_MODEL_PATH"]
    model = tmp_path / "model"
    model.mkdir()
    (model / "model.onnx").write_bytes(b"weights")
    person = Terminal(env, "init")
    person.expect("Git remote to sync notes between machines")
    person.answer("")
    person.expect("Apply?")
    person.answer("y")
    person.expect("Folder with a local copy of the model")
    person.answer(str(tmp_path / "nowhere"))
    person.expect("is not an existing folder")
    person.answer(str(model))
    person.expect("vector search will use the model in")
    assert person.finish() == 0
    assert env.run("config", "get", "embed_model_path", "--json").json()["config_value"] == str(
        model.resolve()
    )
