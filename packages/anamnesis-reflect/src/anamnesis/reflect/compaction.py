"""``anamnesis compact``: rewrite long notes shorter, keeping only rewrites that keep the facts.

Notes over ``min_tokens`` (title and body, estimated) are rewritten by the provider, one call
per note, masked and sent whole (``{"title": ..., "body": ...}`` back), or without one
(``heuristic``) folded deterministically (:func:`fold_text`). A rewrite is kept only when it
is shorter and :func:`~.fact_check.check_facts`, run both ways, finds every fact still there
and none added: same id, new text, ``updated_at`` bumped, ``prov_model`` set, all else kept.
A model's rewrite is marked as one (the store's ``rewritten_by``, which the SessionStart
block shows) and its confidence is at most :data:`REWRITE_CONFIDENCE`: its words are no
longer those of whoever wrote the note, whatever ``prov_source`` says. A refused or unusable one
leaves the text alone and tags the note ``needs-review``. Everything lands in one
``put_many``; a dry run calls nothing and writes nothing; a :class:`ProviderError` stops the
run (the notes done before it are written). Superseded notes, ``needs-review`` ones and ones
a model compacted that have not changed since (``extra.compacted_digest``) are left alone.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from anamnesis.reflect.fact_check import check_facts, closes_fence, fence_opening, note_text
from anamnesis.reflect.prompting import estimate_tokens, fit_to_budget, redact_prompt
from anamnesis.reflect.providers.protocol import ProviderError
from anamnesis.reflect.replies import InvalidReply, extract_object
from anamnesis.reflect.run_lock import reflection_lock
from anamnesis.store import (
    CAPTURE_DIGEST_KEY,
    REWRITTEN_BY_KEY,
    InvalidNote,
    Memory,
    NoteNotFound,
    content_digest,
    is_capture_owned,
    utc_now,
)

if TYPE_CHECKING:
    from anamnesis.reflect.providers.protocol import Provider
    from anamnesis.reflect.providers.settings import LlmSettings
    from anamnesis.store import MemoryStore

log = logging.getLogger("anamnesis.reflect")

COMPACT_MIN_TOKENS = 1500
NEEDS_REVIEW_TAG = "needs-review"
COMPACTED_KEY = "compacted_digest"
# A repeated block shorter than this stays: headings, rules and "Done." repeat on purpose.
MIN_BLOCK_CHARS = 40
# The reply restates the note in JSON: the note's length plus room for the quoting.
REPLY_SLACK_TOKENS = 512
# A model's wording of facts checked mechanically both ways, not read by a person: above a
# reflection's 0.6 (new text drawn from sessions), below a human's 1.0.
REWRITE_CONFIDENCE = 0.8

PLANNED, COMPACTED, REFUSED, INVALID = "planned", "compacted", "refused", "invalid"
UNCHANGED, SKIPPED = "unchanged", "skipped"
PROVIDER_ERROR, NOT_REACHED = "provider-error", "not-reached"

SYSTEM = (
    "You shorten one note from a developer's long-term memory without losing any fact. "
    'Reply with one JSON object only: {"title": "...", "body": "..."}. The title is one '
    "line. The body is markdown and clearly shorter than the note: drop repetition, filler "
    "and chatter, say once what is said twice, keep the structure that helps. Keep verbatim, "
    "character for character: every number, file path, URL, identifier (snake_case, "
    "camelCase, dotted.names, error codes, versions), every `code span` and every shell "
    "command. Add nothing the note does not say: no command, URL, path, number or identifier "
    "of your own. Keep the note's distinctive words: a rewrite that drops a fact, adds one, or "
    "drops more than a few of its words is thrown away. Keep [REDACTED] markers as they are."
)


@dataclass(frozen=True)
class NoteCompaction:
    """What a run did (or, dry, would do) with one long note. ``call``: a provider call
    was planned or made for it; ``missing``: the first few facts a refused rewrite lost;
    ``added``: the first few it added."""

    id: str
    title: str
    project: str
    tokens: int
    status: str = PLANNED
    reason: str = ""
    tokens_after: int | None = None
    call: bool = False
    input_tokens: int = 0
    missing: dict[str, list[str]] = field(default_factory=dict)
    added: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CompactionReport:
    """A run: each long note's outcome, the ids rewritten and tagged ``needs-review``, and
    the provider error that stopped it. ``ok``: no provider error and no unusable reply."""

    applied: bool
    provider: str
    model: str
    min_tokens: int
    project: str | None
    notes: list[NoteCompaction] = field(default_factory=list)
    error: str = ""
    written: list[str] = field(default_factory=list)
    tagged: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.error and all(note.status != INVALID for note in self.notes)

    @property
    def calls(self) -> int:
        """Provider calls planned (dry run) or made (apply)."""
        return sum(note.call for note in self.notes)

    @property
    def input_tokens(self) -> int:
        return sum(note.input_tokens for note in self.notes if note.call)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["applied"]
        data.update(dry_run=not self.applied, ok=self.ok)
        data.update(calls=self.calls, input_tokens=self.input_tokens)
        return data


def run_compaction(
    store: MemoryStore,
    provider: Provider | None,
    settings: LlmSettings,
    *,
    project: str | None = None,
    min_tokens: int = COMPACT_MIN_TOKENS,
    apply: bool = False,
) -> CompactionReport:
    """Compact the notes over ``min_tokens`` (of ``project``, or of every project); see the
    module doc. ``provider`` None or ``heuristic``: deterministic folding, no call. An apply
    holds the store's reflection lock (raises :class:`~anamnesis.reflect.ReflectionBusy`)."""
    if min_tokens < 1:
        raise ValueError(f"min_tokens must be 1 or more, not {min_tokens}")
    name = provider.name if provider is not None else "heuristic"
    model = (provider.model or provider.name) if provider is not None else "heuristic"
    report = CompactionReport(apply, name, model, min_tokens, project)
    if not apply:
        _run(store, provider, settings, report)
        return report
    with reflection_lock(store.root):
        writes = _run(store, provider, settings, report)
        if writes:
            store.put_many(writes)
    return report


def _run(
    store: MemoryStore, provider: Provider | None, settings: LlmSettings, report: CompactionReport
) -> list[Memory]:
    """Fill the report; return the notes to write (rewrites and needs-review tags)."""
    writes: list[Memory] = []
    for note, tokens in _long_notes(store, report.project, report.min_tokens):
        base = NoteCompaction(note.id, note.title, note.project, tokens)
        write: Memory | None = None
        if reason := _left_alone(note):
            outcome = _with(base, SKIPPED, reason)
        elif report.error:
            outcome = _with(base, NOT_REACHED, "the provider failed first")
        elif provider is None or provider.name == "heuristic":
            rewrite = " ".join(note.title.split()), fold_text(note.body)
            outcome, write = _judge(store, note, base, rewrite, report)
        else:
            outcome, write = _ask(store, provider, settings, note, base, report)
        report.notes.append(outcome)
        if write is not None:
            writes.append(write)
            (report.written if outcome.status == COMPACTED else report.tagged).append(note.id)
    return writes


def _long_notes(store: MemoryStore, project: str | None, limit: int) -> list[tuple[Memory, int]]:
    """The notes over ``limit`` tokens, not superseded, longest first (then by id)."""
    notes = store.list(project=project, include_superseded=False)
    sized = [(note, estimate_tokens(note_text(note.title, note.body))) for note in notes]
    return sorted((pair for pair in sized if pair[1] > limit), key=lambda p: (-p[1], p[0].id))


def _left_alone(note: Memory) -> str:
    if NEEDS_REVIEW_TAG in note.tags:
        return f"tagged {NEEDS_REVIEW_TAG}: edit it, or remove the tag to try again"
    if note.extra.get(COMPACTED_KEY) == content_digest(note.title, note.body):
        return "compacted already, and not changed since"
    return ""


def _ask(
    store: MemoryStore,
    provider: Provider,
    settings: LlmSettings,
    note: Memory,
    base: NoteCompaction,
    report: CompactionReport,
) -> tuple[NoteCompaction, Memory | None]:
    """One call for one note (dry: its plan), and what comes of the reply."""
    system_tokens = estimate_tokens(SYSTEM)
    window = fit_to_budget(
        [note_text(note.title, note.body)], max(settings.max_input_tokens - system_tokens, 1)
    )
    if window.cut or window.left_out:
        limit = settings.max_input_tokens
        return _with(base, SKIPPED, f"too long to send whole (llm.max_input_tokens {limit})"), None
    planned = replace(base, call=True, input_tokens=system_tokens + window.tokens)
    if not report.applied:
        return planned, None
    try:
        reply = provider.complete(
            SYSTEM,
            window.text,
            max_tokens=base.tokens + REPLY_SLACK_TOKENS,
            timeout_s=settings.timeout_s,
        )
    except ProviderError as exc:
        report.error = str(exc)
        return _with(planned, PROVIDER_ERROR, str(exc)), None
    try:
        if store.get(note.id) != note:
            return _with(planned, SKIPPED, "changed while the provider was working"), None
    except NoteNotFound:
        return _with(planned, SKIPPED, "deleted while the provider was working"), None
    try:
        rewrite = parse_rewrite(reply)
    except InvalidReply as exc:
        excerpt = redact_prompt(exc.excerpt)
        log.info("compact %s: %s; the reply began: %r", note.id, exc.reason, excerpt)
        return _with(planned, INVALID, exc.reason), _tagged(store, note)
    return _judge(store, note, planned, rewrite, report)


def parse_rewrite(reply: str) -> tuple[str, str]:
    """The title and body of a reply that is exactly ``{"title": ..., "body": ...}`` (bare
    or in a fence); raises :class:`InvalidReply` saying what is wrong."""
    data = extract_object(reply)
    if others := sorted(set(data) - {"title", "body"}):
        raise InvalidReply(f"the reply has keys other than title and body: {others}", reply)
    title, body = data.get("title"), data.get("body")
    if not isinstance(title, str) or not title.strip():
        raise InvalidReply("the reply has no title", reply)
    if not isinstance(body, str) or not body.strip():
        raise InvalidReply("the reply has no body", reply)
    return " ".join(title.split()), body.strip()


def _judge(
    store: MemoryStore,
    note: Memory,
    base: NoteCompaction,
    rewrite: tuple[str, str],
    report: CompactionReport,
) -> tuple[NoteCompaction, Memory | None]:
    """Keep the rewrite (shorter, every fact there) or refuse it (and tag the note)."""
    by_model = base.call
    old, new = note_text(note.title, note.body), note_text(*rewrite)
    after = estimate_tokens(new)
    tag = _tagged(store, note) if report.applied else None
    if len(new) >= len(old):
        if not by_model:
            return _with(base, UNCHANGED, "nothing to fold", tokens_after=after), None
        return _with(base, REFUSED, f"not shorter ({after} tokens)", tokens_after=after), tag
    check = check_facts(redact_prompt(old), redact_prompt(new), both_ways=True)
    if not check.ok:
        shown = {"missing": check.shown(), "added": check.shown_added()}
        return _with(base, REFUSED, check.describe(), tokens_after=after, **shown), tag
    if not report.applied:
        return _with(base, PLANNED, tokens_after=after), None
    title, body = rewrite
    changed = note.replace(title=title, body=body, updated_at=utc_now(), prov_model=report.model)
    if by_model:
        confidence = min(note.confidence, REWRITE_CONFIDENCE)
        extra = {**note.extra, REWRITTEN_BY_KEY: report.model}
        changed = changed.replace(confidence=confidence, extra=extra)
    try:
        rewritten = store.as_written(changed)
    except InvalidNote as exc:
        return _with(base, INVALID, f"the store would not take it: {exc}"), tag
    digest = content_digest(rewritten.title, rewritten.body)
    extra = dict(rewritten.extra)
    if is_capture_owned(note):  # capture goes on updating its session's note
        extra[CAPTURE_DIGEST_KEY] = digest
    if by_model:  # not sent to a model again unless it changes
        extra[COMPACTED_KEY] = digest
    return _with(base, COMPACTED, tokens_after=after), rewritten.replace(extra=extra)


def _tagged(store: MemoryStore, note: Memory) -> Memory | None:
    """The note tagged ``needs-review``, its text untouched; None when the store would not
    write the note at all (a hand-written one over its limits): it is left as it is."""
    try:
        return store.as_written(
            note.replace(tags=[*note.tags, NEEDS_REVIEW_TAG], updated_at=utc_now())
        )
    except InvalidNote:
        return None


def _with(outcome: NoteCompaction, status: str, reason: str = "", **changes: Any) -> NoteCompaction:
    return replace(outcome, status=status, reason=reason, **changes)


def fold_text(text: str) -> str:
    """``text`` compacted without a model: trailing spaces and runs of blank lines gone,
    consecutive repeated lines (with a letter or digit) folded to one, and a block (lines
    between blank lines, or a fenced block) dropped when it repeats, word for word, the
    block before it or, when it is :data:`MIN_BLOCK_CHARS` long or more, any earlier one.
    In fenced blocks only trailing spaces go. Folding twice gives what folding once gave."""
    kept: list[str] = []
    parts: list[str] = []
    dropped = False
    for gap, block in _blocks(text):
        again = kept and block == kept[-1] and any(char.isalnum() for char in block)
        if again or (len(block) >= MIN_BLOCK_CHARS and block in kept):
            dropped = True
            continue
        if kept:  # a block's own separator, unless one was dropped before it
            parts.append("\n\n" if gap or dropped else "\n")
        parts.append(block)
        kept.append(block)
        dropped = False
    return "".join(parts)


def _blocks(text: str) -> list[tuple[bool, str]]:
    """The blocks of ``text``, each with whether blank lines came before it."""
    blocks: list[tuple[bool, str]] = []
    current: list[str] = []
    gap, fence = False, ""
    for line in (line.rstrip() for line in text.splitlines()):
        opening = None if fence else fence_opening(line)
        if current and (fence or opening or not line):  # a paragraph ends
            blocks.append((gap, "\n".join(current)))
            current, gap = [], False
        if fence:
            blocks[-1] = (blocks[-1][0], blocks[-1][1] + "\n" + line)
            fence = "" if closes_fence(line, fence) else fence
        elif opening:
            blocks.append((gap, line))
            fence, gap = opening[0], False
        elif not line:
            gap = bool(blocks)
        elif not (current and line == current[-1] and any(c.isalnum() for c in line)):
            current.append(line)
    if current:
        blocks.append((gap, "\n".join(current)))
    return blocks
