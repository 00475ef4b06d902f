"""Every command the tool suggests runs as printed.

Realistic scenarios (before `init`; a first hour on one machine; two machines that
conflict; every command's --help) are played through the CLI, and every `anamnesis ...`
the output suggests in backticks (hints, doctor's fix: and tip: lines, next steps) is
collected and typed as printed into a terminal of a real process, with a temporary HOME,
Enter answering any question. None may end in a usage error (exit 2), a crash, or a
parser's complaint. Placeholders a person fills in (FOLDER, URL, ID, ...) are filled in
the way a person would; a new one fails here until it is given a value below.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shlex
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import typer

from anamnesis.cli.app import build_app
from anamnesis.cli.config_file import config_keys
from anamnesis.store import MemoryStore
from cli_testing import Env, Result, anamnesis_script, bare_remote, machines, write

SUGGESTION = re.compile(r"`(anamnesis(?:\s[^`]*)?)`")
# Grammar, not a command: alternatives (`a|b`) and optional parts (`[--json]`).
NOTATION = re.compile(r"[|\[\]]")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_-]*[A-Z0-9]$")
# How long a suggestion may run: a server (`anamnesis serve`) runs until stopped, and one
# still running then did not stop on its command line (a parser fails at once).
RUNNING_S = 60
# What a crash prints (a usage error is exit 2, whatever it says).
CRASHES = ("unexpected error", "Traceback")


@dataclass
class Scenario:
    """One machine's story: what it printed, and the values its placeholders take."""

    name: str
    env: Env
    printed: list[str] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)

    def run(self, *args: str, stdin: str | None = None) -> Result:
        done = self.env.run(*args, stdin=stdin)
        self.printed.append(done.out + "\n" + done.err)
        return done


def suggestions(text: str) -> list[str]:
    """The commands ``text`` suggests, one line each (help text wraps them)."""
    found = (" ".join(match.split()) for match in SUGGESTION.findall(text))
    return [command for command in found if not NOTATION.search(command)]


def fill(command: str, values: dict[str, str]) -> list[str]:
    """The command's words with each placeholder filled in as a person would (``values``:
    by placeholder, or by placeholder and the command's first words)."""
    words = shlex.split(command)
    filled = []
    for index, word in enumerate(words):
        if not PLACEHOLDER.match(word):
            filled.append(word)
            continue
        if word == "VALUE" and words[1:3] == ["config", "set"]:  # a valid value of that key
            declared = config_keys()[words[3]]
            filled.append(declared.choices[0] if declared.choices else declared.default)
            continue
        # The value may depend on the command: DIR is a new folder to `export`, an
        # export to `import jsonl` ("DIR import jsonl", then "DIR import", then "DIR").
        keys = [f"{word} {' '.join(words[1:3])}", f"{word} {words[1]}", word]
        known = [key for key in keys if key in values]
        assert known, f"{command!r}: no value for the placeholder {word} (word {index})"
        filled.append(values[known[0]])
    return filled[1:]  # without "anamnesis"


def typed(env: Env, argv: list[str]) -> Result:
    """``anamnesis ARGV`` as typed at a terminal: stdin a pseudo-terminal on which Enter
    is pressed for every question (so a command that asks does ask), stdout and stderr
    read together. A process still running after RUNNING_S (a server) is stopped: it took
    its command line."""
    controller, terminal = pty.openpty()
    os.write(controller, b"\n" * 8)  # the terminal holds the lines until they are read
    try:
        process = subprocess.Popen(
            [*anamnesis_script(), *argv],
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={**env.environment(), "COLUMNS": "80"},
            cwd=env.root,
            start_new_session=True,  # its own process group: stopped whole, nothing else
        )
        try:
            out, _ = process.communicate(timeout=RUNNING_S)
            code = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGTERM)
            out, _ = process.communicate(timeout=30)
            code = 0  # still running on its command line: it parsed
    finally:
        os.close(terminal)
        os.close(controller)
    return Result(code, out.decode("utf-8", "replace"), "")


# -- the scenarios ---------------------------------------------------------------------


def before_init(tmp_path: Path) -> Scenario:
    story = Scenario("before init", Env.make(tmp_path, "fresh"))
    for args in (
        ["list"],
        ["status"],
        ["search", "port"],
        ["write", "--title", "early", "a note before any store"],
        ["show", "01ARZ3NDEKTSV4RRFFQ69G5FAV"],
        ["sync"],
        ["doctor", "--offline"],
        ["reflect", "--all"],
        ["merge"],
        ["clean", "memory", "--yes"],
        ["export", str(tmp_path / "fresh-export")],
    ):
        story.run(*args)
    return story


def first_hour(tmp_path: Path) -> Scenario:
    story = Scenario("a first hour", Env.make(tmp_path, "laptop"))
    env = story.env
    story.run("init", "--yes", "--local-only")
    text = "The dev Postgres listens on port 5433, not 5432, because of docker compose"
    ids = [write(env, "Postgres port in dev", text, "-p", "api") for _ in range(2)]
    write(env, "CI token", "the token is ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
    with MemoryStore(env.home) as store:
        for n in range(3):
            store.write(type="episodic", title=f"session {n}", body="deploy", project="api")
        # A note that contradicts the two above (`review` and `write`'s reply suggest how to
        # settle it), and one due for review.
        store.write(type="semantic", title="Postgres port in dev", project="api",
                    body=text.replace("5433", "5434"))  # fmt: skip
        store.write(type="semantic", title="Staging host", body="db-stg-2", project="api",
                    review_after="2020-01-01")  # fmt: skip
        for n in range(2):  # facts no session used, older than `stats`' window
            old = store.write(type="semantic", title=f"Old fact {n}", body="x", project="api")
            store.put(old.replace(created_at=f"2025-01-0{n + 1}T00:00:00+00:00"))
    env.variables["EDITOR"] = "true"  # `review edit` suggested: an editor that saves nothing
    for args in (
        ["search", "postgres port"],
        ["review"],
        ["write", "--title", "Postgres port in dev", "-p", "api", "port 5435 now"],
        ["search", "postgres", "--mode", "vector"],
        ["show", "ZZZZZZZ"],
        ["show", "0123"],
        ["show", "01ab-c"],
        ["list", "--limit", "1"],
        ["status"],
        ["stats", "--limit", "1"],
        ["doctor", "--offline"],
        ["config", "set", "llm.provdier", "x"],
        ["config", "set", "machine_id", " "],
        ["config", "get", "prompt_recall"],
        ["config", "get", "llm.provider"],
        ["export", str(tmp_path / "export-jsonl")],
        ["export", str(tmp_path / "export-md"), "--format", "markdown"],
        ["import", "jsonl", str(tmp_path / "export-jsonl")],
        ["dedup"],
        ["merge"],
        ["reflect", "--all"],
        ["reflect", "--all", "--min-episodes", "1", "--apply"],  # the default: no LLM
        ["llm", "test"],
        ["secrets", "scan"],
        ["compact"],
        ["eval", "run"],
        ["clean", "memory"],  # not on a terminal: needs --yes
        ["delete", ids[0]],
    ):
        story.run(*args)
    (tmp_path / "map.json").write_text(json.dumps({"api": "github.com/acme/api"}))
    story.run("migrate", str(tmp_path / "map.json"))
    config = env.home / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "keyword_ranking": "bm42"}))
    story.run("doctor", "--offline")
    story.values.update(ID=ids[0], OTHER_ID=ids[1], URL=str(bare_remote(tmp_path / "a.git")))
    return story


def two_machines(tmp_path: Path) -> Scenario:
    laptop, desktop, remote = machines(tmp_path / "pair")
    story = Scenario("two machines", desktop)
    note_id = write(laptop, "Port", "8080")
    assert laptop.run("sync").code == 0 and desktop.run("sync").code == 0
    for machine, port in ((laptop, "9090"), (desktop, "7070")):
        path = Path(machine.run("show", note_id, "--json").json()["path"])
        path.write_text(path.read_text().replace("8080", port))
    assert laptop.run("sync").code == 0
    story.run("sync")  # the conflict
    story.run("status")
    story.run("doctor", "--offline")
    story.run("sync", "--resolve", "keep-both")
    story.run("status")
    story.run("doctor", "--offline")
    story.run("clean", "memory", "--yes")
    story.run("sync")
    story.run("clean", "all", "--yes", "--everywhere")
    copies = [n["id"] for n in laptop.run("list", "--json").json()]
    story.values.update(ID=note_id, OTHER_ID=copies[-1], URL=str(remote))
    story.values["NEW-URL"] = str(bare_remote(tmp_path / "new.git"))
    return story


def every_help(tmp_path: Path) -> Scenario:
    story = Scenario("every --help", Env.make(tmp_path, "reader"))
    command = typer.main.get_command(build_app())

    def walk(group: object, path: list[str]) -> None:
        story.run(*path, "--help")
        for name, sub in (getattr(group, "commands", None) or {}).items():
            walk(sub, [*path, name])

    walk(command, [])
    return story


SCENARIOS: list[Callable[[Path], Scenario]] = [before_init, first_hour, two_machines, every_help]


def test_every_suggested_command_runs_as_printed(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.mkdir()
    (model / "model.onnx").write_bytes(b"weights")  # what `config set embed_model_path` checks
    common = {
        "FOLDER": str(model),
        "NAME": "build-01",
        "TITLE": "Port",
        "BODY": "the API listens on 9090",
        "MODEL": "gpt-4o-mini",
        "BYTES": "8000000",
        "QUERY": "postgres port",
        "DIR export": str(tmp_path / "new-export"),
        "DIR import jsonl": str(tmp_path / "first_hour" / "export-jsonl"),
        "DIR import markdown": str(tmp_path / "first_hour" / "export-md"),
    }
    seen: dict[str, Scenario] = {}
    for play in SCENARIOS:
        story = play(tmp_path / play.__name__)
        for command in suggestions("\n".join(story.printed)):
            seen.setdefault(command, story)
    expected = {
        "anamnesis init",  # before init, every command says so
        "anamnesis doctor",
        "anamnesis config list --all",  # a typo of a setting
        "anamnesis config unset machine_id",  # an empty value
        f"anamnesis import jsonl {tmp_path / 'first_hour' / 'export-jsonl'}",  # after export
        "anamnesis list",  # an id that matches nothing
        "anamnesis clean memory",  # delete needs confirmation off a terminal
        "anamnesis clean memory --everywhere",  # after a clean of this machine
        "anamnesis sync --resolve keep-both",  # a conflict
        "anamnesis write --title TITLE --supersedes OTHER_ID BODY",  # kept both
        "anamnesis config set remote NEW-URL",  # purging history
        "anamnesis config set keyword_ranking VALUE",  # a hand-edited bad value
        "anamnesis config set llm.provider claude-code",  # reflect without an LLM
        "anamnesis review keep ID --over OTHER_ID",  # a possible contradiction
        "anamnesis review done ID",  # a note due for review
    }
    assert expected <= set(seen), sorted(expected - set(seen))
    # Destructive ones last, so that the others find the notes they name.
    order = sorted(seen, key=lambda command: ("clean" in command, command))
    failures = []
    for command in order:
        story = seen[command]
        argv = fill(command, {**common, **story.values})
        done = typed(story.env, argv)
        crashed = any(word in done.out for word in CRASHES)
        if done.code == 2 or crashed:
            last = " | ".join(done.out.split("\n")[-3:]).strip()
            failures.append(f"{story.name}: `{command}` -> exit {done.code}: {last}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("run `anamnesis init` first", ["anamnesis init"]),
        (
            "`anamnesis clean memory\n      --yes`, then `anamnesis sync`",
            ["anamnesis clean memory --yes", "anamnesis sync"],
        ),
        ("`anamnesis import [--json]` and `anamnesis eval run|generate`", []),
        ("anamnesis: a notice, `claude mcp add x`", []),
    ],
)
def test_suggestions_are_found_as_printed(text: str, found: list[str]) -> None:
    assert suggestions(text) == found


def test_a_placeholder_without_a_value_fails_loudly() -> None:
    assert fill("anamnesis config set search_mode VALUE", {}) == [
        "config",
        "set",
        "search_mode",
        "keyword",
    ]
    assert fill("anamnesis init --remote URL", {"URL": "/srv/m.git"})[-1] == "/srv/m.git"
    with pytest.raises(AssertionError, match="no value for the placeholder WIDGET"):
        fill("anamnesis frob WIDGET", {})
