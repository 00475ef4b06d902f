"""A note's text as the contradiction finder reads it: clauses, words and their stems.

A value's subject is the words around it, so the text is cut where a subject ends: at a
sentence's end, a semicolon, a line break, a parenthesis, a dash between spaces. Code in
backticks is never cut (``SELECT ... FOR UPDATE`` stays one span). Words are compared by
a light stem (``shards`` and ``shard``, ``retried`` and ``retry``) so a restated subject
matches; the stem is for matching, never shown.
"""

from __future__ import annotations

import re
from functools import lru_cache

from anamnesis.store.note.invisible import match_text
from anamnesis.store.search.stop_words import STOP_WORDS

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

# How much of a body is read: the first screenful, where a note states its facts. A long
# session note past this is cut, so one note never costs the check more than this.
MAX_CHARS: Final = 2000

# The characters a clause may end at (outside code): a sentence's end, a semicolon, a line
# break, a parenthesis, a dash between spaces; and the backquote a code span starts with.
_CUT_CHARS = re.compile("[.!?](?=\\s|$)|[;\n()`\u2014]|(?<= )[-\u2013](?= )")
# What a call's arguments never hold: a line break, another call's parenthesis.
_NOT_IN_CALL = re.compile(r"[\n(]")
# A span in backquotes (code, a command, a path): never cut, read as one value.
CODE_SPAN: Final = re.compile(r"`([^`\n]{1,300})`")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'\u2019-]*[A-Za-z0-9]|[A-Za-z]")

# Words that say nothing about which thing a sentence is about (beyond the query stop
# words): filler, the verbs every instruction has, and the words of time and change,
# which say that a value changed, not what it belongs to.
GENERIC: Final = (
    frozenset(
        """
    also always any anymore around back but can every everything get gets got just keep
    kept let like make makes many may might much must need needs new newer now old older
    one ones please run runs same see set sets since still sure thing things today use
    used uses using via want way well within without yet default instead currently
    change changed changes moved switched fine ok okay stays unchanged something
    """.split()  # noqa: SIM905 - a word list reads best as words
    )
    | STOP_WORDS
)

_NUMBER_WORDS: Final = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100,
}  # fmt: skip


def number_word(word: str) -> int | None:
    """The number a word spells (``two``, ``Six``), else None."""
    return _NUMBER_WORDS.get(word.lower())


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stem: lower case, a plural, ``-ing``, ``-ed`` or a possessive taken off.
    Deterministic and crude on purpose: it only has to make a restated word match. A
    double consonant at the end is one, as ``-ing`` and ``-ed`` leave it ("running":
    ``run``), so "install" and "installing", "process" and "processes" meet."""
    stemmed = _stem(word)
    if len(stemmed) > 3 and stemmed[-1] == stemmed[-2] and stemmed[-1] not in "aeiouy0123456789":
        return stemmed[:-1]
    return stemmed


def _stem(word: str) -> str:
    w = word.lower().replace("\u2019", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.rstrip("'")
    if len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ings") and len(w) > 6:
        w = w[:-1]  # "readings", "settings": as "reading", "setting" stem
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
        return w[:-1] if len(w) > 3 and w[-1] == w[-2] else w
    if w.endswith("ally") and len(w) > 6:
        return w[:-2]  # "locally", "globally": as "local", "global"
    if w.endswith("ations"):
        w = w[:-1]  # "migrations": as its singular
    if w.endswith("ation") and len(w) > 7:
        return w[:-3]  # "simulation", "migration": as "simulated", "migrates" stem
    if w.endswith("ied") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ed") and len(w) > 4:
        w = w[:-2]
        if w.endswith("e") and len(w) > 4:
            return w
        return w[:-1] if len(w) > 3 and w[-1] == w[-2] else w
    if w.endswith(("sses", "shes", "xes", "zes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]  # then as the singular: "throttles" and "throttle" meet
    if w.endswith("e") and len(w) > 4:
        return w[:-1]
    return w


def words(text: str) -> list[str]:
    """The words of a text, as written (letters, digits inside, ``_``, ``-``, ``'``)."""
    return _WORD.findall(text)


def content_stems(text: str) -> list[str]:
    """The stems of the words that say what a text is about, in order (repeats kept);
    hyphenated and snake_case words also count as their parts."""
    out: list[str] = []
    for word in _WORD.findall(text):
        out.extend(word_stems(word))
    return out


_LOWER_CAMEL = re.compile(r"[a-z][a-z0-9]+(?:[A-Z][a-z0-9]+)+")
# Where a camelCase identifier's next word starts: ``slidingWindow``, ``poolSize``.
CAMEL_CUT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=65536)
def word_stems(word: str) -> tuple[str, ...]:
    """The stems one word counts as (none for a stop word; a compound's parts too)."""
    lower = word.lower()
    if lower in GENERIC or len(lower) < 2:
        return ()
    if _LOWER_CAMEL.fullmatch(word):
        # an identifier in camelCase counts as its parts too: `slidingWindow` is a window
        # (only one that starts lower case: "TypeScript" or "GitHub" is a product's name)
        parts = [stem(part) for part in CAMEL_CUT.split(word) if len(part) > 2]
        return (stem(lower), *(part for part in parts if part not in GENERIC))
    if "-" not in lower and "_" not in lower:
        return (stem(lower),)
    parts = [stem(part) for part in re.split(r"[-_]", lower) if len(part) > 1]
    return (stem(lower), *(part for part in parts if part not in GENERIC))


# Words that say for whom or where a fact holds: an environment, a platform, a region, an
# audience or plan. Two values said for two of them are two facts, not one that changed
# ("production uses a pool of 50" and "in staging the pool is 10").
SCOPE_WORDS: Final = frozenset(
    """
    prod production staging stage dev development qa uat local sandbox preview demo linux
    macos mac windows ios android mobile desktop arm arm64 aarch64 x86 x86_64 amd64 wsl wsl2
    eu us uk apac emea asia free pro enterprise business admin admins anonymous guest guests
    signed-in logged-in internal external public private partner partners premium trial
    paid beta warning warn warns critical paging pagerduty on-call oncall
    """.split()  # noqa: SIM905 - a word list reads best as words
)
# Those that name a scope whatever the sentence ("the admins' limit"), where "local
# settings", "the dev server" or "the public API" may name no scope at all.
STRONG_SCOPES: Final = SCOPE_WORDS - frozenset(
    """
    stage dev development local preview demo mobile desktop business internal external public
    private
    """.split()  # noqa: SIM905 - a word list reads best as words
)
_REGION = re.compile(r"\b[a-z]{2}-(?:[a-z]+-)+\d\b")
_SINGULAR_SCOPES: Final = {
    **{word: word[:-1] for word in SCOPE_WORDS if word.endswith("s") and word[:-1] in SCOPE_WORDS},
    "locally": "dev",
    # one environment's names: a laptop's "local" is the "dev" one
    "local": "dev", "development": "dev", "production": "prod",
    # one level of alert: "warns at 80%" and "the warning fires at 85%"
    "warning": "warn",
}  # fmt: skip


@lru_cache(maxsize=16384)
def scopes(text: str, leaving: str = "", *, mentions: bool = False) -> frozenset[str]:
    """The scope words a text holds (:data:`SCOPE_WORDS`, a compound's parts too:
    "free-plan"; cloud regions like eu-west-1), none of ``leaving``'s (a value's own
    words: ``--mode production`` is a value, not a scope). With ``mentions``, the scopes
    it names at all, inside an identifier too (``fetch_partner_files`` mentions the
    partner; it says nothing is for partners)."""
    lower = CODE_SPAN.sub(" ", text.lower())
    found = set(_REGION.findall(lower))
    for word in re.findall(r"[a-z0-9_]+(?:-[a-z0-9]+)*", lower):
        if word in SCOPE_WORDS or word in _SINGULAR_SCOPES:
            found.add(_SINGULAR_SCOPES.get(word, word))  # "partners" and "partner": one
        elif "-" in word or (mentions and "_" in word):  # "free-plan", "fetch_partner_files"
            found.update(
                _SINGULAR_SCOPES.get(part, part)
                for part in re.split(r"[-_]", word)
                if part in SCOPE_WORDS
            )
    if leaving:
        found -= scopes(leaving)
    return frozenset(found)


def plain_words(text: str) -> frozenset[str]:
    """A text's content words, in lower case, a plural's ``s`` taken off: a cheap key for
    "do these two texts talk about the same things" (no stemming: it runs over whole
    notes)."""
    out = set()
    for word in _WORD.findall(text.lower()):
        if word in GENERIC or len(word) < 2:
            continue
        out.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return frozenset(out)


# A fenced block of shell (```, ```bash, ```sh, ```console, ...): its lines are commands.
_FENCE = re.compile(
    r"^```[ \t]*(?:bash|sh|shell|console|zsh|fish|powershell|ps1|cmd|bat|text)?[ \t]*\n"
    r"(.*?)^```[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_PROMPT = re.compile(r"^(?:\$|>|PS>|%)\s+")
# A shell line's end that continues the command on the next line.
_CONTINUED = re.compile(r"[ \t]*\\[ \t]*\n[ \t]*")
# A fenced block of configuration (```yaml, ```json, ```toml, ```ini, ```vcl, ...): each
# line is one setting, read as code on a line of its own.
_CONFIG_FENCE = re.compile(
    r"^```[ \t]*(?:ya?ml|json|jsonc|toml|ini|cfg|conf|properties|hcl|terraform|tf|env|dotenv"
    r"|nginx|apache|vcl|xml|nix|dockerfile|systemd|hocon|ts|typescript|js|javascript|kotlin"
    r"|gitconfig"
    r"|kts|groovy|lua)[ \t]*\n(.*?)^```[ \t]*$",
    re.MULTILINE | re.DOTALL | re.IGNORECASE,
)
# An INI file's section header (``[pull]`` in a gitconfig), and a line of it that sets a
# key: its keys are the section's. (A TOML table names where a key is, as often as not a
# tool's own: ``[tool.poetry.dependencies]`` then ``python``; its keys stay as written.)
_INI = re.compile(r"```[ \t]*(?:ini|cfg|gitconfig|conf)\b", re.IGNORECASE)
_SECTION = re.compile(r"\[([A-Za-z_][\w.-]*)\]")
_SECTION_KEY = re.compile(r"[A-Za-z_][\w-]*\s*=")
# What only shapes a block of configuration: brackets, commas, a comment.
_BRACKETS_ONLY = re.compile(r"[\[\]{}(),;\s]*")


def lines_as_commands(text: str) -> str:
    """A text whose lines that are commands without code marks ("deno run --allow-net
    main.ts" on a line of its own, often a note's whole body) are written in backquotes,
    so each reads as a command in backquotes does. Such a line opens with a lower-case
    word and holds a long flag and no sentence's mark (a sentence opens with a capital,
    and ends with a stop); or it opens with a package manager running a script ("yarn
    dev, then open the app": the script is the command)."""
    if " --" in text:

        def code(line: re.Match[str]) -> str:
            words = line.group(2).split()
            if any(word.lower() in STOP_WORDS for word in words):
                return line.group(0)  # "run it with --fast": a sentence in lower case
            return f"{line.group(1)}`{line.group(2)}`"

        text = _COMMAND_LINE.sub(code, text)
    # (a line-anchored pattern tries every position of a long note: a plain substring
    # test first passes over most notes at once)
    if any(tool in text for tool in _SCRIPT_TOOLS):
        text = _SCRIPT_LINE.sub(r"\1`\2`", text)
    if "sudo " in text:
        text = _SUDO_LINE.sub(r"\1`\2`", text)
    return text


# A line opening with a package manager's script ("yarn dev, then open ..."): no
# sentence opens with a package manager's name in lower case.
_SCRIPT_TOOLS: Final = ("npm ", "yarn ", "bun ")  # ("pnpm " holds "npm ")
_SCRIPT_LINE = re.compile(
    r"(?m)^([ \t]*(?:[-*][ \t]+)?)((?:npm run|pnpm|yarn|bun run|bun) [a-z][\w:-]*)"
    r"(?=[,;]|[ \t]*$|[ \t]+-[ \t])"
)

# A line opening with sudo: no sentence does. The command runs to a clause's end, or to
# a dash set off by spaces ("sudo /etc/init.d/app restart - the init script waits").
_SUDO_LINE = re.compile(
    r"(?m)^([ \t]*(?:[-*][ \t]+)?)(sudo(?: [^\s,;`]+)+?)(?=[,;]|[ \t]*$|[ \t]+-[ \t]|\.[ \t]*$)"
)


# A line of code words only (no backquote, no word ending in a comma or a stop), the
# first in lower case, one a long flag: ``dotnet ef database update --project src/Api``.
_CODE_WORD = r"[^\s`]*[^\s`,.;:]"
_COMMAND_LINE = re.compile(
    r"^([ \t]*(?:[-*][ \t]+)?)"
    rf"([a-z.~/](?:{_CODE_WORD})?(?:[ \t]+{_CODE_WORD})*?"
    rf"[ \t]+--[a-z](?:{_CODE_WORD})?(?:[ \t]+{_CODE_WORD})*)[ \t]*$",
    re.MULTILINE,
)


# An INI file's section written without a fence: its header on a line of its own, then
# its indented ``key = value`` lines (``[pull]``, ``    rebase = false``).
_BARE_SECTION = re.compile(
    r"^\[([A-Za-z_][\w.-]*)\][ \t]*\n((?:[ \t]+[A-Za-z_][\w-]*[ \t]*=[^\n]*(?:\n|$))+)",
    re.MULTILINE,
)


def sectioned_lines(text: str) -> str:
    """A text whose INI sections written without a fence (:data:`_BARE_SECTION`) are
    each a line of settings in code, their keys the section's (``pull.rebase = false``),
    as a fenced INI block reads."""
    if "[" not in text:
        return text

    def settings(block: re.Match[str]) -> str:
        section = block.group(1)
        lines = (line.strip() for line in block.group(2).splitlines())
        return "\n".join(f"`{section}.{line}`" for line in lines if line) + "\n"

    return _BARE_SECTION.sub(settings, text)


def fenced_as_spans(text: str) -> str:
    """A text whose fenced shell blocks are written as one line of code spans, one span a
    command (```` ```\ncd infra\nterraform apply\n``` ```` reads as
    `` `cd infra` `terraform apply` ``): a command on its own line of a block is a
    command as one in backquotes is, and the block's commands are said together, each
    the context of the others. Comments, prompts and blank lines are left out. A block of
    configuration (```` ```yaml ````, ```` ```json ````, ...: :data:`_CONFIG_FENCE`) is one
    span a line, each line a clause of its own: one setting each."""
    if "```" not in text:
        return text

    def spans(block: re.Match[str]) -> str:
        ini = _ini_settings(block.group(1))
        if ini:  # a gitconfig's ``[pull]`` then ``rebase = true``, fenced with no language
            return "\n".join(f"`{line}`" for line in ini) + "\n"
        # a command continued over lines ("snakemake \\", "  -j 100") is one command
        joined = _CONTINUED.sub(" ", block.group(1))
        lines = (_PROMPT.sub("", line.strip()) for line in joined.splitlines())
        kept = [
            f"`{line}`"
            for line in lines
            if line and not line.startswith("#") and "`" not in line and len(line) <= 300
        ]
        return " ".join(kept) + "\n"

    def settings(block: re.Match[str]) -> str:
        kept, section = [], ""
        sections = _INI.match(block.group(0)) is not None
        yaml = _YAML.match(block.group(0)) is not None
        parents: list[tuple[int, str]] = []  # a YAML line's mappings above it: indent, key
        pending = ""  # a list item's name whose value the next line gives
        for raw in block.group(1).splitlines():
            line = raw.strip().rstrip(",")
            header = _SECTION.fullmatch(line) if sections else None
            if header:  # ``[pull]`` then ``rebase = false``: the key is ``pull.rebase``
                section = header.group(1)
                continue
            if _BRACKETS_ONLY.fullmatch(line) or line.startswith(("#", "//", ";", "--")):
                continue
            if section and _SECTION_KEY.match(line):
                line = f"{section}.{line}"
            if yaml:
                line = _yaml_path(raw, line, parents)
                named = _NAME_THEN_VALUE.fullmatch(line)
                if named:  # ``- name: sslVerify`` then ``value: "true"``: one setting
                    pending = named.group(1)
                    continue
                value = _VALUE_OF_NAMED.fullmatch(line) if pending else None
                if value:
                    line, pending = f"{pending}: {value.group(1)}", ""
                elif pending:
                    kept.append(f"`name: {pending}`")
                    pending = ""
            if "`" not in line and len(line) <= 300:
                kept.append(f"`{line}`")
        if pending:
            kept.append(f"`name: {pending}`")
        return "\n".join(kept) + "\n"

    return _FENCE.sub(spans, _CONFIG_FENCE.sub(settings, text))


def _yaml_path(raw: str, line: str, parents: list[tuple[int, str]]) -> str:
    """A YAML line whose key is a word that says nothing alone (``all``, ``default``)
    with the mappings it is nested in (``include_subgraph_errors:`` then ``all: true``
    sets ``include_subgraph_errors.all``), keeping ``parents`` (the keys above, by
    indent) up to date. Another key stays as written: a note in prose names it so
    (``prune: false`` of ``syncPolicy.automated``). A list's item, and what is under it,
    is left as written (its keys are one item's of many)."""
    indent = len(raw) - len(raw.lstrip())
    while parents and parents[-1][0] >= indent:
        parents.pop()
    if line.startswith("-"):
        parents.append((indent, ""))
        return line
    mapping = _YAML_MAPPING.fullmatch(line)
    if mapping:  # ``limits:`` alone: the keys under it are its
        parents.append((indent, mapping.group(1)))
        return line
    key = _YAML_KEY.match(line)
    if parents and all(name for _indent, name in parents) and key and key.group(1) in GENERIC:
        return ".".join(name for _indent, name in parents) + "." + line
    return line


_YAML = re.compile(r"```[ \t]*ya?ml\b", re.IGNORECASE)
# A list of settings as Kubernetes and Tekton write one: ``- name: KEY`` then ``value: V``.
_NAME_THEN_VALUE = re.compile(r"-\s+name:\s+([A-Za-z_][\w.-]*)")
_VALUE_OF_NAMED = re.compile(r"value:\s+(.+)")


def _ini_settings(body: str) -> list[str]:
    """An INI file's lines fenced with no language, each ``key = value`` under its
    section as ``section.key = value`` (empty: the block is no INI file: it must open
    with a section and hold nothing but sections, settings and comments)."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    if not lines or not _SECTION.fullmatch(lines[0]):
        return []
    out, section = [], ""
    for line in lines:
        header = _SECTION.fullmatch(line)
        if header:
            section = header.group(1)
        elif _SECTION_KEY.match(line):
            out.append(f"{section}.{line}")
        elif not line.startswith(("#", ";")):
            return []
    return out


# A mapping's key alone on its line, and a key with its value.
_YAML_MAPPING = re.compile(r"([A-Za-z_][\w.-]*):")
_YAML_KEY = re.compile(r"([A-Za-z_][\w.-]*):\s")


class Clause:
    """One clause of a note: its text (code spans in place), its index in the note,
    whether it is the title, and (read on first use) the stems of its words."""

    __slots__ = ("_stems", "index", "is_title", "text")

    def __init__(self, text: str, index: int, is_title: bool) -> None:
        self.text = text
        self.index = index
        self.is_title = is_title
        self._stems: frozenset[str] | None = None

    @property
    def stems(self) -> frozenset[str]:
        if self._stems is None:
            self._stems = frozenset(content_stems(self.text))
        return self._stems


def clauses(title: str, body: str) -> list[Clause]:
    """The title as the first clause, then the body's clauses, in order; empty ones left
    out. Invisible characters are read through (:func:`.invisible.match_text`)."""
    return ClauseReader(title, body).read(None)


class ClauseReader:
    """A note's clauses read as far as asked (:meth:`read`), then further on demand: a
    long note compared with another long one is read to its lead only."""

    __slots__ = ("_cuts", "_done", "_skip_to", "_start", "_text", "clauses")

    def __init__(self, title: str, body: str) -> None:
        heading = match_text(title).strip()
        self.clauses: list[Clause] = [Clause(heading, 0, True)] if heading else []
        self._text = lines_as_commands(
            sectioned_lines(fenced_as_spans(match_text(body[:MAX_CHARS])))
        )
        # The places a clause may end at, and the backquotes a code span starts with.
        self._cuts = _CUT_CHARS.finditer(self._text)
        self._start = 0
        self._skip_to = 0
        self._done = False

    @property
    def done(self) -> bool:
        """Whether every clause has been read."""
        return self._done

    def read(self, most: int | None) -> list[Clause]:
        """The clauses, read until there are ``most`` (all of them with None)."""
        text = self._text
        while not self._done and (most is None or len(self.clauses) < most):
            found = next(self._cuts, None)
            if found is None:
                self._add(text[self._start :])
                self._done = True
                break
            at = found.start()
            if at < self._skip_to:
                continue
            if text[at] == "(" and at and (text[at - 1].isalnum() or text[at - 1] == "_"):
                # a call, `maxSizePercent(0.25)`, not an aside: part of its clause
                close = text.find(")", at + 1, at + 62)
                if close != -1 and not _NOT_IN_CALL.search(text, at + 1, close):
                    self._skip_to = close + 1
                    continue
            if text[at] == "`":
                close = text.find("`", at + 1, at + 302)
                if close != -1 and "\n" not in text[at:close]:
                    self._skip_to = close + 1  # a code span: part of its clause
                continue
            self._add(text[self._start : at])
            self._start = at + 1
        return self.clauses

    def _add(self, piece: str) -> None:
        piece = piece.strip()
        if piece and _SAYS_SOMETHING.search(piece):  # not a table's ``|---|---|``
            self.clauses.append(Clause(piece, len(self.clauses), False))


_SAYS_SOMETHING = re.compile(r"\w")


# Words that name the kind of value a note holds, not what it is of: two notes about
# "files" are not about one file.
KIND_WORDS: Final = frozenset({"file", "fil", "folder", "director", "directory", "dir", "path"})
_ACRONYM = re.compile(r"[A-Z0-9]{2,5}s?")
# The program a command in code starts with: `dbt build ...` (not `key = value`).
_CODE_HEAD = re.compile(r"`([a-z][\w-]*) +(?![=:])[^`\n]")


def subject_stems(title: str, body: str, project: str) -> tuple[frozenset[str], frozenset[str]]:
    """The stems of a title's words that name its subject (:attr:`.facts.NoteFacts.
    subject_stems`), and which of them only name what every note of its kind may name:
    the project (every note of ``search-indexer`` may say so), a tool: a word capitalised
    inside the title (not its first word, not an acronym: ``Stripe``, ``Terraform``) or
    the program a command in the note starts with (``dbt``, ``acmectl``)."""
    text = match_text(title)
    name = project.rsplit("/", 1)[-1].lower()
    tools: set[str] = set()
    if name and name != "global":
        named = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.IGNORECASE)
        tools.update(content_stems(" ".join(named.findall(text))))
    for index, word in enumerate(_WORD.findall(text)):
        if index and word[0].isupper() and not _ACRONYM.fullmatch(word):
            tools.update(word_stems(word))
    if "`" in body:
        for head in _CODE_HEAD.findall(body[:MAX_CHARS]):
            tools.update(word_stems(head))
    stems = frozenset(content_stems(text)) - KIND_WORDS
    return stems, stems & frozenset(tools)
