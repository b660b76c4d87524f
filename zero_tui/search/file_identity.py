"""Whether a file is still the one the catalog remembers, by its stat alone.

A file's identity is (inode, size, mtime, ctime). An atomic rename can reuse an inode and
keep size and mtime on a filesystem with 1-second timestamps, so an entry recorded within
`RACY_NS` of the file's last change is "racy" (as in git's index): its content is compared
again until it is old enough for any later change to show in the timestamps.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Iterable, Sequence

RACY_NS = 3_000_000_000  # coarser than any timestamp granularity we meet (FAT: 2 s)
STAT_REUSE_SECONDS = 1.0


def stat_key(info: os.stat_result) -> str:
    return f"{info.st_ino}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}"


def trusted_identity(remembered: object, checked_ns: object) -> tuple[int, ...] | None:
    """The (inode, size, mtime, ctime) a file must have for `same_file` to say it is the one
    remembered as `remembered` at `checked_ns`, or None when no stat can (a racy entry, or
    one that is not a `stat_key`): one tuple to compare with each new stat."""
    if not isinstance(remembered, str) or not isinstance(checked_ns, int):
        return None
    try:
        identity = tuple(int(part) for part in remembered.split(":"))
    except ValueError:
        return None
    if len(identity) != 4 or ":".join(map(str, identity)) != remembered:
        return None
    if is_racy(max(identity[2], identity[3]), checked_ns):
        return None
    return identity


def identity_of(info: os.stat_result) -> tuple[int, int, int, int]:
    """What `trusted_identity` is compared with: the parts of `stat_key`."""
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def changed_ns(info: os.stat_result) -> int:
    return max(info.st_mtime_ns, info.st_ctime_ns)


def is_racy(changed: int, checked_ns: int) -> bool:
    """Could a later change keep the same timestamps? (changed too close to the check)"""
    return changed >= checked_ns - RACY_NS


def same_file(info: os.stat_result | None, remembered: object, checked_ns: object) -> bool:
    """The file (`info`: its stat) is the one remembered (`remembered`: its `stat_key` as
    taken at `checked_ns`), by the stat alone: never when it changed too close to that."""
    return (
        info is not None
        and isinstance(checked_ns, int)
        and remembered == stat_key(info)
        and not is_racy(changed_ns(info), checked_ns)
    )


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def regular_stat(path: str) -> os.stat_result | None:
    """stat of a regular file, else None (a FIFO or device is never opened)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def regular_stats(paths: Iterable[str]) -> list[os.stat_result | None]:
    """`regular_stat` of each path, in order."""
    found: list[os.stat_result | None] = []
    take = os.stat
    is_regular = stat.S_ISREG
    for path in paths:
        try:
            info = take(path)
        except OSError:
            found.append(None)
            continue
        found.append(info if is_regular(info.st_mode) else None)
    return found


_Taken = tuple[float, int, os.stat_result | None]  # monotonic time, wall time before, stat


class LogStats:
    """The sessions' logs' last stats, each reused for under `STAT_REUSE_SECONDS` until the
    next look at the store (`forget`): a filter and the update next to it see the same
    files for one stat each."""

    def __init__(self, session_prefix: str, log_name: str) -> None:
        self._prefix = session_prefix  # + session id: its directory
        self._log_name = log_name
        self._taken: dict[str, _Taken] = {}

    def look(self, session_id: str) -> tuple[int, os.stat_result | None]:
        """The log's stat (None: not a regular file) and the wall time just before it was
        taken."""
        now = time.monotonic()
        taken = self._taken.get(session_id)
        if taken is not None and now - taken[0] < STAT_REUSE_SECONDS:
            return taken[1], taken[2]
        checked_ns = time.time_ns()
        info = regular_stat(self.path(session_id))
        self._taken[session_id] = (now, checked_ns, info)
        return checked_ns, info

    def look_all(self, session_ids: Sequence[str]) -> list[os.stat_result | None]:
        """`look` at many logs at once, in the order given."""
        now = time.monotonic()
        taken = self._taken
        missing = [
            session_id
            for session_id in session_ids
            if (known := taken.get(session_id)) is None or now - known[0] >= STAT_REUSE_SECONDS
        ]
        if missing:
            checked_ns = time.time_ns()
            stats = regular_stats(self.path(session_id) for session_id in missing)
            for session_id, info in zip(missing, stats, strict=True):
                taken[session_id] = (now, checked_ns, info)
        return [taken[session_id][2] for session_id in session_ids]

    def path(self, session_id: str) -> str:
        return f"{self._prefix}{session_id}/{self._log_name}"

    def forget(self) -> None:
        """A new look at the store: no stat from before it is reused."""
        self._taken.clear()
