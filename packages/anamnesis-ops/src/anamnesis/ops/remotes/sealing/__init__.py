"""Encryption at rest for a remote: notes sealed with age (x25519, through pyrage) in the
remote's mirror, this machine's key, the remote's recipients, the no-op manifest."""
