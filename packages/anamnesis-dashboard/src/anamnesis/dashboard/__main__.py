"""``python -m anamnesis.dashboard``: serve the dashboard until Ctrl-C (what ``anamnesis
dashboard`` runs). Prints one line with the address and its one-time token."""

from __future__ import annotations

import argparse
import errno
import importlib.util
import socket
import sys
import threading
import webbrowser
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from anamnesis.dashboard.history_cache import HistoryCache

DEFAULT_PORT = 8765
LOOPBACK = "127.0.0.1"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="anamnesis dashboard",
        description="A local web page over the memory store: browse, search, edit, history.",
    )
    parser.add_argument(
        "--home", type=Path, help="the store (default: ANAMNESIS_HOME or ~/.anamnesis)"
    )
    parser.add_argument(
        "--port", type=int, default=None,
        help=f"port to listen on (default {DEFAULT_PORT}, or a free one if that is taken; 0: any)",
    )  # fmt: skip
    parser.add_argument(
        "--host", default=LOOPBACK,
        help="address to listen on; anything but 127.0.0.1 exposes your memory to the network",
    )  # fmt: skip
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")
    args = parser.parse_args(argv)
    if args.port is not None and not 0 <= args.port <= 65535:
        parser.error("--port must be between 0 and 65535")
    return args


def bind(host: str, port: int | None) -> socket.socket:
    """A listening socket on ``host``: the chosen port, or the default one if free, else
    any free port. Raises OSError with a message that says what to do."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP said outright: asyncio turns Nagle off (TCP_NODELAY) only on sockets
    # whose protocol says TCP, and with it on, every page waited ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        try:
            sock.bind((host, DEFAULT_PORT if port is None else port))
        except OSError as exc:
            if port is not None or exc.errno != errno.EADDRINUSE:
                raise
            sock.bind((host, 0))  # the default port is taken: any free one will do
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def cli_command() -> tuple[str, ...] | None:
    """How to run `anamnesis` from here: this Python's copy of the CLI, else None (the sync
    button and the status panel then say it is missing). Never an `anamnesis` found on
    PATH: that may be another version, even the package index's incompatible 0.1.3."""
    try:
        if importlib.util.find_spec("anamnesis.cli") is not None:
            return (sys.executable, "-m", "anamnesis.cli")
    except (ImportError, ValueError):
        pass
    return None


def warm_history(cache: HistoryCache) -> None:
    """Bring the history cache up to date in the background (its first build walks the
    whole git history: seconds on a long one), so the first history page is fast. The
    cache is shared between threads (one connection behind a lock)."""
    try:
        cache.refresh()
    except Exception:  # a page refreshes it again and shows any problem there
        pass


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from anamnesis.store import MemoryStore, StoreError, resolve_home, resolve_machine_id

    home = (args.home or resolve_home()).expanduser()
    if not (home / "memory").is_dir():
        sys.stderr.write(f"anamnesis dashboard: no store at {home}; run `anamnesis init` first\n")
        return 1
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        sys.stderr.write(
            f"anamnesis dashboard: cannot listen on {args.host}:{args.port}: "
            f"{exc.strerror or exc}; choose another with --port N (0: any free port)\n"
        )
        return 1
    port = sock.getsockname()[1]
    if args.host != LOOPBACK:
        sys.stderr.write(
            f"anamnesis dashboard: WARNING: listening on {args.host}, not only on this "
            "machine: anyone who can reach it and gets the link can read and rewrite your "
            "memory\n"
        )
    try:
        store = MemoryStore(home)
    except StoreError as exc:
        sys.stderr.write(f"anamnesis dashboard: {exc}\n")
        return 1
    from anamnesis.dashboard.app import create_app
    from anamnesis.dashboard.context import HISTORY_CACHE, Dashboard
    from anamnesis.dashboard.history_cache import HistoryCache
    from anamnesis.dashboard.security import Guard

    guard = Guard(port=port, extra_host=None if args.host == LOOPBACK else args.host)
    history = HistoryCache(store.memory_dir, home / HISTORY_CACHE)
    threading.Thread(target=warm_history, args=(history,), daemon=True).start()
    dashboard = Dashboard(
        home=home,
        store=store,
        history=history,
        guard=guard,
        machine_id=resolve_machine_id(home),
        cli=cli_command(),
    )
    url = guard.start_url(LOOPBACK if args.host in (LOOPBACK, "0.0.0.0", "::") else args.host)
    print(f"Anamnesis dashboard: {url}", flush=True)
    print("(the link works once; Ctrl-C stops the dashboard)", flush=True)
    if not args.no_open:
        webbrowser.open(url)
    return serve(create_app(dashboard), sock)


def serve(app: object, sock: socket.socket) -> int:
    import uvicorn

    config = uvicorn.Config(
        app,  # type: ignore[arg-type]
        log_level="warning",
        access_log=False,
        server_header=False,
        date_header=False,
        lifespan="on",
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
