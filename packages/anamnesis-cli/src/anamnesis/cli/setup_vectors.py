"""`anamnesis init`'s vectors step: make sure search by meaning can get its model.

The vectors extra downloads its embedding model on first use. A machine that cannot reach
the download (offline, a firewall) needs a local copy, set with `embed_model_path`; init
finds that out once, here, instead of every search quietly running on keywords. What to say
about it is the store's one hint (``MODEL_FOLDER_HINT``), as every such message says it.
"""

from __future__ import annotations

from pathlib import Path

from anamnesis.store import (
    MODEL_FOLDER_HINT,
    VectorsUnavailable,
    configured_model,
    default_embedder,
    forget_unreachable_model,
    vector_support,
)


def model_problem(home: Path) -> str | None:
    """Why the vectors extra, which can run in this Python, cannot get its model; None
    when it can, or when there is nothing to ask about (no extra, a Python whose sqlite3
    cannot load extensions, or a model folder that is already configured: `anamnesis
    doctor` checks those)."""
    if not vector_support().available:
        return None
    _name, path = configured_model(home)
    if path is not None:
        return None
    forget_unreachable_model(home)  # set up now: a download that failed before is tried
    try:
        default_embedder(home).embed_query("anamnesis init")  # downloads it once, if it can
    except VectorsUnavailable as exc:
        return str(exc).split("; ")[0]
    except Exception as exc:  # the model's own libraries fail in their own ways
        return f"the embedding model does not load: {type(exc).__name__}: {exc}"
    return None


HINT = f"{MODEL_FOLDER_HINT}; until then search is keyword-only"
