"""The second process of a review (:mod:`.pair_batch`) where a fork may not be made: a new
interpreter, running the function of :mod:`.pair_batch` it is told to (named, not imported
here: that module imports this one).

A long-running process (the MCP server, the dashboard) has other threads, and a fork
copies only the calling thread: whatever lock another one holds stays held in the child.
Starting a new program is safe beside threads (``subprocess`` runs nothing but ``exec``
between its fork and the new program), and costs about 0.13 s of the other core to
import the review's code, against the second or more a second process saves a review of
2,000 notes. It takes the projects from the same queue as a fork would (its read end
handed down), reads the pairs from its stdin (written by a thread here, so that this
process compares meanwhile) and writes back plain data on its stdout; it touches no
file and no database. It is given this process's ``sys.path``, so it imports the same
code, and says nothing on stderr (the MCP server's stdout and stderr are not its to use).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from anamnesis.store.review.processes.process_answer import packed, unpacked


class SpawnedProcess:
    """A new interpreter running ``entry`` (``module:function``) with the read end of the
    queue (``queue_fd``, its one argument) and ``given`` (on its stdin, pickled): its
    answer is what the function wrote on its stdout, unpickled, or None when it could not
    be started or failed."""

    __slots__ = ("_process", "_writer")

    def __init__(self, entry: str, queue_fd: int, given: object) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._writer: threading.Thread | None = None
        module, _colon, function = entry.partition(":")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path for path in sys.path if path)}
        # -P: the working folder is not put first on the new interpreter's path
        command = [sys.executable, "-P", "-c", f"import {module}; {module}.{function}()"]
        try:
            process = subprocess.Popen(
                [*command, str(queue_fd)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                pass_fds=(queue_fd,), env=env, close_fds=True,
            )  # fmt: skip
        except (OSError, ValueError, subprocess.SubprocessError):
            return
        self._process = process
        data = packed(given)
        writer = threading.Thread(
            target=_hand_over, args=(process, data), name="anamnesis-review-pairs", daemon=True
        )
        try:
            writer.start()
        except RuntimeError:  # no thread to be had: no second process either
            self.stop()
            return
        self._writer = writer

    @property
    def pid(self) -> int:
        """The process's id (-1: none was started)."""
        return self._process.pid if self._process is not None else -1

    def answer(self) -> object:
        """What the process found (it has ended when this returns); None when it failed."""
        process, self._process = self._process, None
        if process is None:
            return None
        assert process.stdout is not None
        try:
            with process.stdout:
                data = process.stdout.read()
        finally:
            status = process.wait()
            self._join()
        return unpacked(data, status)

    def stop(self) -> None:
        """End the process without its answer."""
        process, self._process = self._process, None
        if process is None:
            return
        process.kill()
        if process.stdout is not None:
            process.stdout.close()
        process.wait()
        self._join()

    def _join(self) -> None:
        if self._writer is not None:
            self._writer.join()
            self._writer = None


def _hand_over(process: subprocess.Popen[bytes], data: bytes) -> None:
    """Write the pairs to the process's stdin and close it (a process that ended early
    closed its end: nothing to hand over then)."""
    assert process.stdin is not None
    try:
        with process.stdin:
            process.stdin.write(data)
    except OSError:
        pass  # ended early (killed, or failed): its answer says so
