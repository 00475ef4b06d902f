"""A dependency's version as a manifest's line declares it: go.mod's ``require
github.com/gin-gonic/gin v1.9.1``, a Gemfile's ``gem 'rails', '~> 7.0.8'``. The package is
the version's tool, as "gin v1.10.0" or "Rails 7.1" says it in prose (a Go module by its
last part, ``gin``; a major version's suffix, ``/v2``, is no name)."""

from __future__ import annotations

import re

from anamnesis.store.review.reading.quantities import version_value

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.review.reading.value import Value


def manifest_version(code: str, clause: int) -> Value | None:
    """The version a line of code declares its dependency at, or None."""
    found = _GO_REQUIRE.fullmatch(code)
    if found:
        module = _MAJOR_SUFFIX.sub("", found.group(1))
        name = module.rsplit("/", 1)[-1].lower()
    else:
        found = _GEM.fullmatch(code)
        if found is None:
            return None
        name = found.group(1).lower()
    version = version_value(found.group(2), clause, slot=name)
    return version.replace(keyed=True, shown=code) if version is not None else None


# ``require github.com/gin-gonic/gin v1.9.1`` (the word ``require`` may be a block's).
_GO_REQUIRE: Final = re.compile(
    r"(?:require\s+)?([\w.-]+\.[a-z]+(?:/[\w.-]+)+)\s+(v\d+\.\d+\.\d+\S*)"
)
_MAJOR_SUFFIX: Final = re.compile(r"/v\d+$")
# ``gem 'rails', '~> 7.0.8'``, ``gem "pg", ">= 1.5"``.
_GEM: Final = re.compile(r"gem\s+['\"]([\w-]+)['\"]\s*,\s*['\"]([~><=!^\s\d.]+)['\"].*")
