"""Addresses a note states: a URL with its scheme (the web's, a bucket's, a database's,
a repository's), as the finder compares it, and the port it names."""

from __future__ import annotations

import re

from anamnesis.store.review.reading.value import Value

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterator

# An address with its scheme: the web's (and its sockets'), and a bucket's, a database's, a
# repository's.
URL = re.compile(
    r"\b(?:https?|wss?|grpcs?|s3|gs|az|ssh|git|sftp|ftp|postgres(?:ql)?|mysql|redis|rediss|mongodb"
    r"(?:\+srv)?|amqps?|kafka|nats|mqtts?)://[^\s`'\"<>()\[\]{}]+"
)
# A host's name without a scheme, of three names or more under a domain ending
# (``puppet.infra.acme.lan``, ``search.acme.dev``), given in code, to a command or as a
# setting's value: an address as its URL is (a name of two, ``sentry.io``, is as often a
# product's; in prose a host is as often named for what it no longer serves).
HOST = re.compile(
    r"(?<![\w./:@$~-])((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.){2,}"
    r"(?:com|net|org|io|dev|app|co|cloud|local|internal|lan|corp|home|intra|tech|site|info))"
    r"(?![\w/-]|\.\w)"
)


def url_port(url: str, start: int, clause: int) -> Iterator[tuple[int, Value]]:
    """A URL's explicit port (``http://localhost:3000``, ``mqtt://broker.lan:1883``: any
    scheme's) is also a port value; one after a user's name and password is not read."""
    match = re.match(r"[A-Za-z][A-Za-z0-9+.-]*://[^/:@]+:(\d{2,5})\b", url)
    if match:
        yield start, Value("port", match.group(1), f":{match.group(1)}", clause=clause)


def url_value(url: str, clause: int) -> Value:
    norm = url.lower().rstrip("/")
    norm = re.sub(r"^(?:https?|wss?)://", "", norm)  # the web's scheme goes; s3:// stays
    return Value("url", norm, url, clause=clause)
