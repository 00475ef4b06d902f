"""One machine's writes in a round of ``bench.scale.team_fleet``, as a process of that
machine's code: through the store's public API, every other note in one of the team's
projects (``github.com/team/<name>``, routed to the team remote), the rest split between
global notes and the machine's own side project (both its personal remote's). Each body
ends in a word of its own, long enough to look for in a remote's objects. Prints
``[[id, word, project, title], ...]`` as JSON.

    python -m bench.common.team_writer HOME MACHINE TAG COUNT SEED   (cwd: the checkout)
"""

from __future__ import annotations

import json
import sys

from anamnesis.store import GLOBAL_PROJECT, MemoryStore
from bench.common import corpus

TEAM_PREFIX = "github.com/team/"


def project_of(n: int, corpus_project: str, machine: str) -> str:
    """Even notes: the team's; 1 mod 4: global; 3 mod 4: this machine's side project."""
    if n % 2 == 0:
        return TEAM_PREFIX + corpus_project.rstrip("/").rsplit("/", 1)[-1]
    if n % 4 == 1:
        return GLOBAL_PROJECT
    return f"github.com/{machine}/side"


def main() -> None:
    home, machine, tag = sys.argv[1:4]
    count, seed = int(sys.argv[4]), int(sys.argv[5])
    written = []
    with MemoryStore(home) as store:
        for n, note in enumerate(corpus.generate(count, seed=seed)):
            word = f"{tag}n{n}"
            project = project_of(n, note.project, machine)
            saved = store.write(
                type=note.type,
                title=note.title,
                body=f"{note.body}\n\n{word}",
                project=project,
                tags=note.tags,
                machine_id=machine,
            )
            written.append([saved.id, word, saved.project, saved.title])
    print(json.dumps(written))


if __name__ == "__main__":
    main()
