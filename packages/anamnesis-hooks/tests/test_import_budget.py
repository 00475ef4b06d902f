"""What each hook process loads: a session waits on inject, prompt and capture, so each
stays within the modules it loaded before issue 39's redesign (the ceiling), and none loads
a heavy library it does not use.

Modules are counted, not timed (a timed test fails on a busy machine and proves nothing on
an idle one): the count is the same on every run, and `bench/` measures the time. Only our
own modules count, package ``__init__``s excluded (a folder that shows a room costs one
nearly empty module, not a cost worth a ceiling); third-party packages are named.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from anamnesis_testsupport.checkouts import checkout

from anamnesis.store import MemoryStore

# Our modules each hook loaded on b6e6586, the commit before the redesign; and prompt's two
# more since issue 42, whose blocks of notes need code no hook had: whether a note has
# expired or is due for review (the store's ``note.validity``) and who wrote it
# (``note.provenance``). Inject had room for both under its ceiling.
CEILING = {"inject": 40, "prompt": 45, "capture": 20}
# Code every hook loaded then too, in a file of its own since: the hooks' table and their
# runners were the dispatcher's own (``__main__``), the store's public-names reader its
# ``__init__``, and starting a detached process was hooks.background's own (now the store's
# ``detached``, shared with the CLI's background embedder), and where Claude Code runs each
# hook was the hooks' table's own (now the table of agents'); reading a transcript's lines was
# transcript.py's own (now ``agents.session_lines``, shared with the other agents' readers);
# the line under each note's title was the memory block's own (now ``ops.provenance_marker``).
# Not counted: a file is not a cost, what it holds is.
SPLIT_OUT = {
    "anamnesis.ops.provenance_marker",
    "anamnesis.hooks.agents.session_lines",
    "anamnesis.hooks.registry",
    "anamnesis.hooks.agents.table",
    "anamnesis.hooks.runners",
    "anamnesis.store.exports",
    "anamnesis.store.detached",
}
# Modules a feature added since, each with its reason: counted out like SPLIT_OUT, so the
# ceiling still holds everything else to what it was. Each must still be loaded (an
# allowance nothing needs any more is reported).
ADDED = {
    "anamnesis.store.usage.usage_log": "issue 42: which notes a session was given, recorded "
    "(sqlite3 only; inject and prompt each write one run)",
    "anamnesis.store.sqlite_wal": "a new SQLite file (the index, the usage log) switched to "
    "WAL mode with a bounded retry when two processes make it at once (sqlite3 only)",
}
# What only the background sync may load: git, and YAML to mask what goes out.
SYNC_ONLY = {"dulwich", "yaml", "ulid"}
NEVER = {"mcp", "typer", "click", "rich", "pydantic", "anyio", "starlette", "uvicorn",
         "jinja2", "numpy", "onnxruntime", "tokenizers", "sqlite_vec"}  # fmt: skip

PROBE = """
import json, sys
from anamnesis.hooks.__main__ import main
code = main(sys.argv[1:])
ours = sorted(
    name for name, module in list(sys.modules.items())
    if name.split(".")[0] == "anamnesis"
    and not (getattr(module, "__file__", None) or "").endswith("__init__.py")
)
third = sorted({
    name.split(".")[0] for name, module in list(sys.modules.items())
    if "site-packages" in (getattr(module, "__file__", None) or "")
})
print(json.dumps({"code": code, "ours": ours, "third": third}), file=sys.stderr)
"""


def loaded(hook: str, *args: str, stdin: dict[str, str]) -> dict[str, object]:
    """Run ``hook`` in a process of its own and report what it loaded."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, hook, *args],
        input=json.dumps(stdin).encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    report: dict[str, object] = json.loads(done.stderr.decode().strip().splitlines()[-1])
    assert report["code"] == 0, done.stderr.decode()
    return report


@pytest.fixture
def session(isolated_home: Path, tmp_path: Path) -> dict[str, str]:
    with MemoryStore(isolated_home) as store:
        store.write(type="semantic", title="Deploy steps", body="run the deploy script slowly")
    transcript = tmp_path / "t.jsonl"
    line = {"type": "user", "cwd": str(tmp_path), "message": {"content": "deploy it now"}}
    transcript.write_text(json.dumps(line) + "\n")
    cwd = checkout(tmp_path / "src" / "api", "git@github.com:acme/api.git")
    return {
        "cwd": str(cwd),
        "session_id": "s1",
        "transcript_path": str(transcript),
        "prompt": "how do we run the deploy script safely",
    }


@pytest.mark.parametrize(
    ("hook", "args"), [("inject", ()), ("prompt", ()), ("capture", ("--no-sync",))]
)
def test_a_hook_a_session_waits_on_stays_within_its_modules(
    hook: str, args: tuple[str, ...], session: dict[str, str]
) -> None:
    report = loaded(hook, *args, stdin=session)
    loaded_ours = report["ours"]
    assert isinstance(loaded_ours, list)
    ours = [name for name in loaded_ours if name not in SPLIT_OUT | ADDED.keys()]
    assert len(ours) <= CEILING[hook], f"{hook} loads {len(ours)} of our modules: {ours}"
    if hook in ("inject", "prompt"):
        assert ADDED.keys() <= set(loaded_ours), "an allowance nothing loads: remove it"
    assert report["third"] == [], f"{hook} loads {report['third']}"


def test_the_background_sync_loads_git_but_nothing_of_the_front_ends(
    session: dict[str, str],
) -> None:
    report = loaded("sync", "--quiet", "--no-import", stdin=session)
    third = set(report["third"])  # type: ignore[call-overload]
    assert "dulwich" in third  # it did sync: this process was the worker
    assert third <= SYNC_ONLY and not third & NEVER, third


def test_the_probe_sees_a_module_loaded(session: dict[str, str]) -> None:
    """The counts above can fail: a hook that loaded more would be seen (here, prompt
    loads more than inject, and the sync loads git)."""
    inject = loaded("inject", stdin=session)["ours"]
    prompt = loaded("prompt", stdin=session)["ours"]
    assert isinstance(inject, list) and isinstance(prompt, list)
    assert set(prompt) - set(inject)
