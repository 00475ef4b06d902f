"""UserPromptSubmit: a few related notes per prompt, never one the session already holds."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anamnesis.hooks.recall import (
    PROMPT_HEADER,
    PROMPT_HEADER_AGAIN,
    is_slash_command,
    recall_terms,
    select_recall,
    shared_terms,
)
from anamnesis.hooks.recall_settings import (
    DEFAULT_BUDGET,
    MAX_BUDGET,
    MIN_BUDGET,
    InvalidRecallSetting,
    check_recall_setting,
    recall_budget,
    recall_enabled,
)
from anamnesis.hooks.sessions import (
    MAX_AGE_S,
    load_shown,
    prune,
    record_shown,
    sessions_dir,
    state_name,
)
from anamnesis.ops import MEMORY_NOTICE, fit_notes, render_inject
from anamnesis.ops.memory_block import CLOSE, OPEN
from anamnesis.ops.provenance_marker import MARKER_LEGEND
from anamnesis.store import REFLECTION_ENV_GUARD, Memory, MemoryStore, new_id, write_config
from hooks_testing import checkout, run_hook

P = "github.com/acme/api"
ASK = "why is the postgres connection pool exhausted when the workers start?"
POOL = "## [semantic] Postgres connection pool"


def logged(home: Path) -> str:
    path = home / "logs" / "hooks.log"
    return path.read_text() if path.exists() else ""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return checkout(tmp_path / "clone", "https://github.com/acme/api")


@pytest.fixture
def store(isolated_home: Path) -> MemoryStore:
    return MemoryStore(isolated_home)


def seed(store: MemoryStore) -> dict[str, Memory]:
    """Notes of this project (three about the pool), one elsewhere, and near misses."""
    notes = {
        "pool": store.write(type="semantic", title="Postgres connection pool",
                            body="pgbouncer runs in transaction mode; the pool holds 20 "
                                 "connections per worker.", project=P),
        "workers": store.write(type="procedural", title="Starting the workers",
                               body="Workers start with `make workers`; each opens its own "
                                    "postgres connection pool at start.", project=P),
        "exhausted": store.write(type="episodic", title="Pool exhausted in staging",
                                 body="The connection pool was exhausted by leaked "
                                      "transactions in the nightly job.", project=P),
        "swim": store.write(type="semantic", title="Office perks",
                            body="There is a swimming pool on the roof.", project=P),
        "other": store.write(type="semantic", title="Other project's pool",
                             body="postgres connection pool exhausted workers start",
                             project="github.com/acme/other"),
    }  # fmt: skip
    store.close()
    return notes


def prompt(work: Path, text: str, *args: str, session: str = "s1") -> str:
    done = run_hook(
        "prompt",
        *args,
        stdin={
            "hook_event_name": "UserPromptSubmit",
            "session_id": session,
            "cwd": str(work),
            "prompt": text,
        },
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout


def titles(output: str) -> list[str]:
    return re.findall(r"^## \[\w+\] (.*)$", output, flags=re.MULTILINE)


def inject(work: Path, session: str, source: str = "startup") -> str:
    done = run_hook("inject", stdin={"hook_event_name": "SessionStart", "source": source,
                                     "session_id": session, "cwd": str(work)})  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


# -- what is added --------------------------------------------------------------------------


def test_related_notes_are_added_fenced_as_data(store: MemoryStore, work: Path) -> None:
    seed(store)
    out = prompt(work, ASK)
    assert out.startswith(PROMPT_HEADER) and MEMORY_NOTICE in out
    assert out.index(OPEN) < out.index(POOL) < out.index(CLOSE)
    assert sorted(titles(out)) == [
        "Pool exhausted in staging", "Postgres connection pool", "Starting the workers",
    ]  # fmt: skip
    assert "Office perks" not in out  # shares one word ("pool"): below the floor
    assert "Other project" not in out  # another project's notes are not searched


def test_each_note_is_marked_and_the_markers_explained_once_a_session(
    store: MemoryStore, work: Path
) -> None:
    store.write(type="procedural", title="Deploy checklist", project=P,
                body="The deploy script runs the migrations, then restarts each service.",
                prov_source="session-end", prov_agent="codex", machine_id="desktop")  # fmt: skip
    seed(store)
    first = prompt(work, ASK, session="s1")
    assert first.startswith(PROMPT_HEADER) and MARKER_LEGEND in first  # nothing shown yet
    assert f"{POOL}\n_you · just now_\n" in first
    later = prompt(work, "how does the deploy script run the migrations?", session="s1")
    assert later.startswith(PROMPT_HEADER_AGAIN) and MARKER_LEGEND not in later  # said once
    assert MEMORY_NOTICE in later
    assert titles(later) == ["Deploy checklist"]
    assert "_captured via codex on desktop · just now · unconfirmed_" in later
    as_codex = prompt(work, "how does the deploy script run the migrations?", "--agent",
                      "codex", session="s2")  # fmt: skip
    assert MARKER_LEGEND in as_codex
    assert "_captured on desktop · just now · unconfirmed_" in as_codex


def test_at_most_three_notes_within_the_budget(store: MemoryStore, work: Path) -> None:
    for index in range(6):
        body = f"postgres connection pool exhausted by workers {index}. " * 40
        store.write(type="semantic", title=f"Pool note {index}", body=body, project=P)
    store.close()
    out = prompt(work, ASK, "--format", "json")
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert len(titles(context)) == 3
    assert len(context) <= DEFAULT_BUDGET
    assert "cut short" in context and "memory_search" in context
    config_budget = MIN_BUDGET
    write_config({"prompt_recall.budget": str(config_budget)}, store.root)
    smaller = prompt(work, ASK, session="s2")
    assert 0 < len(smaller.rstrip("\n")) <= config_budget
    flagged = prompt(work, ASK, "--budget", "5000", session="s3")  # the flag beats config
    assert config_budget < len(flagged.rstrip("\n")) <= 5000


def test_json_output_names_the_prompt_event(store: MemoryStore, work: Path) -> None:
    seed(store)
    envelope = json.loads(prompt(work, ASK, "--format", "json"))
    assert set(envelope) == {"hookSpecificOutput"}
    inner = envelope["hookSpecificOutput"]
    assert inner["hookEventName"] == "UserPromptSubmit"
    assert POOL in inner["additionalContext"]
    assert "decision" not in json.dumps(envelope)  # never blocks the prompt


def test_a_note_injected_at_session_start_is_not_added_again(
    store: MemoryStore, work: Path
) -> None:
    notes = seed(store)
    assert "Postgres connection pool" in inject(work, "s1")
    assert load_shown(store.root, "s1") >= {notes["pool"].id, notes["workers"].id}
    assert titles(prompt(work, ASK, session="s1")) == []  # inject showed all three
    fresh = prompt(work, ASK, session="never-injected")
    assert len(titles(fresh)) == 3


def test_a_note_added_once_per_session(store: MemoryStore, work: Path) -> None:
    seed(store)
    first = prompt(work, ASK, session="a")
    assert len(titles(first)) == 3
    assert prompt(work, ASK, session="a") == ""  # the same prompt again: nothing new
    assert prompt(work, "how do the workers start their postgres pool?", session="a") == ""
    assert sorted(titles(prompt(work, ASK, session="b"))) == sorted(titles(first))


def test_a_compaction_empties_what_the_session_holds(store: MemoryStore, work: Path) -> None:
    seed(store)
    with MemoryStore(store.root) as again:  # newer notes fill inject's k
        for index in range(8):
            note = again.write(type="semantic", title=f"Filler {index}", body="x", project=P)
            later = "2099-01-01T00:00:00+00:00"
            again.put(note.replace(created_at=later, updated_at=later))
    inject(work, "s1")
    added = titles(prompt(work, ASK, session="s1"))
    assert added  # the older notes did not fit inject's k
    assert prompt(work, ASK, session="s1") == ""
    inject(work, "s1", source="resume")  # resuming keeps what the session holds
    assert prompt(work, ASK, session="s1") == ""
    inject(work, "s1", source="compact")  # the context was summarized: start afresh
    assert titles(prompt(work, ASK, session="s1")) == added


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "fix it",
        "fix the pool",  # two meaningful words
        "/compact",
        "/review postgres connection pool exhausted workers",
        "what is this and why is it so?",  # only stop words
        "bake banana bread with walnuts tonight",  # matches nothing
        "connection connection connection connection",  # one word, repeated
    ],
)
def test_short_commands_and_unrelated_prompts_add_nothing(
    store: MemoryStore, work: Path, text: str
) -> None:
    seed(store)
    assert prompt(work, text) == ""


def test_a_prompt_starting_with_a_path_is_not_a_command(store: MemoryStore, work: Path) -> None:
    seed(store)
    assert POOL in prompt(work, "/srv/app/db.py: postgres connection pool exhausted at start")


def test_off_with_one_config_key_or_the_environment(
    store: MemoryStore, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store)
    write_config({"prompt_recall.enabled": "false"}, store.root)
    assert prompt(work, ASK) == ""
    assert not sessions_dir(store.root).exists()  # nothing was even looked up
    monkeypatch.setenv("ANAMNESIS_PROMPT_RECALL", "on")  # the environment beats config
    assert POOL in prompt(work, ASK)
    write_config({}, store.root)
    monkeypatch.setenv("ANAMNESIS_PROMPT_RECALL", "0")
    assert prompt(work, ASK, session="s2") == ""


def test_a_reflection_session_gets_nothing(
    store: MemoryStore, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(store)
    monkeypatch.setenv(REFLECTION_ENV_GUARD, "1")
    assert prompt(work, ASK) == ""
    assert not sessions_dir(store.root).exists()


def test_no_store_prints_nothing_and_creates_nothing(isolated_home: Path, work: Path) -> None:
    assert prompt(work, ASK) == ""
    assert not isolated_home.exists()


# -- failing open ----------------------------------------------------------------------------


def test_broken_stdin_is_logged_and_adds_nothing(store: MemoryStore) -> None:
    seed(store)
    for garbage in ("{not json", '["a", "list"]', "\x00\x01"):
        done = run_hook("prompt", stdin=garbage)
        assert (done.returncode, done.stdout) == (0, "")
        assert "Traceback" not in done.stderr
    lines = [line for line in logged(store.root).splitlines() if " prompt: " in line]
    assert len(lines) == 3
    assert all("not one JSON object" in line and "; recalled nothing" in line for line in lines)


def test_a_bad_command_line_is_logged(isolated_home: Path) -> None:
    for args in (("--budget", "50"), ("--budget", "x"), ("--format", "xml"), ("--k", "3")):
        done = run_hook("prompt", *args, stdin={"prompt": ASK})
        assert (done.returncode, done.stdout) == (0, ""), args
        assert "bad command line" in done.stderr
    assert f"--budget must be from {MIN_BUDGET} to {MAX_BUDGET}, got 50" in logged(isolated_home)


@pytest.mark.parametrize("where", ["cache", "sessions"])
def test_an_unwritable_cache_adds_nothing_and_is_logged(
    store: MemoryStore, work: Path, make_unwritable: Callable[[Path], None], where: str
) -> None:
    seed(store)
    folder = store.root / "cache" if where == "cache" else sessions_dir(store.root)
    folder.mkdir(parents=True)
    make_unwritable(folder)
    assert "Postgres connection pool" in inject(work, "s1")  # inject still injects
    assert prompt(work, ASK, session="s1") == ""  # it could not be recorded: not shown
    log = logged(store.root)
    assert "inject: cannot record what session 's1' was shown" in log
    assert "prompt: cannot record what session 's1' was shown" in log
    assert "Traceback" not in log


@pytest.mark.parametrize(
    ("content", "shows"),
    [
        (b"{not json", True),
        (b'{"shown": "not a list"}', True),
        (b'{"shown": [1, 2]}', True),
        (b"\xff\xfe", True),
        (None, False),  # a folder where the file should be: nothing can be recorded
    ],
)
def test_a_corrupt_session_record_is_logged_and_started_afresh(
    store: MemoryStore, work: Path, content: bytes | None, shows: bool
) -> None:
    seed(store)
    path = sessions_dir(store.root) / state_name("s1")
    path.parent.mkdir(parents=True)
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    out = prompt(work, ASK, session="s1")
    assert (POOL in out) == shows
    assert "it is started afresh" in logged(store.root)
    if shows:
        assert len(load_shown(store.root, "s1")) == 3  # mended
        assert prompt(work, ASK, session="s1") == ""


def test_a_linked_session_record_is_not_followed(
    store: MemoryStore, work: Path, tmp_path: Path
) -> None:
    seed(store)
    target = tmp_path / "elsewhere.json"
    target.write_text('{"shown": []}')
    path = sessions_dir(store.root) / state_name("s1")
    path.parent.mkdir(parents=True)
    path.symlink_to(target)
    assert POOL in prompt(work, ASK, session="s1")
    assert target.read_text() == '{"shown": []}'  # the link was replaced, not written through
    assert not path.is_symlink()
    assert "symbolic link" in logged(store.root)


@pytest.mark.parametrize(
    "session",
    ["../../escape", "/tmp/absolute", "a/b", "..", ".", "x" * 500, "nul\x00byte", "ünï code",
     "C:\\windows\\path", "-dash-first"],
)  # fmt: skip
def test_a_session_id_never_becomes_a_path(
    store: MemoryStore, work: Path, tmp_path: Path, session: str
) -> None:
    seed(store)
    before = {p for p in tmp_path.rglob("*") if p.is_file()}
    assert POOL in prompt(work, ASK, session=session)
    assert prompt(work, ASK, session=session) == ""  # the session is still remembered
    created = {p for p in tmp_path.rglob("*") if p.is_file()} - before
    records = [p for p in created if p.parent == sessions_dir(store.root)]
    assert len(records) == 1
    assert re.fullmatch(r"h-[0-9a-f]{40}\.json", records[0].name)
    assert all(store.root in p.parents for p in created)
    assert not any("escape" in p.name or "absolute" in p.name for p in created)


def test_the_prompt_path_imports_nothing_heavy(store: MemoryStore, work: Path) -> None:
    seed(store)
    forbidden = ("typer", "rich", "click", "dulwich", "mcp", "ulid", "yaml", "argparse")
    payload = json.dumps({"session_id": "s", "cwd": str(work), "prompt": ASK})
    code = (
        "import sys, io\n"
        "from anamnesis.hooks.__main__ import main\n"
        "out = io.StringIO(); real = sys.stdout; sys.stdout = out\n"
        "main(['prompt'])\n"
        "sys.stdout = real\n"
        f"print(sorted(m for m in {forbidden!r} if m in sys.modules))\n"
        f"print({POOL!r} in out.getvalue())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=payload, capture_output=True, text=True,
        check=True, env=dict(os.environ),
    )  # fmt: skip
    assert done.stdout.split("\n")[:2] == ["[]", "True"], done.stdout + done.stderr


# -- the parts ---------------------------------------------------------------------------------


def test_recall_terms() -> None:
    assert recall_terms(ASK) == ["postgres", "connection", "pool", "exhausted", "workers", "start"]
    assert recall_terms("Don't   retry, the RETRY queue can't keep up!") == [
        "retry",
        "queue",
        "keep",
    ]
    assert recall_terms("fix the pool") == []
    assert recall_terms("/compact now please and thanks") == []
    assert recall_terms(None) == []
    assert len(recall_terms(" ".join(f"word{i}" for i in range(100)))) == 32


def test_slash_commands() -> None:
    assert is_slash_command("/compact")
    assert is_slash_command("  /review 12 and the rest")
    assert not is_slash_command("/etc/hosts is ignored by the resolver")
    assert not is_slash_command("why /compact fails")


def test_shared_words_are_counted_as_the_index_reads_them(store: MemoryStore) -> None:
    note = store.write(type="semantic", title="Flaky tests", project=P,
                       body="Testing the deploy: set busy_timeout; deployments retry.")  # fmt: skip
    # tests/testing/test are one word to the index; deploying/deploy too; busy_timeout is the
    # phrase "busy timeout"; "timeout" alone is a word of its own.
    words = ["tests", "testing", "test", "deploying", "busy_timeout", "timeout", "absent"]
    assert shared_terms([note], words) == [4]
    assert shared_terms([note], []) == [0]
    assert shared_terms([], words) == []


def test_superseded_and_distilled_notes_are_never_added(store: MemoryStore) -> None:
    old = store.write(type="semantic", title="Old pool size", project=P,
                      body="postgres connection pool exhausted at 10 workers")  # fmt: skip
    store.write(type="semantic", title="New pool size", project=P, supersedes=[old.id],
                body="postgres connection pool exhausted at 20 workers")  # fmt: skip
    store.write(type="episodic", title="Distilled", project=P, tags=["reflected"],
                body="postgres connection pool exhausted workers")  # fmt: skip
    terms = recall_terms(ASK)
    selection = select_recall(store, project=P, terms=terms, shown=set(), budget=DEFAULT_BUDGET)
    assert [mem.title for mem in selection.project_notes] == ["New pool size"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    notes=st.lists(st.tuples(st.integers(0, 6000), st.integers(1, 300)), max_size=3),
    budget=st.integers(MIN_BUDGET, MAX_BUDGET),
)
def test_the_budget_always_holds(notes: list[tuple[int, int]], budget: int) -> None:
    mems = [
        Memory(new_id(), "semantic", f"{index}" + "t" * title, "b" * body, project=P)
        for index, (body, title) in enumerate(notes)
    ]
    selection = fit_notes(mems, budget, header=PROMPT_HEADER)
    text = render_inject(selection, header=PROMPT_HEADER)
    assert len(text) <= budget
    assert bool(text) == bool(mems)
    assert len(selection.project_notes) + selection.left_out == len(mems)


def test_settings_are_checked_and_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_recall_setting("prompt_recall.enabled", " Off ") == "false"
    assert check_recall_setting("prompt_recall.enabled", "yes") == "true"
    assert check_recall_setting("prompt_recall.budget", "3000") == "3000"
    for key, value in (("prompt_recall.enabled", "maybe"), ("prompt_recall.budget", "999"),
                       ("prompt_recall.budget", "20000"), ("prompt_recall.budget", "2k"),
                       ("prompt_recall.other", "1")):  # fmt: skip
        with pytest.raises(InvalidRecallSetting, match=re.escape(key)):
            check_recall_setting(key, value)
    assert recall_enabled({}) is True
    assert recall_enabled({"prompt_recall.enabled": False}) is False
    assert recall_enabled({"prompt_recall.enabled": "nonsense"}) is True  # ignored
    assert recall_budget({}) == DEFAULT_BUDGET
    assert recall_budget({"prompt_recall.budget": 4000}) == 4000
    assert recall_budget({"prompt_recall.budget": "50"}) == DEFAULT_BUDGET  # out of bounds
    monkeypatch.setenv("ANAMNESIS_PROMPT_RECALL_BUDGET", "3000")
    monkeypatch.setenv("ANAMNESIS_PROMPT_RECALL", "false")
    assert recall_budget({"prompt_recall.budget": 4000}) == 3000
    assert recall_enabled({"prompt_recall.enabled": True}) is False


def test_old_session_records_are_pruned(tmp_path: Path) -> None:
    home = tmp_path / "home"
    record_shown(home, "old", ["A"])
    stale = time.time() - MAX_AGE_S - 60
    os.utime(sessions_dir(home) / state_name("old"), (stale, stale))
    (sessions_dir(home) / ".left-by-a-killed-write.tmp").write_text("x")
    os.utime(sessions_dir(home) / ".left-by-a-killed-write.tmp", (stale, stale))
    record_shown(home, "recent", ["B"])
    record_shown(home, "recent", ["C"])  # an existing session: no scan
    assert sorted(p.name for p in sessions_dir(home).iterdir()) == ["recent.json"]
    assert load_shown(home, "recent") == {"B", "C"}
    assert load_shown(home, "old") == set()
    assert prune(sessions_dir(home), now=time.time() + MAX_AGE_S + 60) == 1
    assert prune(tmp_path / "no-such-folder") == 0
