"""`zero-tui check`: a health report of the store, and the repairs that are safe.

Reports torn tails, corrupt lines (file:line and why), missing or unreadable metadata,
non-regular files, metadata lagging or ahead of the log (eventCount, lastEventType),
repeated or decreasing sequences (gaps are not damage: Zero makes them), leftover temp
files, checkpoint blobs no event refers to and events referring to missing blobs, bad
modes (not 0700/0600) and every symlink in a session: check never follows one into a
directory, and repair never touches one.

`repair` fixes only what is safe, under the session lock, after saving a copy of every
file it changes beside it (`<file>.check-backup-<UTC time>`, 0600): it cuts a torn tail,
resyncs the metadata counters from the log, and sets a leftover temp file aside under that
name. It never writes, cuts, renames or deletes through a symlink: the session directory
and checkpoints/blobs are opened without following one, every name in them is opened the
same way (lstat first where the platform cannot), and a session whose lock file is a
symlink is left alone. A temp file whose target is missing or unreadable is evidence, not
litter: it is kept, and the report says what it may restore. Everything else (a corrupt
middle line above all: it is never "fixed" by deleting data) is left for a person. A
later check ignores the copies. No Textual or Rich import.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from zero_tui.atomic import write_all
from zero_tui.store.errors import StoreError
from zero_tui.store.events import decode_line, iter_pieces
from zero_tui.store.gojson import GoJSONError
from zero_tui.store.models import Event, Metadata
from zero_tui.store.payload_decoder import decode_payload
from zero_tui.store.payloads import CheckpointPayload
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
CHECKPOINTS_DIR = "checkpoints"
BLOBS_DIR = "blobs"
# Zero's temp files are `<target>.tmp-<n>`; zero-tui's are `.<target>.<pid>-<hex>.tmp`
_GO_TEMP_FILE = re.compile(r"(.+)\.tmp-[0-9]+")
_OUR_TEMP_FILE = re.compile(r"\.(.+)\.[0-9]+-[0-9a-f]+\.tmp")
# a temp file this young may belong to a write in flight (blob snapshots are unlocked)
TEMP_FILE_MIN_AGE = 300.0
_SESSION_FILES = (METADATA_FILE, EVENTS_FILE, LOCK_FILE)
_SYMLINKED_FILE = {
    METADATA_FILE: "a symlink where Zero keeps a file: repair does not touch it",
    EVENTS_FILE: "a symlink where Zero keeps a file: repair does not touch it or write through it",
    LOCK_FILE: (
        "a symlink where Zero keeps a file: repair leaves this session alone, since taking "
        "its lock would follow the symlink"
    ),
}
_MISSING_FILE = {
    METADATA_FILE: "no metadata.json: Zero does not list this session",
    EVENTS_FILE: "no events.jsonl: Zero reads this session as empty",
}
_COUNTER_KINDS = frozenset({"metadata-lags", "metadata-ahead", "metadata-type"})

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW
_DIRECTORY_FLAGS |= getattr(os, "O_CLOEXEC", 0)
# names looked up in an open directory; where the platform cannot, an lstat just before
_DIR_FD = bool(_NOFOLLOW) and {os.open, os.stat, os.replace, os.unlink} <= os.supports_dir_fd

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


_HARMLESS_TO_A_RUN = frozenset(
    {"mode", "temp-file", "temp-evidence", "orphan-blob", "missing-blob"}
)


def prepare_run(store: SessionStore, session_id: str) -> Repair | None:
    """Before an agent appends to `session_id` (design §3.10): a log Zero's reader and
    `zero exec --resume` accept, or a StoreError naming `zero-tui check`.

    A torn last line is cut as `check --repair` cuts it (a 0600 copy of the log beside it),
    under the session lock: the Repair says so (None: nothing to cut). Any other damage
    that would make the run leave a session Zero refuses — a corrupt line, repeated or
    decreasing sequences, metadata that disagrees with the log or cannot be read, a
    symlink or special file where Zero keeps its files — refuses the run, changing nothing.
    Modes, leftover temp files and checkpoint blobs do not stop a run.
    """
    place: _Dir | None = None
    try:
        place = _Dir.open(store.session_dir(session_id))
        place.refuse_symlink(LOCK_FILE)
        with store.locked(session_id):
            findings = _check_session(store, session_id)
            blocking = [
                f
                for f in findings
                if f.kind not in _HARMLESS_TO_A_RUN
                and f.kind != "torn-tail"
                and CHECKPOINTS_DIR not in Path(f.path).relative_to(place.path).parts
            ]
            if blocking:
                first = blocking[0]
                more = f" (and {len(blocking) - 1} more)" if len(blocking) > 1 else ""
                raise StoreError(
                    f"not continuing: {first.where}: {first.message}{more}; "
                    f"see zero-tui check {session_id}"
                )
            if any(f.kind == "torn-tail" for f in findings):
                cut = _cut_torn_tail(store, session_id, place)
                return cut[0] if cut else None
            return None
    except _Declined as refusal:
        raise StoreError(f"not continuing: {refusal}; see zero-tui check {session_id}") from None
    except OSError as error:
        raise StoreError(
            f"not continuing: {os_reason(error)}; see zero-tui check {session_id}"
        ) from None
    finally:
        if place is not None:
            place.close()


def temp_file_target(name: str) -> str | None:
    """The name of the file a temp file was written for; None when `name` is no temp file's
    (a copy saved by repair is not one)."""
    if BACKUP_MARK in name:
        return None
    match = _GO_TEMP_FILE.fullmatch(name) or _OUR_TEMP_FILE.fullmatch(name)
    return match.group(1) if match else None


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
        found(directory, "symlink", "a symlinked session directory: repair does not touch it")
        return findings
    if stat.S_IMODE(info.st_mode) != DIR_MODE:
        found(directory, "mode", f"mode {stat.S_IMODE(info.st_mode):04o}, not {DIR_MODE:04o}")
    try:
        names = sorted(os.listdir(directory))
    except OSError as error:
        found(directory, "unreadable", f"cannot list the session directory: {os_reason(error)}")
        return findings
    symlinked: set[str] = set()
    missing: set[str] = set()
    for name in _SESSION_FILES:
        path = directory / name
        try:
            entry = os.lstat(path)
        except FileNotFoundError:
            missing.add(name)
            if name in _MISSING_FILE:
                found(path, "missing", _MISSING_FILE[name])
            continue
        except OSError as error:
            found(path, "unreadable", os_reason(error))
            continue
        if stat.S_ISLNK(entry.st_mode):
            symlinked.add(name)
            found(path, "symlink", _SYMLINKED_FILE[name])
        elif not stat.S_ISREG(entry.st_mode):
            found(path, "not-regular", f"{file_kind(entry.st_mode)}, not a regular file")
        elif stat.S_IMODE(entry.st_mode) != FILE_MODE:
            found(path, "mode", f"mode {stat.S_IMODE(entry.st_mode):04o}, not {FILE_MODE:04o}")
    blobs = _blobs_listing(directory, found)
    read = store.read_session(sid)
    meta = read if isinstance(read, Metadata) else None
    if isinstance(read, UnreadableSession) and not any(
        f.path == str(directory / METADATA_FILE) for f in findings
    ):
        found(directory / METADATA_FILE, "metadata", read.reason)
    places = [(directory, names)] + ([] if blobs is None else [blobs])
    findings.extend(_temp_files(sid, directory, places, read))
    log_path = directory / EVENTS_FILE
    state = _read_log(sid, log_path, found, EVENTS_FILE not in symlinked)
    if state is not None:
        _check_sequences(state.events, log_path, found)
        if meta is not None and not state.corrupt:
            # the log sets the counters only when it is there, and a regular file
            counters_repairable = not (symlinked | missing) & {METADATA_FILE, EVENTS_FILE}
            findings.extend(
                _counter_findings(
                    sid, directory / METADATA_FILE, meta, state.events, counters_repairable
                )
            )
        if blobs is not None:
            findings.extend(_check_blobs(sid, blobs, state.events))
    if LOCK_FILE in symlinked:  # repair cannot lock this session without following it
        findings = [dataclasses.replace(f, repairable=False) for f in findings]
    return findings


def _blobs_listing(directory: Path, found: Found) -> tuple[Path, list[str]] | None:
    """checkpoints/blobs and its names (none when it is absent); None when it is not a
    real directory (reported: a symlink is never followed, by check or repair)."""
    path = directory
    for name in (CHECKPOINTS_DIR, BLOBS_DIR):
        path = path / name
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return directory / CHECKPOINTS_DIR / BLOBS_DIR, []
        except OSError as error:
            found(path, "unreadable", os_reason(error))
            return None
        if stat.S_ISLNK(info.st_mode):
            found(
                path,
                "symlink",
                f"a symlinked {name} directory: check does not look inside, repair does not "
                "touch it",
            )
            return None
        if not stat.S_ISDIR(info.st_mode):
            kind = "a regular file" if stat.S_ISREG(info.st_mode) else file_kind(info.st_mode)
            found(path, "not-regular", f"{kind}, not a directory")
            return None
    try:
        return path, sorted(os.listdir(path))
    except OSError as error:
        found(path, "unreadable", f"cannot list the directory: {os_reason(error)}")
        return None


def _temp_files(
    sid: str,
    directory: Path,
    places: list[tuple[Path, list[str]]],
    metadata: Metadata | UnreadableSession,
) -> Iterator[Finding]:
    now = time.time()
    for place, entries in places:
        for name in entries:
            target = temp_file_target(name)
            if target is None:
                continue
            path = place / name
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if now - info.st_mtime < TEMP_FILE_MIN_AGE:
                continue
            if stat.S_ISLNK(info.st_mode):
                yield Finding(
                    sid, str(path), "symlink", "a symlink named as a temp file: repair leaves it"
                )
            elif not stat.S_ISREG(info.st_mode):
                yield Finding(
                    sid,
                    str(path),
                    "not-regular",
                    f"{file_kind(info.st_mode)}, named as a temp file",
                )
            else:
                is_metadata = place == directory and target == METADATA_FILE
                problem = _target_problem(place / target, metadata if is_metadata else None)
                if problem is None:
                    yield Finding(
                        sid, str(path), "temp-file", "a leftover temp file", repairable=True
                    )
                else:
                    yield Finding(sid, str(path), "temp-evidence", _evidence(path, target, problem))


def _target_problem(target: Path, metadata: Metadata | UnreadableSession | None) -> str | None:
    """What is wrong with a temp file's target (None: it is in place and readable)."""
    if isinstance(metadata, UnreadableSession):
        if not os.path.lexists(target):
            return "is missing"
        return f"cannot be read ({metadata.reason})"
    if metadata is not None:
        return None
    try:
        os.close(open_regular(target))
    except FileNotFoundError:
        return "is missing"
    except OSError as error:
        return f"cannot be read ({os_reason(error)})"
    return None


def _evidence(path: Path, target: str, problem: str) -> str:
    """Why a temp file whose target is missing or unreadable is kept, and what it holds."""
    kept = f"repair keeps it; to restore, rename it to {target}"
    if target == METADATA_FILE:
        try:
            meta = Metadata.from_json(read_regular(path))
        except (OSError, GoJSONError) as error:
            reason = os_reason(error) if isinstance(error, OSError) else str(error)
            return (
                f"{target} {problem}, and this temp file of its last write does not decode "
                f"either ({reason}): repair keeps it"
            )
        return (
            f"{target} {problem}, and this temp file holds valid metadata (session "
            f"{meta.session_id or '(no id)'}, eventCount {meta.event_count}, updatedAt "
            f"{meta.updated_at or '(none)'}) that Zero had not yet renamed into place: {kept}"
        )
    if path.parent.name == BLOBS_DIR:
        try:
            digest = _sha256(path)
        except OSError as error:
            return f"blob {target} {problem}; this temp file cannot be read ({os_reason(error)})"
        if digest == target:
            return f"blob {target} {problem}; this temp file holds its content: {kept}"
        return (
            f"blob {target} {problem}; this temp file is a partial copy of it (its sha256 "
            "differs): repair keeps it"
        )
    return f"{target} {problem}; this temp file may hold its last write: {kept}"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    fd = open_regular(path)
    try:
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()


def _read_log(sid: str, path: Path, found: Found, repairable: bool) -> _LogState | None:
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
    return _parse_log(sid, path, data, found, repairable)


def _parse_log(sid: str, path: Path, data: bytes, found: Found, repairable: bool) -> _LogState:
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
                    repairable=repairable,
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
    sid: str, path: Path, meta: Metadata, events: list[Event], repairable: bool
) -> Iterator[Finding]:
    last_sequence = events[-1].sequence if events else 0
    last_type = events[-1].type if events else ""
    if meta.event_count < last_sequence:
        yield Finding(
            sid,
            str(path),
            "metadata-lags",
            f"eventCount {meta.event_count} lags the log (last sequence {last_sequence})",
            repairable=repairable,
        )
    elif meta.event_count > last_sequence:
        yield Finding(
            sid,
            str(path),
            "metadata-ahead",
            f"eventCount {meta.event_count} is ahead of the log (last sequence {last_sequence})",
            repairable=repairable,
        )
    if events and meta.last_event_type != last_type:
        yield Finding(
            sid,
            str(path),
            "metadata-type",
            f"lastEventType {meta.last_event_type!r}, the log ends with {last_type!r}",
            repairable=repairable,
        )


def _check_blobs(sid: str, blobs: tuple[Path, list[str]], events: list[Event]) -> Iterator[Finding]:
    blobs_dir = blobs[0]
    stored = {n for n in blobs[1] if BACKUP_MARK not in n and temp_file_target(n) is None}
    referred: dict[str, int] = {}
    for event in events:
        if event.type != "session_checkpoint":
            continue
        checkpoint = decode_payload(event)
        assert isinstance(checkpoint, CheckpointPayload)
        if checkpoint.error:
            continue  # Zero's referencedBlobs skips a checkpoint it cannot unmarshal
        for file in checkpoint.files:
            if file.blob:
                referred.setdefault(file.blob, event.sequence)
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
        if stat.S_ISLNK(info.st_mode):
            yield Finding(sid, str(path), "symlink", "a symlinked blob: repair does not touch it")
        elif not stat.S_ISREG(info.st_mode):
            yield Finding(sid, str(path), "not-regular", f"{file_kind(info.st_mode)}, not a blob")
        elif stat.S_IMODE(info.st_mode) != FILE_MODE:
            yield Finding(
                sid, str(path), "mode", f"mode {stat.S_IMODE(info.st_mode):04o}, not 0600"
            )
        if blob not in referred:
            yield Finding(sid, str(path), "orphan-blob", "a checkpoint blob no event refers to")


# --- repairing -------------------------------------------------------------------------------


class _Declined(Exception):
    """Repair will not go on: it would have to follow a symlink (or lost its footing)."""


class _Dir:
    """A directory repair changes, held open: every name in it is opened, renamed or
    removed relative to it without following a symlink (O_NOFOLLOW, dir_fd), so neither
    the directory nor a file in it can be swapped for a symlink under repair's feet.
    Where the platform has no dir_fd, each name is lstat-ed just before instead."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd

    @classmethod
    def open(cls, path: Path, parent: _Dir | None = None) -> _Dir:
        """`path` (a name in `parent`, when given); _Declined for a symlink."""
        info = parent.lstat(path.name) if parent is not None else os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            raise _Declined(f"{path} is a symlink")
        if not stat.S_ISDIR(info.st_mode):
            raise _Declined(f"{path} is not a directory")
        if not _DIR_FD:
            return cls(path, None)
        if parent is not None:
            fd = os.open(path.name, _DIRECTORY_FLAGS, dir_fd=parent.fd)
        else:
            fd = os.open(path, _DIRECTORY_FLAGS)
        opened = cls(path, fd)
        if not opened.is_at(info):
            opened.close()
            raise _Declined(f"{path} changed while repair opened it")
        return opened

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def is_at(self, info: os.stat_result) -> bool:
        """Whether this open directory is the one `info` (an lstat) describes."""
        if self.fd is None:
            return stat.S_ISDIR(info.st_mode)
        mine = os.fstat(self.fd)
        return (mine.st_dev, mine.st_ino) == (info.st_dev, info.st_ino)

    def lstat(self, name: str) -> os.stat_result:
        if self.fd is not None:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        return os.lstat(self.path / name)

    def refuse_symlink(self, name: str) -> None:
        """_Declined when `name` is a symlink (nothing when it is missing)."""
        try:
            info = self.lstat(name)
        except FileNotFoundError:
            return
        if stat.S_ISLNK(info.st_mode):
            raise _Declined(f"{self.path / name} is a symlink")

    def open_file(self, name: str, flags: int) -> int:
        """A regular file in this directory, never reached through a symlink."""
        if self.fd is not None:
            return open_regular(name, flags | _NOFOLLOW, FILE_MODE, dir_fd=self.fd)
        self.refuse_symlink(name)
        return open_regular(self.path / name, flags, FILE_MODE)

    def create_file(self, name: str, chunks: Iterator[bytes]) -> None:
        """A new file (never over an existing one, 0600, synced) holding `chunks`."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(
            name if self.fd is not None else self.path / name, flags, FILE_MODE, dir_fd=self.fd
        )
        try:
            try:
                for chunk in chunks:
                    write_all(fd, chunk)
                if hasattr(os, "fchmod"):
                    os.fchmod(fd, FILE_MODE)
                os.fsync(fd)
            finally:
                os.close(fd)
        except BaseException:
            self.remove(name)
            raise

    def rename(self, source: str, target: str) -> None:
        """Rename `source` over `target` (the entries themselves: a symlink is not followed)."""
        if self.fd is not None:
            os.replace(source, target, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        else:
            os.replace(self.path / source, self.path / target)

    def remove(self, name: str) -> None:
        """Remove a file repair itself created (a failed copy or temp file)."""
        with contextlib.suppress(OSError):
            if self.fd is not None:
                os.unlink(name, dir_fd=self.fd)
            else:
                os.unlink(self.path / name)

    def sync(self) -> None:
        if self.fd is not None:
            # some filesystems refuse to fsync a directory; the rename is done
            with contextlib.suppress(OSError):
                os.fsync(self.fd)


def _backup_name(name: str) -> str:
    return f"{name}{BACKUP_MARK}{datetime.now(UTC).strftime('%Y%m%dT%H%M%S.%fZ')}"


def _chunks_of(fd: int) -> Iterator[bytes]:
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        yield chunk
        offset += len(chunk)


def _repair_session(store: SessionStore, sid: str) -> list[Repair]:
    directory = store.session_dir(sid)
    repairs: list[Repair] = []
    place: _Dir | None = None
    try:
        place = _Dir.open(directory)
        place.refuse_symlink(LOCK_FILE)  # locking would follow it (check said so)
        with store.locked(sid):
            if not place.is_at(os.lstat(directory)):
                raise _Declined(f"{directory} was replaced while repair waited for its lock")
            findings = [f for f in _check_session(store, sid) if f.repairable]
            for finding in findings:
                if finding.kind == "temp-file":
                    repairs.append(_set_aside_temp_file(place, sid, Path(finding.path)))
            if any(f.kind == "torn-tail" for f in findings):
                repairs.extend(_cut_torn_tail(store, sid, place))
            if any(f.kind in _COUNTER_KINDS for f in findings):
                repairs.extend(_resync_metadata(sid, place))
    except _Declined as refusal:
        repairs.append(Repair(sid, str(directory), f"repair stopped: {refusal}"))
    except (OSError, StoreError) as error:
        reason = os_reason(error) if isinstance(error, OSError) else str(error)
        repairs.append(Repair(sid, str(directory), f"repair stopped: {reason}"))
    finally:
        if place is not None:
            place.close()
    return repairs


def _set_aside_temp_file(place: _Dir, sid: str, path: Path) -> Repair:
    """A leftover temp file renamed to a repair copy: nothing is deleted."""
    inner: list[_Dir] = []
    try:
        where = place
        if path.parent != place.path:  # checkpoints/blobs: each level opened in the last
            for name in (CHECKPOINTS_DIR, BLOBS_DIR):
                where = _Dir.open(where.path / name, where)
                inner.append(where)
        fd = where.open_file(path.name, os.O_RDONLY)  # a regular file, not through a symlink
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, FILE_MODE)
        finally:
            os.close(fd)
        backup = _backup_name(path.name)
        try:
            where.lstat(backup)
        except FileNotFoundError:
            where.rename(path.name, backup)
        else:
            raise _Declined(f"{where.path / backup} exists already")
        where.sync()
        return Repair(sid, str(path), "set a leftover temp file aside", str(where.path / backup))
    finally:
        for opened in inner:
            opened.close()


def _cut_torn_tail(store: SessionStore, sid: str, place: _Dir) -> list[Repair]:
    fd = place.open_file(EVENTS_FILE, os.O_RDWR)
    try:
        tail = store.read_log_tail(fd, sid)
        size = os.fstat(fd).st_size
        if tail.keep_length >= size:
            return []
        backup = _backup_name(EVENTS_FILE)
        place.create_file(backup, _chunks_of(fd))
        os.ftruncate(fd, tail.keep_length)
        os.fsync(fd)
    finally:
        os.close(fd)
    return [
        Repair(
            sid,
            str(place.path / EVENTS_FILE),
            f"cut a torn tail of {size - tail.keep_length} bytes",
            str(place.path / backup),
        )
    ]


def _read_in(place: _Dir, name: str) -> bytes:
    fd = place.open_file(name, os.O_RDONLY)
    try:
        return b"".join(_chunks_of(fd))
    finally:
        os.close(fd)


def _resync_metadata(sid: str, place: _Dir) -> list[Repair]:
    data = _read_in(place, METADATA_FILE)
    try:
        meta = Metadata.from_json(data)
    except GoJSONError:
        return []  # changed since the check: it is reported again, not rewritten
    log = _read_in(place, EVENTS_FILE)
    state = _parse_log(sid, place.path / EVENTS_FILE, log, lambda *args, **kwargs: None, False)
    if state.corrupt:
        return []  # a log that cannot be trusted does not set the counters
    events = state.events
    last_sequence = events[-1].sequence if events else 0
    last_type = events[-1].type if events else meta.last_event_type
    if meta.event_count == last_sequence and meta.last_event_type == last_type:
        return []
    backup = _backup_name(METADATA_FILE)
    place.create_file(backup, iter((data,)))
    fixed = dataclasses.replace(meta, event_count=last_sequence, last_event_type=last_type)
    # Zero's atomic replacement, inside the open directory: a temp file, then a rename
    temp = f".{METADATA_FILE}.{os.getpid()}-{secrets.token_hex(6)}.tmp"
    place.create_file(temp, iter((fixed.to_json_bytes(),)))
    try:
        place.refuse_symlink(METADATA_FILE)
        place.rename(temp, METADATA_FILE)
    except BaseException:
        place.remove(temp)
        raise
    place.sync()
    return [
        Repair(
            sid,
            str(place.path / METADATA_FILE),
            f"set eventCount {meta.event_count} -> {last_sequence}, lastEventType "
            f"{meta.last_event_type!r} -> {last_type!r} from the log",
            str(place.path / backup),
        )
    ]
