"""Generated corpora for the benchmarks: engineering notes of a chosen size.

Notes grow from the devmemory evaluation set in ../shared (real-sounding commands, errors,
decisions), except ``zipf``'s. Three styles:

* ``topical`` (the default): each ~4 KB note elaborates one seed note, the way a real note
  stays on its subject. Its sentences mix the seed's own vocabulary, common engineering
  prose and fresh identifiers (paths, hosts, tickets, versions), so common English is
  everywhere, subject words cluster in the notes about that subject, identifiers are rare.
* ``mixed`` (adversarial): each note strings together ~25 sentences drawn from all seed
  notes, so every note touches ~25 unrelated subjects and nearly every content word is in
  a large share of notes. Real stores are not like this; it shows the worst case for
  keyword search, whose cost grows with the number of notes a query's words match.
* ``zipf``: word frequencies as in real text (Zipf's law, s = 1.1, 14,000 words), which
  the two above hide: a few words are in most notes, a long tail in almost none, and a
  query's mid-frequency words each match from 2 % to 70 % of the notes. The words are
  synthetic but word-like (syllables; the commoner, the shorter, as in real language),
  drawn independently, so notes have no topics: every cost comes from frequency alone.

Queries of topical and mixed are the devmemory queries: natural language, stop words
included. Without ../shared a small built-in vocabulary stands in, so the benchmarks still
run. zipf has its own (:func:`queries`): 2-4 distinct words of ranks 50 to 2,000, drawn
by their frequency.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from bench.common.places import DEVMEMORY

_FALLBACK_SENTENCES = [
    "Restart the worker after changing the queue settings or jobs stay on the old config.",
    "The staging database is refreshed from a production snapshot every Sunday night.",
    "Use the retry wrapper around the payments client; the provider times out under load.",
    "Flaky login tests were caused by a shared cookie jar between parallel browsers.",
    "Rotate the signing key with the rotate-keys script and update the vault path.",
    "Cache invalidation for the search index runs on every deploy to avoid stale results.",
    "Set busy_timeout on every SQLite connection to avoid database is locked errors.",
    "The nightly backup writes to the cold bucket and keeps thirty daily copies.",
]
_FALLBACK_QUERIES = [
    "how do I stop the worker using an old queue config",
    "why do login tests fail randomly in CI",
    "where does the nightly backup go",
    "sqlite database is locked error",
]


@dataclass(frozen=True, slots=True)
class CorpusNote:
    type: str
    title: str
    body: str
    project: str
    tags: list[str]

    def to_json(self) -> str:
        return json.dumps(
            {
                "type": self.type,
                "title": self.title,
                "body": self.body,
                "project": self.project,
                "tags": self.tags,
            }
        )


def _seed_notes() -> list[dict[str, object]]:
    path = DEVMEMORY / "notes.jsonl"
    if path.is_file():
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [
        {
            "type": "semantic",
            "title": s.split(";")[0][:60],
            "body": s,
            "project": "global",
            "tags": ["fallback"],
        }
        for s in _FALLBACK_SENTENCES
    ]


def queries(style: str = "topical", *, seed: int = 7) -> list[str]:
    """The look-ups for a corpus style: natural language, as people type them, or for
    ``zipf`` its mid-frequency words (:func:`zipf_queries`)."""
    if style == "zipf":
        return zipf_queries(seed=seed)
    path = DEVMEMORY / "queries.jsonl"
    if path.is_file():
        lines = path.read_text(encoding="utf-8").splitlines()
        return [str(json.loads(line)["query"]) for line in lines if line]
    return list(_FALLBACK_QUERIES)


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in text.replace("\n", " ").split(". ")]
    return [p if p.endswith(".") else p + "." for p in parts if len(p) > 20]


def _identifier(rng: random.Random) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return f"src/{rng.choice(['api', 'core', 'jobs', 'web'])}/{rng.choice(['handler', 'client', 'model', 'task'])}_{rng.randrange(10_000)}.py"  # noqa: E501
    if kind == 1:
        return f"{rng.choice(['db', 'cache', 'worker', 'edge'])}-{rng.randrange(100):02d}.internal"
    if kind == 2:
        return f"ERR_{rng.randrange(100_000):05d}"
    if kind == 3:
        return f"v{rng.randrange(10)}.{rng.randrange(40)}.{rng.randrange(20)}"
    return f"ticket {rng.choice(['OPS', 'API', 'WEB'])}-{rng.randrange(20_000)}"


_PROSE = [
    "We hit this again while working on {t1} and the fix below still holds.",
    "The {t1} change was reviewed in {id} and rolled out behind a flag first.",
    "Before touching {t1}, check {id} and make sure the {g} is green.",
    "This only shows up when {t1} and {t2} run at the same time on {id}.",
    "The root cause was the {g} around {t1}, not the {t2} itself.",
    "Keep an eye on {t1}: the last regression came from {id}.",
    "If {t2} fails after a deploy, roll back {id} and retry the {g}.",
    "Notes from the incident: {t1} was slow, {t2} timed out, and the {g} alerted late.",
    "The runbook step for {t1} lives next to {id}; run it before the {g} window.",
    "Do not change {t2} without updating {id}, otherwise the {g} breaks.",
    "Measured again after the fix: {t1} is back to normal and {t2} stays stable.",
    "Ownership of {t1} moved to the platform team; ask them about {id}.",
    "A quick way to reproduce it: run the {g} with {t1} enabled against {id}.",
    "The decision was to keep {t1} as it is and document the {t2} caveat.",
    "Follow-up work on {t2} is tracked in {id}; {t1} needs no further change.",
]
_GENERAL = [
    "build", "test", "deploy", "config", "service", "release", "pipeline", "check", "review",
    "rollout", "monitoring", "alert", "dashboard", "cache", "queue", "worker", "database",
    "migration", "script", "logs", "metrics", "branch", "commit", "merge", "staging",
    "production", "cluster", "container", "image", "job", "schedule", "timeout", "retry",
    "error", "warning", "fix", "patch", "version", "dependency", "lockfile", "environment",
    "secret", "token",
]  # fmt: skip
_STOP = {
    "the", "a", "an", "to", "of", "and", "in", "is", "for", "on", "with", "that", "this",
    "it", "be", "as", "by", "at", "from", "or", "are", "was", "not", "use", "when", "run",
    "set", "we", "our", "you", "your", "if", "then", "than", "so", "do", "does", "did", "has",
    "have", "had", "can", "will", "would", "should", "must", "may", "only", "also", "just",
    "all", "any", "each", "every", "after", "before", "into", "out", "up", "down", "over",
    "under", "again", "still", "back", "here", "there", "what", "which", "who", "how", "why",
    "where",
}  # fmt: skip


def _topic_words(text: str) -> list[str]:
    words = [w.strip(".,:;()`'\"").lower() for w in text.split()]
    return [w for w in words if len(w) > 3 and w.isascii() and w not in _STOP] or ["notes"]


def generate(
    count: int,
    *,
    size: int = 4000,
    seed: int = 7,
    style: str = "topical",
    projects: int | None = None,
) -> Iterator[CorpusNote]:
    """``count`` notes of about ``size`` characters each, deterministic for a seed.
    ``projects``: spread the notes over that many projects (:func:`spread_projects`)
    instead of the style's own."""
    notes = _generate(count, size=size, seed=seed, style=style)
    yield from notes if projects is None else spread_projects(notes, projects, seed=seed)


def project_names(projects: int) -> list[str]:
    """The names :func:`spread_projects` gives ``projects`` projects."""
    return [f"github.com/acme/project-{number:02d}" for number in range(projects)]


def spread_projects(
    notes: Iterator[CorpusNote], projects: int, *, seed: int = 7
) -> Iterator[CorpusNote]:
    """The same notes, each moved to one of ``projects`` projects drawn at random (by its
    own generator, so the text stays the style's): every project holds every subject,
    as a team's many repositories share their tools, and a project's search finds its
    share of every word's notes."""
    names = project_names(projects)
    rng = random.Random(seed + 3)
    for note in notes:
        yield replace(note, project=rng.choice(names))


def _generate(count: int, *, size: int, seed: int, style: str) -> Iterator[CorpusNote]:
    if style == "mixed":
        yield from _generate_mixed(count, size=size, seed=seed)
        return
    if style == "zipf":
        yield from _generate_zipf(count, size=size, seed=seed)
        return
    if style != "topical":
        raise ValueError(f"unknown corpus style {style!r}: topical, mixed or zipf")
    rng = random.Random(seed)
    seeds = _seed_notes()
    for index in range(count):
        base = seeds[index % len(seeds)]
        topic = _topic_words(f"{base['title']} {base['body']}")
        parts = [str(base["body"])]
        length = len(parts[0])
        while length < size:
            sentence = rng.choice(_PROSE).format(
                t1=rng.choice(topic), t2=rng.choice(topic), g=rng.choice(_GENERAL),
                id=_identifier(rng),
            )  # fmt: skip
            parts.append(sentence)
            length += len(sentence) + 1
        yield _note(base, index, len(seeds), " ".join(parts)[: size + 200])


def _note(base: dict[str, object], index: int, seeds: int, body: str) -> CorpusNote:
    tags = [str(t) for t in base.get("tags", [])]  # type: ignore[attr-defined]
    title = str(base["title"])
    return CorpusNote(
        type=str(base["type"]),
        title=f"{title} #{index // seeds}" if index >= seeds else title,
        body=body,
        project=str(base["project"]),
        tags=tags,
    )


def _generate_mixed(count: int, *, size: int, seed: int) -> Iterator[CorpusNote]:
    rng = random.Random(seed)
    seeds = _seed_notes()
    by_project: dict[str, list[str]] = {}
    for note in seeds:
        by_project.setdefault(str(note["project"]), []).extend(_sentences(str(note["body"])))
    everything = [s for group in by_project.values() for s in group]
    for index in range(count):
        base = seeds[index % len(seeds)]
        project = str(base["project"])
        pool = by_project.get(project) or everything
        parts = [str(base["body"])]
        length = len(parts[0])
        while length < size:
            sentence = rng.choice(pool) if rng.random() < 0.7 else rng.choice(everything)
            if rng.random() < 0.3:
                sentence = f"{sentence[:-1]} (see {_identifier(rng)})."
            parts.append(sentence)
            length += len(sentence) + 1
        yield _note(base, index, len(seeds), " ".join(parts)[: size + 200])


# --- zipf: a realistic vocabulary ---------------------------------------------------------

ZIPF_EXPONENT = 1.1
ZIPF_WORDS = 14_000
# Queries draw from these ranks (1 = commonest): in 2,000 notes, words in 2-70 % of them.
QUERY_RANKS = (50, 2_000)
_ONSETS = ["", "b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
           "br", "ch", "dr", "gr", "pl", "sh", "st", "tr"]  # fmt: skip
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ou"]
_CODAS = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "st"]
_PROJECTS = ["github.com/acme/api", "github.com/acme/web", "github.com/acme/infra", "global"]


def zipf_vocabulary(seed: int = 7) -> list[str]:
    """:data:`ZIPF_WORDS` distinct word-like tokens, commonest first: one to four syllables,
    shorter words at the common ranks. None is a stop word of the store's query side
    (``stop_words.py``) nor shorter than three letters, so every query word counts."""
    from anamnesis.store.search.stop_words import STOP_WORDS

    rng = random.Random(seed)
    words: set[str] = set()
    while len(words) < ZIPF_WORDS:
        syllables = rng.choice((1, 2, 2, 2, 3, 3, 3, 4))
        word = "".join(
            rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables)
        )
        if len(word) >= 3 and word not in STOP_WORDS:
            words.add(word)
    # Sorted first for determinism (a set's order is not), then shuffled and put stably in
    # order of length: short words are common, without the alphabet deciding which.
    ordered = sorted(words)
    rng.shuffle(ordered)
    return sorted(ordered, key=len)


def _zipf_weights(count: int) -> list[float]:
    """Cumulative weights of ranks 1..count under Zipf's law."""
    total = 0.0
    cumulative = []
    for rank in range(1, count + 1):
        total += rank**-ZIPF_EXPONENT
        cumulative.append(total)
    return cumulative


def _generate_zipf(count: int, *, size: int, seed: int) -> Iterator[CorpusNote]:
    vocabulary = zipf_vocabulary(seed)
    weights = _zipf_weights(len(vocabulary))
    rng = random.Random(seed + 1)

    def words(n: int) -> list[str]:
        return rng.choices(vocabulary, cum_weights=weights, k=n)

    for index in range(count):
        sentences: list[str] = []
        length = 0
        while length < size:
            sentence = " ".join(words(rng.randint(6, 18))).capitalize() + "."
            sentences.append(sentence)
            length += len(sentence) + 1
        yield CorpusNote(
            type=rng.choice(["semantic", "procedural", "episodic"]),
            title=f"{' '.join(words(rng.randint(3, 7))).capitalize()} #{index}",
            body=" ".join(sentences),
            project=rng.choice(_PROJECTS),
            tags=sorted(set(words(rng.randint(1, 3)))),
        )


def zipf_queries(count: int = 200, *, seed: int = 7) -> list[str]:
    """``count`` queries of 2-4 distinct words of the ranks in :data:`QUERY_RANKS`, each
    drawn as often as the notes use it (a query is text too: its commoner words come up
    more), deterministic for a seed, the vocabulary's seed."""
    vocabulary = zipf_vocabulary(seed)
    first, last = QUERY_RANKS
    ranks = range(first, last + 1)
    weights = [rank**-ZIPF_EXPONENT for rank in ranks]
    rng = random.Random(seed + 2)
    result = []
    for _ in range(count):
        words: list[str] = []
        wanted = rng.randint(2, 4)
        while len(words) < wanted:
            word = vocabulary[rng.choices(ranks, weights)[0] - 1]
            if word not in words:
                words.append(word)
        result.append(" ".join(words))
    return result


def write_jsonl(notes: Iterator[CorpusNote], path: Path) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for note in notes:
            handle.write(note.to_json() + "\n")
    return path
