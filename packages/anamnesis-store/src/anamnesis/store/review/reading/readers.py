"""Where values are read from: code in backquotes (a URL, a path, a setting, an image's
tag, a version, a flag, a command with its flags and ports, a name) and plain text (URLs,
hosts and ports, settings, flags, paths, versions, numbers, names), the most specific
patterns first; a span a pattern took is not read again by a later one.
"""

from __future__ import annotations

import re

from anamnesis.store.review.reading.addresses import URL, url_parts, url_value
from anamnesis.store.review.reading.commands import PROGRAM, SCRIPT_FILE, command_tool
from anamnesis.store.review.reading.manifests import manifest_version
from anamnesis.store.review.reading.prose_names import branch_names, channel_names
from anamnesis.store.review.reading.quantities import (
    VERSION,
    call_numbers,
    glued_versions,
    interval_quantities,
    is_plural,
    is_unit,
    joined_versions,
    keyed_numbers,
    number_words,
    numbers,
    per_time,
    period_words,
    quoted_quantities,
    range_text,
    tool_before,
    version_value,
    versions,
)
from anamnesis.store.review.reading.settings import (
    ARROW_SETTING,
    BRANCH_PREFIXES,
    COLON_SETTING,
    CRON,
    CRON_STEP,
    DECLARED,
    ERLANG_TUPLE,
    FILE_KEY,
    KEY_BEFORE,
    KEY_ON_THING,
    LABELLED,
    LOADED_MODULE,
    MODULE_VERSION,
    PROPERTY,
    R_ASSIGNMENT,
    SETTING,
    SWITCH,
    erlang_settings,
    plain_keys_then_values,
    plain_settings,
    plain_switches,
    said_on_or_off,
    setting_value,
    settings_said_by_words,
    switch_value,
    version_files,
)
from anamnesis.store.review.reading.text import GENERIC
from anamnesis.store.review.reading.tool_names import tool_names
from anamnesis.store.review.reading.tool_roles import role_of
from anamnesis.store.review.reading.value import Spans, Value

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final

# -- patterns ----------------------------------------------------------------------------

_HOST_PORT = re.compile(
    r"(?<![\w./:-])((?:localhost|[A-Za-z][\w-]*(?:\.[\w-]+)*|\d{1,3}(?:\.\d{1,3}){3})):(\d{2,5})"
    r"(?![\d.:])"
)
_BARE_PORT = re.compile(r"(?<![\w:])(?::(\d{2,5})|(\d{2,5}):(\d{2,5}))(?![\w:.])")
# name:tag (a container image, a pinned package): the tag starts with a digit.
_IMAGE = re.compile(
    r"(?<![\w./-])((?:[\w.-]+/)*([A-Za-z][\w.-]*)):(v?\d[\w.-]*|latest|[A-Za-z]{1,6}\d[\w.-]*)\b"
)
# A flag whose number is the port a program listens on: ``--port 8090``, ``-p 3001``.
_PORT_FLAG = re.compile(r"--?(?:p|port|http-port|listen-port)", re.IGNORECASE)
_QUOTED_MAPPING = re.compile(r"[\"'](\d{2,5}):\d{2,5}[\"']")
_QUOTED_VERSION = re.compile(r"[\"'](v?\d+\.\d+(?:\.\d+){0,2})[\"']")
_FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)(?:=([^\s,;`)]+))?")
# Words one of which a clause saying a thing is on or off holds (a substring test first:
# most clauses hold none).
_SWITCH_WORDS: Final = ("abled", "turned", "switched", "flipped", " on", " off", "true", "false")
# A path: in folders, under a root, a dotfile, a file of a known type, or a route of one
# part ("checks /health"; never after a word: "MB/s", "and/or").
_PATH = re.compile(
    r"(?<![\w/.:~@-])((?:~|\.{1,2}|\$\{?[A-Za-z_]\w*\}?)?/?[\w.@<>*{}-]+(?:/[\w.@<>*{}-]*)+|~/[\w.@-]+|/[A-Za-z_][\w.-]*\w"
    r"|\.[\w.-]*[A-Za-z][\w.-]*"
    r"|[\w-]+(?:\.[\w-]+)*\.(?:json|ya?ml|toml|txt|env|md|py|js|ts|tsx|jsx|css|sql|lock"
    r"|mod|sum|cfg|ini|conf|sh|xml|gradle|properties|dockerfile|lockb))(?![\w/])"
)
_ENV_VAR = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
_CAPITALISED = re.compile(r"\b[A-Z][\w-]*[A-Za-z0-9](?:\s+[A-Z][\w-]*[A-Za-z0-9])*\b")
# A setting's value: a number (with a unit), a word, a quoted string.
_SETTING_VALUE = re.compile(r"\d+(?:\.\d+)?[A-Za-z%]{0,3}|[a-z][\w-]*|\"[^\"]*\"")
# What states the value of a key named in code: "`key` is 400", "`key` = on", "set to 5".
_STATED = re.compile(
    r"\s*(?:is|=|:=|to|at|of)\s+(?:now\s+|set\s+to\s+)?"
    r"(\d+(?:\.\d+)?[A-Za-z%]{0,3}|true|false|on|off|\"[^\"]{0,80}\")(?![\w.])"
)
# A reference, not a fact: a ticket (API-11848, OPS-2692), an error code (ERR_62141).
_REFERENCE = re.compile(r"[A-Z][A-Z0-9]*[-_]\d+")
# A git branch by its usual prefix (`release/next`, `feature/sso-login`, `hotfix/2.4.1`):
# a name, though written as a path.
_BRANCH = re.compile(rf"(?:{BRANCH_PREFIXES})/(?:[\w-]+|\d[\w.-]*)")
_CAMEL = re.compile(r"\b[a-z]+[A-Z][A-Za-z0-9]*\b")
# Words that start a command in backticks when the span holds more than one word.
_COMMAND_HEAD = re.compile(r"^[a-z][a-z0-9._+-]*$")
# A setting's key inside a command (`git config --global pull.rebase true`): dotted.
_DOTTED_KEY = re.compile(r"[a-z][\w-]*(?:\.[a-z][\w-]*)+")
_COLON_NAME = re.compile(r"[a-z][\w.-]*(?::[a-z][\w.-]*)+")
# A chat channel's name (`#deploys`, #contracts-oncall), not a colour (#fafafa) nor an
# issue (#42).
_CHANNEL = re.compile(r"#(?![0-9a-f]{3,8}\b)[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
# A name of two to four capitalised words in code marks: `Infra Secrets`, `Team Alpha`.
_TITLED_NAME = re.compile(r"[A-Z][a-z0-9]+(?: [A-Z][a-z0-9]+){1,3}")
_SQL_WORDS: Final = frozenset({"select", "update", "insert", "delete", "create", "alter"})


# -- code in backticks -------------------------------------------------------------------


def code_values(inner: str, text: str, start: int, clause: int) -> Iterator[tuple[int, Value]]:
    """The values a span in backticks holds: a URL, a path, a setting, an image's tag, a
    version, a flag, a command (with its flags, ports and versions), or a name."""
    parts = inner.split()
    if parts[:1] == ["FROM"]:  # `FROM python:3.12-slim AS build`: the base image
        yield from ((start, value) for _at, value in _base_images(inner, Spans(), clause))
    if "(" in inner:  # `Builder().maxSizePercent(0.25).build()`: what a call sets
        yield from ((start, value) for _at, value in call_numbers(inner, Spans(), clause))
        # `fixedWindow(30, "10 s")`: a quoted duration an argument
        yield from ((start, value) for value in quoted_quantities(inner, clause))
    dependency = manifest_version(inner, clause)
    if dependency is not None:  # `require github.com/gin-gonic/gin v1.9.1`, `gem 'rails', ...`
        yield start, dependency
        return
    if CRON.fullmatch(inner):  # `0 6 * * *`: when a job runs, compared as written
        yield start, Value("flag", " ".join(parts), inner, clause=clause)
        return
    if URL.fullmatch(inner):
        yield start, url_value(inner, clause)
        yield from url_parts(inner, start, clause)
        return
    listed = _FLAG_LIST.fullmatch(inner.rstrip(",;"))
    if listed:  # `args: [--fix, --exit-non-zero-on-fix]`: flags a setting gives its program
        program = listed.group(1).lower()
        for item in _LISTED_FLAG.finditer(listed.group(2)):
            yield start, _flag_value(item.group(1), item.group(2), program, clause)
        return
    if _CALL_WITH_OPTIONS.search(inner):
        # `new ValidationPipe({ whitelist: true, transform: true })`, `cors({ origin: '*' })`:
        # the options a call is given, each a setting (no program runs)
        for match in COLON_SETTING.finditer(inner):
            yield start + match.start(), setting_value(match.group(1), match.group(2), clause)
        return
    inner = inner.rstrip(";").rstrip()  # ``auto-optimise-store = true;``: the statement's end
    parts = inner.split()  # ``endTime 2000;``: its last part without it
    declared = DECLARED.fullmatch(inner)
    if declared and (
        SETTING.fullmatch(declared.group(1)) or COLON_SETTING.fullmatch(declared.group(1))
    ):
        inner = declared.group(1)
    setting = (
        R_ASSIGNMENT.fullmatch(inner)
        or PROPERTY.fullmatch(inner)
        or ARROW_SETTING.fullmatch(inner)
        or SWITCH.fullmatch(inner)
        or SETTING.fullmatch(inner)
        or COLON_SETTING.fullmatch(inner)
    )
    if setting and setting.re is SWITCH:
        yield start, switch_value(setting.group(1), setting.group(2), clause)
        return
    if setting:
        yield start, setting_value(setting.group(1), setting.group(2), clause)
        yield from _command_given(setting.group(2).strip("\"'"), start, clause)
        return
    whole = _WHOLE_SETTING.fullmatch(inner)
    if whole:  # `QT_QPA_PLATFORM=wayland;xcb`, `encrypted_regex: ^(data|stringData)$`
        yield start, setting_value(whole.group(1), whole.group(2), clause)
        return
    block = _HCL_BLOCK.fullmatch(inner)
    backend = _BACKEND.match(inner)
    if backend:  # `backend "s3" { ... }`: where Terraform keeps its state, one per config
        yield (
            start,
            Value("flag", backend.group(1), inner, slot="backend", keyed=True, clause=clause),
        )
        if not block:
            return
    if block:  # `port "http" { static = 8080 }`: a block's settings, under its name
        for match in SETTING.finditer(block.group(2)):
            field = setting_value(f"{block.group(1)}.{match.group(1)}", match.group(2), clause)
            if block.group(1).lower().endswith("port") and match.group(2).isdigit():
                field = Value("port", match.group(2), field.shown, clause=clause)
            yield start, field
        return
    table = _INLINE_TABLE.fullmatch(inner)
    if table:  # `bevy = { version = "0.13", features = [...] }`: a dependency's version
        version = version_value(table.group(2), clause, slot=table.group(1).lower())
        if version is not None:
            yield start, version.replace(shown=f"{table.group(1)} {table.group(2)}")
            return
    erlang = ERLANG_TUPLE.fullmatch(inner)
    if erlang:  # `{port, 4000}`: a setting as Erlang's config writes it
        yield start, setting_value(erlang.group(1), erlang.group(2), clause)
        return
    labelled = [LABELLED.fullmatch(part) for part in parts]
    if any(labelled) and all(labelled[1:]):
        # `Dream.run ~interface:"0.0.0.0" ~port:8080`: a call's labelled arguments, each a
        # setting (OCaml writes a keyword argument so)
        for part, argument in zip(parts, labelled, strict=True):
            if argument:
                at = start + inner.find(part)
                yield at, setting_value(argument.group(1), argument.group(2), clause)
        return
    if _TITLED_NAME.fullmatch(inner):
        # `Infra Secrets`: a thing's name of capitalised words, as a vault, a workspace or
        # a project is called (no program is run by a capitalised word)
        yield start, Value("name", inner.lower(), inner, clause=clause)
        return
    if len(parts) == 1:
        yield from _one_token_code(inner, text, start, clause)
        return
    if range_text(inner):  # `~> 1.7.5`, `>= 3.11, < 3.12`: a range of a tool's versions
        version = version_value(inner, clause, slot=tool_before(text[:start]))
        if version is not None:
            yield start, version
            return
    if len(parts) == 2 and VERSION.fullmatch(parts[1]) and _COMMAND_HEAD.match(parts[0]):
        # `go 1.21`: a directive naming a tool's version, not a command to run
        version = version_value(parts[1], clause, slot=parts[0].lower())
        if version is not None:
            yield start, version
            return
    if (
        len(parts) == 2
        and (re.search(r"[_.]", parts[0]) or _CAMEL.fullmatch(parts[0]))
        and "/" not in parts[0]
        and _SETTING_VALUE.fullmatch(parts[1])
    ):
        # `client_max_body_size 10m`, `pull.ff only`, `endTime 2000`: a setting written
        # as its config file writes it, key then value (`./gradlew installDebug` is a
        # program and its task: a key has no slash)
        yield start, setting_value(parts[0], parts[1], clause)
        return
    lone = _FLAG.fullmatch(parts[0]) if len(parts) == 2 and parts[0].startswith("-") else None
    if lone and lone.group(2) is None and _takes(parts[0], parts[1]):
        # `-r cubic`, `--compression zstd,6`: one flag with its value, given without its
        # program (the note names it elsewhere, or the flag is all it changes)
        yield start, _flag_value(lone.group(1), parts[1], _tool_run(text[:start]), clause)
        return
    if all(_FLAG.fullmatch(part) and part.startswith("-") for part in parts):
        # `--metrics-bind-address=:8443 --metrics-secure`: flags given without their
        # program, each read as a lone flag is
        tool = _tool_run(text[:start])
        for part in parts:
            flag = _FLAG.fullmatch(part)
            assert flag is not None
            yield start, _flag_value(flag.group(1), flag.group(2), tool, clause)
        return
    head = parts[0]
    if head == "cd" and len(parts) == 2:
        # `cd infra/prod`: where the next command runs, not a task
        yield start, Value("path", _path_norm(parts[1]), parts[1], clause=clause)
        return
    if PROGRAM.match(head) and head.lower() not in _SQL_WORDS:
        yield start, Value("command", " ".join(parts).lower(), inner, slot="", clause=clause)
        tool, after = command_tool(parts)
        yield from _command_parts(parts, tool, start, clause, after)
        return
    run = _KEYED_COMMAND.fullmatch(inner)
    if run and _FLAG_IN.search(run.group(2)):
        # `web: bundle exec puma --port=9292`: a Procfile's command, a setting's value
        yield from _command_given(run.group(2), start, clause)
        return
    # Code that is neither one token nor a command (`SameSite=Lax; Secure`, SQL, an
    # object's fields `httpOnly: true, sameSite: 'strict'`, a flag with an address
    # `--index-url https://...`): the settings and addresses in it, else nothing (its
    # words still count as its clause's subject).
    yield from ((start, value) for value in interval_quantities(inner, clause))
    for match in _QUOTED_MAPPING.finditer(inner):  # `ports: ["8081:8080"]`: the host's
        yield start + match.start(), Value("port", match.group(1), match.group(0), clause=clause)
    images = [match for match in _IMAGE.finditer(inner) if not match.group(3).isdigit()]
    for match in images:  # `image: rabbitmq:3.13-management`: the image's tag
        version = _image_tag(match, clause)
        if version is not None:
            yield start + match.start(), version.replace(shown=match.group(0))
    fields = [
        match
        for match in COLON_SETTING.finditer(inner)
        if not any(image.start() <= match.start(2) < image.end() for image in images)
    ]
    settings = list(SETTING.finditer(inner)) or [
        # a tool's versions (``"node": ">=20"``): not a field's value; a whole number is one
        match
        for match in fields
        if not _versions_only(match.group(2).strip("\"'"))
    ]
    for match in settings:
        yield start + match.start(), setting_value(match.group(1), match.group(2), clause)
    for match in fields:
        # ``{"react": "^18.2.0", "react-dom": "^18.2.0"}``: each dependency's range or pin,
        # as ``"react": "^18.2.0"`` alone reads (not an engine's floor, ``"node": ">=18"``,
        # which allows what another note runs)
        raw = match.group(2).strip("\"'")
        if match not in settings and _versions_only(raw) and raw[:1] in _DEPENDENCY_RANGE:
            version = version_value(raw, clause, slot=match.group(1).lower())
            if version is not None:
                yield start + match.start(), version.replace(keyed=True)
    for match in URL.finditer(inner):
        if not any(a <= match.start() < b for a, b in (m.span() for m in settings)):
            url = match.group(0).rstrip(".,:;!?")
            yield start + match.start(), url_value(url, clause)
            yield from url_parts(url, start + match.start(), clause)
    if not settings:
        # `org.clojure/clojure {:mvn/version "1.11.1"}`: a quoted version is a version
        for match in _QUOTED_VERSION.finditer(inner):
            version = version_value(match.group(1), clause, slot=tool_before(text[:start]))
            if version is not None:
                yield start + match.start(), version


def _command_given(value: str, start: int, clause: int) -> Iterator[tuple[int, Value]]:
    """The flags and ports of a command given as a setting's value (a Procfile's line,
    ``"postStartCommand": "jupyter lab --port=8890"``): a program, then flags."""
    parts = value.split()
    if len(parts) < 2 or not PROGRAM.match(parts[0]) or not _FLAG_IN.search(value):
        return
    tool, after = command_tool(parts)
    yield from _command_parts(parts, tool, start, clause, after)


# A setting whose value is a command line: ``web: bundle exec puma -p 9292``,
# ``"command": "serve --port=8890",``.
_KEYED_COMMAND = re.compile(
    r"[\"']?[A-Za-z_][\w.-]*[\"']?\s*[:=]\s*([\"']?)([a-z][^\"'\s]*(?:\s+[^\"'\s]+)+)\1,?"
)
_FLAG_IN = re.compile(r"(?<!\S)--?[A-Za-z]")


def _takes(flag: str, following: str) -> bool:
    """Whether the part after a flag is its value: after a short flag any word or number
    (`-n auto`, `-p 2222`), after a long one a number, a word or a list of them
    (`--workers 4`, `--target dev`, `-filter Lanczos`, `--compression zstd,6`); never a
    flag, nor a path (where a command runs, or what it runs on)."""
    if len(flag) == 2:
        return not following.startswith("-") and _SHORT_FLAG_VALUE.fullmatch(following) is not None
    return _LONG_FLAG_VALUE.fullmatch(following) is not None


_SHORT_FLAG_VALUE = re.compile(r"[\w.:-]+")
_LONG_FLAG_VALUE = re.compile(r"\d+(?:\.\d+)?[A-Za-z]{0,3}|[A-Za-z][\w-]*(?:,[\w.+-]+)*")
# A block as HCL writes one on a line, its name, labels and settings: ``port "http" {
# static = 8080 }`` (Nomad, Terraform).
_HCL_BLOCK = re.compile(r"([a-z_][\w-]*)(?:\s+\"[^\"]*\")*\s*\{\s*([^{}]*?=[^{}]*?)\s*\}")
# A dependency as TOML writes one with its options, an inline table holding its version:
# ``bevy = { version = "0.13", features = ["wayland"] }``.
_INLINE_TABLE = re.compile(
    r"[\"']?([A-Za-z_][\w.-]*)[\"']?\s*=\s*\{[^{}]*?\bversion\s*=\s*[\"']([^\"']+)[\"'][^{}]*\},?"
)
# A span in code that is one setting whose value is one token of any characters (a list
# joined by ``;``, a pattern): ``QT_QPA_PLATFORM=wayland;xcb``, ``match: ^(a|b)$``.
# (A value holding an address, a path, an image or a list is read by the patterns after.)
_WHOLE_SETTING = re.compile(r"[\"']?([A-Za-z_][\w.-]*)[\"']?(?::\s+|\s*=\s*)([^\s/:{}\[\]\"'`]+)")
# A call given an object of options: ``Pipe({ a: 1 })``, ``forRoot([{ ttl: 60 }])``.
_CALL_WITH_OPTIONS = re.compile(r"\w\(\s*\[?\s*\{\s*[\w\"']+\s*:")


def _image_tag(image: re.Match[str], clause: int) -> Value | None:
    """An image's tag (:data:`_IMAGE`) as a version of the image (``rabbitmq:3.13-management``);
    a tag no version reads (``TL2023-historic``, ``pg16``) as itself, still the image's."""
    tag, name = image.group(3), image.group(2).lower()
    version = version_value(tag, clause, slot=name)
    if version is None and tag[:1].isalpha() and tag.lower() != "latest":
        return Value("version", tag.lower(), tag, slot=name, keyed=True, clause=clause)
    return version


# Terraform's backend block, by its one label: ``backend "s3" {``, ``backend "local" {}``.
_BACKEND: Final = re.compile(r"backend\s+\"([\w-]+)\"\s*\{")
# A path of one part from the root: an endpoint (`/healthz`), a folder (`/srv`).
_ROOT_ENTRY: Final = re.compile(r"/[A-Za-z_][\w.-]*/?")
# How a dependency's version starts in a manifest: a caret or tilde range, or a pin.
_DEPENDENCY_RANGE: Final = frozenset("^~0123456789")


def _versions_only(value: str) -> bool:
    """Whether a field's value is a range of versions, not a number (``3110``)."""
    return range_text(value) and not value.isdigit()


# The word a schedule's field is named by, just before its value in code.
_FIELD_BEFORE = re.compile(r"\b([A-Za-z]{3,})\s*$")


# A setting whose value is a list of flags, as a hook's or a container's arguments are
# written: ``args: [--fix, --exit-non-zero-on-fix]``, ``args = ["--workers=4"]``.
_LISTED_FLAG = re.compile(r"[\"']?(-{1,2}[A-Za-z][\w-]*)(?:=([^,\]\s\"']+))?[\"']?")
_FLAG_LIST = re.compile(
    r"([A-Za-z_][\w.-]*)\s*[:=]\s*\[((?:\s*[\"']?-{1,2}[A-Za-z][\w-]*(?:=[^,\]\s\"']+)?[\"']?\s*,?)+)\]"
)


# The word a module system's module is named after: "the module `cuda/12`".
_MODULE_BEFORE = re.compile(r"\bmodules?\s*$", re.IGNORECASE)


def _one_token_code(inner: str, text: str, start: int, clause: int) -> Iterator[tuple[int, Value]]:
    arguments = list(SETTING.finditer(inner)) if "(" in inner and "=" in inner else []
    if arguments:  # `@task(retries=3)`: the settings a call is given
        for match in arguments:
            yield start + match.start(), setting_value(match.group(1), match.group(2), clause)
        return
    field = _FIELD_BEFORE.search(text[:start]) if CRON_STEP.fullmatch(inner) else None
    if field:  # "with minute `*/15`": a schedule's field, its step in code
        yield start, setting_value(field.group(1), inner, clause)
        return
    url = URL.search(inner)
    if url and not URL.fullmatch(inner):
        # ``maven("https://repo.example/m2/")``: the address a call is given
        address = url.group(0).rstrip(".,:;!?\"')")
        yield start + url.start(), url_value(address, clause)
        return
    stated = _STATED.match(text, start + len(inner) + 2)
    if stated and re.fullmatch(r"[A-Za-z_][\w.-]*[A-Za-z0-9_]", inner):
        # "`max_connections` is 400": the key in code, its value after it; unless the
        # code names what a key said before it is set on ("maxHits on `products` is 10")
        on = KEY_ON_THING.search(text[:start])
        if on and not FILE_KEY.search(on.group(1)):
            # the thing named, as a proper name is: a key set on two things is two settings
            value = setting_value(on.group(1), stated.group(1), clause)
            yield start, value.replace(named=frozenset({inner.lower()}))
        else:
            yield start, setting_value(inner, stated.group(1), clause)
        return
    key = KEY_BEFORE.search(text[:start])
    if key and not FILE_KEY.search(key.group(1) or key.group(2)):
        # "session.store_type is `redis`": the key in prose, its value in code
        yield start, setting_value(key.group(1) or key.group(2), inner, clause)
        return
    module = LOADED_MODULE.fullmatch(inner) if _MODULE_BEFORE.search(text[:start]) else None
    if module:  # "module `openfoam/v2306`": the module system's tool at its version
        yield from _module_version(module, start, clause)
        return
    mapping = re.fullmatch(r"(\d{2,5}):(\d{2,5})", inner)
    if mapping:
        # `8081:8080` said alone: a port published, host:container; the host's is where
        # it is reached (a command's mapping is read with the command's flags instead)
        yield start, Value("port", mapping.group(1), inner, clause=clause)
        return
    host_port = _HOST_PORT.fullmatch(inner)
    if host_port is not None and _is_port_of(host_port.group(1), host_port.group(2)):
        # `redis.internal:6379`: a host and its port, not an image and its tag
        host = host_port.group(1)
        if host.lower() != "localhost":
            yield start, Value("url", host.lower(), host, clause=clause)
        yield start, Value("port", host_port.group(2), f":{host_port.group(2)}", clause=clause)
        return
    image = _IMAGE.fullmatch(inner)
    if image:
        version = _image_tag(image, clause)
        if version is not None:
            yield start, version.replace(shown=inner)
            return
    if inner.startswith(":") and inner[1:].isalnum():
        if inner[1:].isdigit():
            yield start, Value("port", inner[1:], inner, clause=clause)
        else:
            yield start, Value("version", inner[1:].lower(), inner, slot="tag", clause=clause)
        return
    if _FLAG.fullmatch(inner) and inner.startswith("-"):
        flag = _FLAG.fullmatch(inner)
        assert flag is not None
        yield start, _flag_value(flag.group(1), flag.group(2), _tool_run(text[:start]), clause)
        return
    version = version_value(inner, clause, slot=tool_before(text[:start]))
    if version is not None and VERSION.fullmatch(inner):
        yield start, version
        return
    if re.fullmatch(r"@[\w.-]+/[\w.-]+", inner):  # an npm package, @scope/name
        yield start, Value("name", inner.lower(), inner, clause=clause)
        return
    if _BRANCH.fullmatch(inner):
        yield start, Value("name", inner.lower(), inner, clause=clause)
        return
    if _WINDOWS_PATH.fullmatch(inner):  # `%APPDATA%\\GlimmerSync\\logs\\sync.log`
        yield start, _windows_path(inner, clause)
        return
    if _RUN_FROM_BIN.fullmatch(inner):  # `./vendor/bin/phpunit`: a program run
        yield start, Value("command", inner.lower(), inner, slot="", clause=clause)
        return
    if (_PATH.fullmatch(inner) and ("/" in inner or "." in inner)) or _ROOT_ENTRY.fullmatch(inner):
        # `/healthz`, `/metrics`: an endpoint's or a root folder's path, one part of it
        yield start, Value("path", _path_norm(inner), inner, clause=clause)
        return
    if _CHANNEL.fullmatch(inner):  # `#escrow-alerts`: a chat channel
        yield start, Value("name", inner.lower(), inner, clause=clause)
        return
    if (re.fullmatch(r"[\w.@/-]+", inner) and not inner.isdigit()) or _COLON_NAME.fullmatch(inner):
        # `jobs:inbound`, `cache:sessions`: a stream's or a key's name, its parts joined
        # by colons as Redis and PubSub topics write them
        yield start, Value("name", inner.lower(), inner, clause=clause)


def _is_port_of(host: str, number: str) -> bool:
    """Whether ``host:number`` is a host and its port (`redis.internal:6379`,
    `localhost:80`) rather than an image and its tag (`postgres:16`, `node:20`)."""
    return len(number) >= 3 or "." in host or host.lower() == "localhost"


def _command_parts(
    parts: list[str], tool: str, start: int, clause: int, first: int = 1
) -> Iterator[tuple[int, Value]]:
    """A command's flags (keyed by its tool), settings, ports and pinned versions, from
    part ``first`` on (its tool's words before)."""
    i = max(first, 1)
    while i < len(parts):
        part = parts[i]
        flag = _FLAG.fullmatch(part)
        given = SETTING.fullmatch(part.strip("\"'")) if "=" in part else None
        if given and not part.startswith("-"):
            # `pip install "apache-airflow==2.7.3"`, `make deploy ENV=prod`: a setting or a
            # pin given through a command
            yield start, setting_value(given.group(1), given.group(2), clause)
            i += 1
            continue
        if (
            _DOTTED_KEY.fullmatch(part)
            and not SCRIPT_FILE.fullmatch(part)  # `python manage.py migrate`: a script's task
            and i + 1 < len(parts)
            and _SETTING_VALUE.fullmatch(parts[i + 1])
            and not _PATH.fullmatch(parts[i + 1])
        ):
            # `git config --global pull.rebase true`: a setting given through a command
            yield start, setting_value(part, parts[i + 1], clause)
            i += 2
            continue
        if flag and part.startswith("-") and not part.startswith("-" * 3):
            value = flag.group(2)
            if value is None and i + 1 < len(parts) and _takes(part, parts[i + 1]):
                value = parts[i + 1]  # `-n auto`, `-p 2222`
                i += 1
            yield start, _flag_value(flag.group(1), value, tool, clause)
            if value is not None and _PORT_FLAG.fullmatch(flag.group(1)) and value.isdigit():
                yield start, Value("port", value, value, clause=clause)  # `--port 8090`
        elif URL.fullmatch(part.strip("\"'")):  # `curl -fsS https://api.example/health`
            url = part.strip("\"'").rstrip(".,;")
            yield start, url_value(url, clause)
            yield from url_parts(url, start, clause)
        elif (image := _IMAGE.fullmatch(part)) and not image.group(3).isdigit():
            # `docker run ... getmeili/meilisearch:v1.11`: the image's tag
            version = _image_tag(image, clause)
            if version is not None:
                yield start, version.replace(shown=part)
        elif re.fullmatch(r"\d{2,5}:\d{2,5}", part):
            yield start, Value("port", part.split(":")[1], part, clause=clause)
        elif re.fullmatch(r":\d{2,5}", part) and 1 <= int(part[1:]) <= 65535:
            # `target remote :2331`: a port on this host, its name left out
            yield start, Value("port", part[1:], part, clause=clause)
        elif _HOST_PORT.match(part) and _HOST_PORT.match(part).group(2).isdigit():  # type: ignore[union-attr]
            port = _HOST_PORT.match(part)
            assert port is not None
            yield start, Value("port", port.group(2), port.group(0), clause=clause)
        elif "@" in part and VERSION.search(part.rsplit("@", 1)[1]):
            name, pinned = part.rsplit("@", 1)
            version = version_value(pinned, clause, slot=name.rsplit("/", 1)[-1].lower())
            if version is not None:
                yield start, version
        elif module := (LOADED_MODULE if parts[0] == "module" else MODULE_VERSION).fullmatch(
            part
        ):  # `module load gcc/11.4.0`; `module load openfoam/v2406`, a module loaded
            yield from _module_version(module, start, clause)
        elif _FILE_FROM_ROOT.fullmatch(part):
            # `tail -f /opt/minecraft/logs/latest.log`: where the file is, as a note saying
            # the path alone says it
            yield start, Value("path", _path_norm(part), part, clause=clause)
        i += 1


# A file named from the root or the home folder, with its extension: where a command
# finds it (``/var/log/app.log``, ``~/.config/kitty/kitty.conf``).
_FILE_FROM_ROOT: Final = re.compile(r"(?:~|/[\w.-]+)(?:/[\w.-]+)*/[\w-]+\.[A-Za-z][\w]{0,7}")


def _module_version(match: re.Match[str], start: int, clause: int) -> Iterator[tuple[int, Value]]:
    version = version_value(match.group(2), clause, slot=match.group(1).lower())
    if version is not None:
        yield start, version.replace(shown=match.group(0))


# -- plain text --------------------------------------------------------------------------


def plain_values(
    text: str, spans: Spans, clause: int, about_ports: bool
) -> Iterator[tuple[int, Value]]:
    """The values outside code, most specific patterns first; a pattern runs only on a
    text holding the character it needs."""
    digits = _DIGIT.search(text) is not None
    if "://" in text:
        yield from _urls(text, spans, clause)
    if "{" in text:
        yield from erlang_settings(text, spans, clause)  # `{ws_port, 4443},` in sys.config
    if "FROM " in text:
        yield from _base_images(text, spans, clause)
    if "version" in text or "nvmrc" in text:
        yield from version_files(text, spans, clause)  # before the file is read as a path
    if digits:
        yield from glued_versions(text, spans, clause)  # `python3.10`: before key, value
    if ":" in text:
        yield from _colon_values(text, spans, clause)
    if (
        "=" in text
        or " is " in text
        or "set " in text.lower()
        or ": true" in text
        or ": false" in text
    ):
        yield from plain_settings(text, spans, clause)
    yield from plain_switches(text, spans, clause)
    if "_" in text or "." in text or _INNER_UPPER.search(text):
        yield from plain_keys_then_values(text, spans, clause)
    if any(word in text for word in _SWITCH_WORDS):
        yield from said_on_or_off(text, spans, clause)
    if " is " in text or " are " in text or " to " in text:
        yield from settings_said_by_words(text, spans, clause)
    if "-" in text:
        yield from _flags(text, spans, clause)
    if "/" in text:
        # "module gcc/13.2.0": a tool's version as a module system names it, not a path
        for match in MODULE_VERSION.finditer(text):
            if spans.free(*match.span()):
                spans.take(*match.span())
                yield from _module_version(match, match.start(), clause)
    if "root" in text and "." in text:
        yield from _files_at_root(text, spans, clause)
    if "\\" in text:
        yield from _windows_paths(text, spans, clause)
    if "/" in text or "." in text:
        yield from _paths(text, spans, clause)
    if "." in text or "_" in text or "-" in text:
        yield from _identifiers(text, spans, clause)
    if digits:
        if "(" in text:
            yield from call_numbers(text, spans, clause)
        if "_" in text or _INNER_UPPER.search(text):
            yield from keyed_numbers(text, spans, clause)
        yield from versions(text, spans, clause)
        yield from joined_versions(text, spans, clause)
        yield from numbers(text, spans, clause, about_ports)
    yield from number_words(text, spans, clause)
    if "ly" in text or "every" in text:
        yield from period_words(text, spans, clause)
    if _UPPER.search(text, 1):
        yield from _names(text, spans, clause)
    yield from tool_names(text, spans, clause)
    if "ma" in text or "develop" in text or "trunk" in text:
        yield from branch_names(text, spans, clause)
    if "#" in text:
        yield from channel_names(text, spans, clause)


_DIGIT = re.compile(r"\d")
_INNER_UPPER = re.compile(r"[a-z][A-Z]")
_UPPER = re.compile(r"[A-Z]")


def _urls(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in URL.finditer(text):
        if spans.free(*match.span()):
            url = match.group(0).rstrip(".,:;!?")
            spans.take(match.start(), match.start() + len(url))
            yield match.start(), url_value(url, clause)
            yield from url_parts(url, match.start(), clause)


# A Dockerfile's base image, in prose or code: "start FROM centos:8", `FROM
# python:3.12-slim AS build` (the instruction is written in capitals).
_BASE_IMAGE = re.compile(
    r"(?<![\w-])FROM\s+([a-z0-9][\w./-]*(?::[\w.-]+)?)(?![\w/:-])(?:\s+(?:AS|as)\s+([\w-]+))?"
)


def _base_images(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """A Dockerfile's base image, as one setting's value: two notes' base images
    are one thing's values, whatever image each names (``centos:8``, ``rockylinux:8``).
    A named stage (``FROM python:3.12-slim AS build``) is a key of its own: a build's
    stages each have their base."""
    for match in _BASE_IMAGE.finditer(text):
        if spans.free(*match.span()):
            image = match.group(1).rstrip(".")
            spans.take(match.start(), match.end())
            stage = match.group(2)
            # the subject a review shows: "base image", "base image of build"
            slot = f"base image of {stage.lower()}" if stage else "base image"
            shown = f"FROM {image}" + (f" AS {stage}" if stage else "")
            yield (
                match.start(),
                Value("flag", image.lower(), shown, slot=slot, keyed=True, clause=clause),
            )


def _colon_values(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in _IMAGE.finditer(text):
        if spans.free(*match.span()) and not match.group(3).isdigit():
            version = _image_tag(match, clause)
            if version is not None:
                spans.take(*match.span())
                yield match.start(), version.replace(shown=match.group(0))
    for match in _HOST_PORT.finditer(text):
        if spans.free(*match.span()):
            spans.take(*match.span())
            yield match.start(), Value("port", match.group(2), match.group(0), clause=clause)
    for match in _BARE_PORT.finditer(text):
        if spans.free(*match.span()):
            if match.group(2) and max(len(match.group(2)), len(match.group(3))) <= 2:
                continue  # 02:00, a clock time
            spans.take(*match.span())
            port = match.group(1) or match.group(3)
            yield match.start(), Value("port", port, match.group(0), clause=clause)


def _flags(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in _FLAG.finditer(text):
        if match.group(0).startswith("-") and spans.free(*match.span()):
            if len(match.group(1)) < 3 or match.group(1).count("-") > 3:
                continue  # a lone "-x" outside code is too often a dash or a hyphen
            spans.take(*match.span())
            tool = _tool_run(text[: match.start()])
            yield match.start(), _flag_value(match.group(1), match.group(2), tool, clause)


def _paths(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in _PATH.finditer(text):
        shown = match.group(1).rstrip(".")
        if spans.free(*match.span()) and (
            _looks_like_path(shown)
            # "sit in inst/extdata", "points at api/proto": a place, by the word before
            or (
                _PLACE_BEFORE.search(text, 0, match.start())
                and _FOLDERS.fullmatch(shown)
                and _PLACE_ENDS.match(text, match.start() + len(shown))
            )
        ):
            spans.take(match.start(), match.start() + len(shown))
            kind = "name" if _BRANCH.fullmatch(shown) else "path"
            norm = shown.lower() if kind == "name" else _path_norm(shown)
            if _RUN_FROM_BIN.fullmatch(shown):
                kind, norm = "command", shown.lower()  # ./vendor/bin/phpunit: a program run
            yield match.start(), Value(kind, norm, shown, clause=clause)


# What says a place follows: "in", "under", "at", "into".
_PLACE_BEFORE = re.compile(r"\b(?:in|under|at|into)\s+$")
# What ends a phrase of place: punctuation, or a word that starts another ("in
# inst/extdata so tests share them"); "in read/write mode" is no place.
_PLACE_ENDS = re.compile(
    r"\s*(?:[.,;:)]|$)|\s+(?:and|so|with|for|on|which|where|that|to|from|but|or|since)\b"
)
# Two or more folders' names of lower-case words: ``inst/extdata``.
_FOLDERS = re.compile(r"[a-z][a-z0-9_-]*(?:/[a-z][a-z0-9_-]*)+")
# A program by its path in a project's bin folder (``./vendor/bin/phpunit``,
# ``node_modules/.bin/jest``): a command said in prose, without code marks.
_RUN_FROM_BIN: Final = re.compile(r"(?:\./)?(?:[\w-]+/)*\.?bin/[a-z][\w-]*")


def _windows_paths(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """Paths as Windows writes them (``%APPDATA%\\Inkwell\\notebooks``,
    ``C:\\tools\\bin``), compared as paths with slashes are."""
    for match in _WINDOWS_PATH.finditer(text):
        if spans.free(*match.span()):
            spans.take(*match.span())
            yield match.start(), _windows_path(match.group(0), clause)


def _windows_path(shown: str, clause: int) -> Value:
    """A Windows path as a path value: its parts joined by slashes, lower case (Windows
    folds the case of names)."""
    return Value("path", _path_norm(shown.replace("\\", "/")), shown, clause=clause)


# A path of two parts at least joined by backslashes, from a drive, a variable
# (``%APPDATA%``) or a folder's name: ``Documents\\Inkwell``, ``C:\\tools\\bin``.
_WINDOWS_PATH: Final = re.compile(
    r"(?<![\w\\%$])(?:[A-Za-z]:|%[A-Za-z_]+%|[A-Za-z][\w.-]*)(?:\\[\w.$-]+)+\\?"
)


def _files_at_root(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """A file said to sit at a root ("refs.bib at the repo root", "memory.x in the crate
    root"): a path, whatever its extension, and the root's own file (:func:`root_path`)."""
    for match in _FILE_AT_ROOT.finditer(text):
        if spans.free(*match.span(1)):
            spans.take(*match.span(1))
            shown = match.group(1)
            yield match.start(1), Value("path", root_path(shown), shown, clause=clause)


def root_path(name: str) -> str:
    """The path of a file said to sit at a root, as compared: ``./memory.x``. Said so, a
    file is no other file of its name: ``config.py`` "at the root of the device" is not
    ``/lib/probe/config.py``, though a bare ``config.py`` may be any file of that name
    (:func:`.agreement.agree`)."""
    return f"./{_path_norm(name)}"


# What says a file sits at a root: "at the repo root", "in the crate root", "at the root
# of the device filesystem".
AT_ROOT: Final = re.compile(
    r"`?\s+(?:(?:sits|lives|is|are)\s+)?(?:at|in)\s+the\s+(?:[\w-]+\s+){0,2}root\b"
)
_FILE_AT_ROOT = re.compile(
    r"(?<![\w/.:~@`-])([A-Za-z_][\w-]*\.[A-Za-z]\w{0,7})(?=" + AT_ROOT.pattern + ")"
)


def _identifiers(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """Identifiers written in prose without code marks: a dotted one holding a joined
    word or of three parts (``analytics.user_sessions``, ``pg.public.orders``; "e.g."
    or ``vim.uv`` read as nothing), and a joined one said just after the kind of thing
    it names ("the workspace network-production": a hyphenated word alone is English)."""
    for pattern in (_DOTTED_IDENTIFIER, _NAMED_IDENTIFIER):
        for match in pattern.finditer(text):
            start, end = match.span(1)
            shown = match.group(1)
            if not spans.free(start, end) or text[end : end + 1] == "(":
                continue  # a call, not a thing's name
            if any(part.isdigit() for part in re.split(r"[._-]", shown)):
                continue  # a version (``perl-5.26.3``, ``v2.44.0``)
            if pattern is _DOTTED_IDENTIFIER and (
                shown.rsplit(".", 1)[-1] in _DOMAIN_ENDINGS
                or ("_" not in shown and "-" not in shown and shown.count(".") < 2)
            ):
                continue
            spans.take(start, end)
            yield start, Value("name", shown.lower(), shown, clause=clause)


_DOTTED_IDENTIFIER = re.compile(
    r"(?<![\w./:@$~-])([a-z][\w-]*(?:\.[a-z0-9][\w-]*)+)(?![\w/-]|\.\w)"
)
_NAMED_IDENTIFIER = re.compile(
    r"\b(?:queue|topic|stream|exchange|channel|bucket|workspace|namespace|table|schema"
    r"|collection)s?\s+(?:is\s+|named\s+|called\s+)?([a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+)(?![\w/-]|\.\w)"
)
# A host's last part: ``api.acme.com`` is an address, not an identifier.
_DOMAIN_ENDINGS: Final = frozenset(
    {"com", "io", "net", "org", "dev", "app", "local", "internal", "lan", "cloud", "co"}
)


# The days and months, capitalised as names are, yet saying when.
_CALENDAR: Final = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february march
    april may june july august september october november december""".split()  # noqa: SIM905 - a word list reads best as words
)


# A language's literals, capitalised as Python writes them (``batch=True``,
# ``postOnly True``): no names, nor a name of what a value belongs to (:mod:`.values`).
LITERALS: Final = frozenset({"true", "false", "none", "null", "nil"})


def _names(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for pattern in (_ENV_VAR, _CAMEL):
        for match in pattern.finditer(text):
            if spans.free(*match.span()):
                spans.take(*match.span())
                if _REFERENCE.fullmatch(match.group(0)):
                    continue  # ERR_62141, a code quoted, not a setting
                yield (
                    match.start(),
                    Value("name", match.group(0).lower(), match.group(0), clause=clause),
                )
    for match in _CAPITALISED.finditer(text):
        start, shown = match.start(), match.group(0)
        if not spans.free(start, match.end()):
            continue
        if not text[:start].strip():  # the first word of a sentence: capitalised anyway
            first, _, rest = shown.partition(" ")
            if not rest and role_of(first) is None:  # a tool's name is one ("Koin wires")
                continue
            if rest:
                start, shown = start + len(first) + 1, rest.lstrip()
        tokens = [token for token in shown.split() if not _REFERENCE.fullmatch(token)]
        while tokens and _is_acronym(tokens[0]):
            tokens.pop(0)
        while tokens and _is_acronym(tokens[-1]):
            tokens.pop()
        if not tokens or all(token.lower() in GENERIC for token in tokens):
            continue
        shown = " ".join(tokens)
        if len(tokens) == 1 and is_plural(shown) and shown[1:].islower():
            continue  # "Macs", "Secrets": a plural noun capitalised, not a name
        if all(token.lower() in _CALENDAR for token in tokens):
            continue  # "on Sunday", "since March": when, not a thing named
        if len(tokens) == 1 and (shown.lower() in LITERALS or is_unit(shown)):
            continue  # `postOnly True`, "64 KiB": a language's literal, a unit; no thing named
        spans.take(match.start(), match.end())
        yield start, Value("name", shown.lower(), shown, clause=clause)


# -- values ------------------------------------------------------------------------------


def _path_norm(path: str) -> str:
    return path.rstrip("/").lower() or "/"


def _looks_like_path(token: str) -> bool:
    """Whether a token read as a path is one, not "and/or", "messages/second" or an npm
    package's ``@scope/name``."""
    if token.startswith("@"):
        return False
    if "/" not in token:
        return "." in token.strip(".") or token.startswith(".")
    if token.startswith(("/", "~", "./", "../", "$")) or token.endswith("/"):
        return True
    segments = [segment for segment in token.split("/") if segment]
    if all(segment.isdigit() for segment in segments):
        return False  # 502/503/504, 24/7
    if per_time(token) is not None:
        return False  # 30/min: a rate
    if len(segments) >= 3:
        return True
    return any(re.search(r"[._<>*@-]|\d", segment) for segment in segments)


def _flag_value(flag: str, value: str | None, tool: str, clause: int) -> Value:
    name = flag.lstrip("-").lower()
    slot = f"{tool} -{name}" if tool else f"-{name}"
    shown = f"{flag}={value}" if value is not None and "=" not in flag else flag
    if value is not None and not flag.startswith("--"):
        shown = f"{flag} {value}"
    return Value("flag", (value or "on").lower(), shown, slot=slot, keyed=True, clause=clause)


_RUN_TOOL = re.compile(
    r"\b(?:run|runs|use|uses|call|invoke|start|pass)\s+`?([a-z][\w.-]*)`?"
    r"(?:\s+([a-z][\w-]*))??\s+(?:with\s+)?$",
    re.IGNORECASE,
)


def _tool_run(text: str) -> str:
    """The command a flag outside one is given to: "Run jest with `--runInBand`"."""
    match = _RUN_TOOL.search(text)
    if match is None or match.group(1).lower() in GENERIC:
        return ""
    return match.group(1).lower()


def _is_acronym(token: str) -> bool:
    """An all-caps word of up to five letters (CI, API, AWS), or its plural (GPUs, PRs):
    a subject, not a value."""
    if len(token) > 2 and token.endswith("s") and token[:-1].isupper():
        token = token[:-1]
    return token.isupper() and len(token) <= 5
