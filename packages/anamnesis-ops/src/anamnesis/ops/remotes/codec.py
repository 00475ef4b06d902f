"""How a note is written into a named remote's mirror folder, and read back.

A mirror holds what is pushed: :class:`PlainCodec` keeps each note as it is (the mirror
is a notes tree of its own); an encrypting codec (``encrypt: true``) keeps ciphertext
(``SealedCodec``, in ``sealed.py``). :func:`codec_for` chooses one for a remote; the
mirror cycle (mirror.py) reads and writes the mirror through it only.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from anamnesis.ops.remotes.config import RemoteSpec
    from anamnesis.ops.remotes.home_view import RemotesHome as Home

# Where encryption lives (the i43-seal work): a module of this folder whose
# `sealed_codec(home, spec)` returns its MirrorCodec for an `encrypt: true` remote.
SEALED_MODULE = "anamnesis.ops.remotes.sealed"


class CodecError(Exception):
    """A mirror file could not be read back (or a note written) through a codec: the
    message says why, in words a person can act on (a missing key names the key)."""


class MirrorCodec(Protocol):
    """A mirror's file format."""

    def mirror_path(self, rel: str) -> str:
        """``"<type>/<id>.md"`` -> its path in the mirror."""
        ...

    def note_path(self, mirror_rel: str) -> str | None:
        """A mirror path back to the note's path; None: not a note file."""
        ...

    def encode(self, rel: str, plain: bytes, current: bytes | None) -> bytes:
        """The mirror's bytes for a note. ``current``: the mirror file's bytes now; MUST
        return ``current`` itself when it already decodes to ``plain`` for the same
        recipients (no-op syncs stay no-ops)."""
        ...

    def decode(self, mirror_rel: str, data: bytes) -> bytes:
        """A mirror file's note bytes; raises :class:`CodecError`."""
        ...

    def meta_files(self) -> dict[str, bytes]:
        """Extra files the mirror keeps (path in the mirror -> bytes), written by each
        export when they differ."""
        ...

    def save(self) -> None:
        """Keep what this cycle learnt (a sealed codec's no-op manifest): called after the
        export and after the import. (Beyond the design's five methods: asked for by the
        sealed codec, whose no-op syncs depend on it.)"""
        ...


class PlainCodec:
    """Notes as they are: the mirror is a notes tree like memory/."""

    def mirror_path(self, rel: str) -> str:
        return rel

    def note_path(self, mirror_rel: str) -> str | None:
        from anamnesis.ops.remotes.routing import is_note_path

        return mirror_rel if is_note_path(mirror_rel) else None

    def encode(self, rel: str, plain: bytes, current: bytes | None) -> bytes:
        del rel
        return current if current == plain and current is not None else plain

    def decode(self, mirror_rel: str, data: bytes) -> bytes:
        del mirror_rel
        return data

    def meta_files(self) -> dict[str, bytes]:
        return {}

    def save(self) -> None:
        return None


def codec_for(home: Home, spec: RemoteSpec) -> MirrorCodec:
    """The codec of ``spec``'s mirror: plain, or sealed when it is ``encrypt: true``.
    Raises :class:`CodecError` when this copy cannot encrypt (or the seal cannot be
    opened here): that remote is then left alone, never pushed in plain text."""
    if not spec.encrypt:
        return PlainCodec()
    try:
        module = importlib.import_module(SEALED_MODULE)
    except ModuleNotFoundError:
        raise CodecError(
            f"{spec.name} is an encrypted remote and this copy of anamnesis cannot encrypt:"
            " nothing was pushed to it"
        ) from None
    codec: MirrorCodec = module.sealed_codec(home, spec)
    return codec
