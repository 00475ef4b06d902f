"""The recall gate: a merge that would lose a self-probe or an approved eval case is
refused (and says which), the others still land, and the user's store is only read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.fake_llm import GITHUB_TOKEN

from anamnesis.reflect.merge import run_merge
from anamnesis.reflect.merge_candidates import document_frequencies
from anamnesis.reflect.merge_gate import RARE_PROBE, TITLE_PROBE, Sandbox, probes_for
from anamnesis.reflect.merge_report import APPLIED, REFUSED_BY_GATE
from anamnesis.store import EvalCase, MemoryStore
from test_merge_support import (
    SETTINGS,
    UNRELATED,
    ScriptedProvider,
    groups_reply,
    keep,
    snapshot,
    synthesize,
    write,
)

DEPLOY = "Run make deploy-staging from the repo root: it builds the image, pushes it and "
DEPLOY += "restarts the pods."


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "store") as opened:
        for title, body in UNRELATED:
            write(opened, title, body)
        yield opened


def test_a_synthesis_that_drops_a_notes_rare_words_is_refused(store: MemoryStore) -> None:
    rich = write(
        store,
        "Deploy the staging cluster",
        DEPLOY + " Ask for the zephyrine quillfeather marrowbone role first.",
    )
    plain = write(store, "Deploy to the staging cluster", DEPLOY)
    before = snapshot(store)
    reply = groups_reply(synthesize([rich, plain], "Deploy to staging", DEPLOY, ["deploy"]))
    report = run_merge(store, ScriptedProvider(reply), SETTINGS, apply=True)
    (outcome,) = report.groups
    assert outcome.status == REFUSED_BY_GATE and outcome.note_id == ""
    assert [(loss.kind, loss.qid) for loss in outcome.losses] == [(RARE_PROBE, f"{rich.id}:rare")]
    # Its three rarest words, all held by that note alone (ties alphabetical).
    assert outcome.losses[0].query == "ask first marrowbone"
    assert report.written == []
    assert snapshot(store) == before  # gating only ever read the user's store
    assert [n.id for n in store.search("zephyrine")] == [rich.id]


def test_a_synthesis_that_keeps_every_fact_passes(store: MemoryStore) -> None:
    rich = write(
        store,
        "Deploy the staging cluster",
        DEPLOY + " Ask for the zephyrine quillfeather marrowbone role first.",
    )
    plain = write(store, "Deploy to the staging cluster", DEPLOY)
    body = DEPLOY + " First ask for the zephyrine quillfeather marrowbone role."
    reply = groups_reply(synthesize([rich, plain], "Deploy the staging cluster", body, []))
    report = run_merge(store, ScriptedProvider(reply), SETTINGS, apply=True)
    (outcome,) = report.groups
    assert outcome.status == APPLIED and outcome.losses == ()
    assert [n.id for n in store.search("zephyrine")] == [outcome.note_id]


def _signing_notes(store: MemoryStore) -> tuple[str, str]:
    """Two signing-key notes; only the first mentions the ferrocene dashboard, a word
    three other notes hold too (so it is not among the note's rarest)."""
    body = "Run scripts/rotate-keys and update the vault path; tokens signed before stay valid."
    full = write(store, "Rotate the signing key", body + " Check the ferrocene dashboard after.")
    short = write(store, "Rotate the signing keys", body)
    for topic in ("Grafana", "Alerts", "Uptime"):
        write(store, f"{topic} panels", f"{topic} lives on the ferrocene dashboard; check it.")
    return full.id, short.id


@pytest.mark.parametrize("approved", [True, False])
def test_an_approved_case_that_would_lose_its_hit_blocks_the_merge(
    store: MemoryStore, approved: bool
) -> None:
    full, short = _signing_notes(store)
    case = EvalCase("ferro-1", "ferrocene dashboard check", (full,), None, approved, "symptom")
    other = EvalCase("tmux-1", "restore tmux panes", ("01ARZ3NDEKTSV4RRFFQ69G5FAV",), None)
    notes = {note.id: note for note in store.list()}
    reply = groups_reply(keep(notes[short], notes[full]))
    report = run_merge(store, ScriptedProvider(reply), SETTINGS, apply=True, cases=[case, other])
    (outcome,) = report.groups
    if approved:
        assert outcome.status == REFUSED_BY_GATE
        assert [(loss.kind, loss.qid) for loss in outcome.losses] == [("case", "ferro-1")]
        assert store.get(short).supersedes == []
    else:  # only approved cases count; the self-probes alone let this merge through
        assert outcome.status == APPLIED
        assert store.get(short).supersedes == [full]


def test_merges_are_gated_one_by_one(store: MemoryStore) -> None:
    rich = write(
        store,
        "Deploy the staging cluster",
        DEPLOY + " Ask for the zephyrine quillfeather marrowbone role first.",
    )
    plain = write(store, "Deploy to the staging cluster", DEPLOY)
    full, short = _signing_notes(store)
    notes = {note.id: note for note in store.list()}
    reply = groups_reply(keep(plain, rich), keep(notes[full], notes[short]))
    report = run_merge(store, ScriptedProvider(reply), SETTINGS, apply=True)
    assert [(g.ids, g.status) for g in report.groups] == [
        ((plain.id, rich.id), REFUSED_BY_GATE),
        ((full, short), APPLIED),
    ]
    assert report.written == [full]
    assert store.get(full).supersedes == [short] and store.get(plain.id).supersedes == []


def test_the_sandbox_is_a_copy_and_goes_away(store: MemoryStore) -> None:
    before = snapshot(store)
    with Sandbox(store) as sandbox:
        assert sandbox.root != store.root
        copied = {note.id: note.body for note in sandbox.store.list()}
        assert copied == {note.id: note.body for note in store.list()}
        sandbox.store.delete(next(iter(copied)))
    assert not sandbox.root.exists()
    assert snapshot(store) == before


def test_a_secret_left_in_a_note_file_does_not_block_its_merge(store: MemoryStore) -> None:
    first = write(store, "Deploy with the CI token", DEPLOY + " Export the CI token first.")
    second = write(store, "Deploy using the CI token", DEPLOY + " Export the CI token SECRET.")
    path = store.file_of(second.id)  # planted behind the store's back, as a hand edit would
    path.write_text(path.read_text().replace("SECRET", GITHUB_TOKEN))
    planted = store.get(second.id)
    probes = probes_for([planted], document_frequencies(store.list()))
    assert [p.kind for p in probes] == [TITLE_PROBE, RARE_PROBE]
    assert all(GITHUB_TOKEN.lower() not in p.query.lower() for p in probes)
    assert "redacted" not in probes[1].query
    body = DEPLOY + " Export the CI token first."
    reply = groups_reply(synthesize([first, planted], "Deploy with the CI token", body, []))
    report = run_merge(store, ScriptedProvider(reply), SETTINGS, apply=True)
    assert [g.status for g in report.groups] == [APPLIED]
