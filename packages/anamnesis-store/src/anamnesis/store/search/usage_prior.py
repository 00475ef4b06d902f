"""A small prior for the notes this machine's sessions used (``usage_prior``, off unless
set): among a search's best candidates, a note used lately moves up a little.

Off by default, as measured (``bench/studies/usage_prior.py``: each eval set's cases in
two halves, one half's searches and fetches recorded as sessions', the other half searched
with and without the prior; ``bench/results/2026-11-29-usage-prior.md``): no weight from
0.002 to 0.1 lost nothing at every k on both devmemory and realmem.

A weight ``w`` adds, to a candidate's score, ``w`` times the best candidate's score
times ``n / (n + HALF_USES)``, where ``n`` counts its uses in the last :data:`PRIOR_DAYS`
days by :data:`COUNTED` (a note fetched by id, or recalled at a prompt over recall's
relevance floor: the agent or the prompt asked for it; a SessionStart block shows the
newest notes whatever is asked, and a search's other hits are what it returned, not what
was wanted). So the lift is at most ``w`` of the best score, half of that at
:data:`HALF_USES` uses: with a small ``w`` it settles near ties and never lifts a note
that shares nothing with the query, as only the ranking's own candidates are moved (``k``
and :data:`EXTRA_DEPTH` more). The log is read for those candidates alone; a log that
cannot be read is no prior.
"""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from anamnesis.store.note.model import SearchHit
    from anamnesis.store.usage.usage_log import UsageLog

# The setting is read with the other search settings (``search_modes.SearchSettings``:
# ``usage_prior``, ``ANAMNESIS_USAGE_PRIOR``); this module loads only when it is on.
PRIOR_DAYS = 90
HALF_USES = 3
EXTRA_DEPTH = 8
COUNTED: tuple[str, ...] = ("recalled", "fetched")


def with_prior(hits: list[SearchHit], usage: UsageLog, weight: float, k: int) -> list[SearchHit]:
    """The best ``k`` of ``hits`` (best first) once each is lifted by its uses."""
    if weight <= 0 or not hits:
        return hits[:k]
    uses = usage.uses_of((hit.note.id for hit in hits), days=PRIOR_DAYS, events=COUNTED)
    if not uses:
        return hits[:k]
    top = max(abs(hit.score) for hit in hits)

    def lifted(hit: SearchHit) -> float:
        count = uses.get(hit.note.id, 0)
        return hit.score + weight * top * count / (count + HALF_USES)

    scored = [(lifted(hit), index, hit) for index, hit in enumerate(hits)]
    scored.sort(key=lambda row: (-row[0], row[1]))  # equal scores keep the ranking's order
    return [hit.replace(score=score) for score, _index, hit in scored[:k]]
