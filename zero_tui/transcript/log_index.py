"""Line offsets of one `events.jsonl`, so a huge session is decoded only where it is shown.

The index holds two integers per accepted line (byte start and end) and the line's number;
events are decoded on demand with the store's `decode_line`. It follows the reader rules of
store-format §5.2 (blank pieces skipped, torn tail dropped) and §9 (readers never lock; the
log grows by appends and is replaced, never edited, by a rewind). It finds the latest
compaction with a reverse byte search and rehydrates by id/sequence read from each line's
head, so only the compaction's own payload is decoded.

No Textual or Rich import: this module runs in thread workers and in plain scripts.
"""

from __future__ import annotations

import enum
import json
import mmap
import os
import re
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import add
from pathlib import Path

from zero_tui.store import Event, StoreError
from zero_tui.store.events import decode_line, decode_line_of_types, rehydrate
from zero_tui.store.gotext import trim_space_bytes
from zero_tui.store.store import missing_log_notice, open_regular, os_reason
from zero_tui.transcript.collapse import visible_row_indices
from zero_tui.transcript.log_facts import LogFacts, event_links
from zero_tui.transcript.row_model import Row
from zero_tui.transcript.rows import RowBuilder

_SCAN_CHUNK = 8 * 1024 * 1024  # bytes read at once for the heads of lines
_SCAN_WINDOW = 4 * 1024 * 1024
TAIL_BYTES = 2 * 1024 * 1024
"""What `open_tail` reads: the latest events of a huge log, for a first screen."""
_COMPACTION_NEEDLE = b'"session_compaction"'
# The head of a line as Zero's encoder writes it; other spellings are decoded in full.
_HEADER = re.compile(
    rb'[ \t]*\{"id":"((?:[^"\\]|\\.)*)","sessionId":"(?:[^"\\]|\\.)*",'
    rb'"sequence":(-?[0-9]+),"type":"((?:[^"\\]|\\.)*)"'
)
_HEADER_WINDOW = 4096
_OPENING_BYTES = frozenset(b"{n")  # a piece starting so is not blank
_NEWLINE = re.compile(b"\n")
_SHORT_LINE = 200  # bytes: below this on average, `finditer` finds newlines faster than `find`


class LogChange(enum.Enum):
    """What happened to the log file since the index last looked."""

    UNCHANGED = "unchanged"
    GROWN = "grown"
    REPLACED = "replaced"  # shrunk, new inode, or vanished: the index must be rebuilt


@dataclass(frozen=True, slots=True)
class Refresh:
    """The result of `LogIndex.refresh`.

    `first_changed` is the first line index whose content is new or different; lines before
    it are untouched. It equals the old line count unless a provisional last line was
    replaced.
    """

    change: LogChange
    first_changed: int


def _content(piece: bytes) -> bytes:
    """A piece trimmed with Go's TrimSpace (skipped when it plainly starts and ends a value)."""
    if piece and piece[0] in b"{n" and piece[-1] in b"}l":
        return piece
    return trim_space_bytes(piece)


def _newline_offsets(data: mmap.mmap, start: int, end: int) -> array[int]:
    """The offsets of the newlines in data[start:end]."""
    offsets = array("q")
    append, find = offsets.append, data.find
    newline = find(b"\n", start, end)
    while newline >= 0:
        append(newline)
        newline = find(b"\n", newline + 1, end)
    return offsets


def _file_identity(stat: os.stat_result) -> tuple[int, int]:
    return (stat.st_dev, stat.st_ino)


class LogIndex:
    """Byte offsets of the accepted lines of one session's event log.

    Create it with `LogIndex.open`. Reading methods may be called from any thread;
    `refresh` may run in a worker while the UI reads (a lock guards the arrays).
    """

    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        self.session_id = session_id
        self._starts = array("q")
        self._ends = array("q")
        self._line_numbers = array("q")
        self._pieces_seen = 0  # pieces (lines, blank ones too) before `_complete_end`
        self._complete_end = 0  # byte offset just after the last final line's newline
        self._provisional = False  # the last accepted line may still change (no newline yet)
        self._size = 0
        self._identity: tuple[int, int] | None = None
        self._fd: int | None = None
        self._lock = threading.RLock()
        self.is_partial = False  # True for `open_tail` of a log longer than the window
        self.missing = False  # True when there was no file to open (read as an empty log)

    # -- building ---------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike[str], session_id: str) -> LogIndex:
        """Index the log at `path` (a missing file is an empty log, as in `ReadEvents`)."""
        return cls._open(path, session_id, tail_bytes=None)

    @classmethod
    def open_tail(
        cls, path: str | os.PathLike[str], session_id: str, tail_bytes: int | None = None
    ) -> LogIndex:
        """Index only the lines that start in the last `tail_bytes` (default `TAIL_BYTES`).

        A fast first look at a huge log (its latest events); `is_partial` tells whether
        earlier lines were left out. Line numbers then count from the first indexed line,
        and `refresh` must not be used: open the whole log for that.
        """
        return cls._open(path, session_id, tail_bytes=tail_bytes or TAIL_BYTES)

    @classmethod
    def _open(
        cls, path: str | os.PathLike[str], session_id: str, *, tail_bytes: int | None
    ) -> LogIndex:
        index = cls(Path(path), session_id)
        try:
            fd = open_regular(index.path)
        except FileNotFoundError:
            index.missing = True
            return index
        except OSError as error:
            raise StoreError(f"read zero session events: {os_reason(error)}") from None
        index._fd = fd
        stat = os.fstat(fd)
        index._identity = _file_identity(stat)
        index._size = stat.st_size
        if tail_bytes is not None and index._size > tail_bytes:
            window_start = index._size - tail_bytes
            newline = index._read(window_start, tail_bytes).find(b"\n")
            if newline >= 0:
                index._complete_end = window_start + newline + 1
                index.is_partial = True
        index._scan_from_complete_end()
        return index

    def close(self) -> None:
        """Release the file descriptor."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> LogIndex:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _read(self, offset: int, length: int) -> bytes:
        if self._fd is None or length <= 0:
            return b""
        return os.pread(self._fd, length, offset)

    def _mapped(self) -> mmap.mmap | None:
        """The file as indexed so far, mapped read-only (no copy), or None when empty."""
        if self._fd is None or self._size == 0:
            return None
        # a file that shrank since it was measured is being replaced: map what is left
        self._size = min(self._size, os.fstat(self._fd).st_size)
        if self._size == 0:
            return None
        return mmap.mmap(self._fd, self._size, access=mmap.ACCESS_READ)

    def _scan_from_complete_end(self) -> None:
        """Index every piece from `_complete_end` to `_size`, then apply the torn-tail rule."""
        mapped = self._mapped() if self._complete_end < self._size else None
        if mapped is not None:
            with mapped:
                self._index_newlines(mapped)
        self._apply_torn_tail_rule()

    def _index_newlines(self, data: mmap.mmap) -> None:
        """Record each newline-terminated piece after `_complete_end`, skipping blank ones.

        A window at a time, so that a UI thread waiting for the GIL gets it between windows.
        Zero's lines are long (hundreds of bytes and more): `find` (memchr) jumps from one
        newline to the next fastest. After a window of short lines (hostile input), the next
        is scanned by `finditer`, whose cost per line is lower.
        """
        start = self._complete_end
        window = start
        short_lines = False
        while window < len(data):
            window_end = min(len(data), window + _SCAN_WINDOW)
            if short_lines:
                line_ends = array(
                    "q", map(re.Match.start, _NEWLINE.finditer(data, window, window_end))
                )
            else:
                line_ends = _newline_offsets(data, window, window_end)
            short_lines = len(line_ends) * _SHORT_LINE > window_end - window
            window = window_end
            if line_ends:
                self._index_pieces(data, start, line_ends)
                start = line_ends[-1] + 1
        self._complete_end = start

    def _index_pieces(self, data: mmap.mmap, start: int, line_ends: array[int]) -> None:
        """Record the pieces from `start` up to each of `line_ends` (newline offsets)."""
        starts = array("q", [start])
        starts.extend(map(add, line_ends[:-1], repeat(1)))
        first_number = self._pieces_seen + 1
        self._pieces_seen += len(line_ends)
        if set(map(data.__getitem__, starts)) <= _OPENING_BYTES:
            # the usual case: every piece starts a JSON value, so none is blank
            self._starts.extend(starts)
            self._ends.extend(line_ends)
            self._line_numbers.extend(range(first_number, first_number + len(line_ends)))
            return
        for offset, (piece_start, piece_end) in enumerate(zip(starts, line_ends, strict=True)):
            if piece_end > piece_start and (
                data[piece_start] in _OPENING_BYTES or trim_space_bytes(data[piece_start:piece_end])
            ):
                self._starts.append(piece_start)
                self._ends.append(piece_end)
                self._line_numbers.append(first_number + offset)

    def _apply_torn_tail_rule(self) -> None:
        """store-format §5.2 steps 2 and 5: a file not ending in `\\n` may end in a torn line."""
        self._provisional = False
        if self._complete_end >= self._size:
            return  # ends with "\n": every piece is a line, corrupt or not
        tail_start = self._complete_end
        tail = self._read(tail_start, self._size - tail_start)
        if trim_space_bytes(tail):
            candidate = (tail, self._pieces_seen + 1)
            if self._decodes(*candidate):
                self._starts.append(tail_start)
                self._ends.append(self._size)
                self._line_numbers.append(self._pieces_seen + 1)
                self._provisional = True
            return
        # Only whitespace after the last newline: the last non-empty line is the candidate.
        if not self._starts:
            return
        last = len(self._starts) - 1
        line = self._read(self._starts[last], self._ends[last] - self._starts[last])
        if not self._decodes(line, self._line_numbers[last]):
            self._complete_end = self._starts[last]
            self._pieces_seen = self._line_numbers[last] - 1
            del self._starts[last], self._ends[last], self._line_numbers[last]

    def _decodes(self, piece: bytes, line_number: int) -> bool:
        try:
            decode_line(_content(piece), self.session_id, line_number)
        except StoreError:
            return False
        return True

    # -- reading ----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._starts)

    @property
    def size(self) -> int:
        """The file size the index reflects."""
        return self._size

    @property
    def has_provisional_tail(self) -> bool:
        """True when the last line has no newline yet (a writer may still be adding to it)."""
        return self._provisional

    def line_bytes(self, index: int) -> bytes:
        """Accepted line `index`, trimmed as the reader trims it (no newline)."""
        with self._lock:
            start, end = self._starts[index], self._ends[index]
            return _content(self._read(start, end - start))

    def line_number(self, index: int) -> int:
        """The 1-based line number of accepted line `index` in the file (blank lines count)."""
        return self._line_numbers[index]

    def decode(self, index: int) -> Event:
        """Decode accepted line `index` (StoreError naming the file and line when corrupt)."""
        with self._lock:
            start, end = self._starts[index], self._ends[index]
            line = _content(self._read(start, end - start))
            number = self._line_numbers[index]
        return decode_line(line, self.session_id, number)

    def iter_decoded(
        self, order: Sequence[int], types: Container[str] | None = None
    ) -> Iterator[Event]:
        """Decode the lines at `order`, one at a time, reading the file in large windows.

        For streaming a whole session (show, exports): nothing but the current window and
        event is held, so memory stays flat whatever the log's length. A corrupt line
        raises StoreError naming its line, as `read_events` does. With `types`, only events
        of those types are given; the other lines are still read, and raise alike.
        """
        if types is not None:
            yield from self._decoded_of_types(self._pieces(order), types)
            return
        for buffer, start, end, number in self._spans(order):
            yield decode_line(_content(buffer[start:end]), self.session_id, number)

    def _spans(self, order: Iterable[int]) -> Iterator[tuple[bytes, int, int, int]]:
        """Each line at `order` as a span of a window of the file read at once: (window,
        start, end, line number). Lines in the order of the file are read fastest."""
        buffer = b""
        base = 0
        starts, ends, numbers = self._starts, self._ends, self._line_numbers
        for line in order:
            start, end = starts[line], ends[line]
            if start < base or end > base + len(buffer):
                base = start
                buffer = self._read(base, max(_SCAN_CHUNK, end - start))
            yield buffer, start - base, end - base, numbers[line]

    def _decoded_of_types(
        self, pieces: Iterable[tuple[bytes, int]], types: Container[str]
    ) -> Iterator[Event]:
        session_id = self.session_id
        for piece, number in pieces:
            event = decode_line_of_types(piece, session_id, number, types)
            if event is not None:
                yield event

    def _pieces(self, lines: Iterable[int]) -> Iterator[tuple[bytes, int]]:
        """Each of the lines, trimmed, with its line number."""
        for buffer, start, end, number in self._spans(lines):
            yield _content(buffer[start:end]), number

    def line_at_offset(self, offset: int) -> int | None:
        """The accepted line holding byte `offset`, if any."""
        line = bisect_right(self._starts, offset) - 1
        if line < 0 or offset >= self._ends[line]:
            return None
        return line

    # -- following a live log ----------------------------------------------------------

    def check(self) -> LogChange:
        """Compare the file on disk with the index, without changing anything."""
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return LogChange.UNCHANGED if self._identity is None else LogChange.REPLACED
        if _file_identity(stat) != self._identity or stat.st_size < self._size:
            return LogChange.REPLACED
        if stat.st_size > self._size:
            return LogChange.GROWN
        return LogChange.UNCHANGED

    def refresh(self) -> Refresh:
        """Index lines appended since the last look. On `REPLACED`, open a new index."""
        change = self.check()
        if change is not LogChange.GROWN:
            return Refresh(change, len(self))
        with self._lock:
            first_changed = len(self._starts)
            if self._provisional:
                last = len(self._starts) - 1
                del self._starts[last], self._ends[last], self._line_numbers[last]
                first_changed = last
            if self._fd is None:
                return Refresh(LogChange.REPLACED, first_changed)
            self._size = os.fstat(self._fd).st_size
            self._scan_from_complete_end()
        return Refresh(LogChange.GROWN, first_changed)

    # -- rehydration ------------------------------------------------------------------

    def find_last_compaction(self) -> int | None:
        """The line index of the last `session_compaction` event, by a reverse byte search."""
        mapped = self._mapped() if self._starts else None
        if mapped is None:
            return None
        with mapped:
            search_start, search_end = self._starts[0], self._ends[-1]
            while search_end > search_start:
                # a window at a time, so a waiting UI thread gets the GIL in between
                window_start = max(search_start, search_end - _SCAN_WINDOW)
                offset = mapped.rfind(_COMPACTION_NEEDLE, window_start, search_end)
                if offset < 0:
                    if window_start == search_start:
                        return None
                    search_end = window_start + len(_COMPACTION_NEEDLE) - 1
                    continue
                line = self.line_at_offset(offset)
                if line is None:
                    search_end = offset + len(_COMPACTION_NEEDLE) - 1
                    continue
                if self._is_compaction(line):
                    return line
                search_end = self._starts[line]
        return None

    def has_compaction_from(self, first: int) -> bool:
        """Whether a line from `first` on is a `session_compaction` (it changes what the
        rehydrated view keeps, so the log must be read again)."""
        return any(
            _COMPACTION_NEEDLE in self.line_bytes(line) and self._is_compaction(line)
            for line in range(max(first, 0), len(self))
        )

    def _is_compaction(self, line: int) -> bool:
        try:
            return self.decode(line).type == "session_compaction"
        except StoreError:
            return False  # a corrupt line is shown as such; it is not a compaction

    def _line_heads(self) -> Iterator[tuple[int, re.Match[bytes] | None]]:
        """Each accepted line index with the match of its head, read in large chunks."""
        buffer = b""
        base = 0
        for line in range(len(self._starts)):
            start = self._starts[line]
            needed = min(self._ends[line], start + _HEADER_WINDOW)
            if start < base or needed > base + len(buffer):
                base = start
                buffer = self._read(base, max(_SCAN_CHUNK, needed - base))
            yield line, _HEADER.match(buffer, start - base, needed - base)

    def _light_event(self, line: int, head: re.Match[bytes] | None) -> Event:
        """An event with id, sequence and type only (the payload is not read)."""
        if head is None:
            full = self.decode(line)
            return Event(full.id, full.session_id, full.sequence, full.type, "", None)
        raw_id, raw_sequence, raw_type = head.group(1), head.group(2), head.group(3)
        event_id = json.loads(b'"' + raw_id + b'"') if b"\\" in raw_id else raw_id.decode()
        event_type = json.loads(b'"' + raw_type + b'"') if b"\\" in raw_type else raw_type.decode()
        return Event(event_id, self.session_id, int(raw_sequence), event_type, "", None)

    def position_of_sequence(self, order: Sequence[int], sequence: int) -> int | None:
        """The position in `order` of the first line whose event has `sequence` (read from
        the heads of the lines, a chunk at a time); None when no line in `order` has it."""
        wanted = str(sequence).encode()
        for line, head in self._line_heads():
            found = head.group(2) == wanted if head is not None else None
            if found is None:
                try:
                    found = self.decode(line).sequence == sequence
                except StoreError:
                    found = False
            if found:
                if isinstance(order, range):
                    return line if line in order else None
                try:
                    return list(order).index(line)
                except ValueError:
                    return None
        return None

    def rehydrated_order(self) -> Sequence[int]:
        """Line indices in the order of `SessionStore.read_rehydrated_events` (§10.4).

        Raises StoreError when the latest compaction cannot be applied (the caller then
        shows the raw log) or when a line needed to apply it is corrupt.
        """
        compaction = self.find_last_compaction()
        if compaction is None:
            return range(len(self))
        light = [
            self.decode(line) if line == compaction else self._light_event(line, head)
            for line, head in self._line_heads()
        ]
        position = {id(event): line for line, event in enumerate(light)}
        return array("q", (position[id(event)] for event in rehydrate(light)))


# -- rows for a window of the log ------------------------------------------------------

CHUNK_EVENTS = 64
"""Events per chunk: rows are built and rendered a chunk at a time."""
CONTEXT_EVENTS = 16
"""Without `LogFacts`: events decoded on each side of a chunk so that a tool call and its
result, or a specialist's start and stop, close together fold across a chunk boundary."""


def unreadable_event(error: Exception) -> Event:
    """An `error` event standing in for a line that cannot be decoded (shown, not fatal)."""
    payload = json.dumps({"message": f"unreadable event: {error}"}).encode()
    return Event(type="error", payload_raw=payload)


def decode_positions(index: LogIndex, order: Sequence[int], start: int, end: int) -> list[Event]:
    """Events at `order[start:end]`; a corrupt or vanished line becomes an error event."""
    events: list[Event] = []
    for position in range(start, end):
        try:
            events.append(index.decode(order[position]))
        except (StoreError, IndexError) as error:
            events.append(unreadable_event(error))
    return events


def index_facts(
    index: LogIndex,
    order: Sequence[int],
    facts: LogFacts | None = None,
    *,
    cancelled: Callable[[], bool] = lambda: False,
) -> LogFacts | None:
    """The whole-log facts of the events at `order` (`LogFacts`), for the chunk builder.

    Decodes every event once, so run it in the indexing worker. Given `facts` of a shorter
    order (the log grew), only the new positions are read and `facts` is extended in place.
    None when cancelled.
    """
    facts = facts if facts is not None else LogFacts()
    lines = (order[position] for position in range(facts.length, len(order)))
    return extend_facts(index, lines, facts, cancelled=cancelled)


def extend_facts(
    index: LogIndex,
    lines: Iterable[int],
    facts: LogFacts,
    *,
    cancelled: Callable[[], bool] = lambda: False,
) -> LogFacts | None:
    """Add the events of `lines` (line indices) at the positions after `facts.length`."""
    for count, line in enumerate(lines):
        if count % CHUNK_EVENTS == 0 and cancelled():
            return None
        try:
            event = index.decode(line)
        except (StoreError, IndexError) as error:
            facts.note_unreadable(str(error))
            event = unreadable_event(error)
        facts.add(event)
    return facts


def chunk_rows(
    index: LogIndex,
    order: Sequence[int],
    start: int,
    end: int,
    facts: LogFacts | None = None,
) -> list[tuple[int, Row]]:
    """The displayed rows (after §6.3's collapse) of the events at positions [start, end).

    Each row comes with the order position of its source event. With the log's `facts`,
    the shared `RowBuilder` is fed the window's events and every event linked to them
    anywhere in the log, starting from the turn and specialist calls before the window:
    the rows are exactly those of a build of the whole log. Without them, it is fed a
    little context on both sides of the window (a first look, before the facts are in).
    """
    end = min(end, len(order))
    if facts is not None:
        return _chunk_rows_with_facts(index, order, start, end, facts)
    low = max(0, start - CONTEXT_EVENTS)
    high = min(len(order), end + CONTEXT_EVENTS)
    builder = RowBuilder()
    builder.add_events(decode_positions(index, order, low, high))
    rows = builder.rows
    shown: list[tuple[int, Row]] = []
    for row_index in visible_row_indices(rows):
        position = low + rows[row_index].order
        if start <= position < end:
            shown.append((position, rows[row_index]))
    return shown


def log_problems(index: LogIndex, facts: LogFacts | None) -> list[str]:
    """What is wrong with a log, for the resume card: missing, or lines that cannot be read."""
    if index.missing:
        return [missing_log_notice(index.session_id)]
    if facts is None or not facts.unreadable:
        return []
    noun = "line" if facts.unreadable == 1 else "lines"
    first = facts.unreadable_reasons[0] if facts.unreadable_reasons else ""
    return [f"{facts.unreadable} unreadable {noun}, shown as errors; the first: {first}"]


def _chunk_rows_with_facts(
    index: LogIndex, order: Sequence[int], start: int, end: int, facts: LogFacts
) -> list[tuple[int, Row]]:
    events = decode_positions(index, order, start, end)
    links = {link for event in events for link in event_links(event)}
    known = min(len(order), facts.length)  # the facts may already cover a grown log
    outside = sorted(
        position
        for position in facts.linked_positions(links)
        if position < known and not start <= position < end
    )
    fed = [(position, _decode_position(index, order, position)) for position in outside]
    fed += zip(range(start, end), events, strict=True)
    fed.sort(key=_position_key)
    # (linked events are never user messages nor calls without an id: neither count is off)
    builder = RowBuilder(
        specialist_call_ids=facts.specialist_call_ids,
        turn=facts.turn_before(start),
        unnamed_calls=facts.unnamed_calls_before(start),
    )
    for position, event in fed:
        builder.add(event, position)
    rows = builder.rows
    return [
        (rows[row_index].order, rows[row_index])
        for row_index in visible_row_indices(rows)
        if start <= rows[row_index].order < end
    ]


def _position_key(item: tuple[int, Event]) -> int:
    return item[0]


def _decode_position(index: LogIndex, order: Sequence[int], position: int) -> Event:
    return decode_positions(index, order, position, position + 1)[0]


def row_search_text(row: Row) -> str:
    """Everything a reader sees of a row, to search in."""
    parts = [row.text, row.detail]
    info = row.tool_info
    if info is not None:
        parts += [info.target, info.secondary, info.output, *info.changed_files]
    return "\n".join(part for part in parts if part)


def matching_positions(
    index: LogIndex,
    order: Sequence[int],
    query: str,
    *,
    facts: LogFacts | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> list[int] | None:
    """The order positions of every displayed row whose text contains `query`, ascending.

    Case-insensitive. Rows are built a chunk at a time, so this reads the whole log: run it
    in a worker and pass `cancelled` (None when cancelled).
    """
    needle = query.casefold()
    if not needle:
        return []
    found: list[int] = []
    for start in range(0, len(order), CHUNK_EVENTS):
        if cancelled():
            return None
        for position, row in chunk_rows(index, order, start, start + CHUNK_EVENTS, facts):
            if needle in row_search_text(row).casefold():
                found.append(position)
    return found


@dataclass(frozen=True, slots=True)
class Match:
    """One match of a find: its position, its number (1-based) among `total`, and whether
    getting there went past the end (or the start, backwards) and around."""

    position: int
    number: int
    total: int
    wrapped: bool


def next_match(matches: Sequence[int], after: int, *, backwards: bool = False) -> Match | None:
    """The match after (or before) position `after` among ascending `matches`, wrapping."""
    if not matches:
        return None
    if backwards:
        slot = bisect_left(matches, after) - 1
        wrapped = slot < 0
        slot %= len(matches)
    else:
        slot = bisect_right(matches, after)
        wrapped = slot >= len(matches)
        slot = 0 if wrapped else slot
    return Match(matches[slot], slot + 1, len(matches), wrapped)
