"""Write a file atomically: temp file in the same directory, fsync, rename over the target.

Used by the store (metadata.json, store-format §8) and the transcript exporters (design
§3.6). Readers of the destination see either the old content or the complete new content,
never a partial file:

* the temp file is created next to the destination (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode
  0600), filled, fsynced, then renamed over the destination; the directory is fsynced after
  (`durable=False`, for a cache, skips both fsyncs);
* a symlink at the destination is *replaced* by the new file — rename never follows it, so
  its target is left untouched;
* the result always has mode 0600 (design §3.6; Zero's /export would keep an existing
  file's bits, but a transcript can hold secrets);
* a missing parent directory is not created;
* on any failure — including an exception raised by the caller's chunk iterator halfway —
  the temp file is removed and the destination is left as it was.

`write_destination` is for a path the user names (an export): a FIFO or a character
device there (`/dev/null`, `/dev/stdout`, a terminal) is written to as a stream, never
replaced; a socket or block device is refused; anything else is `write_atomic`, which with
`replace=False` publishes the file only where nothing is (`DestinationExists` otherwise,
decided atomically: a hard link of the temp file, which fails on an existing name).

Errors read like Go's: `open <path>: no such file or directory`. No Textual or Rich import.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from contextlib import suppress

NEW_FILE_MODE = 0o600
_OPEN_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class AtomicWriteError(Exception):
    """The file could not be written; `str()` is `failed to write <path>: <reason>`."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"failed to write {path}: {reason}")
        self.path = path
        self.reason = reason


class DestinationExists(AtomicWriteError):
    """`replace=False`, and something is already at the path: nothing was written."""

    def __init__(self, path: str) -> None:
        super().__init__(path, f"{path} already exists")


def go_error_text(error: OSError) -> str:
    """The OS error text as Go prints it (`syscall.Errno`): lower-case, no errno number."""
    text = error.strerror or (os.strerror(error.errno) if error.errno else str(error))
    return text[:1].lower() + text[1:] if text else "unknown error"


def _fail(op: str, path: str, error: OSError) -> AtomicWriteError:
    return AtomicWriteError(path, f"{op} {path}: {go_error_text(error)}")


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_directory(directory: str) -> None:
    if os.name == "nt":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse to fsync a directory; the rename is done
    finally:
        os.close(fd)


def _refuse_directory(path: str) -> None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except NotADirectoryError as error:
        raise _fail("open", path, error) from None
    except OSError:
        return  # the open below reports the real problem, if any
    if stat.S_ISDIR(info.st_mode):
        raise _fail("open", path, IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR)))


_STREAM_FLAGS = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _is_stream(mode: int) -> bool:
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _write_stream(path: str, fd: int, content: bytes | Iterable[bytes]) -> int:
    size = 0
    try:
        for chunk in (content,) if isinstance(content, bytes) else content:
            write_all(fd, chunk)
            size += len(chunk)
    except OSError as error:
        raise _fail("write", path, error) from None
    finally:
        os.close(fd)
    return size


def write_destination(path: str, content: bytes | Iterable[bytes], *, replace: bool = True) -> int:
    """Write to a path the user chose: a stream for an existing FIFO or character device
    (followed through symlinks; never replaced, no temp file), refused for a socket or a
    block device, else `write_atomic` (`replace`: see there). Returns the size written."""
    try:
        info = os.stat(path)
    except OSError:
        return write_atomic(path, content, replace=replace)  # missing: the usual path
    if _is_stream(info.st_mode):
        try:
            fd = os.open(path, _STREAM_FLAGS)  # a FIFO waits here for its reader, as `cat >` does
        except OSError as error:
            raise _fail("open", path, error) from None
        if _is_stream(os.fstat(fd).st_mode):
            return _write_stream(path, fd, content)
        os.close(fd)  # replaced meanwhile by something else: the checks below decide
        info = os.stat(path)
    if stat.S_ISSOCK(info.st_mode) or stat.S_ISBLK(info.st_mode):
        kind = "a socket" if stat.S_ISSOCK(info.st_mode) else "a block device"
        raise AtomicWriteError(
            path, f"open {path}: is {kind}; refusing to replace it (choose a file)"
        )
    return write_atomic(path, content, replace=replace)


def write_atomic(
    path: str, content: bytes | Iterable[bytes], *, durable: bool = True, replace: bool = True
) -> int:
    """Write `content` (bytes, or chunks of bytes) to `path` atomically; returns the size.

    Raises AtomicWriteError for an OS failure; any other exception from the chunk iterator
    propagates unchanged. Either way the destination keeps its old content and no temp file
    is left behind. `durable=False` skips both fsyncs: for a cache that can be rebuilt,
    whose readers still never see a partial file (the rename stays atomic) but which a
    crash may roll back to its old content. `replace=False`: DestinationExists when
    anything (a symlink too) is at `path`, checked in the same step that publishes the file.
    """
    directory = os.path.dirname(path) or "."
    _refuse_directory(path)
    temp = os.path.join(
        directory, f".{os.path.basename(path)[:120]}.{os.getpid()}-{os.urandom(6).hex()}.tmp"
    )
    try:
        fd = os.open(temp, _OPEN_FLAGS, NEW_FILE_MODE)
    except OSError as error:
        raise _fail("open", path, error) from None
    size = 0
    step = "write"
    try:
        try:
            chunks = (content,) if isinstance(content, bytes) else content
            for chunk in chunks:
                write_all(fd, chunk)
                size += len(chunk)
            step = "chmod"
            if hasattr(os, "fchmod"):
                os.fchmod(fd, NEW_FILE_MODE)  # exact bits, whatever the umask
            if durable:
                step = "sync"
                os.fsync(fd)
        finally:
            os.close(fd)
        step = "rename"
        if replace:
            os.replace(temp, path)
        else:
            _publish_new(temp, path)
    except BaseException as error:
        with suppress(OSError):
            os.unlink(temp)
        if isinstance(error, OSError):
            raise _fail(step, path, error) from None
        raise
    if durable:
        _fsync_directory(directory)
    return size


def _publish_new(temp: str, path: str) -> None:
    """Give the written `temp` the name `path` only if nothing has it (DestinationExists).

    A hard link fails on an existing name in one step; where hard links are not to be had
    (some filesystems), the name is reserved with an exclusive create and then replaced."""
    try:
        os.link(temp, path, follow_symlinks=False)
    except FileExistsError:
        raise DestinationExists(path) from None
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        try:
            os.close(os.open(path, _OPEN_FLAGS, NEW_FILE_MODE))
        except FileExistsError:
            raise DestinationExists(path) from None
        os.replace(temp, path)
        return
    os.unlink(temp)
