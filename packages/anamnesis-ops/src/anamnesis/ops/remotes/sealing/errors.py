"""What can go wrong with an encrypted remote, each in words a person can act on."""

from __future__ import annotations

from anamnesis.ops.remotes.codec import CodecError


class SealError(CodecError):
    """An encrypted remote's notes could not be sealed or opened here; the message says
    why and what to do. A :class:`CodecError`: the mirror cycle makes it that remote's
    error, exports nothing and imports nothing it could not open, the others go on."""


class IdentityError(SealError):
    """This machine's age identity (``<home>/keys/age.key``) could not be read or made."""


class RecipientsError(SealError):
    """A remote's ``.anamnesis/recipients`` file is missing, unreadable or malformed, or
    a recipient given to add is not an age public key."""


class NotARecipient(SealError):
    """This machine's key is not among a remote's recipients: it can neither read that
    remote's notes nor write any to it. ``public_key`` is what a member must add."""

    def __init__(self, message: str, *, public_key: str) -> None:
        super().__init__(message)
        self.public_key = public_key


class UnreadableCipher(SealError):
    """A file of an encrypted remote is not an age file this machine's key opens although
    the key is a recipient (damaged, cut short, or written by something else)."""
