"""Transport clients with bounded waits: no remote may hold a sync (and its lock) forever.

SSH: OpenSSH runs in batch mode (a background sync cannot answer a prompt) with connect
and keep-alive timeouts, and a watchdog ends the ssh process when nothing has moved in
either direction for the timeout (an ssh or proxy that ignores its options and stalls).
HTTP: urllib3 connect and read timeouts, with retries of timed-out reads turned off
(urllib3 would otherwise wait on a silent server four times over).
"""

from __future__ import annotations

import math
import os
import shlex
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import PurePath
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from dulwich.client import (
    GitClient,
    SSHGitClient,
    SubprocessSSHVendor,
    SubprocessWrapper,
    default_urllib3_manager,
    get_transport_and_path,
)
from dulwich.config import Config

if TYPE_CHECKING:  # urllib3 is imported only for an HTTP remote: see _http_pool
    from urllib3 import PoolManager

# Seconds without an answer before a remote is given up on (connect, or silence mid-transfer).
DEFAULT_TIMEOUT_S = 30.0
_OPENSSH = frozenset({"ssh", "ssh.exe"})


def open_client(url: str, *, config: Config | None, timeout_s: float) -> tuple[GitClient, str]:
    """dulwich's client for ``url`` (and the path on the remote), with bounded waits."""
    if urlsplit(url).scheme in ("http", "https"):
        return get_transport_and_path(
            url, config=config, pool_manager=_http_pool(url, config, timeout_s)
        )
    client, path = get_transport_and_path(url, config=config)
    if isinstance(client, SSHGitClient):
        # git's order: GIT_SSH_COMMAND, then core.sshCommand (dulwich read it), then GIT_SSH.
        command = os.environ.get("GIT_SSH_COMMAND")
        program = os.environ.get("GIT_SSH")
        if command:
            client.ssh_command = command
        elif client.ssh_command in (None, "ssh") and program:
            client.ssh_command = shlex.quote(program) if os.name != "nt" else f'"{program}"'
        client.ssh_vendor = BoundedSSHVendor(timeout_s)
    return client, path


@contextmanager
def bounded(client: GitClient, timeout_s: float) -> Iterator[None]:
    """Turn the failure a watchdog kill causes into a plain :class:`TimeoutError`."""
    try:
        yield
    except Exception as exc:
        vendor = getattr(client, "ssh_vendor", None)
        if isinstance(vendor, BoundedSSHVendor) and vendor.expired:
            raise TimeoutError(f"timed out: the remote sent nothing for {timeout_s:g} s") from exc
        raise


def ssh_options(timeout_s: float) -> list[str]:
    """OpenSSH options that bound every wait and never prompt."""
    seconds = max(1, math.ceil(timeout_s))
    return [
        "-o", "BatchMode=yes",
        "-o", f"ConnectTimeout={seconds}",
        "-o", f"ServerAliveInterval={max(1, math.ceil(seconds / 3))}",
        "-o", "ServerAliveCountMax=3",
    ]  # fmt: skip


def with_ssh_options(command: str, timeout_s: float) -> str:
    """``command`` with :func:`ssh_options` appended when it runs OpenSSH.

    The user's own options come first, and OpenSSH keeps the first value it sees, so a
    ``GIT_SSH_COMMAND`` or ``core.sshCommand`` that sets them still wins. Other programs
    (plink, wrappers) are left alone: their options differ.
    """
    try:
        program = shlex.split(command, posix=os.name != "nt")[0]
    except (ValueError, IndexError):
        return command
    if PurePath(program.strip("\"'")).name.lower() not in _OPENSSH:
        return command
    return " ".join([command, *ssh_options(timeout_s)])


def _http_pool(url: str, config: Config | None, timeout_s: float) -> PoolManager:
    # urllib3 is dulwich's own HTTP stack (a dependency of dulwich): tuned, not replaced.
    # Imported here, not above: it costs ~0.1 s (measured, on top of dulwich) that a sync
    # over ssh or to a path never needs, and dulwich itself imports it only for HTTP.
    from urllib3 import PoolManager
    from urllib3.util.retry import Retry

    manager = default_urllib3_manager(config, base_url=url, timeout=timeout_s)
    assert isinstance(manager, PoolManager)  # no auth callbacks were given
    manager.connection_pool_kw["retries"] = Retry(
        total=None, connect=0, read=0, redirect=5, status=0, other=0
    )
    return manager


class BoundedSSHVendor(SubprocessSSHVendor):
    """dulwich's ssh subprocess, with :func:`ssh_options` and an inactivity watchdog."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.expired = False

    def run_command(
        self,
        host: str,
        command: bytes,
        username: str | None = None,
        port: int | None = None,
        password: str | None = None,
        key_filename: str | None = None,
        ssh_command: str | None = None,
        protocol_version: int | None = None,
    ) -> SubprocessWrapper:
        wrapper = super().run_command(
            host,
            command,
            username=username,
            port=port,
            password=password,
            key_filename=key_filename,
            ssh_command=with_ssh_options(ssh_command or "ssh", self.timeout_s),
            protocol_version=protocol_version,
        )
        _Watchdog(wrapper, self)
        return wrapper


class _Watchdog:
    """Kills the ssh process when neither side has moved for the vendor's timeout.

    It times the wrapper's own read and write in place: a second reader on the same pipe
    would close it when garbage-collected.
    """

    def __init__(self, wrapper: SubprocessWrapper, vendor: BoundedSSHVendor) -> None:
        self._proc = wrapper.proc
        self._vendor = vendor
        self._last = time.monotonic()
        read, write = wrapper.read, wrapper.write

        def timed_read(size: int | None = -1) -> bytes:
            self._last = time.monotonic()
            data = read(size)
            self._last = time.monotonic()
            return data

        def timed_write(data: bytes) -> int | None:
            self._last = time.monotonic()
            written = write(data)
            self._last = time.monotonic()
            return written

        wrapper.read = timed_read
        wrapper.write = timed_write  # type: ignore[assignment]
        threading.Thread(target=self._watch, name="anamnesis-ssh-watchdog", daemon=True).start()

    def _watch(self) -> None:
        limit = self._vendor.timeout_s
        while self._proc.poll() is None:
            if time.monotonic() - self._last > limit:
                self._vendor.expired = True
                self._proc.kill()
                return
            time.sleep(min(0.2, limit / 4))
