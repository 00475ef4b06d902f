"""realmem-turns: realmem's sessions cut into short notes, with look-ups whose answer is
one note, told apart by the exact names, dates, numbers and rare words it holds.

Why: on short conversational notes rich in names, dates and small numbers, hybrid search
can lose to keyword search at R@1 (issue 44), and neither committed corpus shows it:
devmemory is paraphrase, names-and-dates is saturated (R@8 1.000 for every fusion). This
one is derived mechanically from public material, so it can be rebuilt anywhere the
realmem set is (``../shared/eval/realmem``, Apache-2.0, from RealMem, Bian et al.).

How (every step deterministic; no model, no randomness but a seeded generator):

1. Notes. Each realmem session body (``User:`` / ``Assistant:`` turns under a header line)
   is cut into exchanges: a user turn and the assistant's answer to it, one note each, as
   a capture per exchange would store it (the body keeps the session's header, so every
   note carries its date; the title is the user turn's first sentence). Exchanges, not
   single turns: the assistant echoes the user's figures ("NGN 750,000 from Access Bank"),
   so with one note per turn most anchors are in two notes and make no question (measured:
   see ``bench/common/corpora/TURNS.md``).
2. Anchors. In the user's turn of each note: dates ("March 3rd", "2026-01-14"), numbers
   with their unit or currency ("NGN 75,000", "22%", "45 minutes"), names (runs of
   capitalised words not at a sentence's start: "Access Bank", "Tunde"), and rare words
   (in at most :data:`RARE_NOTES` notes). A candidate is kept only when its words, as a
   run, are in exactly one note of the whole corpus: that note is the answer, and no other
   note can be. A name or rare word that one note alone holds, by itself, is too easy (its
   one rare word decides the keyword ranking), so those are kept only when every word of
   theirs is also in at least :data:`SHARED_NOTES` other notes, or when paired with a
   second anchor of the same note; dates and numbers are made of words many notes share
   ("20", "000", "march") and stand alone.
3. Questions. One per note at most, for a seeded sample of the notes with an anchor: a
   template of the anchor's kind, the anchor, and two context words drawn from the
   anchor's sentence (words in several notes, so they point at the subject without naming
   the note). The look-up is searched over the whole store.

    uv run python -m bench.common.corpora.make_turns [OUT]

writes ``notes.jsonl`` and ``queries.jsonl`` (the formats of ``recall_eval``) into OUT, by
default the cache folder :func:`build_cached` uses. The derived files are not committed
(they stay derived from ``../shared``, as realmem itself stays there); the recall bench
builds them on demand, keyed by the source file's and this program's hashes.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.common.places import BENCH_CACHE, REALMEM

NAME = "realmem-turns"
SOURCE = REALMEM / "notes.jsonl"
SEED = 20261129
# How many look-ups to make (a seeded sample of the notes that have an anchor).
QUESTIONS = 800
# An anchor is shared by 2 to this many notes: the words of the question must pick one.
MAX_HOLDERS = 30
UNIT = "exchange"
CONTEXT_WORDS = 1
# Context words: in at least this many notes (common enough not to name the note).
CONTEXT_MIN_NOTES = 100

_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = re.compile(
    rf"\b(?:(?:{_MONTHS})\.?\s+{_DAY}(?:,?\s+\d{{4}})?"
    rf"|{_DAY}\s+(?:of\s+)?(?:{_MONTHS})(?:,?\s+\d{{4}})?"
    r"|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?)\b",
    re.IGNORECASE,
)
_CURRENCY_WORDS = (
    "ngn|usd|eur|gbp|jpy|krw|idr|rp|sgd|twd|nt|won|yen|naira|rupiah|euros?|dollars?|pounds?"
)
_NUMBER = re.compile(
    rf"(?:[$€£¥₩₦]\s?|\b(?:{_CURRENCY_WORDS})\s?)\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|million|billion)\b)?"
    r"|\b(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?(?:%|[a-z]+\b)",
    re.IGNORECASE,
)
# Capitalised words that are not names: sentence openers that slip through, weekdays,
# months, pronouns, and the dialogue's own words.
_NOT_NAMES = frozenset(
    """
    i i'm i've i'll i'd im ok okay yes no hi hello hey thanks thank great good perfect
    sure alright right so and but or also then now well oh wow let let's here there this
    that these those what when where which who why how my your our we you it its a an the
    monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december user assistant step day week
    phase option plan goal note action next first second third final key
    """.split()  # noqa: SIM905 - a word list reads best as words
)
_NAME = re.compile(r"\b[A-Z][\w'’-]*[a-z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*[a-z][\w'’-]*|&))*\b")
_SENTENCE = re.compile(r"(?<=[.!?:])\s+|\n+")
_WORD = re.compile(r"[^\W_]+")

TEMPLATES = {
    "date": [
        "what did I plan for {a}, about {c}?",
        "what was happening around {a} with the {c}?",
        "remind me what we said about {a} and {c}",
        "{a}: what was that about {c}?",
    ],
    "number": [
        "what was the {a} for, with {c}?",
        "where did {a} come up about {c}?",
        "remind me about the {a} and {c}",
        "{a} for {c}: what was that?",
    ],
    "name": [
        "what did I tell you about {a} and {c}?",
        "remind me what {a} had to do with {c}",
        "what was the thing with {a} about {c}?",
        "{a} and the {c}: what did we say?",
    ],
    "rare": [
        "when did we talk about {a} and {c}?",
        "what was the {a} thing about {c}?",
        "remind me about {a}, the {c} part",
        "{a} with {c}: what did we decide?",
    ],
}


@dataclass(frozen=True, slots=True)
class Anchor:
    kind: str  # date, number, name, rare
    text: str  # as the note writes it
    sentence: str  # the sentence of the user's turn that holds it


def words(text: str) -> list[str]:
    """Lower-case word tokens without diacritics, as FTS5's unicode61 splits a text."""
    plain = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return _WORD.findall(plain)


def exchanges(body: str) -> tuple[str, list[tuple[str, str]]]:
    """A realmem session's header line and its (user turn, assistant answer) pairs, in order;
    an assistant turn before any user turn joins no pair and is dropped (none in realmem)."""
    header, _, rest = body.partition("\n\n")
    turns = re.split(r"\n\n(?=(?:User|Assistant): )", "\n\n" + rest)
    pairs: list[tuple[str, str]] = []
    for turn in (t.strip() for t in turns):
        if turn.startswith("User: "):
            pairs.append((turn, ""))
        elif turn.startswith("Assistant: ") and pairs:
            user, answer = pairs[-1]
            pairs[-1] = (user, f"{answer}\n\n{turn}".strip())
    return header.strip(), pairs


def first_sentence(turn: str) -> str:
    text = turn.removeprefix("User: ").removeprefix("Assistant: ").strip()
    sentence = _SENTENCE.split(text, maxsplit=1)[0].strip().strip("*#").strip()
    return sentence if len(sentence) <= 90 else sentence[:87].rsplit(" ", 1)[0] + "..."


def make_notes(sessions: Iterable[dict[str, object]]) -> list[dict[str, object]]:
    """One note per exchange (or turn, :data:`UNIT`) of every session, ids ``t0001``... in
    the source's order."""
    notes: list[dict[str, object]] = []
    for session in sessions:
        header, pairs = exchanges(str(session["body"]))
        units = [[user, answer] for user, answer in pairs]
        if UNIT == "turn":
            units = [[turn] for pair in units for turn in pair if turn]
        for unit in units:
            notes.append(
                {
                    "id": f"t{len(notes) + 1:04d}",
                    "type": "episodic",
                    "title": first_sentence(unit[0]),
                    "body": "\n\n".join([header, *unit]).strip(),
                    "project": str(session["project"]),
                    "tags": [],
                    "supersedes": "",
                    "source": str(session["id"]),
                }
            )
    return notes


def _sentences(turn: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(turn.removeprefix("User: ")) if s.strip()]


def candidates(user_turn: str) -> list[Anchor]:
    """Every date, number, name and word of a user's turn that could make a question."""
    found: list[Anchor] = []
    for sentence in _sentences(user_turn):
        taken: list[tuple[int, int]] = []
        for kind, pattern in (("date", _DATE), ("number", _NUMBER)):
            for match in pattern.finditer(sentence):
                if any(s < match.end() and match.start() < e for s, e in taken):
                    continue
                text = match.group().strip(" ,.")
                if kind == "number" and not _distinctive_number(text):
                    continue
                taken.append(match.span())
                found.append(Anchor(kind, text, sentence))
        for match in _NAME.finditer(sentence):
            if match.start() == 0 or any(s < match.end() and match.start() < e for s, e in taken):
                continue
            name = _trim_name(match.group())
            if name:
                found.append(Anchor("name", name, sentence))
        for word in set(re.findall(r"\b[a-z]{7,}\b", sentence)):
            found.append(Anchor("rare", word, sentence))
    return found


def _distinctive_number(text: str) -> bool:
    """A figure with a unit worth asking about: not "1 thing", "2 of"; at least two digits
    or a currency or percent sign."""
    digits = re.sub(r"\D", "", text)
    tokens = words(text)
    if not digits or (tokens and tokens[-1] in _NOT_NAMES):
        return False
    if any(sign in text for sign in "$€£¥₩₦%"):
        return True
    if len(tokens) >= 2 and tokens[-1].isalpha() and len(tokens[-1]) < 3:
        return False
    return len(digits) >= 2


def _trim_name(text: str) -> str:
    parts = [p for p in text.split() if p != "&"]
    while parts and parts[0].casefold().strip("'’") in _NOT_NAMES:
        parts.pop(0)
    while parts and parts[-1].casefold().strip("'’") in _NOT_NAMES:
        parts.pop()
    name = " ".join(parts).removesuffix("'s").removesuffix("’s")
    return name if len(name) >= 3 else ""


class Index:
    """Which notes hold a word, and which hold a run of words."""

    def __init__(self, notes: Sequence[dict[str, object]]) -> None:
        tokens = [words(f"{n['title']}\n{n['body']}") for n in notes]
        self.joined = [f" {' '.join(t)} " for t in tokens]
        self.postings: dict[str, set[int]] = defaultdict(set)
        for number, note_tokens in enumerate(tokens):
            for word in note_tokens:
                self.postings[word].add(number)
        self.df = Counter({word: len(held) for word, held in self.postings.items()})
        self.stems = [{_stem(word) for word in note_tokens} for note_tokens in tokens]

    def holders(self, phrase: Sequence[str]) -> list[int]:
        """The notes (by position) holding ``phrase``'s words as a run, in order."""
        needle = f" {' '.join(phrase)} "
        rarest = min(phrase, key=lambda w: self.df[w])
        return sorted(i for i in self.postings.get(rarest, ()) if needle in self.joined[i])


def holders(anchor: Anchor, index: Index) -> list[int]:
    """The notes holding the anchor's words as a run."""
    phrase = words(anchor.text)
    return index.holders(phrase) if phrase else []


def _stem(word: str) -> str:
    """A crude stem, coarser than the porter stemmer FTS5 uses ("loans", "loaned" and
    "loan" all give "loa"... ), so that a word counts as present in a note whenever a
    search, or a person, could take it to be: questions are rejected, never made
    ambiguous, by its coarseness."""
    return word[: max(4, len(word) - 3)]


def separating_context(
    anchor: Anchor, note: int, others: Sequence[int], index: Index, rng: random.Random
) -> list[str]:
    """Two words of the anchor's sentence, in its order, that together are in the answer
    note and in none of the other notes holding the anchor (so the question has one
    answer): content words (no stop words, four letters or more) found in several notes
    (so they point at the subject without naming the note), not the anchor's own. Empty
    when no pair separates."""
    from anamnesis.store.search.stop_words import STOP_WORDS

    own = set(words(anchor.text))
    pool: list[str] = []
    for word in re.findall(r"[A-Za-z][A-Za-z'-]{3,}", anchor.sentence):
        lowered = word.lower()
        if (
            lowered not in STOP_WORDS
            and lowered not in own
            and lowered not in _NOT_NAMES
            and lowered not in pool
            and all(index.df[w] >= CONTEXT_MIN_NOTES for w in words(lowered))
        ):
            pool.append(lowered)
    if CONTEXT_WORDS == 1:
        choices = [(i,) for i in range(len(pool))]
    else:
        choices = [(i, j) for i in range(len(pool)) for j in range(i + 1, len(pool))]
    rng.shuffle(choices)
    for choice in choices:
        stems = {_stem(pool[i]) for i in choice}
        if not any(stems <= index.stems[other] for other in others):
            return [pool[i] for i in choice]
    return []


def build(
    source: Path = SOURCE,
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The notes and the look-ups, the same for the same source file."""
    lines = source.read_text(encoding="utf-8").splitlines()
    notes = make_notes(json.loads(line) for line in lines if line)
    index = Index(notes)
    rng = random.Random(SEED)
    by_kind: dict[str, list[tuple[int, Anchor, list[str]]]] = defaultdict(list)
    for number, note in enumerate(notes):
        exchange = str(note["body"]).split("\n\n", 1)[1]
        user_turn = exchange.split("\n\nAssistant: ", 1)[0] if exchange.startswith("User: ") else ""
        found = [a for a in candidates(user_turn) if a.kind in ("name", "rare")]
        found += [a for a in candidates(exchange) if a.kind in ("date", "number")]
        options = []
        for anchor in _dedupe(found):
            held = holders(anchor, index)
            if number not in held or not 2 <= len(held) <= MAX_HOLDERS:
                continue
            others = [other for other in held if other != number]
            context = separating_context(anchor, number, others, index, rng)
            if context:
                options.append((number, anchor, context))
        if options:
            chosen = rng.choice(options)
            by_kind[chosen[1].kind].append(chosen)
    queries: list[dict[str, object]] = []
    for number, anchor, context in _sample(by_kind, rng):
        note = notes[number]
        template = rng.choice(TEMPLATES[anchor.kind])
        queries.append(
            {
                "qid": f"tq{len(queries) + 1:04d}",
                "query": template.format(a=anchor.text, c=" ".join(context)),
                "relevant": [note["id"]],
                "project": note["project"],
                "kind": anchor.kind,
                "anchor": anchor.text,
                "context": context,
            }
        )
    return notes, queries


def _dedupe(anchors: list[Anchor]) -> list[Anchor]:
    seen: set[tuple[str, str]] = set()
    result = []
    for anchor in anchors:
        key = (anchor.kind, anchor.text.casefold())
        if key not in seen:
            seen.add(key)
            result.append(anchor)
    return result


def _sample(
    by_kind: dict[str, list[tuple[int, Anchor, list[str]]]], rng: random.Random
) -> list[tuple[int, Anchor, list[str]]]:
    """Up to :data:`QUESTIONS` (note, anchor) pairs, as even across kinds as the kinds
    allow, in the notes' order."""
    kinds = sorted(by_kind)
    share = QUESTIONS // max(len(kinds), 1)
    chosen: list[tuple[int, Anchor, list[str]]] = []
    for kind in kinds:
        pool = by_kind[kind]
        chosen.extend(rng.sample(pool, min(share, len(pool))))
    return sorted(chosen, key=lambda pair: pair[0])


def source_hash(source: Path) -> str:
    """The cache key: the source file's bytes and this program's, so a change to either
    builds afresh."""
    digest = hashlib.sha256(source.read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()[:16]


def write(folder: Path, notes: list[dict[str, object]], queries: list[dict[str, object]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in (("notes.jsonl", notes), ("queries.jsonl", queries)):
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        partial = folder / f".{name}.partial"
        partial.write_text(text, encoding="utf-8")
        partial.replace(folder / name)


def build_cached(source: Path = SOURCE, cache: Path = BENCH_CACHE) -> Path | None:
    """The folder holding the corpus built from ``source`` (built now if not cached yet);
    None when the source is absent (no ``../shared``)."""
    if not source.is_file():
        return None
    folder = cache / f"{NAME}-{source_hash(source)}"
    if not (folder / "queries.jsonl").is_file():
        write(folder, *build(source))
    return folder


def main() -> None:
    source = SOURCE
    if not source.is_file():
        sys.exit(f"{source} not found: realmem is needed (../shared or BENCH_SHARED)")
    notes, queries = build(source)
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else BENCH_CACHE / f"{NAME}-{source_hash(source)}"
    write(out, notes, queries)
    kinds = Counter(str(q["kind"]) for q in queries)
    print(f"{len(notes)} notes, {len(queries)} queries {dict(sorted(kinds.items()))} -> {out}")


if __name__ == "__main__":
    main()
