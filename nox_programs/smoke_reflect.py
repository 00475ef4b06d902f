"""Isolation smoke test of `anamnesis-reflect` installed alone (the `isolation` session): the
default provider needs no network and no key, a dry run of reflect plans one project's
episodes without calling anything, and a completion asked of it says how to choose one.

Runs as a plain script in the isolated venv: stdlib, `anamnesis-store` and `anamnesis-reflect`.
"""

from __future__ import annotations

import os
import tempfile

from anamnesis.reflect import ProviderUnavailable, load_settings, make_provider, run_reflection
from anamnesis.store import MemoryStore

home = tempfile.mkdtemp()
os.environ["ANAMNESIS_HOME"] = home
settings = load_settings()
provider = make_provider(settings)
assert provider.name == "heuristic", provider.name
with MemoryStore(home) as store:
    for n in range(5):
        store.write(type="episodic", title=f"session {n}", body="fixed a deploy", project="p")
    report = run_reflection(store, provider, settings, project="p", min_episodes=5)
    assert report.ok and [plan.project for plan in report.plans] == ["p"], report.to_dict()
try:
    provider.complete("system", "user", max_tokens=16, timeout_s=1)
    problem = ""
except ProviderUnavailable as exc:
    problem = str(exc)
assert "claude-code" in problem, f"the heuristic provider's refusal names no fix: {problem!r}"
print("reflect smoke ok")
