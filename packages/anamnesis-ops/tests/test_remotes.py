"""Several remotes in ops: routing and why, pins, the mirror cycle through a codec (masking
first), the offline state, and a home with one remote exactly as before. Real stores,
real bare remotes made with dulwich."""

from __future__ import annotations

import base64
import importlib.util
from pathlib import Path

import pytest
from anamnesis_testsupport.repos import bare_remote, every_blob, tip_files

from anamnesis.ops import (
    CodecError,
    Home,
    PlainCodec,
    RemoteSpec,
    add_remote,
    remotes_state,
    run_sync,
    sync_with,
    which_remote,
)
from anamnesis.ops.remotes.mirror import MirrorSync
from anamnesis.store import sync_cycle, write_config

SECRET = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"  # synthetic, GitHub's token shape


def home_with(tmp_path: Path, name: str, default: Path | None, *specs: RemoteSpec) -> Home:
    root = tmp_path / name
    config: dict[str, object] = {"machine_id": name}
    if default is not None:
        config["remote"] = str(default)
    write_config(config, root)
    home = Home(root)
    for spec in specs:
        add_remote(home, spec)
    return home


def test_which_remote_says_why(tmp_path: Path) -> None:
    personal, team = bare_remote(tmp_path / "me.git"), bare_remote(tmp_path / "team.git")
    home = home_with(
        tmp_path, "laptop", personal,
        RemoteSpec("team", str(team), projects=("acme/*",), scopes=("project",)),
        RemoteSpec("globals", str(team), scopes=("global",), tags=("shared",)),
    )  # fmt: skip
    with home.open_store() as store:
        acme = store.write(type="semantic", title="a", body="b", project="acme/web")
        shared = store.write(type="semantic", title="c", body="d", tags=["shared"])
        rest = store.write(type="semantic", title="e", body="f", tags=["shared"], project="x")
        local = store.write(type="semantic", title="g", body="h", scope="machine-local")
        routes = {n.id: which_remote(home, store.file_of(n.id)) for n in (acme, shared, rest)}
        assert routes[acme.id].remote == "team" and "acme/*" in routes[acme.id].why
        assert routes[shared.id].remote == "globals"
        assert routes[rest.id].remote == "default" and "takes the rest" in routes[rest.id].why
        assert which_remote(home, store.file_of(local.id)).remote is None
        assert "machine-local" in which_remote(home, store.file_of(local.id)).why
        run_sync(home, store)
        pinned = which_remote(home, store.file_of(acme.id))
        assert pinned.pinned and pinned.remote == "team" and "pinned" in pinned.why
    states = {state.name: state.as_dict() for state in remotes_state(home)}
    assert list(states) == ["default", "team", "globals"]
    assert (states["team"]["pinned"], states["globals"]["pinned"]) == (1, 1)
    assert states["team"]["initialized"] is True and states["team"]["projects"] == ["acme/*"]


def test_a_secret_is_masked_before_a_named_remote_gets_it(tmp_path: Path) -> None:
    personal, team = bare_remote(tmp_path / "me.git"), bare_remote(tmp_path / "team.git")
    home = home_with(tmp_path, "laptop", personal, RemoteSpec("team", str(team), tags=("t",)))
    with home.open_store() as store:
        note = store.write(
            type="semantic", title="Deploy", body="the key is in the vault", tags=["t"]
        )
        run_sync(home, store)
        path = store.file_of(note.id)  # typed by hand, in an editor: nothing masked it yet
        path.write_text(path.read_text().replace("is in the vault", f"is {SECRET}"))
        report = run_sync(home, store)
    [team_report] = report.remotes
    assert [found.path for found in team_report.masked] == [str(path)]
    assert not any(SECRET.encode() in blob for blob in every_blob(team))
    assert not any(SECRET.encode() in blob for blob in every_blob(personal))
    assert any(b"[REDACTED" in blob for blob in tip_files(team).values())


class Base64Codec:
    """A stand-in for an encrypting codec: no plain note text in the mirror."""

    def mirror_path(self, rel: str) -> str:
        return rel + ".b64"

    def note_path(self, mirror_rel: str) -> str | None:
        return mirror_rel.removesuffix(".b64") if mirror_rel.endswith(".md.b64") else None

    def encode(self, rel: str, plain: bytes, current: bytes | None) -> bytes:
        encoded = base64.b64encode(plain)
        return current if current == encoded else encoded

    def decode(self, mirror_rel: str, data: bytes) -> bytes:
        try:
            return base64.b64decode(data, validate=True)
        except ValueError as exc:
            raise CodecError(f"{mirror_rel}: not base64") from exc

    def meta_files(self) -> dict[str, bytes]:
        return {".anamnesis/format": b"base64\n"}

    def save(self) -> None:
        return None


def test_the_mirror_cycle_goes_through_the_remotes_codec(tmp_path: Path) -> None:
    team = bare_remote(tmp_path / "team.git")
    spec = RemoteSpec("team", str(team), tags=("t",))
    alice = home_with(tmp_path, "alice", None, spec)
    bob = home_with(tmp_path, "bob", None, spec)

    def cycle(home: Home) -> tuple[str | None, tuple[str, ...]]:
        with home.open_store() as store:
            mirror = MirrorSync(home, spec, Base64Codec(), home.mirror_backend(spec))
            done = sync_cycle(store, mirror)
            return done.result.head, done.result.changed

    with alice.open_store() as store:
        note = store.write(type="semantic", title="Sealed", body="plain words here", tags=["t"])
    head, _ = cycle(alice)
    tree = tip_files(team)
    assert set(tree) == {f"semantic/{note.id}.md.b64", ".anamnesis/format"}
    assert not any(b"plain words here" in blob for blob in every_blob(team))
    assert cycle(alice)[0] == head  # a no-op stays a no-op: nothing encoded anew
    _, changed = cycle(bob)
    assert changed == (f"semantic/{note.id}.md",)
    with bob.open_store() as store:
        assert store.get(note.id).body.strip() == "plain words here"  # reindexed
    # Plain mirrors keep each note as it is.
    assert PlainCodec().mirror_path("semantic/X.md") == "semantic/X.md"


@pytest.mark.skipif(
    importlib.util.find_spec("anamnesis.ops.remotes.sealed") is not None,
    reason="this copy can encrypt",
)
def test_an_encrypted_remote_without_encryption_pushes_nothing(tmp_path: Path) -> None:
    personal, vault = bare_remote(tmp_path / "me.git"), bare_remote(tmp_path / "vault.git")
    home = home_with(
        tmp_path, "laptop", personal, RemoteSpec("vault", str(vault), tags=("v",), encrypt=True)
    )
    with home.open_store() as store:
        store.write(type="semantic", title="Secret plan", body="plain", tags=["v"])
        mine = store.write(type="semantic", title="Mine", body="mine")
        report = run_sync(home, store)
    [vault_report] = report.as_dict()["remotes"]
    assert vault_report["encrypted"] is True and "cannot encrypt" in vault_report["remote_error"]
    assert tip_files(vault, none_pushed_ok=True) == {}
    assert list(tip_files(personal)) == [f"semantic/{mine.id}.md"]


def test_one_remote_is_exactly_as_before(tmp_path: Path) -> None:
    personal = bare_remote(tmp_path / "me.git")
    home = home_with(tmp_path, "laptop", personal)
    assert home.sync_backend().owns is None
    with home.open_store() as store:
        store.write(type="semantic", title="t", body="b")
        report = run_sync(home, store).as_dict()
    assert "remotes" not in report and report["pushed"] is True
    assert not home.layout.remotes_dir.exists()  # no pins, no mirrors


def test_a_backend_kept_across_cycles_syncs_every_remote_and_leaks_nothing(
    tmp_path: Path,
) -> None:
    team, alice_own, bob_own = (bare_remote(tmp_path / f"{n}.git") for n in ("t", "a", "b"))
    alice = home_with(
        tmp_path, "alice", alice_own, RemoteSpec("team", str(team), projects=("acme",))
    )
    # Bob's rule would not take Alice's note: only its pin (pulled from the team) does.
    bob = home_with(tmp_path, "bob", bob_own, RemoteSpec("team", str(team), projects=("other",)))
    with bob.open_store() as store:
        kept = bob.sync_backend()  # as the MCP server keeps one for its sync tool
        sync_with(store, kept, machine_id="bob")
        with alice.open_store() as theirs:
            note = theirs.write(type="semantic", title="Acme", body="port 8080", project="acme")
            run_sync(alice, theirs)
        report = sync_with(store, kept, machine_id="bob")
        assert [named.name for named in report.remotes] == ["team"]
        assert store.get(note.id).body.strip() == "port 8080"
        store.update(note.id, body="port 9090")
        sync_with(store, kept, machine_id="bob")
    assert not any(note.id in path for path in tip_files(bob_own, none_pushed_ok=True))
    assert any(b"port 9090" in blob for blob in tip_files(team).values())
