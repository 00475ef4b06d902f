"""Supersede chains on the command line: `search --include-superseded`, each result's
``superseded_by``, and `show` printing what a note replaces and what replaced it."""

from __future__ import annotations

from anamnesis.store import MemoryStore
from cli_testing import Env, write


def port_notes(env: Env) -> tuple[str, str, str]:
    """Three notes about the API port, each replacing the one before: oldest first."""
    first = write(env, "API port v1", "The API listens on port 8080")
    second = write(env, "API port v2", "The API port is 9090 now", "--supersedes", first)
    third = write(env, "API port v3", "The API port is 9443 (TLS)", "--supersedes", second)
    return first, second, third


def test_search_hides_replaced_notes_unless_asked(env: Env) -> None:
    first, second, third = port_notes(env)
    hidden = env.run("search", "API port", "--json")
    assert hidden.code == 0, hidden.err
    assert [(h["id"], h["superseded_by"]) for h in hidden.json()] == [(third, [])]
    assert hidden.err_lines == ["anamnesis: keyword search: 1 result"]

    shown = env.run("search", "API port", "--include-superseded", "--json")
    assert shown.code == 0, shown.err
    by_id = {h["id"]: h["superseded_by"] for h in shown.json()}
    assert by_id == {first: [second], second: [third], third: []}
    assert shown.err_lines == ["anamnesis: keyword search: 3 results, 2 superseded"]
    # A word only the oldest note has.
    assert env.run("search", "8080", "--json").json() == []
    old_only = env.run("search", "8080", "--include-superseded", "--json").json()
    assert [(h["id"], h["superseded_by"]) for h in old_only] == [(first, [second])]


def test_the_table_marks_replaced_rows_only_when_they_can_appear(env: Env) -> None:
    first, second, third = port_notes(env)
    plain = env.run("search", "API port")
    header, row = plain.out.splitlines()
    assert header.split() == ["id", "score", "type", "project", "updated", "title"]
    assert row.startswith(third)

    history = env.run("search", "API port", "--include-superseded")
    assert history.code == 0, history.err
    header, *rows = history.out.splitlines()
    assert header.split() == ["id", "score", "type", "project", "updated", "superseded", "by",
                              "title"]  # fmt: skip
    cells = {row.split()[0]: row.split() for row in rows}
    assert set(cells) == {first, second, third}
    assert cells[first][5] == second and cells[first][-3:] == ["API", "port", "v1"]
    assert cells[second][5] == third
    assert cells[third][5] == "-"


def test_show_prints_the_chain_both_ways(env: Env) -> None:
    first, second, third = port_notes(env)
    middle = env.run("show", second)
    assert middle.code == 0, middle.err
    lines = middle.out.splitlines()
    assert f"replaces:    {first}  API port v1" in lines
    assert f"replaced by: {third}  API port v3" in lines
    assert not any(line.startswith("current:") for line in lines)  # its replacement is current

    oldest = env.run("show", first).out.splitlines()
    at = oldest.index(f"replaced by: {second}  API port v2")
    assert oldest[at + 1] == f"{'':13}{third}  API port v3"  # followed to the end
    assert f"current:     {third}  API port v3" in oldest
    assert not any(line.startswith("replaces:") for line in oldest)

    newest = env.run("show", third).out.splitlines()
    at = newest.index(f"replaces:    {second}  API port v2")
    assert newest[at + 1] == f"{'':13}{first}  API port v1"
    assert not any(line.startswith(("replaced by:", "current:")) for line in newest)


def test_show_json_carries_the_chain(env: Env) -> None:
    first, second, third = port_notes(env)
    oldest = env.run("show", first, "--json").json()
    assert oldest["supersedes"] == [] and oldest["superseded_by"] == [second]
    assert oldest["chain"] == {
        "replaces": [],
        "replaced_by": [second, third],
        "latest": [third],
        "missing": [],
        "links": [[second, first], [third, second]],
    }
    newest = env.run("show", third, "--json").json()
    assert newest["superseded_by"] == []
    assert newest["chain"]["replaces"] == [second, first]
    assert newest["chain"]["replaced_by"] == [] and newest["chain"]["latest"] == [third]
    alone = write(env, "Unrelated", "nothing replaces this")
    chain = env.run("show", alone, "--json").json()["chain"]
    assert chain == {"replaces": [], "replaced_by": [], "latest": [alone], "missing": [],
                     "links": []}  # fmt: skip


def test_show_names_deleted_and_looping_links(env: Env) -> None:
    first, second, third = port_notes(env)
    assert env.run("delete", second, "--yes").code == 0
    shown = env.run("show", third)
    assert f"replaces:    {second}  (deleted)" in shown.out.splitlines()
    assert env.run("show", third, "--json").json()["chain"]["missing"] == [second]
    # The oldest note is current again: nothing in the store replaces it any more.
    assert [h["id"] for h in env.run("search", "8080", "--json").json()] == [first]

    with MemoryStore(env.home) as store:  # a loop: only an edit of an existing note makes one
        store.update(first, supersedes=[third])
        store.update(third, supersedes=[first])
    looped = env.run("show", first)
    assert looped.code == 0, looped.err
    assert "current:     none (the supersedes links loop back to this note)" in looped.out
    assert env.run("show", first, "--json").json()["chain"]["latest"] == []
    both = env.run("search", "API port", "--include-superseded", "--json").json()
    assert {h["id"]: h["superseded_by"] for h in both} == {first: [third], third: [first]}
