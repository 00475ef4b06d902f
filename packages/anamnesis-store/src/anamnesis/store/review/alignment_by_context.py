"""Whether two values of a kind are about one thing, judged by the words they are said
among alone: the general alignment, asked when the kind's own rules
(:func:`.compare._alignment`, :func:`.compare._name_alignment`) see no sign that they are.

Those rules ask for the signs the first splits of the measured set showed (a number's
same unit, titles sharing a word for a command, two shared words for a version), and
a stranger's notes give other signs: "we cap it at 400 connections now" for
``max_connections = 200``, a version said in a sentence that shares one word and the
note's only version. Two values are about one thing here when

* the words around them (their clauses, a setting's key, a number's own words; a name's
  own words left out) and the words said just before them share enough (:data:`ENOUGH`;
  a word said just before both counts twice: it names what both are values of), each
  note's sole value of the kind counting as one more such word;
* they are of one shape (a name: an environment variable against one, a product against
  a product: :func:`name_shape`), and two names are said just after one word (a note
  holds names of many things); of one key when both are keyed (:func:`same_key`); and a
  number counts the same thing as the other (:func:`counts_alike`).

Two environment variables sharing two words are one setting's two spellings, whatever
surrounds them, as are two paths sharing two uncommon folders' names one place's
(:func:`paths_alike`); two addresses of one host's name (or path) count one more shared
word.

The weights were chosen on the measured set's split ``fresh2`` by its counts alone (its
pairs never read then), among 480 settings that keep the tuning splits' recall and false
pairs; the splits written blind since measure the finder as a whole
(``bench/results/2026-11-30-contradictions-on-strangers-notes.md``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from anamnesis.store.review.agreement import agree
from anamnesis.store.review.reading.quantities import is_unit, key_words
from anamnesis.store.review.reading.settings import SIZE_KEY_WORDS, switch_state
from anamnesis.store.review.reading.text import stem
from anamnesis.store.review.reading.tool_names import ROLE_ONLY_NAMES, TOOL_NAMES

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.review.reading.value import Value

# How many shared words make two values one thing's (see the module's docstring).
ENOUGH: Final = 1.5
# What a key's words say of any setting, not of which: ``max_connections`` is about
# connections, ``pool_size`` about the pool.
GENERIC_KEY_WORDS: Final = frozenset(
    {"max", "min", "default", "size", "count", "limit", "num", "number", "total"}
)
# The score of an alignment found here: below any of the kinds' own rules'.
_ALIGNED: Final = 0.05
# Words of a key whose number is a duration, whatever unit it is given in.
_DURATION_KEYS: Final = frozenset(
    stem(word)
    for word in ("timeout", "delay", "interval", "ttl", "period", "durat", "wait", "expiri",
                 "expiry", "backoff", "retention", "ms", "second", "minut", "hour", "day")
)  # fmt: skip


def context_alignment(a: Value, b: Value, *, sole: bool) -> float | None:
    """How surely ``a`` (of the older note) and ``b`` (of the newer) are about one thing,
    by their words alone; None: no sign that they are. ``sole``: each note states one
    value of the kind (:func:`one_value`). The score is low beside the kinds' own rules',
    so a pair they align is matched first."""
    if a.keyed and b.keyed and not same_key(a, b):
        return None
    if a.kind == "name" and name_shape(a) != name_shape(b):
        return None
    if a.kind == "number" and not counts_alike(a, b):
        return None
    around = _context(a) & _context(b)
    if a.kind == "name":
        around -= a.own | b.own  # ``orders_inbound``, ``orders_archive``: not a shared word
    if a.kind == "number":
        around = frozenset(word for word in around if not is_unit(word))
    if a.kind == "name" and one_setting(a, b):
        return _ALIGNED
    if a.kind == "path" and paths_alike(a.norm, b.norm):
        return _ALIGNED
    near = set(a.near) & set(b.near)
    if a.kind == "name" and not near:
        return None  # names are everywhere: one thing's only when said after one word
    alike = a.kind == "url" and (urls_alike(a.norm, b.norm) or host_named(a, b))
    shared = len(around) + len(near) + sole + alike
    return _ALIGNED if shared >= ENOUGH else None


def one_setting(a: Value, b: Value) -> bool:
    """Whether two environment variables name one setting in two spellings: they share
    two words (``KAFKA_BOOTSTRAP``, ``SPRING_KAFKA_BOOTSTRAP_SERVERS``), where two
    settings of one service share its name alone (``POSTGRES_HOST``, ``POSTGRES_PORT``);
    the words the prose says just before one, naming what it holds, count as its words
    when the other variable spells them ("the JDBC URL comes from ``CLAIMS_DB_URL``",
    then ``QUARKUS_DATASOURCE_JDBC_URL``). Two variables whose last words name two roles
    are two settings (the tracking URI is no tracking token); a last word naming no role
    (``FHIR_SERVER_BASE``) says nothing against one (``FHIR_BASE_URL``)."""
    if not (a.kind == b.kind == "name" and name_shape(a) == name_shape(b) == "env"):
        return False
    if len({_role(a.norm), _role(b.norm)} - {""}) > 1:
        return False
    mine, theirs = _env_stems(a.norm), _env_stems(b.norm)
    called = _called(a, theirs) | _called(b, mine)
    return len((mine & theirs) | called) >= 2


def _called(value: Value, words: frozenset[str]) -> frozenset[str]:
    """Those of ``words`` said just before ``value``, naming what it holds: none where
    the prose says it is another of them ("a second Redis, at ``QUEUE_BROKER_URL``")."""
    if not _ANOTHER.isdisjoint(value.near):
        return frozenset()
    return frozenset(value.near) & words


# Words saying a thing is one more of its kind, as stems.
_ANOTHER: Final = frozenset({"second", "another", "separat", "extra", "additional"})


def _env_stems(name: str) -> frozenset[str]:
    """An environment variable's words as prose stems them, each in one spelling."""
    return frozenset(stem(word) for word in _env_words(name))


# Words an environment variable spells two ways: ``DATABASE_URL``, ``LEDGER_DB_URL``.
_ENV_SYNONYMS: Final = {
    "database": "db", "password": "pass", "pwd": "pass", "passwd": "pass",
    "username": "user", "hostname": "host", "address": "addr", "directory": "dir",
}  # fmt: skip


def _env_words(name: str) -> frozenset[str]:
    """An environment variable's words, each in one spelling."""
    return frozenset(_ENV_SYNONYMS.get(word, word) for word in name.lower().split("_") if word)


# What an environment variable's last word says it holds, by role: an address, a secret,
# a user, a place on disk, a port. Two variables ending in two roles are two settings.
_ROLES: Final = {
    **dict.fromkeys(("url", "uri", "dsn", "endpoint", "addr", "address", "host"), "address"),
    **dict.fromkeys(("token", "key", "secret", "password", "pass", "pwd"), "secret"),
    **dict.fromkeys(("user", "username", "login"), "user"),
    **dict.fromkeys(("dir", "path", "folder", "file", "root"), "place"),
    "port": "port",
}


def _role(name: str) -> str:
    """The role an environment variable's last word names ("" when none)."""
    last = name.rsplit("_", 1)[-1].lower()
    return _ROLES.get(last, "")


def urls_alike(a: str, b: str) -> bool:
    """Whether two addresses look like one service's: their hosts share a name that is
    not only both hosts' own domain (``sentry.io`` and ``sentry.acme.net``, not
    ``grafana.acme.dev`` and ``status.acme.dev``), one's host names the other's path
    (``grafana.acme.internal``, ``obs.acme.io/grafana/``), or their paths share two
    segments (``/organizations/x/projects/y/``)."""
    (labels_a, domain_a, path_a), (labels_b, domain_b, path_b) = _url_parts(a), _url_parts(b)
    shared = (labels_a & labels_b) - _HOST_WORDS
    if any(label != domain_a or label != domain_b for label in shared):
        return True
    # a service moved under another host's path: ``grafana.acme.internal`` and
    # ``obs.acme.io/grafana/``
    if (labels_a - _HOST_WORDS - {domain_a}) & path_b or (
        labels_b - _HOST_WORDS - {domain_b}
    ) & path_a:
        return True
    return len(path_a & path_b) >= 2


def paths_alike(a: str, b: str) -> bool:
    """Whether two paths lie in one project's tree, so are one place's in two notes:
    they share two folders' names that no project gives many folders
    (``backend/src/test/resources/fixtures/`` and ``backend/src/testFixtures/resources/``
    share ``backend`` and ``resources``; ``lua/marker/config.lua`` and
    ``lua/marker/options/init.lua`` share ``lua`` and ``marker``), where two files of
    two things share at most a common folder (``src/jobs/client.py``,
    ``src/api/model.py``), and two source files side by side in one folder are two of
    its things (``db/create_invoice.py``, ``db/refund_invoice.py``). Measured on the
    tuning splits: 5 pairs more on four splits, no look-alike, the corpus's pairs
    unchanged (73 of 2,000 notes, whose paths share ``src`` and one more folder at
    most)."""
    if a.startswith(b) or b.startswith(a) or _parent(a) == _parent(b):
        return False  # one under the other (:mod:`.agreement`'s), or two things of one folder
    if _is_file(a) != _is_file(b):
        return False  # a folder and a file: no one thing moved
    if _nested_alike(a, b) or set(_PLACEHOLDER.findall(a)) & set(_PLACEHOLDER.findall(b)):
        return True  # `signed/{envelope_id}.pdf`, `{envelope_id}/signed.pdf`: one key scheme
    return len(folders(a) & folders(b)) >= 2


# A part of a path filled in per thing: ``{envelope_id}``, ``<user>``.
_PLACEHOLDER: Final = re.compile(r"\{\w+\}|<\w+>")


def _is_file(path: str) -> bool:
    """Whether a path names a file (its last part has an extension), not a folder."""
    return "." in path.rstrip("/").rsplit("/", 1)[-1].lstrip(".")


def _nested_alike(a: str, b: str) -> bool:
    """Whether two folders' paths name the same folders, one of them nested in more or
    in another order (``apps/prod/``, ``clusters/prod/apps/``): one folder, moved."""
    if _is_file(a) or _is_file(b):
        return False  # a file, not a folder
    mine, theirs = set(a.strip("/").split("/")), set(b.strip("/").split("/"))
    return min(len(mine), len(theirs)) >= 2 and (mine <= theirs or theirs <= mine)


def _parent(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[0]


def folders(path: str) -> frozenset[str]:
    """The names of a path's folders, less :data:`COMMON_FOLDERS`, a home (``~``) and a
    file's name."""
    return frozenset(
        part.lower()
        for part in re.split(r"[/\\]", path.rstrip("/"))
        if part
        and part.lower() not in COMMON_FOLDERS
        and not part.startswith("~")
        and "." not in part.strip(".")
    )


# Folder names every project has many of, each holding other things: no folder's name
# says it is one folder moved (:func:`.compare._one_file`), nor that two paths lie in one
# tree (:func:`paths_alike`).
COMMON_FOLDERS: Final = frozenset(
    """src lib libs test tests spec bin build dist out docs doc config conf etc data assets
    public static scripts include app apps packages vendor node_modules tmp logs log
    migrations templates components utils internal cmd pkg api web server client modules
    plugins extensions addons site content images img icons""".split()  # noqa: SIM905 - a word list reads best as words
)


# The types of file a project holds few of, each for one thing: folders, configuration,
# data and logs. Measured on 2,000 notes of the bench's corpus: two source files, each
# its note's only path (``src/jobs/client_3664.py``, ``src/core/model_5585.py``), made
# 13 pairs that are no contradiction, and two library names read as files 4 more.
FEW_OF_A_TYPE: Final = frozenset(
    {"/", "yaml", "toml", "json", "ini", "conf", "cfg", "env", "xml", "properties", "lock",
     "db", "sqlite", "log", "bib", "nml"}
)  # fmt: skip


def file_type(path: str) -> str:
    """A path's type: its extension (``.yml`` and ``.yaml`` one), "/" for a folder, ""
    for a name without either."""
    if path.endswith("/"):
        return "/"
    name = path.rsplit("/", 1)[-1].lstrip(".")
    extension = name.rsplit(".", 1)[-1] if "." in name else ""
    return {"yml": "yaml"}.get(extension, extension)


def of_few(path: str) -> bool:
    """Whether a path is a folder or a file of a type a project holds few of (not a
    source file: a folder holds many)."""
    return file_type(path) in FEW_OF_A_TYPE or file_type(path) == ""


def host_named(a: Value, b: Value) -> bool:
    """Whether a name in one address's host, not the other's, is a word said just before
    the other address: "Jenkins: https://ci.acme.dev" and ``jenkins.internal.acme.dev``,
    "Terraform workspaces" beside ``tfe.acme.io`` and ``app.terraform.io`` (a name both
    hosts hold, their domain, says nothing)."""
    labels_a, labels_b = _url_parts(a.norm)[0], _url_parts(b.norm)[0]
    mine, theirs = labels_a - labels_b - _HOST_WORDS, labels_b - labels_a - _HOST_WORDS
    # an address given to a command has no words said just before it: the command's
    # words say whose it is (`argocd login deploy.acme.net` against ``argocd.acme.net``)
    before_a, before_b = a.near or a.stems, b.near or b.stems
    return any(stem(label) in before_b for label in mine if len(label) > 2) or any(
        stem(label) in before_a for label in theirs if len(label) > 2
    )


def _url_parts(url: str) -> tuple[frozenset[str], str, frozenset[str]]:
    """A URL's host names (its top-level domain left out), its domain's name, and its
    path's segments."""
    rest = url.split("://", 1)[-1]
    host, _, path = rest.partition("/")
    labels = host.split(":")[0].lower().split(".")
    names = labels[:-1] if len(labels) > 1 else labels
    domain = names[-1] if names else ""
    # a label's words too: ``staging-api`` names ``staging``
    words = {word for name in names for word in name.split("-")} | set(names)
    return frozenset(words), domain, frozenset(part for part in path.lower().split("/") if part)


# Parts of a host name that say nothing of whose it is.
_HOST_WORDS: Final = frozenset(
    {"www", "api", "app", "com", "net", "org", "io", "dev", "internal", "local", "co", "cloud"}
)


def one_value(values: list[Value]) -> bool:
    """Whether a note's values of a kind are one value, said once or said again in
    agreeing forms (``0.7`` and ``pgvector:0.7.4-pg16``)."""
    if not values:
        return False  # none left once those a note says are gone are set aside
    first = values[0]
    return all(value.norm == first.norm or agree(first, value) for value in values[1:])


def same_key(a: Value, b: Value) -> bool:
    """Whether two keyed values are of one key: the same slot, or one flag given with
    its program and without (``cmake -dfoo`` and ``-dfoo``: a note may name the program
    elsewhere or not at all)."""
    if a.slot == b.slot:
        return True
    if a.kind == "flag" and switch_state(a.norm) and switch_state(b.norm):
        # a switch named by its words in prose and by its key: "TypeScript strict mode is
        # off" and ``"strict": true``; "schema introspection" and ``introspection``
        fewer, more = sorted((_switch_words(a.slot), _switch_words(b.slot)), key=len)
        if fewer and fewer <= more:
            return True
    if a.kind == "version" and _one_tool(a.slot, b.slot) and _major(a.norm) == _major(b.norm):
        return True
    if (
        a.kind == "flag"
        and not (" " in a.slot and " " in b.slot)
        and a.slot.rsplit(" ", 1)[-1] == b.slot.rsplit(" ", 1)[-1]
    ):
        return True
    # one key written under its namespace and without, or as an environment variable
    # with the app's prefix: ``nix.settings.auto-optimise-store`` and
    # ``auto-optimise-store``, ``app.conf.task_acks_late`` and ``CELERY_TASK_ACKS_LATE``
    # (two environment variables are compared whole: ``ORDERS_POOL_SIZE`` and
    # ``USERS_POOL_SIZE`` are two services' settings)
    key_a, key_b = key_of(a).lstrip("-"), key_of(b).lstrip("-")
    if _under_its_namespace(a, key_a, b, key_b) or _under_its_namespace(b, key_b, a, key_a):
        return True
    both_env = bool(_ENV_NAME.fullmatch(key_a) and _ENV_NAME.fullmatch(key_b))
    mine, theirs = _setting_words(key_a, both_env), _setting_words(key_b, both_env)
    return len(min(mine, theirs, key=len)) >= 2 and mine == theirs


def _under_its_namespace(a: Value, key_a: str, b: Value, key_b: str) -> bool:
    """Whether ``key_a`` is ``key_b`` written under its namespace, and ``b`` is said
    beside that namespace's words: ``timeouts.pipeline: 1h``, then ``pipeline: 45m``
    in a YAML block under ``timeouts:``."""
    namespace, _dot, last = key_a.lower().rpartition(".")
    if not namespace or last != key_b.lower():
        return False
    words = {stem(word) for word in re.split(r"[._-]+", namespace) if word}
    return bool(words) and words <= b.stems


# The words of a switch's key that only say it is one (``metrics.enabled``: metrics).
_SWITCH_HEADS: Final = frozenset(
    {"mode", "flag", "feature", "setting", "option", "toggle", "switch", "enabled", "enable",
     "disabled", "disable", "active", "on", "off"}
)  # fmt: skip


def _switch_words(slot: str) -> frozenset[str]:
    """A switch's key's own words, lower case (``debug_toolbar``: debug, toolbar)."""
    return frozenset(re.split(r"[._\s-]+", slot)) - _SWITCH_HEADS - {""}


def _one_tool(mine: str, theirs: str) -> bool:
    """Whether two versions' tools may be one, named whole and by its package of one
    more word (``vllm`` and the ``vllm-openai`` image, ``bom`` and ``quarkus-bom``); of
    one major version only (:func:`_major`), as ``react`` 18 and ``react-router`` 6,
    two tools, are not."""
    shorter, longer = sorted((_TOOL_PARTS.split(mine), _TOOL_PARTS.split(theirs)), key=len)
    return len(shorter) == 1 and len(longer) == 2 and len(shorter[0]) >= 3 and shorter[0] in longer


_TOOL_PARTS = re.compile(r"[-_./]")


def _major(version: str) -> str:
    """A version's first number (``0.4.2``: 0; ``v0.6.3``: 0; ``3.15.1``: 3)."""
    first = re.search(r"\d+", version)
    return first.group(0) if first else ""


@lru_cache(maxsize=16384)
def _setting_words(key: str, whole: bool) -> tuple[str, ...]:
    """A key's own words: the last part of a dotted key, an environment variable's words
    after its first (the app's or framework's prefix), unless ``whole``."""
    if _ENV_NAME.fullmatch(key):
        words = key.lower().split("_")
        return tuple(words if whole else words[1:])
    # a key's words in camelCase count as in snake_case: ``strictTemplates`` under
    # ``angularCompilerOptions.`` is one key of two words, as ``strict_templates`` is
    last = re.split(r"[.:]", key)[-1]  # ``Database:MigrateOnStartup`` too
    return tuple(word.lower() for word in key_words(last))


def _context(value: Value) -> frozenset[str]:
    """The words a value is said among; a setting's key's words too (``HTTP_TIMEOUT_MS``
    names what its number is of, as "the HTTP timeout" does in prose), and a number's
    own words."""
    if value.keyed:
        return value.stems | key_stems(key_of(value))
    if value.kind == "port" and "=" in value.shown:
        # ``port = 8088`` in a config block: its key says it is a server's port
        return value.stems | key_stems(value.shown.split("=", 1)[0])
    # a number's own words say what it counts: "60 ticks per second" against ``TickRate``
    return value.stems | value.own if value.kind == "number" else value.stems


def key_of(value: Value) -> str:
    """A keyed value's key as written (``backupRetentionPeriod``, not the slot's lower
    case, so its words can be told apart)."""
    written = _WRITTEN_KEY.match(value.shown)
    key = written.group(1) if written else ""
    return key if key.lower() == value.slot.lstrip("-") else value.slot


_WRITTEN_KEY = re.compile(r"-*([A-Za-z_][\w.:-]*)")


def counts_alike(a: Value, b: Value) -> bool:
    """Whether two numbers can count one thing: the same unit or the same word before
    them, or one keyed by a setting whose words (:data:`GENERIC_KEY_WORDS` left out) the
    other is said with (``max_connections = 200`` and "400 connections"). A number with
    neither unit nor word before it says nothing of what it counts."""
    if not a.slot or not b.slot:
        return False
    if a.slot.lstrip("~") == b.slot.lstrip("~"):
        return True
    if a.keyed == b.keyed:
        return False
    keyed, other = (a, b) if a.keyed else (b, a)
    words = key_stems(key_of(keyed)) - GENERIC_KEY_WORDS
    if other.slot == "x" and words.isdisjoint(_FACTOR_KEYS):
        return False  # "4x the wall time" is a ratio, no count of the key's ``endTime``
    if not words and other.slot.isalpha() and other.slot not in _EVENTS:
        # a key of generic words alone (``max: 3``, ``_count=500``) counts what the words
        # around it do: a count of things said with its noun ("5 homes", "200 resources")
        # may be it; a unit (a duration, a size) or a count of events (retries, requests)
        # is not what a list or a page holds
        return not is_unit(other.slot)
    if words & _DURATION_KEYS and other.slot not in ("s", "") and not other.slot.startswith("~"):
        return False  # a timeout's number is a duration, not "two retries"
    if words & _SIZE_KEYS and other.slot == "s":
        return False  # ``client_max_body_size 12m`` is 12 MiB, not "12m" read as minutes
    return not words.isdisjoint(other.stems | other.own | {stem(other.slot.lstrip("~"))})


# Words of a key whose number is a size (:data:`.reading.settings.SIZE_KEY_WORDS`), as
# stems.
_SIZE_KEYS: Final = frozenset(stem(word) for word in SIZE_KEY_WORDS)

# What a count of events counts (the folded units of :func:`.quantities.counted`):
# "retried 3 times", "in one request", "2,000 messages".
_EVENTS: Final = frozenset({"attempt", "request", "message", "character"})


# Words of a key whose number is a ratio, as "4x" is: ``scale_factor``, ``multiplier``.
_FACTOR_KEYS: Final = frozenset({"factor", "ratio", "multipli", "multiplier", "scale", "x"})


@lru_cache(maxsize=4096)
def key_stems(key: str) -> frozenset[str]:
    """The stems of a key's words: ``maxActiveRuns``, ``max_active_runs``, ``MAX-ACTIVE``."""
    return frozenset(stem(word.lower()) for word in key_words(key) if not word.isdigit())


# The shapes a name is written in: each is compared only with a name of its shape (an
# environment variable with one, a product with a product, an identifier with one).
def name_shape(value: Value) -> str:
    return _shape_of(value.shown)


@lru_cache(maxsize=8192)
def _shape_of(shown: str) -> str:
    if shown.startswith("#"):
        return "channel"  # a chat channel by its mark: only another channel is its rival
    if _ENV_NAME.fullmatch(shown) or _NESTED_ENV_NAME.fullmatch(shown):
        return "env"
    if (shown[:1].isupper() and not _MARKS.search(shown)) or shown in _LOWER_CASE_TOOLS:
        return "proper"  # a product's name, "Sentry" or a tool's in lower case, "bcrypt"
    return "identifier"


_LOWER_CASE_TOOLS: Final = TOOL_NAMES | ROLE_ONLY_NAMES
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# An environment variable naming a nested setting, its levels joined by two underscores
# as .NET and pydantic read them: ``ConnectionStrings__Orders``, ``Logging__LogLevel``.
_NESTED_ENV_NAME = re.compile(r"[A-Z][A-Za-z0-9]*(?:__[A-Za-z0-9]+)+")
_MARKS = re.compile(r"[_./@]")
