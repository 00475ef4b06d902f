"""Starting the dashboard: the listening socket, the store, the printed one-time link, the
server until Ctrl-C.

Two ways in, one start: :func:`main` (``python -m anamnesis.dashboard``, arguments from the
command line; its status panel shows ops' checks of the home) and :func:`run_dashboard`
(what ``anamnesis dashboard`` calls in its own process, handing over the CLI's whole doctor
so the panel shows every check). Nothing here runs another program: a sync and the checks
are calls (:mod:`.sync_action`, :mod:`.status_checks`).
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import socket
import sys
import threading
import webbrowser
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from anamnesis.dashboard.views.status_checks import CheckRunner, DoctorCache
from anamnesis.ops import Home, home_checks
from anamnesis.store import StoreError

if TYPE_CHECKING:
    from anamnesis.dashboard.views.history_cache import HistoryCache

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
        help="address to listen on; anything but 127.0.0.1 exposes your memory to the network "
        "(0.0.0.0 and :: are refused: from another machine, use ssh -L)",
    )  # fmt: skip
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")
    args = parser.parse_args(argv)
    if args.port is not None and not 0 <= args.port <= 65535:
        parser.error("--port must be between 0 and 65535")
    return args


class EveryAddress(ValueError):
    """``--host`` names every address of the machine (0.0.0.0, ::): refused, the message
    says what to do instead (:func:`wildcard_refusal`)."""


def bind(host: str, port: int | None) -> socket.socket:
    """A listening socket on ``host``: the chosen port, or the default one if free, else
    any free port. Raises OSError with a message that says what to do, and
    :class:`EveryAddress` for 0.0.0.0 or :: (checked once bound, before listening, so
    every spelling of them is caught and nothing is ever accepted on them)."""
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
        everywhere = _every_address(sock)
        if not everywhere:
            sock.listen(128)
    except OSError:
        sock.close()
        raise
    if everywhere:
        sock.close()
        raise EveryAddress(wildcard_refusal(host, port))
    return sock


def _every_address(sock: socket.socket) -> bool:
    """Whether ``sock`` listens on every address of the machine (0.0.0.0, ::, or a name
    for them such as "" or "0"): asked of the bound socket, so every spelling is caught."""
    try:
        return ipaddress.ip_address(sock.getsockname()[0].split("%")[0]).is_unspecified
    except ValueError:
        return False


def wildcard_refusal(host: str, port: int | None) -> str:
    """Why ``--host 0.0.0.0`` (or ``::``) is refused, and the two ways that work.

    Listening on every address would answer on each of them, but the page trusts one
    Host (DNS rebinding is refused by that check): every request by the machine's LAN
    address or name would be refused, and the session cookie would cross the network in
    clear text. ssh carries it encrypted to a page that still binds 127.0.0.1."""
    shown = port or DEFAULT_PORT
    return (
        f"anamnesis dashboard: refusing --host {host or repr(host)}: it listens on every "
        "address of this machine, and the page answers only the one address its link names.\n"
        "  From another machine, keep the default 127.0.0.1 and tunnel to it: "
        f"ssh -L {shown}:127.0.0.1:{shown} THIS-MACHINE (then open the printed link there).\n"
        "  Or name one address of this machine, e.g. --host 192.168.1.20 (unencrypted: anyone "
        "on that network who gets the link can use the page)."
    )


def url_host(host: str) -> str:
    """``host`` as a URL and a Host header write it: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def warm_history(cache: HistoryCache) -> None:
    """Bring the history cache up to date in the background (its first build walks the
    whole git history: seconds on a long one), so the first history page is fast. The
    cache is shared between threads (one connection behind a lock)."""
    try:
        cache.refresh()
    except Exception:  # a page refreshes it again and shows any problem there
        pass


def main(argv: list[str] | None = None) -> int:
    """``python -m anamnesis.dashboard [--home H] [--port N] [--host A] [--no-open]``."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    return run_dashboard(
        args.home.expanduser() if args.home else None,
        port=args.port,
        host=args.host,
        open_browser=not args.no_open,
    )


def run_dashboard(
    home: Path | None = None,
    *,
    port: int | None = None,
    host: str = LOOPBACK,
    open_browser: bool = True,
    checks: CheckRunner | None = None,
) -> int:
    """Serve the dashboard over ``home`` (None: ``ANAMNESIS_HOME``, else ``~/.anamnesis``)
    until Ctrl-C; the exit status. ``port``: None for the default one if free, else any;
    0 for any. ``checks``: what the status panel shows (run in a worker thread, its answer
    kept a minute); None: ops' checks of the home, offline. A problem that stops it from
    starting is said on stderr (``anamnesis dashboard: ...``) and returns 1."""
    chosen = Home.resolve(home)
    if not chosen.memory_dir.is_dir():
        sys.stderr.write(
            f"anamnesis dashboard: no store at {chosen.root}; run `anamnesis init` first\n"
        )
        return 1
    try:
        sock = bind(host, port)
    except EveryAddress as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    except OSError as exc:
        sys.stderr.write(
            f"anamnesis dashboard: cannot listen on {host}:{port}: "
            f"{exc.strerror or exc}; choose another with --port N (0: any free port)\n"
        )
        return 1
    bound = sock.getsockname()[1]
    if host != LOOPBACK:
        sys.stderr.write(
            f"anamnesis dashboard: WARNING: listening on {host}, not only on this "
            "machine: anyone who can reach it and gets the link can read and rewrite your "
            "memory\n"
        )
    try:
        store = chosen.open_store()
    except StoreError as exc:
        sock.close()
        sys.stderr.write(f"anamnesis dashboard: {exc}\n")
        return 1
    # The web stack (starlette, jinja2: ~0.7 s, ~200 modules) loads once the port is bound
    # and the store open, so that a busy port or an unusable home is said at once.
    from anamnesis.dashboard.app import create_app
    from anamnesis.dashboard.context import HISTORY_FILE, Dashboard
    from anamnesis.dashboard.security import Guard
    from anamnesis.dashboard.views.history_cache import HistoryCache

    guard = Guard(port=bound, extra_host=None if host == LOOPBACK else url_host(host))
    history = HistoryCache(store.memory_dir, chosen.layout.cache_dir / HISTORY_FILE)
    threading.Thread(target=warm_history, args=(history,), daemon=True).start()
    dashboard = Dashboard(
        home=chosen,
        store=store,
        history=history,
        guard=guard,
        machine_id=chosen.machine_id,
        doctor=DoctorCache(checks or partial(home_checks, chosen, offline=True)),
    )
    url = guard.start_url(url_host(host))
    print(f"Anamnesis dashboard: {url}", flush=True)
    print("(the link works once; Ctrl-C stops the dashboard)", flush=True)
    if open_browser:
        webbrowser.open(url)
    return serve(create_app(dashboard), sock)


def serve(app: object, sock: socket.socket) -> int:
    import uvicorn  # the web server (~0.2 s): see run_dashboard

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
