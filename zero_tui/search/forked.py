"""Work on many files shared with a forked copy of the process, for a cold catalog.

Reading and decoding 10,000 metadata files or log heads is Python work, which threads do
not share; a forked child does, at the cost of a fork (copy-on-write: a few milliseconds)
and of sending its results back pickled. Only where fork is safe and cheap (Linux) and two
CPUs are free to use, and only from a process with no other thread (a fork copies only
the thread that forks: a lock another one holds would stay held in the child); anywhere
else, or when the child fails, all of it is done here.
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

MIN_SHARED = 1024  # fewer items are not worth a fork


def _forking_pays() -> bool:
    return sys.platform.startswith("linux") and _cpus() >= 2 and threading.active_count() == 1


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


Progress = Callable[[int, int], None]
PROGRESS_EVERY = 256


def shared(
    work: Callable[[Sequence[Item]], list[Result]],
    items: Sequence[Item],
    progress: Progress | None = None,
) -> list[Result]:
    """`work(items)`, its second half done by a forked child when it pays: one result per
    item, in order. `work` must not touch what the child shares with this process but
    files it only reads (no database connection, no lock another thread may hold).
    `progress(done, total)` is told every few hundred items, as this process's own part
    goes (the child's is taken to go as fast)."""
    total = len(items)
    if total < MIN_SHARED or not _forking_pays():
        return _in_steps(work, items, progress, total, 1)
    half = total // 2
    mine, theirs = items[:half], items[half:]
    try:
        reader, writer = os.pipe()
        child = os.fork()
    except OSError:
        return _in_steps(work, items, progress, total, 1)
    if child == 0:  # the child: its half, pickled down the pipe, and gone
        os.close(reader)
        status = 1
        try:
            data = pickle.dumps(work(theirs), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(writer, "wb") as pipe:
                pipe.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(writer)
    try:
        first = _in_steps(work, mine, progress, total, total / max(1, half))
    finally:
        with os.fdopen(reader, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(child, 0)
    second: list[Result] = []
    if status == 0:
        try:
            second = pickle.loads(data)  # our own child's
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError):
            second = []
    if len(second) != len(theirs):
        second = work(theirs)
    if progress is not None:
        progress(total, total)
    return first + second


class Pending(Generic[Result]):
    """Work a forked child is doing: `result()` waits for it."""

    def __init__(self, child: int, reader: int) -> None:
        self._child = child
        self._reader = reader

    def result(self) -> Result | None:
        """What the child found; None when it failed (the caller then does the work)."""
        with os.fdopen(self._reader, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self._child, 0)
        if status != 0:
            return None
        try:
            found: Result = pickle.loads(data)  # our own child's
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError):
            return None
        return found


def in_child(work: Callable[[], Result]) -> Pending[Result] | None:
    """`work()` started in a forked child, where forking pays (as for `shared`); None when
    not, to be done here. The child must only read files and open what it uses itself."""
    if not _forking_pays():
        return None
    try:
        reader, writer = os.pipe()
        child = os.fork()
    except OSError:
        return None
    if child == 0:  # the child: its answer, pickled down the pipe, and gone
        os.close(reader)
        status = 1
        try:
            data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(writer, "wb") as pipe:
                pipe.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(writer)
    return Pending(child, reader)


def _in_steps(
    work: Callable[[Sequence[Item]], list[Result]],
    items: Sequence[Item],
    progress: Progress | None,
    total: int,
    scale: float,
) -> list[Result]:
    """`work(items)` a few hundred at a time, telling `progress` of each step as `scale`
    times the items done (of `total`)."""
    if progress is None:
        return work(items)
    found: list[Result] = []
    for start in range(0, len(items), PROGRESS_EVERY):
        progress(min(total, round(start * scale)), total)
        found += work(items[start : start + PROGRESS_EVERY])
    return found
