"""Hook input: JSON on stdin, read without hanging when Claude Code leaves stdin open."""

from __future__ import annotations

import os
import threading
import time

import pytest

from anamnesis.hooks.hookio import read_hook_input


def _pipe_with(data: bytes, close: bool) -> tuple[object, int]:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, data)
    if close:
        os.close(write_fd)
        write_fd = -1
    return os.fdopen(read_fd, "rb"), write_fd


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'{"cwd": "/x", "source": "startup"}', {"cwd": "/x", "source": "startup"}),
        (b"", {}),
        (b"   \n", {}),
        (b"not json", {}),
        (b"[1, 2]", {}),
        (b'"text"', {}),
        (b'{"cwd": "/x"', {}),  # cut off
    ],
)
def test_input_shapes(data: bytes, expected: dict[str, str]) -> None:
    stream, _fd = _pipe_with(data, close=True)
    with stream:  # type: ignore[attr-defined]
        assert read_hook_input(stream, timeout_s=2) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("data", "expected"),
    [(b'{"session_id": "s1"}', {"session_id": "s1"}), (b"{}", {}), (b" { }\n", {})],
)
def test_stdin_left_open_does_not_hang(data: bytes, expected: dict[str, str]) -> None:
    stream, write_fd = _pipe_with(data, close=False)
    started = time.monotonic()
    try:
        assert read_hook_input(stream, timeout_s=5) == expected  # type: ignore[arg-type]
        # Returned as soon as the object was complete, an empty one too: not at the timeout.
        assert time.monotonic() - started < 1
    finally:
        os.close(write_fd)
        stream.close()  # type: ignore[attr-defined]


def test_nothing_arriving_times_out_to_empty() -> None:
    stream, write_fd = _pipe_with(b"", close=False)
    started = time.monotonic()
    try:
        assert read_hook_input(stream, timeout_s=0.3) == {}  # type: ignore[arg-type]
        assert time.monotonic() - started < 3
    finally:
        os.close(write_fd)
        stream.close()  # type: ignore[attr-defined]


def test_input_arriving_in_pieces_is_joined() -> None:
    read_fd, write_fd = os.pipe()

    def feed() -> None:
        for part in (b'{"cwd": ', b'"/slow"', b"}"):
            os.write(write_fd, part)
            time.sleep(0.05)

    writer = threading.Thread(target=feed)
    writer.start()
    with os.fdopen(read_fd, "rb") as stream:
        assert read_hook_input(stream, timeout_s=5) == {"cwd": "/slow"}
    writer.join()
    os.close(write_fd)
