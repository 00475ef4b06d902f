"""docs/configuration.md documents every setting the packages declare: a row per key, naming
the environment variables that override it and the values it allows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from anamnesis.cli.config_file import config_keys

DOC = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"


def _rows() -> dict[str, str]:
    """Each table row of the doc whose first cell is a key in backticks, by that key."""
    rows: dict[str, str] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        found = re.match(r"\|\s*`([^`]+)`\s*\|", line)
        if found:
            rows.setdefault(found.group(1), line)
    return rows


@pytest.mark.parametrize("key", list(config_keys()))
def test_the_docs_have_a_row_for_every_setting(key: str) -> None:
    declared = config_keys()[key]
    row = _rows().get(key)
    assert row is not None, f"docs/configuration.md has no row for {key}"
    for variable in declared.env:
        assert variable in row, (key, variable)
    for choice in declared.choices:
        assert choice in row, (key, choice)


def test_every_setting_says_what_it_does_and_who_reads_it() -> None:
    for key, declared in config_keys().items():
        assert declared.key == key
        assert declared.help and "\n" not in declared.help, key
        assert declared.default, key
        assert declared.owner in ("store", "hooks", "reflect", "cli"), key
