"""What the provenance markers cost: the line under each note's title in the session start's
block and in prompt recall, before (the meta line) and after (the marker), in characters.

    uv run python -m bench.studies.block_markers --baseline /tmp/base [--notes 2000]
        [--budgets 9000,4000] [--global-share 0.05] [--size 300] [--keep DIR]

(``git worktree add /tmp/base <commit before markers>`` makes the baseline checkout.)

A store of ``--notes`` notes, as a team's store looks after months of use: the text grows
from the devmemory notes (``bench.common.corpus``, topical, bodies of 300-500 characters
(``--size``): real captured sessions' summaries are 140-420, devmemory's notes 215 at the
median), in devmemory's projects with one note in twenty global (``--global-share``); who
wrote each note, where and when is drawn (seeded): episodic notes are captured sessions
(Claude Code's, one in three Codex's), durable ones a person's (some through an agent's
``memory_write``), a reflection's, a merge's or an import's; three machines, this one
writing most; ages up to two years, most recent; some notes reviewed by a person, some
with a ``review_after`` (half of them due).

Then, for each checkout (ours, and ``--baseline``'s), the hooks as processes (Claude Code's,
on this machine): the SessionStart block of every project at each budget, and prompt recall
for devmemory's queries that name a project (each in its project), once as a session's
first block and once as a later one (a session shown notes before: ours leaves the markers'
legend out of that one). Reported: the characters of each note's meta line or marker
(median, mean, p90), each block's characters, the notes shown, cut short and left out, and
every note a block showed before and not now.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from anamnesis.store import Memory, MemoryStore, new_id
from bench.common.corpus import generate
from bench.common.places import DEVMEMORY, REPO
from bench.common.processes import running
from bench.common.stats import p95

THIS_MACHINE = "workstation"
MACHINES = ((THIS_MACHINE, 0.6), ("laptop-2", 0.3), ("ci-box", 0.1))
# Durable notes: (prov_source, prov_agent, share). Episodic notes are captured sessions.
DURABLE = (
    ("human", "", 0.45),
    ("human", "claude-code", 0.10),  # an agent's memory_write, the reader's own
    ("human", "codex", 0.05),
    ("reflection", "", 0.25),
    ("merge", "", 0.05),
    ("import", "", 0.10),
)
NOW = datetime.now(UTC).replace(microsecond=0)
_CUT = "... (cut; memory_search finds note"
_LEFT_OUT = re.compile(r"(\d+) more notes? (?:was|were) left out")


def _pick(rng: random.Random, choices: tuple[tuple[str, float], ...]) -> str:
    return rng.choices([c for c, _ in choices], weights=[w for _, w in choices])[0]


def build_store(
    home: Path, count: int, global_share: float, *, size: int = 300, seed: int = 7
) -> list[str]:
    """``count`` notes in ``home`` (see the module's docstring), ``global_share`` of them
    global, bodies of ``size`` to ``size`` + 200 characters; the projects, busiest first."""
    rng = random.Random(seed)
    projects = sorted({n.project for n in generate(300, size=0)} - {"global"})
    notes = []
    for text in generate(count, size=size, seed=seed):
        project = text.project if text.project != "global" else rng.choice(projects)
        if rng.random() < global_share:
            project = "global"
        updated = NOW - timedelta(days=min(rng.expovariate(1 / 60), 700), hours=rng.random() * 24)
        stamp = updated.isoformat(timespec="seconds")
        if text.type == "episodic":
            source, agent = "session-end", "codex" if rng.random() < 1 / 3 else "claude-code"
        else:
            picked = rng.choices(DURABLE, weights=[share for *_, share in DURABLE])[0]
            source, agent = picked[0], picked[1]
        reviewed = ""
        if source in ("reflection", "merge") and rng.random() < 0.3:
            reviewed = (updated + timedelta(days=1)).isoformat(timespec="seconds")
        review_after = ""
        if text.type != "episodic" and rng.random() < 0.08:
            review_after = (NOW + timedelta(days=rng.choice((-30, 30)))).date().isoformat()
        notes.append(
            Memory(
                id=new_id(), type=text.type, title=text.title, body=text.body,
                project=project, tags=text.tags, machine_id=_pick(rng, MACHINES),
                created_at=stamp, updated_at=stamp, prov_source=source, prov_agent=agent,
                confidence={"reflection": 0.6, "merge": 0.8}.get(source, 1.0),
                reviewed_at=reviewed, review_after=review_after,
            )
        )  # fmt: skip
    with MemoryStore(home) as store:
        for start in range(0, len(notes), 500):
            store.put_many(notes[start : start + 500])
    busiest = Counter(n.project for n in notes if n.project != "global")
    return [project for project, _ in busiest.most_common()]


@dataclass
class Block:
    """One hook's output, read back: each note's heading and the line under it."""

    text: str
    notes: list[tuple[str, str]] = field(default_factory=list)  # (heading, meta line)
    cut: int = 0
    left_out: int = 0

    @classmethod
    def read(cls, text: str) -> Block:
        lines = text.rstrip("\n").splitlines()
        notes = [
            (line, lines[number + 1])
            for number, line in enumerate(lines[:-1])
            if line.startswith("## [")
        ]
        left = _LEFT_OUT.search(text)
        return cls(text.rstrip("\n"), notes, text.count(_CUT), int(left.group(1)) if left else 0)

    @property
    def header(self) -> int:
        return self.text.find("<memory>") if "<memory>" in self.text else 0

    @property
    def note_text(self) -> int:
        """The characters of the notes' bodies: the block less its header, headings and
        the lines under them."""
        lines = sum(len(heading) + len(meta) for heading, meta in self.notes)
        return len(self.text) - self.header - lines if self.text else 0


def hook(code: Path, home: Path, name: str, *args: str, stdin: dict[str, str] | None = None) -> str:
    env = {**running(code), "ANAMNESIS_HOME": str(home), "ANAMNESIS_MACHINE_ID": THIS_MACHINE,
           "ANAMNESIS_SEARCH_MODE": "keyword"}  # fmt: skip
    flags = () if stdin is not None else ("--no-stdin",)
    done = subprocess.run(
        [sys.executable, "-m", "anamnesis.hooks", name, *flags, *args],
        input=json.dumps(stdin or {}).encode(), capture_output=True, env=env, cwd=REPO,
        timeout=120, check=True,
    )  # fmt: skip
    return done.stdout.decode()


def queries() -> list[tuple[str, str]]:
    path = DEVMEMORY / "queries.jsonl"
    if not path.is_file():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [(row["query"], row["project"]) for row in rows if row.get("project")]


def run_checkout(
    code: Path, home: Path, projects: list[str], budgets: list[int]
) -> dict[str, list[Block]]:
    """Every block the hooks print from ``code``: ``inject@BUDGET`` per project (in order),
    ``prompt-first`` and ``prompt-later`` per query (in order)."""
    from anamnesis.hooks.sessions import record_shown

    out: dict[str, list[Block]] = {}
    for budget in budgets:
        out[f"inject@{budget}"] = [
            Block.read(hook(code, home, "inject", "--project", project, "--budget", str(budget)))
            for project in projects
        ]
    for kind in ("first", "later"):
        blocks = []
        for number, (query, project) in enumerate(queries()):
            session = f"{kind}-{code.name}-{number}"
            if kind == "later":  # a session that was shown a note (none of this project's)
                record_shown(home, session, [new_id()])
            stdin = {"prompt": query, "session_id": session, "cwd": str(home)}
            blocks.append(Block.read(hook(code, home, "prompt", "--project", project, stdin=stdin)))
        out[f"prompt-{kind}"] = blocks
    return out


def summary(blocks: list[Block]) -> dict[str, float]:
    shown = [b for b in blocks if b.text]
    metas = [len(meta) for b in shown for _heading, meta in b.notes]
    sizes = [len(b.text) for b in shown]
    return {
        "blocks": len(shown),
        "notes": sum(len(b.notes) for b in shown),
        "cut": sum(b.cut for b in shown),
        "left_out": sum(b.left_out for b in shown),
        "meta_median": statistics.median(metas) if metas else 0,
        "meta_mean": round(statistics.fmean(metas), 1) if metas else 0,
        "meta_p90": sorted(metas)[int(0.9 * (len(metas) - 1))] if metas else 0,
        "meta_share": round(sum(metas) / sum(sizes), 3) if sizes else 0,
        "block_median": statistics.median(sizes) if sizes else 0,
        "block_p95": p95(sizes) if sizes else 0,
        "header": statistics.median(b.header for b in shown) if shown else 0,
        "note_text": sum(b.note_text for b in shown),
    }


def compare(before: list[Block], after: list[Block]) -> dict[str, object]:
    """Per block: the notes shown before and not now and the other way round, and for the
    notes shown in both, the characters each one's marker saved on its meta line."""
    lost: list[str] = []
    gained: list[str] = []
    fewer = more = 0
    saved = []
    for old, new in zip(before, after, strict=True):
        old_notes, new_notes = dict(old.notes), dict(new.notes)
        lost += sorted(set(old_notes) - set(new_notes))
        gained += sorted(set(new_notes) - set(old_notes))
        fewer += len(new.notes) < len(old.notes)
        more += len(new.notes) > len(old.notes)
        saved += [len(old_notes[h]) - len(new_notes[h]) for h in old_notes if h in new_notes]
    return {
        "saved_median": statistics.median(saved) if saved else 0,
        "saved_min": min(saved, default=0),
        "lost": len(lost), "gained": len(gained),
        "blocks_with_fewer_notes": fewer, "blocks_with_more_notes": more,
        "lost_titles": sorted(set(lost))[:5], "gained_titles": sorted(set(gained))[:5],
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", type=Path, help="a checkout before markers")
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--budgets", default="9000,4000")
    parser.add_argument("--global-share", type=float, default=0.05)
    parser.add_argument("--size", type=int, default=300, help="body characters, at least")
    parser.add_argument("--keep", type=Path, help="build the store here and keep it")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    if not DEVMEMORY.is_dir():
        print(f"devmemory not found at {DEVMEMORY}: set BENCH_SHARED", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="anamnesis-markers-") as tmp:
        home = args.keep or Path(tmp) / "home"
        projects = build_store(home, args.notes, args.global_share, size=args.size)
        print(f"store: {args.notes} notes, {len(projects)} projects, {home}", file=sys.stderr)
        checkouts = {"ours": REPO}
        if args.baseline is not None:
            checkouts = {"before": args.baseline.resolve(), **checkouts}
        runs = {
            name: run_checkout(code, home, projects, budgets) for name, code in checkouts.items()
        }
    report: dict[str, object] = {"bench": "block-markers", "notes": args.notes,
                                 "global_share": args.global_share, "size": args.size,
                                 "projects": len(projects),
                                 "prompts": len(queries())}  # fmt: skip
    for kind in runs["ours"]:
        row: dict[str, object] = {name: summary(blocks[kind]) for name, blocks in runs.items()}
        if "before" in runs:
            row["changes"] = compare(runs["before"][kind], runs["ours"][kind])
        report[kind] = row
        print(f"\n== {kind} ==")
        for name, values in row.items():
            print(f"{name:>8}: {json.dumps(values)}")
    print(json.dumps(report))


if __name__ == "__main__":
    os.environ.setdefault("ANAMNESIS_SEARCH_MODE", "keyword")
    main()
