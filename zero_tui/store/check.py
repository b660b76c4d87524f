"""`zero-tui check`: a health report of the store, and the repairs that are safe.

Reports torn tails, corrupt lines (file:line and why), missing or unreadable metadata,
non-regular files, metadata lagging or ahead of the log (eventCount, lastEventType),
repeated or decreasing sequences (gaps are not damage: Zero makes them), leftover temp
files, checkpoint blobs no event refers to and events referring to missing blobs, bad
modes (not 0700/0600) and symlinked entries.

`repair` fixes only what is safe, under the session lock, after saving a copy of every
file it changes beside it (`<file>.check-backup-<UTC time>`, 0600): it cuts a torn tail,
resyncs the metadata counters from the log and removes leftover temp files. Everything
else (a corrupt middle line above all: it is never "fixed" by deleting data) is left for
a person. A later check ignores its copies. No Textual or Rich import.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from zero_tui.store.errors import StoreError
from zero_tui.store.events import decode_line, iter_pieces
from zero_tui.store.models import Event, Metadata
from zero_tui.store.store import (
    EVENTS_FILE,
    LOCK_FILE,
    METADATA_FILE,
    SessionStore,
    UnreadableSession,
    file_kind,
    open_regular,
    os_reason,
    read_regular,
    valid_session_id,
)

DIR_MODE = 0o700
FILE_MODE = 0o600
BACKUP_MARK = ".check-backup-"
# Zero's temp files are `<target>.tmp-<n>`; zero-tui's are `.<target>.<pid>-<hex>.tmp`
_TEMP_FILE = re.compile(r"(?:.+\.tmp-[0-9]+|\..+\.[0-9]+-[0-9a-f]+\.tmp)")
# a temp file this young may belong to a write in flight (blob snapshots are unlocked)
TEMP_FILE_MIN_AGE = 300.0
_SESSION_FILES = (METADATA_FILE, EVENTS_FILE, LOCK_FILE)

Found = Callable[..., None]  # found(path, kind, message, line=..., repairable=...)


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong: where, what, and whether `repair` can fix it safely."""

    session_id: str  # "" for the store itself
    path: str
    kind: str
    message: str
    line: int | None = None
    repairable: bool = False

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path


@dataclass(frozen=True, slots=True)
class Repair:
    """One change `repair` made, and where it saved the copy of what it changed."""

    session_id: str
    path: str
    action: str
    backup: str | None = None


@dataclass(slots=True)
class CheckReport:
    root: str
    sessions_checked: int = 0
    findings: list[Finding] = field(default_factory=list)
    repairs: list[Repair] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not self.findings


@dataclass(frozen=True, slots=True)
class _LogState:
    """What one read of a log found, for the checks and the repairs."""

    events: list[Event]
    corrupt: bool  # a bad line other than a torn tail
    torn_line: int | None


def check_store(store: SessionStore, session_id: str | None = None) -> CheckReport:
    """The health report of the whole store, or of one session (StoreError: no such one)."""
    report = CheckReport(str(store.root))
    if session_id is not None:
        if not valid_session_id(session_id) or not os.path.lexists(store.session_dir(session_id)):
            raise StoreError(f"zero session not found: {session_id}")
        names = [session_id]
    else:
        names = list(_root_entries(store, report))
    for name in names:
        report.sessions_checked += 1
        report.findings.extend(_check_session(store, name))
    return report


def repair_store(store: SessionStore, session_id: str | None = None) -> CheckReport:
    """Repair what is safe, then check again: the report lists the repairs and what is left."""
    before = check_store(store, session_id)
    repairs: list[Repair] = []
    for name in sorted({f.session_id for f in before.findings if f.repairable and f.session_id}):
        repairs.extend(_repair_session(store, name))
    after = check_store(store, session_id)
    after.repairs = repairs
    return after


# --- checking ------------------------------------------------------------------------------


def _root_entries(store: SessionStore, report: CheckReport) -> Iterator[str]:
    try:
        entries = sorted(os.scandir(store.root), key=lambda entry: entry.name)
    except FileNotFoundError:
        return
    except OSError as error:
        raise StoreError(f"read zero session root: {os_reason(error)}: {store.root}") from None
    for entry in entries:
        if not valid_session_id(entry.name):
            continue
        if entry.is_symlink():
            report.findings.append(
                Finding(
                    entry.name,
                    entry.path,
                    "symlink",
                    "a symlinked session directory: Zero lists it, zero-tui does not follow it",
                )
            )
            continue
        if entry.is_dir(follow_symlinks=False):
            yield entry.name


def _check_session(store: SessionStore, sid: str) -> list[Finding]:
    directory = store.session_dir(sid)
    findings: list[Finding] = []

    def found(
        path: Path | str, kind: str, message: str, line: int | None = None, repairable: bool = False
    ) -> None:
        findings.append(Finding(sid, str(path), kind, message, line, repairable))

    try:
        info = os.lstat(directory)
    except OSError as error:
        found(directory, "unreadable", f"cannot stat the session directory: {os_reason(error)}")
        return findings
    if stat.S_ISLNK(info.st_mode):
        found(directory, "symlink", "a symlinked session directory")
        return findings
    if stat.S_IMODE(info.st_mode) != DIR_MODE:
        found(directory, "mode", f"mode {stat.S_IMODE(info.st_mode):04o}, not {DIR_MODE:04o}")
    try:
        names = sorted(os.listdir(directory))
    except OSError as error:
        found(directory, "unreadable", f"cannot list the session directory: {os_reason(error)}")
        return findings
    for name in _SESSION_FILES:
        path = directory / name
        try:
            entry = os.lstat(path)
        except FileNotFoundError:
            if name == METADATA_FILE:
                found(path, "missing", "no metadata.json: Zero does not list this session")
            continue
        except OSError as error:
            found(path, "unreadable", os_reason(error))
            continue
        if stat.S_ISLNK(entry.st_mode):
            found(path, "symlink", "a symlink where Zero keeps a file")
        elif not stat.S_ISREG(entry.st_mode):
            found(path, "not-regular", f"{file_kind(entry.st_mode)}, not a regular file")
        elif stat.S_IMODE(entry.st_mode) != FILE_MODE:
            found(path, "mode", f"mode {stat.S_IMODE(entry.st_mode):04o}, not {FILE_MODE:04o}")
    findings.extend(_temp_files(sid, directory, names))
    read = store.read_session(sid)
    meta = read if isinstance(read, Metadata) else None
    if isinstance(read, UnreadableSession) and not any(
        f.path == str(directory / METADATA_FILE) for f in findings
    ):
        found(directory / METADATA_FILE, "metadata", read.reason)
    log_path = directory / EVENTS_FILE
    state = _read_log(sid, log_path, found)
    if state is None:
        return findings
    _check_sequences(state.events, log_path, found)
    if meta is not None and not state.corrupt:
        findings.extend(_counter_findings(sid, directory / METADATA_FILE, meta, state.events))
    findings.extend(_check_blobs(sid, directory, state.events))
    return findings


def _temp_files(sid: str, directory: Path, names: list[str]) -> Iterator[Finding]:
    places = [(directory, names)]
    blobs = directory / "checkpoints" / "blobs"
    with contextlib.suppress(OSError):
        places.append((blobs, sorted(os.listdir(blobs))))
    now = time.time()
    for place, entries in places:
        for name in entries:
            if BACKUP_MARK in name or not _TEMP_FILE.fullmatch(name):
                continue
            path = place / name
            try:
                age = now - os.lstat(path).st_mtime
            except OSError:
                continue
            if age >= TEMP_FILE_MIN_AGE:
                yield Finding(sid, str(path), "temp-file", "a leftover temp file", repairable=True)


def _read_log(sid: str, path: Path, found: Found) -> _LogState | None:
    try:
        data = read_regular(path)
    except FileNotFoundError:
        return _LogState([], False, None)
    except OSError as error:
        if not os.path.islink(path):  # a non-regular file was reported above already
            try:
                if stat.S_ISREG(os.stat(path).st_mode):
                    found(path, "unreadable", os_reason(error))
            except OSError:
                found(path, "unreadable", os_reason(error))
        return None
    torn_tail_possible = bool(data) and not data.endswith(b"\n")
    events: list[Event] = []
    pieces = list(iter_pieces(data))
    corrupt = False
    torn_line: int | None = None
    for index, piece in enumerate(pieces):
        try:
            events.append(decode_line(piece.content, sid, piece.number))
        except StoreError as error:
            if torn_tail_possible and index == len(pieces) - 1:
                torn_line = piece.number
                found(
                    path,
                    "torn-tail",
                    "a torn last line (an interrupted append): readers drop it",
                    line=piece.number,
                    repairable=True,
                )
            else:
                corrupt = True
                detail = str(error).split(": ", 1)[-1]
                found(path, "corrupt-line", detail, line=piece.number)
    return _LogState(events, corrupt, torn_line)


def _check_sequences(events: list[Event], path: Path, found: Found) -> None:
    previous: int | None = None
    for number, event in enumerate(events, 1):
        if previous is not None and event.sequence == previous:
            found(path, "sequence", f"sequence {event.sequence} repeated (event {number})")
        elif previous is not None and event.sequence < previous:
            found(
                path,
                "sequence",
                f"sequence {event.sequence} after {previous} (event {number}): decreasing",
            )
        previous = event.sequence


def _counter_findings(
    sid: str, path: Path, meta: Metadata, events: list[Event]
) -> Iterator[Finding]:
    last_sequence = events[-1].sequence if events else 0
    last_type = events[-1].type if events else ""
    if meta.event_count < last_sequence:
        yield Finding(
            sid,
            str(path),
            "metadata-lags",
            f"eventCount {meta.event_count} lags the log (last sequence {last_sequence})",
            repairable=True,
        )
    elif meta.event_count > last_sequence:
        yield Finding(
            sid,
            str(path),
            "metadata-ahead",
            f"eventCount {meta.event_count} is ahead of the log (last sequence {last_sequence})",
            repairable=True,
        )
    if events and meta.last_event_type != last_type:
        yield Finding(
            sid,
            str(path),
            "metadata-type",
            f"lastEventType {meta.last_event_type!r}, the log ends with {last_type!r}",
            repairable=True,
        )


def _check_blobs(sid: str, directory: Path, events: list[Event]) -> Iterator[Finding]:
    blobs_dir = directory / "checkpoints" / "blobs"
    try:
        stored = {
            name
            for name in os.listdir(blobs_dir)
            if BACKUP_MARK not in name and not _TEMP_FILE.fullmatch(name)
        }
    except OSError:
        stored = set()
    referred: dict[str, int] = {}
    for event in events:
        if event.type != "session_checkpoint":
            continue
        files = event.payload_object().get("files")
        for entry in files if isinstance(files, list) else []:
            blob = entry.get("blob") if isinstance(entry, dict) else None
            if isinstance(blob, str) and blob:
                referred.setdefault(blob, event.sequence)
    for blob, sequence in sorted(referred.items()):
        if blob not in stored:
            yield Finding(
                sid,
                str(blobs_dir / blob),
                "missing-blob",
                f"checkpoint at sequence {sequence} refers to a missing blob",
            )
    for blob in sorted(stored):
        path = blobs_dir / blob
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            yield Finding(sid, str(path), "not-regular", f"{file_kind(info.st_mode)}, not a blob")
        elif stat.S_IMODE(info.st_mode) != FILE_MODE:
            yield Finding(
                sid, str(path), "mode", f"mode {stat.S_IMODE(info.st_mode):04o}, not 0600"
            )
        if blob not in referred:
            yield Finding(sid, str(path), "orphan-blob", "a checkpoint blob no event refers to")


# --- repairing -------------------------------------------------------------------------------


def _backup(path: Path) -> str:
    """Copy `path` beside itself (0600, never over an existing file); returns the copy."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    target = path.with_name(f"{path.name}{BACKUP_MARK}{stamp}")
    data = read_regular(path)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, FILE_MODE)
        os.fsync(fd)
    finally:
        os.close(fd)
    return str(target)


def _repair_session(store: SessionStore, sid: str) -> list[Repair]:
    repairs: list[Repair] = []
    directory = store.session_dir(sid)
    try:
        with store.locked(sid):
            for finding in _check_session(store, sid):
                if finding.kind == "temp-file":
                    os.unlink(finding.path)
                    repairs.append(Repair(sid, finding.path, "removed a leftover temp file"))
            log_path = directory / EVENTS_FILE
            fd = open_regular(log_path, os.O_RDWR)
            try:
                tail = store.read_log_tail(fd, sid)
                size = os.fstat(fd).st_size
                if tail.keep_length < size:
                    backup = _backup(log_path)
                    os.ftruncate(fd, tail.keep_length)
                    os.fsync(fd)
                    repairs.append(
                        Repair(
                            sid,
                            str(log_path),
                            f"cut a torn tail of {size - tail.keep_length} bytes",
                            backup,
                        )
                    )
            finally:
                os.close(fd)
            repairs.extend(_resync_metadata(store, sid, log_path))
    except (OSError, StoreError) as error:
        reason = os_reason(error) if isinstance(error, OSError) else str(error)
        repairs.append(Repair(sid, str(directory), f"repair stopped: {reason}"))
    return repairs


def _resync_metadata(store: SessionStore, sid: str, log_path: Path) -> list[Repair]:
    meta = store.get(sid)
    if meta is None:
        return []
    state = _read_log(sid, log_path, lambda *args, **kwargs: None)
    if state is None or state.corrupt:
        return []  # a log that cannot be trusted does not set the counters
    events = state.events
    last_sequence = events[-1].sequence if events else 0
    last_type = events[-1].type if events else meta.last_event_type
    if meta.event_count == last_sequence and meta.last_event_type == last_type:
        return []
    path = store.metadata_path(sid)
    backup = _backup(path)
    fixed = dataclasses.replace(meta, event_count=last_sequence, last_event_type=last_type)
    store.write_metadata_locked(sid, fixed)
    return [
        Repair(
            sid,
            str(path),
            f"set eventCount {meta.event_count} -> {last_sequence}, lastEventType "
            f"{meta.last_event_type!r} -> {last_type!r} from the log",
            backup,
        )
    ]
