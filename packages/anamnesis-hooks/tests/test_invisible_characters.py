"""The hooks and invisible characters: what the agent is given never carries a direction
control or a control character raw, and prompt recall reads words as search does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anamnesis.store import MemoryStore
from hooks_testing import checkout, run_hook

P = "github.com/acme/api"
# A right-to-left override: "Release checklist \u202efdp.exe" reads "...exe.pdf" reversed.
DISGUISED = "Release checklist \u202efdp.exe"
RAW = ("\u202e", "\u2066", "\u200f", "\x1b")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return checkout(tmp_path / "clone", "https://github.com/acme/api")


def _assert_display_safe(text: str) -> None:
    assert not [char for char in RAW if char in text], text
    assert "\\u202e" in text


def test_session_start_shows_direction_controls_escaped(isolated_home: Path, work: Path) -> None:
    with MemoryStore(isolated_home) as store:
        store.write(type="procedural", title=DISGUISED, project=P, tags=["\u2066ops\u2069"],
                    body="Run \x1b[2J`make release`\u200f then tag it.")  # fmt: skip
        store.write(type="semantic", title="Global \u202eeton", project="global", body="g")
    for args in ((), ("--format", "json")):
        done = run_hook("inject", *args, stdin={"hook_event_name": "SessionStart",
                                                "session_id": "s", "cwd": str(work)})  # fmt: skip
        assert done.returncode == 0, done.stderr
        block = done.stdout
        if args:
            block = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
        _assert_display_safe(block)
        assert "## [procedural] Release checklist \\u202efdp.exe" in block
        assert "Run \\u001b[2J`make release`\\u200f then tag it." in block


def test_prompt_recall_reads_words_as_search_and_shows_them_escaped(
    isolated_home: Path, work: Path
) -> None:
    hidden = "Data\u00adbase pass\u200bword location"
    with MemoryStore(isolated_home) as store:
        store.write(type="semantic", title=hidden, project=P,
                    body="It lives in the vault under ops/db \u202e(monthly).")  # fmt: skip
        store.write(type="semantic", title="Database password of the replica", project=P,
                    body="Same vault, another path.")  # fmt: skip
    # Each note shares two words with each prompt, once invisible characters are left out.
    asks = ("where do we keep the database password nowadays?",
            "where do we keep the data\u200bbase pass\u2060word nowadays?")  # fmt: skip
    for session, ask in enumerate(asks):
        done = run_hook("prompt", stdin={"hook_event_name": "UserPromptSubmit",
                                         "session_id": f"s{session}", "cwd": str(work),
                                         "prompt": ask})  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert hidden in done.stdout, ask
        assert "Database password of the replica" in done.stdout, ask
        _assert_display_safe(done.stdout)
