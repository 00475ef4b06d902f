"""What a command in a note is: the program it runs and the subcommands that name its task.

``uv run pybabel compile -d locales`` runs ``pybabel compile``, not ``uv run``: a runner
(``uv run``, ``npx``, ``poetry run``, ``python -m``, ``bundle exec``, ...) is read through
to the program it starts, so two tasks started through one runner are two tools, and
their flags are never compared as one command's (``--locale`` against ``-d``). A tool is
its program and the subcommands after it (``airflow dags backfill``, ``kubectl rollout
status``), at most :data:`MOST_SUBCOMMANDS` of them: ``dbt test`` and ``dbt build`` are two
tasks of one program. A build tool's task is a subcommand too (``./gradlew installDebug``,
``./gradlew :app:installDevDebug``, ``pnpm db:generate``).

A newer note may name an older command only to retire it ("plain `torchrun` runs out of
memory", "`cargo test` took 9 minutes", "nobody runs terraform apply anymore"):
:func:`retired_in` tells that from a note that still runs it.
"""

from __future__ import annotations

import re
from functools import lru_cache

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

# Words that start a program rather than being one: (program, words after it that make
# it a runner). An empty tuple: the program alone is a runner.
_RUNNERS: Final = {
    "uv": ("run",), "poetry": ("run",), "pdm": ("run",), "hatch": ("run",),
    "pipenv": ("run",), "rye": ("run",), "pipx": ("run",), "npx": (), "bunx": (),
    "pnpx": (), "pnpm": ("exec", "dlx"), "yarn": ("exec", "dlx"), "npm": ("exec",),
    "bundle": ("exec",), "time": (), "sudo": (), "env": (), "exec": (),
}  # fmt: skip
# Interpreters whose ``-m module`` is the program (``python -m notifications.cli``).
_INTERPRETERS: Final = frozenset({"python", "python3", "py"})
MOST_SUBCOMMANDS: Final = 2
# A word that may be a subcommand: lower case, letters, digits and dashes; or a build
# tool's task: camelCase (`installDebug`), a project's (`:app:assembleRelease`).
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9-]*|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+|(?::[A-Za-z][\w-]*)+")
# A package manager's script, with its group (`pnpm db:generate`, `npm run test:e2e`);
# after another program `app:api` is an argument (`gunicorn app:api`).
_SCRIPT = re.compile(r"[a-z][\w-]*(?::[A-Za-z][\w-]*)+")
_SCRIPT_RUNNERS: Final = frozenset({"npm", "pnpm", "yarn", "bun"})
# Interpreters run with a script that has tasks of its own (Django's ``manage.py``,
# Laravel's ``artisan``), and such a script.
_SCRIPT_INTERPRETERS: Final = frozenset({"python", "python3", "php", "ruby", "node"})
SCRIPT_FILE: Final = re.compile(
    r"(?:\./)?[A-Za-z][\w-]*\.(?:py|php|rb|js|mjs|cjs|ts|sh|pl)|artisan"
)
# A program: a word, or a script by its relative path (`bin/queue`, `./scripts/seed`).
PROGRAM: Final = re.compile(r"^(?:\.{1,2}/)?(?:[a-z][\w-]*/){0,2}[a-z][a-z0-9._+-]*$")


def program_start(parts: list[str]) -> int:
    """The index of the program a command runs: past its runners (``uv run``, ``npx``)
    and an interpreter's ``-m``, whose module is the program; 0 for a plain command."""
    i = 0
    while i < len(parts) - 1:
        word = parts[i].lower()
        after = _RUNNERS.get(word)
        if after is None:
            break
        # a runner's own flags may come before its word: `pnpm --filter @acme/db exec
        # prisma generate` runs prisma (each flag with its value)
        j = i + 1
        while after and j < len(parts) - 2 and parts[j].startswith("-"):
            j += 1 if "=" in parts[j] else 2
        if not after:
            i += 1
        elif parts[j].lower() in after:
            i = j + 1
        else:
            break
        while i < len(parts) - 1 and "=" in parts[i] and word == "env":
            i += 1  # env FOO=1 cmd
    if (
        i < len(parts) - 2
        and re.sub(r"[\d.]+$", "", parts[i].lower()) in _INTERPRETERS
        and parts[i + 1] == "-m"
    ):
        return i + 2
    return i


def command_tool(parts: list[str]) -> tuple[str, int]:
    """A command's tool (its program and subcommands, lower case) and the index of the
    first part after it."""
    start = program_start(parts)
    if start >= len(parts):
        return "", len(parts)
    tool = [parts[start].lower()]
    i = start + 1
    script = tool[0] in _SCRIPT_INTERPRETERS and i < len(parts) and SCRIPT_FILE.fullmatch(parts[i])
    if script:  # `python manage.py loaddata`, `php artisan queue:work`: the script's tasks
        tool.append(parts[i])
        i += 1
    while (
        i < len(parts)
        and len(tool) <= MOST_SUBCOMMANDS
        and (
            _SUBCOMMAND.fullmatch(parts[i])
            or ((tool[0] in _SCRIPT_RUNNERS or script) and _SCRIPT.fullmatch(parts[i]))
        )
    ):
        tool.append(parts[i])
        i += 1
    return " ".join(tool), i


@lru_cache(maxsize=16384)
def tool_of(command: str) -> str:
    """:func:`command_tool` of a command's text."""
    return command_tool(command.split())[0]


@lru_cache(maxsize=16384)
def program_of(command: str) -> str:
    """The program a command runs (``uv run pybabel compile`` runs ``pybabel``)."""
    parts = command.split()
    start = program_start(parts)
    return parts[start].lower() if start < len(parts) else ""


def task_words(command: str) -> frozenset[str]:
    """The words that say what a command does: its program, subcommands and arguments,
    and the values of its flags, not the flags' names nor a runner (`uv run pybabel
    compile -d locales` and `uv run python -m notifications.preview --locale de` share
    no task: ``locale`` is a flag's, ``uv`` a runner's)."""
    from anamnesis.store.review.reading.text import content_stems  # the review's words

    parts = command.split()
    kept: list[str] = []
    for part in parts[program_start(parts) :]:
        if part.startswith("-"):
            value = part.partition("=")[2]
            if value:
                kept.append(value)
            continue
        kept.append(part)
    return frozenset(content_stems(" ".join(kept)))


# Words that say a command fails, is of the past or is no longer run: what a newer note
# says of the older note's command when it gives another one for the task.
_RETIRING = re.compile(
    r"\b(?:fail(?:s|ed)?|broken|breaks|refus(?:e|es|ed)|ambiguous|skip(?:s|ped)?"
    r"|errors?\s+out|(?:does|do|did)(?:\s+not|n[\u2019']t)\s+work|no\s+longer|anymore"
    r"|used\s+to|deprecated|obsolete|removed|dropped|replaced|retired|gone|nobody|never"
    r"|uninstalled|ran|took|out\s+of\s+memory)\b"
)  # matched against lower case: a case-blind pattern reads every clause at half the speed


def mentions(command: str, running: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """How a note may name a command in passing, lower case: its tool (program and
    subcommands: ``cargo test``, ``torchrun``); its program alone, unless one of
    ``running`` (the programs the naming note runs itself: its ``cargo`` is not the
    older ``cargo test``); a build tool's or a script's task of its own
    (``installdebug``, ``db:generate``)."""
    tool, _after = command_tool(command.split())
    if not tool:
        return ()
    words = tool.split()
    found = [tool]
    if words[0].lower() not in running:
        found.append(words[0])
    found.extend(word for word in words[1:] if re.search(r"[A-Z:]", word))
    return tuple(dict.fromkeys(word.lower() for word in found))


def retired_in(command: str, retiring: list[str], running: frozenset[str] = frozenset()) -> bool:
    """Whether one of ``retiring`` (a newer note's clauses that say something fails, is of
    the past or is no longer run: :func:`retiring_clauses`; the note runs the programs
    ``running``) names ``command`` (:func:`mentions`). The caller filters the clauses,
    once a note (:meth:`.facts.NoteFacts.retiring`), not once a command."""
    if not retiring:
        return False
    retiring = [clause.lower() for clause in retiring]
    names = mentions(command, running)
    if not any(name in clause for clause in retiring for name in names):
        return False  # (the pattern below finds a name only where it is a substring)
    pattern = re.compile(
        r"(?<![\w./:-])(?:" + "|".join(re.escape(name) for name in names) + r")(?![\w-])"
    )
    return any(pattern.search(clause) for clause in retiring)


def retiring_clauses(clauses: list[str]) -> list[str]:
    """Those of ``clauses`` that say something fails, is of the past or is no longer run
    (``_RETIRING``): the only ones :func:`retired_in` reads."""
    return [clause for clause in clauses if _RETIRING.search(clause.lower())]
