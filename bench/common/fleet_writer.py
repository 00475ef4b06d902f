"""One machine's writes in a round of ``bench.scale.fleet``, as a process of that machine's
code: through the store's public API, each note's body ending in a word of its own (the
cross-machine search check looks for it). Prints ``[[id, word], ...]`` as JSON.

    python -m bench.common.fleet_writer HOME MACHINE TAG COUNT SEED   (cwd: the checkout)
"""

from __future__ import annotations

import json
import sys

from anamnesis.store import MemoryStore
from bench.common import corpus


def main() -> None:
    home, machine, tag = sys.argv[1:4]
    count, seed = int(sys.argv[4]), int(sys.argv[5])
    written = []
    with MemoryStore(home) as store:
        for n, note in enumerate(corpus.generate(count, seed=seed)):
            word = f"{tag}n{n}"
            saved = store.write(
                type=note.type,
                title=note.title,
                body=f"{note.body}\n\n{word}",
                project=note.project,
                tags=note.tags,
                machine_id=machine,
            )
            written.append([saved.id, word])
    print(json.dumps(written))


if __name__ == "__main__":
    main()
