"""A setting's key and its value, however a note writes them: ``key=value``, ``key: value``
(YAML, JSON, an object's field), ``'key' => value``, ``-Dkey=value``, a config file's
``Key no``, a declaration (``const KEY := 0.1``), "key is `value`" in prose, a thing said
to be on or off, a setting said by its words ("the log level in prod is info"); and what the
value is: a number (scaled by a unit its key names), a port, a URL, a tool's version, or a
flag-like state.
"""

from __future__ import annotations

import re

from anamnesis.store.review.reading.addresses import URL, url_value
from anamnesis.store.review.reading.quantities import (
    VERSION,
    is_unit,
    key_unit,
    key_words,
    per_time,
    range_text,
    scaled,
    version_value,
)
from anamnesis.store.review.reading.text import GENERIC
from anamnesis.store.review.reading.value import Spans, Value

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final

# A setting written as YAML, JSON or a JavaScript object writes it: `strict: false`,
# `"port": 8080`, `sameSite: 'lax'`; its key starts a word (``"MigrateOnStartup": true``
# is no ``igrateOnStartup``). A value that is itself a key is a section's name, the
# setting after it (``variables: GIT_STRATEGY: fetch`` sets ``GIT_STRATEGY``). An
# address with its port is one value (``listen: 0.0.0.0:8000``, ``redis: cache-a:6379``;
# ``postgres:16`` is an image and its tag).
COLON_SETTING = re.compile(
    r"(?<![\w.-])[\"']?([A-Za-z_][\w.-]*)[\"']?\s*:\s+(\"[^\"]*\"|'[^']*'"
    r"|\[\s*[\"'][\w.~/-]+[\"']\s*\]"
    r"|[a-z][a-z0-9+]*://[^\s\"'`,]+|[\w.~-]*(?:/[\w.*-]+)+/?|(?:[\w-]*\.[\w.-]*|localhost)?:\d{2,5}(?![\w.:])"
    r"|[\w-]+:\d{3,5}(?![\w.:])|[\w.%-]+)"
    r"(?![\w.%-]*:(?:\s|$))"
)
# ``'key' => value``: a PHP, Ruby or Perl hash's entry.
ARROW_SETTING = re.compile(
    r"(?<![\w.-])[\"':]?([A-Za-z_][\w.-]*)[\"']?\s*=>\s*(\"[^\"]*\"|'[^']*'|[\w.%-]+)"
)
# ``key: true`` said in prose: a setting only when the value is a boolean as code writes
# it ("Note: no" is prose).
_PLAIN_SWITCH = re.compile(
    r"(?<![\w.-])([a-z][a-z0-9_]*(?:[A-Z][a-z0-9]*)*|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+):\s+"
    r"(true|false)\b"
)
# ``key=value``, ``key := value``; a one-letter name only when set to a number ("B =
# 2000 resamples" names a variable; "a = b" in prose sets nothing).
SETTING = re.compile(
    r"(?<![\w.-])([A-Za-z_][\w.-]*[A-Za-z0-9_]|[A-Za-z](?=\s*=\s*\d))\s*(?:=|:=)\s*"
    r"(\"[^\"\n]{0,80}\"|'[^'\n]{0,80}'|[^\s,;`)\]}]+)"
)
# A value assigned as R writes it: ``B <- 200`` (``<<-`` assigns it in an outer scope).
R_ASSIGNMENT = re.compile(r"([A-Za-z.][\w.]*)\s*<<?-\s*(\"[^\"\n]{0,80}\"|'[^'\n]{0,80}'|[\w.-]+)")
# A property set on a command line, as a JVM system property or a long option: one key
# either way (``-Dspring.profiles.active=dev``, ``--spring.profiles.active=local``).
PROPERTY = re.compile(r"(?<![\w-])(?:-D|--)([A-Za-z][\w-]*(?:\.[\w-]+)+)=([^\s,;`)'\"]+)")
# A setting switched on or off as its config file writes it, key then value:
# ``PasswordAuthentication no``, ``gzip_static on`` (the key an identifier no prose word
# looks like: CamelCase or snake_case).
SWITCH = re.compile(
    r"(?<![\w.-])([A-Z][a-z]+(?:[A-Z][a-z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s+"
    r"(yes|no|on|off|true|false|enabled|disabled)\b"
)
# A labelled argument, as OCaml writes a keyword argument: ``~port:8080``,
# ``~interface:"127.0.0.1"``.
LABELLED = re.compile(r"~([a-z_][\w']*):(\"[^\"\s]{1,80}\"|[\w.-]+)")
# What a git branch's name usually starts with (``release/next``, ``hotfix/2.4.1``): a
# branch, though written as a path or a module's version.
BRANCH_PREFIXES: Final = "release|feature|hotfix|bugfix|fix|chore|dependabot|renovate"
# A tool's version as a module system names it (Lmod, Spack, environment modules):
# ``gcc/11.4.0``, ``openmpi/4.1.5``, ``python/3.11`` (at least one dot: ``api/v1`` is a
# path; ``hotfix/2.4.1`` a git branch).
MODULE_VERSION = re.compile(
    rf"(?<![\w/.-])(?!(?:{BRANCH_PREFIXES})/)([a-z][\w+-]*)/(\d+(?:\.\d+){{1,3}})(?![\w/.-])"
)
# A module a module system loads, named so: ``module load openfoam/v2406``, "the module
# `cuda/12`" (there, a version needs no dot).
LOADED_MODULE = re.compile(r"([a-z][\w+-]*)/(v?\d+(?:\.\d+){0,3})")
# A tool pinned at a version: ``pnpm@8.15.4``.
_PINNED = re.compile(r"(@?[A-Za-z][\w./-]*)@(v?\d+(?:\.\d+){1,3})")
_HYPHEN_PINNED = re.compile(r"([A-Za-z][\w.]*)-(v?\d+(?:\.\d+){1,3})")
# A key that names a tool's version: ``gleam-version``, ``node_version``, ``goVersion``.
_VERSION_KEY = re.compile(r"([A-Za-z][\w.]*?[A-Za-z0-9])[-_.]?(?:version|Version|VERSION)")
# A key that names a port: ``http.port``, ``ws_port``, ``PORT``, ``listenPort``.
_PORT_KEY = re.compile(r"(?:^|[._-])port$|[a-z]Port$|^PORT$", re.IGNORECASE)
# A setting's value binding a port on any address or this machine's: ``0.0.0.0:7700``,
# ``localhost:3000``, ``:8080``, ``[::]:9000``; its port is all it says (another host's
# address, ``redis-a:6379``, is an address: its host may change).
_BIND_VALUE = re.compile(r"(?:0\.0\.0\.0|127\.0\.0\.1|localhost|\[::1?\])?:(\d{2,5})")
# A declaration in code: ``const COYOTE_TIME := 0.1``, ``export PORT=3000``, ``let x = 5``,
# its words chained as a language chains them (``export const revalidate = 300``).
DECLARED = re.compile(
    r"(?:(?:const|let|var|export|final|val|readonly|local|set|static|public|private)\s+)+(.+)"
)
# A key no prose word looks like: dotted, snake_case, lowerCamelCase, or kebab-case of
# three words (``auto-optimise-store``; "well-known" is prose).
_KEY_SHAPE = (
    r"[a-z][\w-]*(?:[._][\w-]+)+|[a-z][a-z0-9]*(?:-[a-z0-9]+){2,}|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+"
)
# A .NET configuration key, its sections joined by colons: ``Database:MigrateOnStartup``
# (as ``appsettings.json`` nests it and an environment variable spells it).
_SECTION_KEY = r"[A-Z][A-Za-z0-9]*(?::[A-Z][A-Za-z0-9]*)+"
# A setting said in prose as "key is value", the key one no prose word looks like
# (:data:`_KEY_SHAPE`): "rendering_method is gl_compatibility"; the value as code writes
# one, quoted ("log_format is 'json'") or an enum's constant ("id_strategy is ANY").
_IS_SETTING = re.compile(
    rf"(?<![\w.`/-])({_KEY_SHAPE}|{_SECTION_KEY})`?\s+is\s+(?:now\s+|set\s+to\s+)?"
    r"(`[^`\s]{1,60}`|'[^'\s]{1,60}'|\"[^\"\s]{1,60}\"|[A-Z][A-Z0-9]+(?:_[A-Z0-9]+)*\b"
    r"|[\w-]*[_.\d][\w.:/-]*|true|false|on|off|none|null|enabled|disabled)"
    r"(?![\w.:/-])"
)
# A key said before its value in code, in prose or in code: "session.store_type is
# `redis`", "`strict` is `error`".
KEY_BEFORE = re.compile(
    rf"(?:(?<![\w.`/-])({_KEY_SHAPE})|`([A-Za-z_][\w.-]*)`)\s+is\s+(?:now\s+|set\s+to\s+)?$"
)
# A key said before the thing it is set on, that thing in code: "pagination.maxTotalHits
# on `products` is 1000", "max_connections for `reports` is 50". The code names which
# index or table (a scope), not a key.
KEY_ON_THING = re.compile(rf"(?<![\w.`/-])({_KEY_SHAPE})\s+(?:on|for|in|of)\s+$")
# A setting said in prose as a config file writes it, key then value, the key one no
# prose word looks like (:data:`_KEY_SHAPE`, or an environment variable's
# ``UPPER_SNAKE``), the value one word or number ending its part of the sentence: "my
# global config has init.defaultBranch trunk, and", "switched every job to GIT_STRATEGY
# clone (GIT_DEPTH 50)", 'sameSite "none" (still secure)'. A word going on into the
# sentence is prose ("DATABASE_URL points at the replica").
_KEY_THEN_VALUE = re.compile(
    rf"(?<![\w.`/-])({_KEY_SHAPE}|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\s+"
    r"([a-z][a-z0-9_-]*|\d+(?:\.\d+)?[a-z%]{0,3}|\"[\w.-]{1,40}\")(?=\s*(?:[,;:)(]|$)|\s+\()"
)
# A thing said in prose to be on or off, before the verb: "schema introspection stays
# enabled in prod", "`new_checkout` is off by default", "MAINTENANCE_MODE is on during the
# migration", "TypeScript strict mode is off". The thing is a code span, an identifier,
# or its one or two words; a bare "on" or "off" only where the clause, or a word of
# when or where, follows ("is on 8080", "is on the roadmap" say no state).
_THING = (
    r"(`[A-Za-z_][\w.-]*`|[A-Za-z_][\w.-]*[_.][\w.-]*[A-Za-z0-9]|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
    r"|(?:[A-Za-z][a-z]+\s+)?[A-Za-z][a-z]+)"
)
_STATE = (
    r"(enabled|disabled|switched\s+on|switched\s+off|turned\s+on|turned\s+off|true|false"
    r"|(?:on|off)(?=\s*(?:[.,;:)]|$|\s+(?:in|for|by|during|since|until|now|again|everywhere"
    r"|across|when|while|and|but|so|because|on|at)\b)))"
)
_SAID_ON_OR_OFF = re.compile(
    rf"(?<![\w.-]){_THING}\s+(?:is|are|stays|stay|remains|remain)\s+(?:now\s+|still\s+)?"
    rf"{_STATE}"
)
# A thing's state by default said after it: "the `new_checkout` flag, off by default".
_BY_DEFAULT = re.compile(
    rf"(?<![\w.-]){_THING}(?:\s+(?:flag|feature|toggle|switch|option|setting))?,\s+"
    r"(on|off|enabled|disabled)\s+by\s+default\b"
)
# A thing said to be switched, the verb first, by someone or opening the clause: "we
# enabled public signups", "Disabled the debug toolbar", "turned `new_checkout` on in
# production" ("run it with tracing enabled against staging" switches nothing).
_SWITCHED_THING = re.compile(
    r"(?:^|\b(?i:we|I|they|you|has|have|had)\s+(?:now\s+|just\s+|finally\s+|also\s+)?)"
    rf"(?:((?i:enabled|disabled))\s+(?:the\s+)?{_THING}"
    rf"|(?i:turned|switched|flipped)\s+(?:the\s+)?{_THING}\s+(on|off)\b)"
)
_NO_THING: Final = frozenset({"it", "this", "that", "which", "what", "everything", "nothing"})
# The file names a key is no setting of: "config.py is loaded" names a file.
FILE_KEY = re.compile(r"\.(?:json|ya?ml|toml|py|js|ts|rb|go|md|txt|lock|cfg|ini|conf|sh|xml|env)$")
_SWITCHED_ON: Final = frozenset({"yes", "on", "true", "enabled"})
_SWITCHED_OFF: Final = frozenset({"no", "off", "false", "disabled"})
# The word just after a setting's number, when it may be the number's unit.
_UNIT_AFTER = re.compile(r"\s+([A-Za-z]+)\b")
# "set the pool_size to 20".
_SET_TO = re.compile(r"\bset\s+([A-Za-z_][\w.-]*)\s+to\s+([^\s,;`)]+)", re.IGNORECASE)


def plain_switches(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """The settings outside code switched on or off as a config file writes them."""
    for match in SWITCH.finditer(text):
        if spans.free(*match.span()):
            spans.take(*match.span())
            yield match.start(), switch_value(match.group(1), match.group(2), clause)


def switch_state(said: str) -> str | None:
    """The state a switch's word says, ``on`` or ``off`` (``true``, ``enabled``: on),
    None for a word that says neither."""
    word = said.lower()
    if word in _SWITCHED_ON:
        return "on"
    return "off" if word in _SWITCHED_OFF else None


def switch_value(key: str, said: str, clause: int) -> Value:
    """A setting switched on or off: ``yes`` and ``true`` are one state, ``no`` and
    ``off`` the other."""
    state = "on" if said.lower() in _SWITCHED_ON else "off"
    return Value("flag", state, f"{key} {said}", slot=key.lower(), keyed=True, clause=clause)


# A setting said in prose as "word is 'value'", the value quoted as code quotes a string
# and holding a mark no prose word does ("trace is 'retain-on-failure'"): a plain word's
# key (``trace``, ``mode``), since the value is plainly code.
_IS_QUOTED = re.compile(
    r"(?<![\w.`/-])([a-z][a-z0-9]+)\s+is\s+(?:now\s+|set\s+to\s+)?"
    r"('[\w.:-]*[-_.:][\w.:-]*'|\"[\w.:-]*[-_.:][\w.:-]*\")(?![\w])"
)


def plain_settings(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """The settings outside code, each with its key, in the patterns' order."""
    patterns = (PROPERTY, ARROW_SETTING, SETTING, _SET_TO, _PLAIN_SWITCH, _IS_SETTING, _IS_QUOTED)
    for pattern in patterns:
        for match in pattern.finditer(text):
            if not spans.free(*match.span()):
                continue
            key, raw = match.group(1), match.group(2).strip("`").rstrip(":")
            if key.lower() in GENERIC or not any(c.isalpha() for c in key):
                continue
            if pattern in (_IS_SETTING, _IS_QUOTED) and FILE_KEY.search(key):
                continue
            unit = _UNIT_AFTER.match(text, match.end()) if raw.isdigit() else None
            if unit and is_unit(unit.group(1)):
                # "minDelay is 2 days": the number in its unit, as ``2d`` would be
                spans.take(match.start(), unit.end())
                norm, _unit = scaled(float(raw), unit.group(1))
                value = setting_value(key, raw, clause)
                yield (
                    match.start(),
                    value.replace(norm=norm, shown=f"{value.shown} {unit.group(1)}"),
                )
                continue
            spans.take(*match.span())
            yield match.start(), setting_value(key, raw, clause)


# A setting said in prose by its one or two words, after "the" ("our", "its", ...):
# "the default locale is en-US", "the log level in prod is info", "our default branch is
# master", "we renamed the default branch to main". Its key is its words joined as a
# key's are (``default_locale``), as ``DEFAULT_LOCALE`` folds to. The value is one token
# ending its part of the sentence: written as code writes one (a mark, a digit or a
# capital in it: ``en-US``, ``UTC``, ``Europe/Berlin``), or a plain word when the key's
# last word names a thing a setting picks by name (:data:`_PICKED_BY_NAME`: "the build
# is green" sets nothing).
_WORDS_THEN = (
    r"(?:\b(?i:the|our|its|their|my|your)\s+)(?:[\w]+'s\s+)?(?:(?P<first>[a-z]{2,})\s+)?"
    r"(?P<head>[a-z]{2,})"
)
_ONE_TOKEN = r"(?P<value>[A-Za-z0-9][\w./+:-]*[A-Za-z0-9]|[A-Za-z0-9])"
_ENDS = r"(?=\s*(?:[.,;:)]|$)|\s+(?:now|again|since|because|for|in|on|and|but|so|until)\b)"
_WORDS_IS = re.compile(
    rf"{_WORDS_THEN}(?:\s+(?:in|on|for)\s+[\w-]+)?\s+(?:is|are)\s+(?:now\s+|set\s+to\s+)?"
    rf"{_ONE_TOKEN}{_ENDS}"
)
_WORDS_SET_TO = re.compile(
    rf"\b(?i:renamed|changed|set|switched|moved)\s+{_WORDS_THEN}\s+to\s+{_ONE_TOKEN}{_ENDS}"
)
# Last words of a key whose value is a name picked from a few ("info", "master").
_PICKED_BY_NAME: Final = frozenset(
    {"level", "branch", "locale", "timezone", "zone", "region", "mode", "strategy", "driver",
     "backend", "engine", "format", "encoding", "policy", "channel", "profile", "environment",
     "stage", "tier", "theme", "language", "shell", "editor", "runtime", "provider", "dialect"}
)  # fmt: skip
_CODE_LIKE = re.compile(r"[-_./:0-9A-Z]")
_AGE_WORDS: Final = frozenset({"new", "old", "current", "previous", "same"})


def settings_said_by_words(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """The settings prose says by their words (:data:`_WORDS_IS`, :data:`_WORDS_SET_TO`),
    each keyed by its words; its value's words stay free for the other readers."""
    for pattern in (_WORDS_IS, _WORDS_SET_TO):
        for match in pattern.finditer(text):
            value = match.group("value")
            words = [word for word in (match.group("first"), match.group("head")) if word]
            if words[0] in _AGE_WORDS:
                words = words[1:]  # "the new region": the region
            if not words or not spans.free(*match.span("value")) or value.lower() in GENERIC:
                continue
            if not _CODE_LIKE.search(value) and match.group("head") not in _PICKED_BY_NAME:
                continue
            # the value is left for the readers of paths and names too: "the overlay is
            # boards/arm/buoy.dts" states a path, "the queue is ledger-events.v2" a name
            key = "_".join(words)
            yield (
                match.start(),
                Value("flag", value.lower(), match.group(0), slot=key, keyed=True, clause=clause),
            )


# Words in -ly that are a setting's value ("pull.ff only", "schedule daily"); any other is
# an adverb saying how the key is set.
_LY_VALUES: Final = frozenset(
    {"only", "daily", "weekly", "monthly", "hourly", "nightly", "yearly", "early", "friendly"}
)


def plain_keys_then_values(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """The settings said in prose key then value, as a config file writes them
    (:data:`_KEY_THEN_VALUE`)."""
    for match in _KEY_THEN_VALUE.finditer(text):
        key, raw = match.group(1), match.group(2)
        if not spans.free(*match.span()) or FILE_KEY.search(key) or raw in GENERIC:
            continue
        if raw.endswith("ly") and raw not in _LY_VALUES:
            continue  # "sets QUARKUS_DATASOURCE_JDBC_URL directly (...)": how, no value
        spans.take(*match.span())
        yield match.start(), setting_value(key, raw, clause)


def said_on_or_off(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """A thing the prose says is on or off, or is switched on or off
    (:data:`_SAID_ON_OR_OFF`, :data:`_BY_DEFAULT`, :data:`_SWITCHED_THING`), as a switch
    keyed by the thing: its identifier, or its words joined as a key's are
    (``debug_toolbar``). A thing in code stays its own value (a name) too: only the
    state's words are taken."""
    said = [
        (match, match.group(1), match.group(2), match.start(2))
        for pattern in (_SAID_ON_OR_OFF, _BY_DEFAULT)
        for match in pattern.finditer(text)
    ]
    for match in _SWITCHED_THING.finditer(text):
        if match.group(1):
            said.append((match, match.group(2), match.group(1), match.start(1)))
        else:
            said.append((match, match.group(3), match.group(4), match.start(4)))
    for match, written, state, at in said:
        thing = _switch_key(written)
        if not thing or not spans.free(at, match.end()):
            continue
        spans.take(at, match.end())
        shown = match.group(0)
        yield match.start(), switch_value(thing, state.split()[-1], clause).replace(shown=shown)


def _switch_key(written: str) -> str:
    """A switched thing's key: an identifier as written, words joined by ``_`` ("debug
    toolbar": ``debug_toolbar``); empty for a word that names nothing ("it", "this")."""
    if written.startswith("`"):
        return written.strip("`")
    words = [word for word in written.split() if word.lower() not in _NO_THING]
    words = [word for word in words if word.lower() not in GENERIC or word.isupper()]
    return "_".join(words)


def setting_value(key: str, raw: str, clause: int) -> Value:
    """``key=value``: a path (or a storage address), a number, a URL or a version when
    the value is one (the key its slot), else a flag-like setting."""
    value = raw.strip("[] ").strip("\"'")  # ``["data/seeds"]``: a list of one value
    inner = _INNER_SETTING.fullmatch(value)
    if inner:  # ``Environment=RESTIC_PASSWORD_FILE=/etc/restic/pw``: the variable it sets
        return setting_value(inner.group(1), inner.group(2), clause)
    slot = key.lower().lstrip("-")
    rate = per_time(value)
    if rate is not None:  # ``anonymous: 30/min``: a rate, per second, not a path
        return Value("number", rate, f"{key}={value}", slot=slot, keyed=True, clause=clause)
    if (_PATH_VALUE.fullmatch(value) or _STORAGE.match(value)) and not _PATTERN_KEY.search(key):
        # ``output-dir: lib/src/localization``, ``registry: gs://feast/registry.pb``:
        # where a thing is kept, compared as a path is
        norm = value.rstrip("/").lower() or "/"
        return Value("path", norm, f"{key}={value}", slot=slot, keyed=True, clause=clause)
    if URL.fullmatch(value):
        return url_value(value, clause).replace(slot=slot, shown=f"{key}={value}")
    pinned = _PINNED.fullmatch(value) or _HYPHEN_PINNED.fullmatch(value)
    if pinned:  # ``"packageManager": "pnpm@8.15.4"``, ``with-compiler: ghc-9.6.6``
        version = version_value(pinned.group(2), clause, slot=pinned.group(1).lower())
        if version is not None:
            return version.replace(shown=f"{key}={value}")
    if value.startswith("=") and VERSION.fullmatch(value[1:]):
        # ``Django==5.1.4``: a requirement pinning a package, the package its slot
        version = version_value(value[1:], clause, slot=key.lower())
        if version is not None:
            return version.replace(shown=f"{key}={value}")
    tool = _VERSION_KEY.fullmatch(key)
    if tool and (VERSION.fullmatch(value) or value.isdigit()):
        # ``gleam-version: "1.4.1"``, ``otp-version: 26.2``, ``java.version=21``: the
        # tool's version (a whole one too: the key says it is a version)
        version = version_value(value, clause, slot=tool.group(1).lower())
        if version is not None:
            return version.replace(shown=f"{key}={value}")
    bound = _BIND_VALUE.fullmatch(value)
    if bound and 1 <= int(bound.group(1)) <= 65535:
        # ``MEILI_HTTP_ADDR=0.0.0.0:7700``, ``listen: ":8080"``: the port it binds, as
        # "listens on 7700" says it
        return Value("port", bound.group(1), f"{key}={value}", clause=clause)
    if value.isdigit() and _PORT_KEY.search(key) and 1 <= int(value) <= 65535:
        # ``quarkus.http.port=8080``: the port a server listens on, as prose says it
        return Value("port", value, f"{key}={value}", clause=clause)
    step = CRON_STEP.fullmatch(value)
    if step:  # ``'minute' => '*/5'``: every 5 of the key's unit, a period as a number
        shown = f"{key}={value}"
        return Value("number", step.group(1), shown, slot=slot, keyed=True, clause=clause)
    held = _HELD_FOR.fullmatch(value)
    if held and not _CLOCK_KEY.search(key):
        # ``for: "00:02:00"``, ``Timeout=00:30:00``: how long, as "2 minutes" says it (a
        # key of a moment, ``at: "03:00:00"``, holds a time of day)
        hours, minutes, seconds = (int(part) for part in held.groups())
        norm = str(hours * 3600 + minutes * 60 + seconds)
        return Value("number", norm, f"{key}={value}", slot=slot, keyed=True, clause=clause)
    spoken = _RUBY_DURATION.fullmatch(value)
    if spoken:  # ``config.timeout_in = 30.minutes``: Ruby's durations, as prose says them
        norm, _unit = scaled(float(spoken.group(1)), spoken.group(2))
        return Value("number", norm, f"{key}={value}", slot=slot, keyed=True, clause=clause)
    number = re.fullmatch(r"(\d+(?:\.\d+)?)([A-Za-z%]{0,3})", value)
    if number and not re.fullmatch(r"\d+\.\d+\.\d+", value):
        unit = number.group(2)
        # ``arc_max="8G"``, ``-Xmx4g``: gibibytes, as config files mean a G (an M may be
        # minutes, millicores or megabytes, so it is one only under a key of a size:
        # ``client_max_body_size 50m``, ``shared_buffers = 128M``)
        unit = "GiB" if unit in ("G", "g") else unit
        if unit in ("M", "m", "K", "k") and not SIZE_KEY_WORDS.isdisjoint(_words_of(key)):
            unit = f"{unit.upper()}iB"
        if unit == "m" and "cpu" in _words_of(key):  # ``cpu: 500m``: half a core
            norm = scaled(float(number.group(1)) / 1000, "")[0]
            return Value("number", norm, f"{key}={value}", slot=slot, keyed=True, clause=clause)
        norm, _unit = scaled(float(number.group(1)), unit or key_unit(key))
        return Value("number", norm, f"{key}={value}", slot=slot, keyed=True, clause=clause)
    version = version_value(value, clause, slot=slot) if range_text(value) else None
    if version is not None:
        return version.replace(shown=f"{key}={value}")
    return Value("flag", value.lower(), f"{key}={value}", slot=slot, keyed=True, clause=clause)


_RUBY_DURATION = re.compile(r"(\d+)\.(seconds?|minutes?|hours?|days?|weeks?)")

# Words of a key whose value is a size: an M there is megabytes, not minutes.
SIZE_KEY_WORDS: Final = frozenset(
    {"size", "memory", "mem", "heap", "buffer", "buffers", "body", "bytes", "ram", "disk",
     "storage", "capacity"}
)  # fmt: skip


def _words_of(key: str) -> set[str]:
    return {word.lower() for word in key_words(key)}


# A length of time as a clock writes it, hours, minutes and seconds: ``00:02:00``.
_HELD_FOR = re.compile(r"(\d{1,2}):([0-5]\d):([0-5]\d)")
# A key whose value is a moment, not a length of time: ``at``, ``start_time``,
# ``endTime``, ``cron`` (``max_runtime`` is a length).
_CLOCK_KEY = re.compile(
    r"(?i:^(?:at|when|before|after|time|end)$|start|begin|(?:^|[_.-])time$|cron|schedul)"
    r"|[a-z]Time$"
)
# A setting's value that sets an environment variable itself (systemd's ``Environment=``).
_INNER_SETTING = re.compile(r"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=(\S+)")
# A key whose value matches paths rather than names one (``path_regex``, ``include_glob``).
_PATTERN_KEY = re.compile(r"regex|pattern|glob|match", re.IGNORECASE)
# A storage location given as an address: a bucket's object, a file.
_STORAGE = re.compile(r"(?:gs|s3|s3a|gcs|az|abfss?|hdfs|file)://", re.IGNORECASE)
# A setting's value that is a path: folders and a name (``lib/src/l10n``, ``./dist/``,
# ``~/.config/restic/pass``, ``/etc/restic/password``).
_PATH_VALUE = re.compile(r"(?:~|\.{1,2})?/?[\w.-]+(?:/[\w.*-]+)+/?|(?:~|\.{1,2})/[\w.-]+/?")


# A file that pins one tool's version, by the tool it pins: ``.nvmrc`` says which Node.
_VERSION_FILES: Final = {
    "nvmrc": "node", "node-version": "node", "python-version": "python",
    "ruby-version": "ruby", "java-version": "java", "terraform-version": "terraform",
    "go-version": "go",
}  # fmt: skip
# "`.nvmrc` says 18", ".python-version is 3.12", ".ruby-version: 3.3.0", "bumped .nvmrc
# to 20".
_VERSION_FILE_SAYS = re.compile(
    r"(?<![\w/-])`?\.(nvmrc|node-version|python-version|ruby-version|java-version"
    r"|terraform-version|go-version)`?\s*(?:says|is|has|holds|pins|reads|contains|to|:|=)\s+"
    r"`?v?(\d+(?:\.\d+){0,2})\b"
)


def version_files(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """A tool's version as the file pinning it says it (:data:`_VERSION_FILES`): the
    version of that tool, as "Node 22" is, not a number the file "says"."""
    for match in _VERSION_FILE_SAYS.finditer(text):
        if not spans.free(*match.span(2)):
            continue
        version = version_value(match.group(2), clause, slot=_VERSION_FILES[match.group(1)])
        if version is not None:
            spans.take(*match.span(2))
            yield match.start(2), version.replace(shown=match.group(0).replace("`", ""))


# A schedule as cron writes it, five fields (six with seconds): ``0 6 * * *``,
# ``*/15 9-17 * * 1-5``.
CRON = re.compile(r"[\d*/,-]+(?:\s+(?:[\d*/,?LW#-]+|[A-Za-z]{3}(?:[-,][A-Za-z]{3})*)){4,5}")
# A schedule's step, as cron writes it: ``*/15`` in the minute field is every 15 minutes.
CRON_STEP = re.compile(r"\*/(\d{1,3})")


# A setting as Erlang's config writes it, a tuple of its key and its value:
# ``{port, 4000}``, ``{ws_port, 4443}``, ``{log_level, "info"}``.
ERLANG_TUPLE = re.compile(r"\{\s*([a-z][a-z0-9_]*)\s*,\s*(\"[^\"\n]{0,80}\"|[\w.@-]+)\s*\}")


def erlang_settings(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """The settings a text writes as Erlang tuples (:data:`ERLANG_TUPLE`)."""
    for match in ERLANG_TUPLE.finditer(text):
        if spans.free(*match.span()) and match.group(1) not in GENERIC:
            spans.take(*match.span())
            yield match.start(), setting_value(match.group(1), match.group(2), clause)
