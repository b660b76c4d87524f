"""Work shared with a forked copy of the process: a cold catalog, a log only validated.

Reading and decoding 10,000 metadata files or log heads is Python work, which threads do
not share; a forked child does, at the cost of a fork (copy-on-write: a few milliseconds)
and of sending its results back pickled. Only where fork is safe and cheap (Linux) and two
CPUs are free to use, and only from a process with no other thread (a fork copies only
the thread that forks: a lock another one holds would stay held in the child); anywhere
else, or when the child fails, all of it is done here.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import sys
import threading
from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, Self, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")
First = TypeVar("First")

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
    found, child = shared_answering(work, items, progress)
    if child is not None:
        child.followed_up()  # reaped: it has nothing to follow up with
    return found


THEIR_SHARE = 0.48
"""The child's share of the items: a little less than half, as it also pickles its results
for this process (a twelfth of the time it takes to read 5,000 sessions)."""


def their_half(items: Sequence[Item]) -> Sequence[Item]:
    """The items `shared_answering` gives the child."""
    return items[_mine(items) :]


def _mine(items: Sequence[Item]) -> int:
    return len(items) - int(len(items) * THEIR_SHARE)


def shared_answering(
    work: Callable[[Sequence[Item]], list[Result]],
    items: Sequence[Item],
    progress: Progress | None = None,
    follow_up: Callable[[Sequence[Item], list[Result]], object] | None = None,
) -> tuple[list[Result], Answering[list[Result]] | None]:
    """`shared`, whose child, once it has answered, goes on with `follow_up(its items,
    its results)` while this process goes on: the child is given back, to be waited for
    (`followed_up`), with the results; None when there is none that answered (its half
    was done here, and nothing followed up)."""
    total = len(items)
    if total < MIN_SHARED:
        return _in_steps(work, items, progress, total, 1), None
    mine, theirs = items[: _mine(items)], their_half(items)
    child = answering_in_child(
        lambda: work(theirs),
        lambda found: follow_up(theirs, found) if follow_up is not None else None,
    )
    if child is None:
        return _in_steps(work, items, progress, total, 1), None
    try:
        first = _in_steps(work, mine, progress, total, total / max(1, len(mine)))
        second = child.answer()
    except BaseException:
        child.close()
        raise
    if second is None or len(second) != len(theirs):
        child.close()  # failed: its half, and nothing followed up
        second, child = work(theirs), None
    if progress is not None:
        progress(total, total)
    return first + second, child


class _Child:
    """A forked child and the reading end of its pipe; `close()` ends it (if it still
    runs) and reaps it, so that no child outlives the one who gave up on its work."""

    def __init__(self, child: int, reader: int) -> None:
        self._child: int | None = child
        self._reader: int | None = reader

    def _reap(self) -> int:
        """The child's exit status, once it has exited (-1 when it was reaped before)."""
        if self._reader is not None:
            os.close(self._reader)
            self._reader = None
        if self._child is None:
            return -1
        child, self._child = self._child, None
        try:
            _, status = os.waitpid(child, 0)
        finally:
            _shared_no_more()
        return status

    def close(self) -> None:
        """End the child if it still runs, and reap it (no zombie). Safe to call twice."""
        if self._child is not None:
            with contextlib.suppress(ProcessLookupError):  # exited: only to be reaped
                os.kill(self._child, signal.SIGKILL)
        self._reap()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class Pending(_Child, Generic[Result]):
    """Work a forked child is doing: `result()` waits for it, `close()` gives it up."""

    def result(self) -> Result | None:
        """What the child found; None when it failed (the caller then does the work)."""
        if self._reader is None:
            return None
        with os.fdopen(self._reader, "rb", closefd=False) as pipe:
            data = pipe.read()
        return self._ended_with(data)

    def _ended_with(self, data: bytes) -> Result | None:
        """The child's answer, `data`, once it has ended; None when it failed."""
        if self._reap() != 0:
            return None
        found: Result | None = _unpickled(data)
        return found


def _unpickled(data: bytes) -> Any:
    """What our own child pickled; None when it is not whole (it failed while writing)."""
    try:
        return pickle.loads(data)
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError):
        return None


def in_child(work: Callable[[], Result]) -> Pending[Result] | None:
    """`work()` started in a forked child, where forking pays (as for `shared`); None when
    not, to be done here. The child must only read files and open what it uses itself."""
    started = _fork()
    if started is None:
        return None
    child, reader, writer = started
    if child == 0:  # the child: its answer, pickled down the pipe, and gone
        status = 1
        try:
            data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(writer, "wb") as pipe:
                pipe.write(data)
            status = 0
        finally:
            os._exit(status)
    return Pending(child, reader)


class TwoAnswers(Pending[Result], Generic[First, Result]):
    """Work a forked child is doing, which answers twice: `first()` waits for its first
    answer only, `result()` for the whole work; `close()` gives it up."""

    def __init__(self, child: int, reader: int) -> None:
        super().__init__(child, reader)
        self._pipe = os.fdopen(reader, "rb", closefd=False)
        self._first_read = False

    def first(self) -> First | None:
        """What the child told first; None when it told nothing, or failed before."""
        if self._first_read or self._reader is None:
            return None
        self._first_read = True
        header = self._pipe.read(_LENGTH.itemsize)
        if len(header) < _LENGTH.itemsize:
            return None
        found: First | None = _unpickled(self._pipe.read(array(_LENGTH.typecode, header)[0]))
        return found

    def result(self) -> Result | None:
        """What the work came to; None when the child failed (the caller then does it)."""
        if self._reader is None:
            return None
        self.first()  # read past, if the caller did not ask for it
        return self._ended_with(self._pipe.read())


_LENGTH = array("q")  # a first answer's length, before it


def in_child_answering_first(
    work: Callable[[Callable[[First], None]], Result],
) -> TwoAnswers[First, Result] | None:
    """`work(tell)` started in a forked child, where forking pays (as for `shared`), which
    may call `tell(answer)` once, early, for the caller to have that answer while the rest
    goes on; None when forking does not pay. The child must only read files and open what
    it uses itself."""
    started = _fork()
    if started is None:
        return None
    child, reader, writer = started
    if child == 0:  # the child: its first answer, its result, and gone
        told: list[bool] = []

        def tell(answer: First | None) -> None:
            if told:
                return
            told.append(True)
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
            frame = array(_LENGTH.typecode, [len(data)]).tobytes() + data
            _make_room(writer, len(frame))
            _write_all(writer, frame)

        status = 1
        try:
            found = work(tell)
            tell(None)  # told nothing: the caller does it
            _write_all(writer, pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL))
            status = 0
        finally:
            os._exit(status)
    return TwoAnswers(child, reader)


def _make_room(writer: int, size: int) -> None:
    """A pipe that holds `size` bytes where the system allows it (Linux: up to 1 MiB), so
    that a child goes on with its work while its answer waits to be read."""
    import fcntl

    with contextlib.suppress(OSError, AttributeError):
        if fcntl.fcntl(writer, fcntl.F_GETPIPE_SZ) < size:
            fcntl.fcntl(writer, fcntl.F_SETPIPE_SZ, size)


def _write_all(writer: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(writer, view) :]


class Answering(_Child, Generic[Result]):
    """A forked child that sends its answer, then goes on with a follow-up of its own:
    `answer()` waits for the answer only, `followed_up()` for the rest."""

    def answer(self) -> Result | None:
        """What the child found; None when it failed before answering (then the caller
        does the work, and its follow-up)."""
        if self._reader is None:
            return None
        with os.fdopen(self._reader, "rb", closefd=False) as pipe:
            data = pipe.read()  # to the end: the child closes its end once it has answered
        os.close(self._reader)
        self._reader = None
        found: Result | None = _unpickled(data)
        return found

    def followed_up(self) -> bool:
        """Whether the child answered and did its follow-up (waits for it to end)."""
        if self._reader is not None:
            self.answer()  # drained: a child blocked on a full pipe would never end
        return self._reap() == 0


def answering_in_child(
    work: Callable[[], Result], follow_up: Callable[[Result], object]
) -> Answering[Result] | None:
    """`work()` started in a forked child, where forking pays (as for `shared`), which
    sends its answer and then does `follow_up(answer)` while the caller goes on; None when
    forking does not pay. The child must only read files and open what it uses itself."""
    started = _fork()
    if started is None:
        return None
    child, reader, writer = started
    if child == 0:  # the child: its answer down the pipe, its follow-up, and gone
        status = 1
        try:
            found = work()
            data = pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(writer, "wb") as pipe:
                pipe.write(data)
            status = 2  # answered, not followed up
            follow_up(found)
            status = 0
        finally:
            os._exit(status)
    return Answering(child, reader)


class Told(_Child):
    """The numbers a forked child tells as it works, read as they come (iterate: each
    waits for the child; the iteration ends when the child has ended, done or not).

    What the child told stays true if it fails later: a reader trusts what it has read
    and does the rest itself.
    """

    def __iter__(self) -> Iterator[int]:
        unread = b""
        while self._reader is not None:
            try:
                data = os.read(self._reader, 64 * 1024)
            except OSError:
                data = b""
            if not data:  # the child is done, or gone
                self.close()
                return
            unread += data
            whole = len(unread) - len(unread) % _NUMBER.itemsize
            if whole:
                yield from array(_NUMBER.typecode, unread[:whole])
                unread = unread[whole:]


_NUMBER = array("q")  # how the numbers go down the pipe: native 64-bit integers


def telling_in_child(work: Callable[[Callable[[Sequence[int]], None]], object]) -> Told | None:
    """`work(tell)` started in a forked child, where forking pays (as for `shared`); it
    calls `tell(numbers)` as it goes, and they are read in order from the `Told`. None
    when forking does not pay. The child must only read files and open what it uses
    itself."""
    started = _fork()
    if started is None:
        return None
    child, reader, writer = started
    if child == 0:  # the child: numbers down the pipe, and gone

        def tell(numbers: Sequence[int]) -> None:
            _write_all(writer, array(_NUMBER.typecode, numbers).tobytes())

        status = 1
        try:
            work(tell)
            status = 0
        finally:
            os._exit(status)
    return Told(child, reader)


def _fork() -> tuple[int, int, int] | None:
    """(child pid or 0 in the child, pipe reader, pipe writer), each side holding only its
    own end; None where forking does not pay or fails."""
    if not _forking_pays():
        return None
    try:
        reader, writer = os.pipe()
    except OSError:
        return None
    _share()
    try:
        child = os.fork()
    except OSError:
        _shared_no_more()
        os.close(reader)
        os.close(writer)
        return None
    if child == 0:
        os.close(reader)
    else:
        os.close(writer)
    return child, reader, writer


# While a child shares this process's pages, the collector leaves what lived at the fork
# alone: its walks would write to every object, and so copy every page the two share (how
# Python documents a fork without exec). Once the last child is reaped, it walks them again.
_sharing = 0
_sharing_lock = threading.Lock()


def _share() -> None:
    global _sharing
    with _sharing_lock:
        _sharing += 1
        gc.freeze()


def _shared_no_more() -> None:
    global _sharing
    with _sharing_lock:
        _sharing -= 1
        if _sharing == 0:
            gc.unfreeze()


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
