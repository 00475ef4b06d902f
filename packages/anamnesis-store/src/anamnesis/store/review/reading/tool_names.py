"""Developer tools named in lower case in prose: "use npm", "hashed with bcrypt", "runs
behind nginx".

A capitalised name is read as a name wherever it stands (:mod:`.readers`); a tool is as
often written in lower case, as its command is, and then no pattern tells it from a word.
These are the tools notes name that way, by what they do: package managers and version
managers, servers and proxies, linters, formatters and type checkers, test runners,
bundlers and build tools, password hashes, data stores, infrastructure tools. A word that
is also a common English word ("black", "make", "kind", "flux", "puma") is left out: in
lower case it is more often the word.
"""

from __future__ import annotations

import re

from anamnesis.store.review.reading.tool_roles import TOOL_ROLES, WORDS
from anamnesis.store.review.reading.value import Spans, Value

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final

TOOL_NAMES: Final = frozenset(
    """
    npm pnpm yarn pip pipx poetry uv pdm hatch conda mamba pipenv cargo gradle maven sbt
    bundler composer nuget cocoapods asdf mise nvm pyenv rbenv volta homebrew
    nginx caddy traefik haproxy envoy gunicorn uvicorn hypercorn daphne waitress tomcat jetty
    flake8 pylint ruff isort autopep8 yapf eslint tslint prettier biome rubocop golangci-lint
    gofmt gofumpt mypy pyright pytype stylelint clippy rustfmt ktlint detekt swiftlint
    shellcheck hadolint
    jest vitest pytest rspec minitest phpunit junit testng nose2 tox nox
    webpack vite rollup esbuild turbopack swc tsc bazel cmake
    bcrypt scrypt argon2 argon2id pbkdf2
    postgres postgresql mysql mariadb sqlite redis valkey memcached mongodb cassandra
    elasticsearch opensearch clickhouse dynamodb kafka rabbitmq
    supervisord pm2 podman containerd k3s minikube terraform opentofu pulumi ansible
    kustomize argocd
    """.split()  # noqa: SIM905 - a word list reads best as words
)
# The other tools of :mod:`.tool_roles` named in one word that is no English word: read
# in lower case too, but only ever compared as two tools of one role
# (:func:`.tools_of_one_role.of_one_role`): "kitty", "avian2d".
ROLE_ONLY_NAMES: Final = (
    frozenset(spelling for spelling in TOOL_ROLES if " " not in spelling and spelling not in WORDS)
    - TOOL_NAMES
)


def tool_names(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """The tools a text names in lower case (:data:`TOOL_NAMES`), outside what is read
    already (a path, a command, a setting's key)."""
    for match in _TOOL.finditer(text):
        if spans.free(*match.span()):
            spans.take(*match.span())
            word = match.group(0)
            yield match.start(), Value("name", word, word, clause=clause)


# One of the tools, as a word in lower case, not inside a path, a file's name, a key or a
# flag (one pattern for all: most clauses name none, and are passed over at once).
_TOOL: Final = re.compile(
    r"(?<![\w./@:-])(?:"
    + "|".join(
        re.escape(name) for name in sorted(TOOL_NAMES | ROLE_ONLY_NAMES, key=len, reverse=True)
    )
    + r")(?![\w/@:=-]|\.\w)"
)
