"""Files opened as the store is read: never blocking on a FIFO, a regular file only.

A light module (the standard library only): the picker's first frame reads its remembered
rows through it without loading the store and its decoders.
"""

from __future__ import annotations

import os
import stat

_FILE_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def file_kind(mode: int) -> str:
    """What a non-regular file is, for a message: "a FIFO", "a directory", ..."""
    for test, name in _FILE_KINDS:
        if test(mode):
            return name
    return "not a regular file"


class NotRegularFileError(OSError):
    """A store file that is a FIFO, a device, a socket or a directory (never opened for IO)."""

    def __init__(self, path: str, mode: int) -> None:
        super().__init__(f"{path} is {file_kind(mode)}, not a regular file")
        self.path = path


def open_regular(
    path: str | os.PathLike[str],
    flags: int = os.O_RDONLY,
    mode: int = 0o600,
    *,
    dir_fd: int | None = None,
) -> int:
    """os.open that never blocks and only hands out regular files.

    O_NONBLOCK makes opening a FIFO return at once (a blocking open waits for a writer
    forever, and a thread stuck there cannot be stopped); fstat then refuses anything that
    is not a regular file with NotRegularFileError. On a regular file O_NONBLOCK is a no-op.
    `dir_fd`: `path` is relative to that open directory.
    """
    fd = os.open(path, flags | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), mode, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(os.fspath(path), info.st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


class FileTooLargeError(OSError):
    """A file of zero-tui's own that is larger than it ever writes it (never read whole)."""


def read_own_file(path: str | os.PathLike[str], limit: int) -> bytes:
    """A small file zero-tui keeps for itself (a cache, a record), read as the store is read
    (`open_regular`: never blocking, a regular file only) and also never through a symlink
    (one to /dev/zero would be read forever) nor past `limit` bytes: an OSError for any of
    those, which the caller takes as "nothing kept"."""
    fd = open_regular(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        if os.fstat(fd).st_size > limit:
            raise FileTooLargeError(f"{os.fspath(path)} is larger than {limit} bytes")
        chunks = [os.read(fd, limit + 1)]
        size = len(chunks[0])
        while chunks[-1] and size <= limit:  # a file that grew meanwhile
            chunks.append(os.read(fd, limit + 1 - size))
            size += len(chunks[-1])
    finally:
        os.close(fd)
    if size > limit:
        raise FileTooLargeError(f"{os.fspath(path)} is larger than {limit} bytes")
    return b"".join(chunks)
