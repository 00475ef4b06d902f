"""Whether modules can be imported here, found without importing them (an extra's
packages are heavy; asking is cheap)."""

from __future__ import annotations

import importlib.util


def importable(*modules: str) -> bool:
    """True when every one of ``modules`` can be imported in this environment."""
    try:
        return all(importlib.util.find_spec(module) is not None for module in modules)
    except (ImportError, ValueError):  # a parent package missing, or a broken one
        return False
