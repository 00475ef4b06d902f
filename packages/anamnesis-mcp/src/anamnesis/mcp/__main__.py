"""``python -m anamnesis.mcp`` / ``anamnesis-mcp``: serve the store over stdio."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from anamnesis.store import yield_to_sessions


def serve(home: Path | None = None, *, machine_id: str | None = None) -> int:
    """Serve the store at ``home`` (default: ``$ANAMNESIS_HOME`` or ``~/.anamnesis``).

    Returns the exit status; problems opening the store are one line on stderr, which
    Claude Code shows in its MCP log. The server runs at a lower CPU priority than the
    hooks sessions wait on (``store.yield_to_sessions``): its start-up alone is over a
    second of CPU, and twenty of them at once held every session's hooks back.
    """
    yield_to_sessions()  # first, before the SDK starts any thread
    # Imported once this process yields: loading the store, and the SDK once the store has
    # opened (over a second of CPU), is most of the start-up, and runs at the lower priority.
    from anamnesis.store import MemoryStore, StoreError

    try:
        store = MemoryStore(home)
    except StoreError as exc:
        print(f"anamnesis-mcp: cannot open the memory store: {exc}", file=sys.stderr)
        return 1
    from anamnesis.mcp.server import build_server  # the SDK: see above

    server = None
    try:
        server = build_server(store, machine_id=machine_id)
        server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        if server is not None:
            server.embedding.stop()  # let a batch being saved finish before the store closes
        store.close()
    return 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="anamnesis-mcp", description="Serve the Anamnesis memory over MCP (stdio)."
    )
    parser.add_argument("--home", type=Path, help="the store (default: $ANAMNESIS_HOME)")
    parser.add_argument("--machine-id", help="this machine's id (default: from the config)")
    args = parser.parse_args(argv)
    sys.exit(serve(args.home, machine_id=args.machine_id))


if __name__ == "__main__":
    main()
