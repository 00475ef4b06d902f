"""The store at scale (issue 29): keyword search within one project and over the whole
store, the index's size beside the notes', and `anamnesis list --limit 0 --json`, side by
side with another checkout of the code (say, the commit before).

    uv run python -m bench.scale.store_scale_bench [--notes 100000] [--projects 40]
        [--list-sizes 2000,20000] [--baseline DIR] [--data DIR]

The notes are the store bench's topical corpus (``corpus.generate``), spread over
``--projects`` projects. Each checkout gets its own store folder of hard links to the same
note files, so the two read the same bytes and each builds its own index. With ``--data``
the notes and both indexes are kept there and reused by the next run (building 100,000
notes' index takes minutes); without, they go to a temporary folder.

* search: the store bench's 200 queries, k=8, keyword mode, each over the whole store and
  within one project (query i in project i mod P), ``--rounds`` times, by one process of
  each checkout (``bench.common.search_scale_driver``, its store open), the two taking turns search
  by search, so both meet the same load from whatever else runs on the machine; median and
  p95 of every search's time, and whether both checkouts returned the same notes in the
  same order for every search;
* index: index.db's size (the first open builds it: that time too) beside the notes' files;
* list: `anamnesis list --limit 0 --json` as a process at each of ``--list-sizes`` and at
  ``--notes``: wall time and peak RSS (from wait4), the index built by a run before, and
  whether both checkouts printed the very same bytes;
* whole-store commands at ``--notes``: `anamnesis export` (JSONL and markdown) and
  `anamnesis dedup --json` (a dry run), each a process: wall time, peak RSS, and whether
  both checkouts wrote the same bytes (``--no-commands`` skips them).

Not in ``bench.suites``: `nox -s bench` does not run it (minutes at 100,000 notes).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.common import corpus
from bench.common.places import DEVMEMORY, REPO
from bench.common.processes import driver, run_measured, running
from bench.common.stats import p95
from bench.common.store_driver import materialize_notes


def notes_folder(data: Path, notes: int, projects: int) -> Path:
    """``notes`` corpus notes over ``projects`` projects, written once under ``data``."""
    folder = data / f"notes-{notes}-{projects}"
    done = folder / ".complete"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        generated = corpus.generate(notes, projects=projects)
        while chunk := list(itertools.islice(generated, 5000)):  # a chunk in memory at once
            materialize_notes(folder, [asdict(note) for note in chunk])
        done.touch()
    return folder


def store_folder(notes: Path, who: str) -> Path:
    """A store of hard links to ``notes``' files, for one checkout (reused when there)."""
    store = notes.parent / f"{notes.name}-{who}"
    if not store.exists():
        shutil.copytree(notes / "memory", store / "memory", copy_function=os.link)
    return store


def notes_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in (folder / "memory").rglob("*.md"))


class Searcher:
    """One checkout's search driver (``bench.common.search_scale_driver``) as a process, its store
    open, answering one search at a time."""

    def __init__(self, code: Path, store: Path) -> None:
        env = {**running(code), "ANAMNESIS_HOME": str(store)}
        self.process = subprocess.Popen(
            [*driver("search_scale_driver", flags=("-W", "ignore")), str(store)], env=env,
            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.open_s = float(self._answer()["open_s"])

    def search(self, project: str, query: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{project}\t{query}\n")
        self.process.stdin.flush()
        return self._answer()

    def close(self) -> int:
        """Ends the driver; the index's size in bytes."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        size = int(self._answer()["index_bytes"])
        self.process.wait()
        return size

    def _answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"the search driver stopped (exit {self.process.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer


def search(
    codes: dict[str, Path], notes: Path, projects: int, rounds: int
) -> dict[str, dict[str, Any]]:
    """Every query over the whole store and within one project (query i in project i mod
    ``projects``), ``rounds`` times, each search run by every checkout in turn (the first
    to go alternating), so that all meet the same load."""
    names = corpus.project_names(projects)
    searchers = {who: Searcher(code, store_folder(notes, who)) for who, code in codes.items()}
    out: dict[str, dict[str, Any]] = {
        who: {"open_s": searcher.open_s, "whole_s": [], "within_s": [], "whole_ids": [],
              "within_ids": []}
        for who, searcher in searchers.items()
    }  # fmt: skip
    order = list(searchers)
    for round_number in range(rounds):
        for number, query in enumerate(corpus.queries("topical")):
            for key, project in (("whole", ""), ("within", names[number % projects])):
                order.reverse()
                for who in order:
                    answer = searchers[who].search(project, query)
                    out[who][f"{key}_s"].append(answer["seconds"])
                    if round_number == 0:
                        out[who][f"{key}_ids"].append(answer["ids"])
    for who, searcher in searchers.items():
        out[who]["index_bytes"] = searcher.close()
    return out


def _cli(code: Path, store: Path) -> tuple[dict[str, str], list[str]]:
    """The environment and command line of `anamnesis` from the checkout at ``code`` on
    ``store``."""
    env = {**running(code), "ANAMNESIS_HOME": str(store), "ANAMNESIS_SEARCH_MODE": "keyword"}
    return env, [sys.executable, "-W", "ignore", "-m", "anamnesis.cli"]


def list_json(code: Path, store: Path) -> dict[str, Any]:
    """`anamnesis list --limit 0 --json` as a process: wall time, peak RSS, output digest."""
    env, command = _cli(code, store)
    # The index is built (and timed) elsewhere: the first process builds it.
    subprocess.run([*command, "list", "--limit", "1"], env=env, capture_output=True, check=True)
    ran = run_measured([*command, "list", "--limit", "0", "--json"], env)
    if ran.code != 0:
        raise SystemExit(f"`anamnesis list` failed for {code}")
    digest, size, notes = _digest_and_count(ran.out.encode())
    return {"seconds": ran.seconds, "rss_mb": ran.rss_mb, "sha256": digest,
            "bytes": size, "notes": notes}  # fmt: skip


def whole_store_command(code: Path, store: Path, name: str) -> dict[str, Any]:
    """One whole-store command (``export-jsonl``, ``export-markdown``, ``dedup``) as a
    process: wall time, peak RSS, and a digest of what it wrote (the export's files, or
    what it printed)."""
    env, command = _cli(code, store)
    with tempfile.TemporaryDirectory(prefix="anamnesis-export-") as tmp:
        out = Path(tmp) / "out"
        args = {
            "export-jsonl": ["export", str(out)],
            "export-markdown": ["export", "--format", "markdown", str(out)],
            "dedup": ["dedup", "--json"],
        }[name]
        ran = run_measured([*command, *args], env)
        if ran.code != 0:
            raise SystemExit(f"`anamnesis {' '.join(args)}` failed for {code}: {ran.err}")
        digest = hashlib.sha256()
        if name == "dedup":
            digest.update(ran.out.encode())
        else:
            for path in sorted(out.rglob("*")):
                if path.is_file():
                    digest.update(str(path.relative_to(out)).encode() + b"\0")
                    digest.update(path.read_bytes())
    return {"seconds": ran.seconds, "rss_mb": ran.rss_mb, "sha256": digest.hexdigest()}


def _digest_and_count(text: bytes) -> tuple[str, int, int]:
    """The output's digest and size, and how many notes its JSON array holds (parsed, so
    a stream that is not one valid JSON document fails here)."""
    return hashlib.sha256(text).hexdigest(), len(text), len(json.loads(text))


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.2f} / {p95(values) * 1000:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=100_000)
    parser.add_argument("--projects", type=int, default=40)
    parser.add_argument("--list-sizes", default="2000,20000", help="also list these sizes")
    parser.add_argument("--rounds", type=int, default=2, help="searches of each query")
    parser.add_argument("--baseline", type=Path, help="another checkout, run side by side")
    parser.add_argument("--data", type=Path, help="keep notes and indexes here, reused")
    parser.add_argument("--no-commands", dest="commands", action="store_false",
                        help="skip export and dedup")  # fmt: skip
    args = parser.parse_args()
    if not DEVMEMORY.is_dir():
        print(f"{DEVMEMORY} not found (set BENCH_SHARED): a small fallback corpus"
              " stands in", file=sys.stderr)  # fmt: skip
    codes = {"ours": REPO}
    if args.baseline is not None:
        codes["baseline"] = args.baseline.resolve()
    with tempfile.TemporaryDirectory(prefix="anamnesis-store-scale-") as tmp:
        data = args.data or Path(tmp)
        data.mkdir(parents=True, exist_ok=True)
        report(args, codes, data)


def report(args: argparse.Namespace, codes: dict[str, Path], data: Path) -> None:
    notes = notes_folder(data, args.notes, args.projects)
    size = notes_bytes(notes)
    print(f"== {args.notes} notes over {args.projects} projects, {size / 1e6:.1f} MB of notes ==")
    searched = search(codes, notes, args.projects, args.rounds)
    for who, found in searched.items():
        line = {key: found[key] for key in ("open_s", "index_bytes")}
        for key in ("whole", "within"):
            values = found[f"{key}_s"]
            line[f"{key}_median_ms"] = statistics.median(values) * 1000
            line[f"{key}_p95_ms"] = p95(values) * 1000
        print(json.dumps({"bench": "store-scale", "code": who, **line}), flush=True)
        print(f"{who:>9}: whole store {ms(found['whole_s'])}, within a project "
              f"{ms(found['within_s'])}; index.db {found['index_bytes'] / 1e6:.1f} MB "
              f"({found['index_bytes'] / size:.2f} of the notes), first open "
              f"{found['open_s']:.1f} s")  # fmt: skip
    if len(searched) == 2:
        ours, base = searched["ours"], searched["baseline"]
        for key in ("whole_ids", "within_ids"):
            same = sum(a == b for a, b in zip(ours[key], base[key], strict=True))
            print(f"  same answers ({key[:-4]}): {same} of {len(ours[key])} searches")
    sizes = [int(n) for n in args.list_sizes.split(",") if n] + [args.notes]
    for count in sizes:
        folder = notes if count == args.notes else notes_folder(data, count, args.projects)
        listed = {who: list_json(code, store_folder(folder, who)) for who, code in codes.items()}
        for who, result in listed.items():
            print(json.dumps({"bench": "store-scale-list", "notes": count, "code": who,
                              **result}), flush=True)  # fmt: skip
        cells = [f"{who} {r['seconds']:.2f} s, {r['rss_mb']:.0f} MB" for who, r in listed.items()]
        same = len({r["sha256"] for r in listed.values()}) == 1
        print(f"  list --limit 0 --json at {count}: " + " | ".join(cells)
              + (" | identical output" if same and len(listed) == 2 else ""))  # fmt: skip
    if not args.commands:
        return
    for name in ("export-jsonl", "export-markdown", "dedup"):
        ran = {who: whole_store_command(code, store_folder(notes, who), name)
               for who, code in codes.items()}  # fmt: skip
        for who, result in ran.items():
            print(json.dumps({"bench": "store-scale-command", "command": name,
                              "notes": args.notes, "code": who, **result}), flush=True)  # fmt: skip
        cells = [f"{who} {r['seconds']:.2f} s, {r['rss_mb']:.0f} MB" for who, r in ran.items()]
        same = len({r["sha256"] for r in ran.values()}) == 1
        print(f"  {name} at {args.notes}: " + " | ".join(cells)
              + (" | identical output" if same and len(ran) == 2 else ""))  # fmt: skip


if __name__ == "__main__":
    main()
