"""No network, deterministically: a download host that refuses every connection at once."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

# The variable fastembed's hub library, and the store's probe, take the model host from.
ENDPOINT_ENV = "HF_ENDPOINT"


@contextmanager
def refused_endpoint() -> Iterator[str]:
    """An ``HF_ENDPOINT`` URL whose port on 127.0.0.1 is held bound but never listening:
    every connection to it is refused at once, as on a machine without network, and no
    other process can take the port meanwhile."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{held.getsockname()[1]}"
