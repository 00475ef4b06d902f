"""Addresses a note states: a URL with its scheme (the web's, a bucket's, a database's,
a repository's), as the finder compares it, and the port it names."""

from __future__ import annotations

import re

from anamnesis.store.review.reading.value import Value

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterator

# An address with its scheme: the web's (and its sockets'), a bucket's, a database's, a
# repository's, a broker's or a directory's (``mqtt://broker.lan:1883``, ``ldaps://``).
URL = re.compile(
    r"\b(?:https?|wss?|grpcs?|s3|gs|az|ssh|git|sftp|ftp|postgres(?:ql)?|mysql|redis|rediss|mongodb"
    r"(?:\+srv)?|amqps?|kafka|nats|mqtts?|ldaps?|smtps?|tcp|udp|rtsps?|rtmps?)://[^\s`'\"<>()\[\]{}]+"
)


def url_parts(url: str, start: int, clause: int) -> Iterator[tuple[int, Value]]:
    """What a URL also states as a value of another kind: its explicit port
    (``http://localhost:3000``, ``mqtt://broker.lan:1883``,
    ``postgres://app:<password>@localhost:5432/app``: any scheme's, after a user's name
    and password too), and a storage address's place, as a path (``s3://acme-backups/db/``
    is where files are kept, as ``/mnt/backup/db`` is)."""
    port = url_port(url)
    if port:
        yield start, Value("port", port, f":{port}", clause=clause)
    if _STORED.match(url):
        yield start, Value("path", url.lower().rstrip("/"), url, clause=clause)


def url_port(url: str) -> str:
    """The port a URL names after its host ("" when it names none)."""
    match = _HOST_AND_PORT.match(url)
    return match.group(1) if match else ""


def address_port(value: Value) -> str:
    """The port of the address a value states, alone or as a setting's value
    (``DATABASE_URL=postgres://...:5432/app``): "" when it names none."""
    return url_port(value.shown.split("=", 1)[-1])


# A scheme, a user's name and password (optional), a host, then its port.
_HOST_AND_PORT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://(?:[^/@\s]*@)?[^/:@\s<>]+:(\d{2,5})\b")

# A storage address: a bucket's, a file system's.
_STORED = re.compile(r"(?:gs|s3|s3a|gcs|az|abfss?|hdfs|file)://", re.IGNORECASE)


def url_value(url: str, clause: int) -> Value:
    norm = url.lower().rstrip("/")
    norm = re.sub(r"^(?:https?|wss?)://", "", norm)  # the web's scheme goes; s3:// stays
    return Value("url", norm, url, clause=clause)
