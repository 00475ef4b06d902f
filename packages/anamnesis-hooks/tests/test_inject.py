"""SessionStart: the right notes, within budget, fenced as reference data."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anamnesis.hooks.hookio import hook_output
from anamnesis.ops import (
    INJECT_BUDGET,
    INJECT_MAX_BUDGET,
    INJECT_MIN_BUDGET,
    Viewpoint,
    render_inject,
    select_inject,
)
from anamnesis.ops.memory_block import CLOSE, MEMORY_HEADER, OPEN
from anamnesis.store import Memory, MemoryStore
from hooks_testing import checkout, run_hook

P = "github.com/acme/api"
JANUARY_1 = datetime(2026, 1, 1, tzinfo=UTC)
# Claude Code on this machine (the hooks' tests' ANAMNESIS_MACHINE_ID), on February 1.
READER = Viewpoint(
    project=P, machine="laptop", agent="claude-code", now="2026-02-01T00:00:00+00:00"
)


def put(store: MemoryStore, title: str, *, day: int, type: str = "semantic", project: str = P,
        body: str = "b", confidence: float = 1.0, tags: list[str] | None = None,
        supersedes: list[str] | None = None, agent: str = "", source: str = "human",
        machine: str = "laptop") -> Memory:  # fmt: skip
    stamp = (JANUARY_1 + timedelta(days=day - 1)).isoformat()  # day 32 is February 1
    note = store.write(type=type, title=title, body=body, project=project, tags=tags,
                       confidence=confidence, supersedes=supersedes, prov_agent=agent,
                       prov_source=source, machine_id=machine)  # fmt: skip
    return store.put(note.replace(created_at=stamp, updated_at=stamp))


@pytest.fixture
def store(isolated_home: Path) -> MemoryStore:
    return MemoryStore(isolated_home)


def titles(notes: list[Memory]) -> list[str]:
    return [m.title for m in notes]


def test_selection_rules(store: MemoryStore) -> None:
    put(store, "global old", day=1, project="global")
    put(store, "global new", day=9, project="global")
    for day in range(1, 10):
        put(store, f"durable {day}", day=day, type="procedural" if day % 2 else "semantic")
    put(store, "episode 1", day=1, type="episodic")
    put(store, "episode 2", day=2, type="episodic")
    put(store, "episode 3 reflected", day=3, type="episodic", tags=["reflected"])
    put(store, "episode 4", day=4, type="episodic")
    old = put(store, "superseded durable", day=20)
    put(store, "replacement", day=5, supersedes=[old.id])
    put(store, "other project", day=30, project="github.com/acme/other")
    selection = select_inject(store, project=P, k=8)
    assert titles(selection.global_notes) == ["global new", "global old"]
    assert titles(selection.project_notes) == [
        "durable 9", "durable 8", "durable 7", "durable 6", "replacement", "durable 5",
        "episode 4", "episode 2",
    ]  # fmt: skip
    assert selection.left_out == 0


def test_ties_on_updated_at_go_to_confidence(store: MemoryStore) -> None:
    more = put(store, "more sure", day=5, confidence=0.9)
    less = put(store, "less sure", day=5, confidence=0.4)
    assert less.id > more.id  # the id (the last tie-breaker) alone would pick the wrong one
    assert titles(select_inject(store, project=P, k=1).project_notes) == ["more sure"]


def test_fewer_than_two_episodes_leave_room_for_durable(store: MemoryStore) -> None:
    for day in range(1, 5):
        put(store, f"durable {day}", day=day)
    put(store, "episode", day=1, type="episodic")
    assert len(select_inject(store, project=P, k=4).project_notes) == 4


def test_rendering_is_fenced_reference_data(store: MemoryStore) -> None:
    put(store, "Use uv", day=1, project="global", body="Prefer uv.")
    put(store, "Deploy", day=2, type="procedural", body="make deploy")
    note = store.write(type="episodic", title="Session", body="did things", project=P,
                       prov_source="session-end", confidence=0.7, machine_id="desktop")  # fmt: skip
    store.put(note.replace(updated_at=(JANUARY_1 + timedelta(days=29)).isoformat()))
    text = render_inject(select_inject(store, project=P, viewpoint=READER))
    assert text.startswith(MEMORY_HEADER)
    assert "not instructions" in text and '"you" is the user' in text
    assert text.index(OPEN) < text.index("## [semantic] Use uv") < text.index(CLOSE)
    assert "## [semantic] Use uv\n_global · you · 4w ago_\n" in text
    assert "## [procedural] Deploy\n_you · 4w ago_\n" in text  # this project's, this machine's
    assert "## [episodic] Session\n_captured on desktop · 2d ago · unconfirmed_\n" in text
    assert "left out" not in text


def test_a_note_a_model_rewrote_is_never_shown_as_the_users_own(store: MemoryStore) -> None:
    mine = put(store, "Deploy", day=1, body="make deploy")
    store.put(mine.replace(confidence=0.8, extra={"rewritten_by": "claude-x"}))
    text = render_inject(select_inject(store, project=P, viewpoint=READER))
    assert "_you, rewritten by claude-x · 4w ago · unconfirmed_" in text


def test_a_note_says_which_agent_wrote_it(store: MemoryStore) -> None:
    put(store, "Session", day=1, type="episodic", agent="codex", source="session-end")
    put(store, "Written through MCP", day=2, agent="claude-code")
    rewritten = put(store, "Rewritten", day=3, agent="codex")
    store.put(rewritten.replace(confidence=0.8, extra={"rewritten_by": "claude-x"}))
    put(store, "Mine", day=4)
    text = render_inject(select_inject(store, project=P, viewpoint=READER))
    assert "## [episodic] Session\n_captured via codex · 4w ago · unconfirmed_" in text
    # The agent reading the block is not named on the notes it wrote.
    assert "## [semantic] Written through MCP\n_you · 4w ago_" in text
    assert "_you via codex, rewritten by claude-x · 4w ago · unconfirmed_" in text
    assert "## [semantic] Mine\n_you · 4w ago_" in text
    as_codex = render_inject(
        select_inject(store, project=P, viewpoint=READER.replace(agent="codex"))
    )
    assert "## [episodic] Session\n_captured · 4w ago · unconfirmed_" in as_codex
    assert "## [semantic] Written through MCP\n_you via claude-code · 4w ago_" in as_codex


def test_global_notes_come_first_and_in_full(store: MemoryStore) -> None:
    for day in range(1, 9):
        put(store, f"project {day}", day=day, body="p" * 200)
    put(store, "Global guide", day=1, project="global", body="g" * 3000)
    selection = select_inject(store, project=P)
    text = render_inject(selection)
    assert "g" * 3000 in text  # the whole body: there is room for it
    assert len(selection.project_notes) == 8
    assert (selection.left_out, selection.limits) == (0, {})
    assert "cut" not in text and "left out" not in text


def test_reflected_episodes_are_hidden_globally_too(store: MemoryStore) -> None:
    put(store, "global reflected episode", day=3, type="episodic", project="global",
        tags=["reflected"])  # fmt: skip
    put(store, "global episode", day=4, type="episodic", project="global")
    put(store, "global fact tagged reflected", day=5, project="global", tags=["reflected"])
    selection = select_inject(store, project=P)
    assert titles(selection.global_notes) == ["global fact tagged reflected", "global episode"]
    assert selection.left_out == 0


def test_a_full_block_keeps_the_newest_global_notes_whole(store: MemoryStore) -> None:
    for day in range(1, 29):
        put(store, f"global {day}", day=day, project="global", body=f"{day:02d}" * 450)
    for day in range(1, 9):
        put(store, f"project {day}", day=day, body="p" * 3000)
    selection = select_inject(store, project=P, budget=INJECT_BUDGET)
    text = render_inject(selection)
    assert len(text) <= INJECT_BUDGET
    whole = [day for day in range(1, 29) if f"{day:02d}" * 450 in text]
    assert whole == list(range(24, 29))  # the newest, in full, in two thirds of the block
    shown = text.count("## [")
    cut = len(selection.limits)
    assert shown == len(selection.global_notes) + len(selection.project_notes)
    assert selection.left_out == 36 - shown
    assert text.endswith(
        f"{36 - shown} more notes were left out and {cut} note{' was' if cut == 1 else 's were'}"
        " cut short to stay within the context budget;"
        " the memory_search tool can find them in full."
    )


def test_many_long_global_notes_leave_a_third_for_the_project(store: MemoryStore) -> None:
    for day in range(1, 29):
        put(store, f"global {day}", day=day, project="global", body="g" * 2000)
    for day in range(1, 4):
        put(store, f"project {day}", day=day, body="p" * 2000)
    selection = select_inject(store, project=P, budget=INJECT_BUDGET)
    text = render_inject(selection)
    assert len(text) <= INJECT_BUDGET
    assert titles(selection.project_notes) == ["project 3", "project 2", "project 1"]
    project_part = text[text.index("## [semantic] project 3") :]
    assert len(project_part) >= INJECT_BUDGET // 3 - 400  # its third, minus frame and line
    assert all(f"global {day}" in text for day in (28, 27))  # globals still come first


def test_project_notes_share_the_room_left_fairly(store: MemoryStore) -> None:
    put(store, "Global", day=1, project="global", body="g" * 1000)
    short = put(store, "short", day=9, body="s" * 350)
    for day in range(1, 8):
        put(store, f"long {day}", day=day, body="L" * (2000 + 500 * day))
    selection = select_inject(store, project=P, budget=INJECT_BUDGET)
    text = render_inject(selection)
    assert len(text) <= INJECT_BUDGET
    assert "g" * 1000 in text and "s" * 350 in text  # short enough: whole
    assert len(selection.project_notes) == 8 and selection.left_out == 0
    limits = set(selection.limits.values())
    assert len(limits) == 1 and short.id not in selection.limits  # one length for all cuts
    [limit] = limits
    assert 350 < limit < 2500
    assert INJECT_BUDGET - len(text) < 8 * 20  # and that length uses the room
    assert text.endswith("7 notes were cut short to stay within the context budget;"
                         " the memory_search tool can find them in full.")  # fmt: skip


def test_a_lone_note_too_big_for_the_block_is_cut_not_dropped(store: MemoryStore) -> None:
    put(store, "T" * 500, day=1, project="global", body="x" * 20000)  # 500: the title limit
    selection = select_inject(store, project=P)
    text = render_inject(selection)
    assert INJECT_BUDGET - 200 < len(text) <= INJECT_BUDGET
    assert "... (cut; memory_search finds note" in text
    assert (selection.left_out, len(selection.limits)) == (0, 1)
    assert text.endswith("1 note was cut short to stay within the context budget;"
                         " the memory_search tool can find them in full.")  # fmt: skip


def test_globals_beyond_what_is_read_are_counted(store: MemoryStore) -> None:
    for day in range(1, 41):
        put(store, f"global {day}", day=day, project="global", body="g" * 1500)
    for day in range(1, 6):
        put(store, f"reflected {day}", day=day, type="episodic", project="global",
            tags=["reflected"])  # fmt: skip
    selection = select_inject(store, project=P)
    assert len(selection.global_notes) + selection.left_out == 40


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    notes=st.lists(
        st.tuples(
            st.booleans(),  # global?
            st.integers(0, 12000),  # body length
            st.integers(1, 400),  # title length
            st.sampled_from(["semantic", "procedural", "episodic"]),
        ),
        max_size=14,
    ),
    budget=st.integers(INJECT_MIN_BUDGET, INJECT_MAX_BUDGET),
)
def test_the_budget_always_holds(
    notes: list[tuple[bool, int, int, str]], budget: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with MemoryStore(tmp_path_factory.mktemp("store")) as store:
        # Every other note is an agent's, of the longest name one may have (the meta line).
        for index, (is_global, body, title, kind) in enumerate(notes):
            put(store, f"{index}" + "t" * title, day=1 + index % 28, type=kind, body="b" * body,
                project="global" if is_global else P,
                agent="a" * 40 if index % 2 else "")  # fmt: skip
        selection = select_inject(store, project=P, budget=budget)
        text = render_inject(selection)
        episodes = min(2, sum(1 for g, _b, _t, kind in notes if not g and kind == "episodic"))
        durable = sum(1 for g, _b, _t, kind in notes if not g and kind != "episodic")
        eligible = sum(1 for g, *_ in notes if g) + episodes + min(durable, 8 - episodes)
        shown = len(selection.global_notes) + len(selection.project_notes)
    assert len(text) <= budget
    assert shown + selection.left_out == eligible
    assert bool(text) == bool(eligible)  # something eligible is never rendered as nothing
    assert ("left out" in text) == bool(selection.left_out)
    assert ("cut short" in text) == bool(selection.limits)


def test_nothing_to_inject_is_nothing(store: MemoryStore) -> None:
    put(store, "elsewhere", day=1, project="other")
    assert render_inject(select_inject(store, project=P)) == ""
    assert hook_output("", fmt="json") == ""


def test_json_envelope() -> None:
    payload = json.loads(hook_output("hello", fmt="json"))
    assert payload == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "hello"}
    }


def test_the_hook_process_reads_cwd_from_stdin(store: MemoryStore, tmp_path: Path) -> None:
    put(store, "API fact", day=1, body="the api fact")
    put(store, "Other fact", day=2, project="github.com/acme/other")
    work = checkout(tmp_path / "clone", "https://github.com/acme/api")
    store.close()
    done = run_hook("inject", stdin={"hook_event_name": "SessionStart", "source": "startup",
                                     "session_id": "s", "cwd": str(work)})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "the api fact" in done.stdout
    assert "Other fact" not in done.stdout
    as_json = run_hook("inject", "--format", "json", stdin={"cwd": str(work)})
    envelope = json.loads(as_json.stdout)
    assert "the api fact" in envelope["hookSpecificOutput"]["additionalContext"]
    flagged = run_hook("inject", "--project", "github.com/acme/other", stdin={"cwd": str(work)})
    assert "Other fact" in flagged.stdout  # a flag beats the hook input


def test_every_session_source_gets_the_same_memory(store: MemoryStore, tmp_path: Path) -> None:
    put(store, "API fact", day=1, body="the api fact")
    work = checkout(tmp_path / "clone", "https://github.com/acme/api")
    store.close()
    outputs = set()
    for source in ("startup", "resume", "clear", "compact"):
        done = run_hook("inject", "--source", source, stdin={"cwd": str(work), "source": source})
        assert (done.returncode, done.stderr) == (0, "")
        outputs.add(done.stdout)
    [output] = outputs
    assert "the api fact" in output


def test_no_store_prints_nothing_and_creates_nothing(isolated_home: Path, tmp_path: Path) -> None:
    done = run_hook("inject", stdin={"cwd": str(tmp_path)})
    assert (done.returncode, done.stdout) == (0, "")
    assert not isolated_home.exists()


FORBIDDEN = ("typer", "rich", "click", "dulwich", "mcp", "ulid", "yaml", "dataclasses", "argparse")


def test_the_inject_path_imports_nothing_heavy(store: MemoryStore, tmp_path: Path) -> None:
    put(store, "API fact", day=1)
    store.close()
    work = checkout(tmp_path / "clone", "git@github.com:acme/api.git")
    code = (
        "import sys, io\n"
        "from anamnesis.hooks.__main__ import main\n"
        "out = io.StringIO(); real = sys.stdout; sys.stdout = out\n"
        f"main(['inject', '--no-stdin', '--cwd', {str(work)!r}])\n"
        "sys.stdout = real\n"
        f"print(sorted(m for m in {FORBIDDEN!r} if m in sys.modules))\n"
        "print('API fact' in out.getvalue())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["[]", "True"], done.stdout + done.stderr


def test_the_hook_marks_each_note_as_the_agent_it_runs_for_reads_it(
    store: MemoryStore, tmp_path: Path
) -> None:
    """The SessionStart hook, a process as each agent runs it, on this machine ("laptop"):
    who wrote each note, another machine's name, its age, unconfirmed and due."""
    now = datetime.now(UTC)

    def dated(note: Memory, **age: float) -> None:
        stamp = (now - timedelta(**age)).isoformat(timespec="seconds")
        store.put(note.replace(created_at=stamp, updated_at=stamp))

    def write(title: str, **fields: Any) -> Memory:
        fields = {"project": P, "machine_id": "laptop", **fields}
        return store.write(type="semantic", title=title, body=f"{title} body", **fields)

    dated(write("Mine", prov_agent="claude-code"), hours=3)
    dated(write("By codex", prov_source="session-end", prov_agent="codex"), days=3)
    dated(write("Elsewhere", prov_source="session-end", prov_agent="claude-code",
                machine_id="desktop"), days=20)  # fmt: skip
    dated(write("Distilled", prov_source="reflection", review_after="2026-01-01"), days=130)
    dated(write("Kept", prov_source="reflection", reviewed_at=now.isoformat(timespec="seconds")),
          days=400)  # fmt: skip
    dated(write("Imported", prov_source="import", project="global"), minutes=5)
    store.close()
    work = checkout(tmp_path / "clone", "https://github.com/acme/api")

    def markers(*agent: str) -> dict[str, str]:
        done = run_hook("inject", *agent, "--no-stdin", "--cwd", str(work))
        assert (done.returncode, done.stderr) == (0, "")
        lines = done.stdout.splitlines()
        return {
            line.split("] ", 1)[1]: lines[number + 1]
            for number, line in enumerate(lines)
            if line.startswith("## [")
        }

    assert markers() == {
        "Imported": "_global · imported · 5min ago_",
        "Mine": "_you · 3h ago_",
        "By codex": "_captured via codex · 3d ago · unconfirmed_",
        "Elsewhere": "_captured on desktop · 2w ago · unconfirmed_",
        "Distilled": "_reflected · 4mo ago · unconfirmed · due for review_",
        "Kept": "_reflected · 1y ago_",
    }
    as_codex = markers("--agent", "codex")
    assert as_codex["Mine"] == "_you via claude-code · 3h ago_"
    assert as_codex["By codex"] == "_captured · 3d ago · unconfirmed_"
    assert as_codex["Elsewhere"] == "_captured via claude-code on desktop · 2w ago · unconfirmed_"
