"""Resume-picker rows, preview text and the remembered first screen (no Textual, no Rich).

The time column follows Zero's Go picker (spec tui-behaviour §1.3): local time,
`HH:MM:SS` today, `Mon DD HH:MM` this year, `YYYY-MM-DD` before, padded to 12 columns.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path

from zero_tui.atomic import AtomicWriteError, write_atomic
from zero_tui.store.models import Event, Metadata
from zero_tui.transcript.sanitize import BIDI_CONTROLS, visible_codepoint

TIME_COLUMN_WIDTH = 12  # len("Jan 02 15:04")
UNTITLED = "untitled"

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# Go's time.Parse(time.RFC3339, ...): optional fractional seconds, `Z` or a numeric offset.
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))"
)


def parse_rfc3339(text: str) -> datetime | None:
    """Parse like Go's `time.Parse(time.RFC3339, text)`; None when Go would fail."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    fraction = match.group(7) or ""
    microsecond = int((fraction + "000000")[:6]) if fraction else 0
    if match.group(8):
        zone: tzinfo = UTC
    else:
        sign = -1 if match.group(9) == "-" else 1
        hours, minutes = int(match.group(10)), int(match.group(11))
        if hours > 23 or minutes > 59:
            return None
        zone = timezone(sign * timedelta(hours=hours, minutes=minutes))
    if hour > 23 or minute > 59 or second > 59:
        return None
    try:
        return datetime(year, month, day, hour, minute, second, microsecond, tzinfo=zone)
    except ValueError:
        return None


def to_local(moment: datetime, tz: tzinfo | None) -> datetime:
    """Convert to `tz`, or to the system's local zone (with its DST rules) when None."""
    return moment.astimezone(tz) if tz is not None else moment.astimezone()


def time_label(updated_at: str, now: datetime, tz: tzinfo | None = None) -> str | None:
    """The picker's time column, unpadded; None when `updated_at` is not RFC3339."""
    moment = parse_rfc3339(updated_at)
    if moment is None:
        return None
    local = to_local(moment, tz)
    local_now = to_local(now, tz)
    if local.year == local_now.year and local.timetuple().tm_yday == local_now.timetuple().tm_yday:
        return f"{local.hour:02d}:{local.minute:02d}:{local.second:02d}"
    if local.year == local_now.year:
        return f"{_MONTHS[local.month - 1]} {local.day:2d} {local.hour:02d}:{local.minute:02d}"
    return f"{local.year:04d}-{local.month:02d}-{local.day:02d}"


def display_title(title: str) -> str:
    """The title on one line: control characters become spaces; empty -> `untitled`."""
    flat = one_line(title)
    return flat if flat.strip() else UNTITLED


def one_line(text: str) -> str:
    """Replace every non-printable character (newlines, tabs, escapes) with a space; a bidi
    control is shown as `⟨U+202E⟩` (the sanitiser's rule)."""
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() else visible_codepoint(char) if char in BIDI_CONTROLS else " "
        for char in text
    )


def event_count_label(shown: int | None, in_log: int) -> str:
    """The one wording of a session's size, wherever it is shown (preview, header, exports).

    `shown`: the events of the compaction-aware view; `in_log`: the metadata's count of
    every event ever appended. `24 events` when they agree, `14 shown · 24 in the log` when
    a compaction folded some away, `24 in the log` when the view is not known (yet).
    """
    noun = "event" if in_log == 1 else "events"
    if shown is None:
        return f"{in_log:,} in the log"
    if shown == in_log:
        return f"{in_log:,} {noun}"
    return f"{shown:,} shown · {in_log:,} in the log"


def picker_label(updated_at: str, title: str, now: datetime, tz: tzinfo | None = None) -> str:
    """Go's row label: `<when padded to 12>  <title>`, or the bare title without a time."""
    when = time_label(updated_at, now, tz)
    shown_title = display_title(title)
    if when is None:
        return shown_title
    return f"{when:<{TIME_COLUMN_WIDTH}}  {shown_title}"


@dataclass(frozen=True, slots=True)
class PickerRow:
    """One session as the picker shows it. `label` is what ranking matches and highlights."""

    session_id: str
    label: str
    when: str
    title: str
    model: str
    provider: str
    event_count: int
    is_fork: bool
    workspace: str

    @property
    def title_offset(self) -> int:
        """Where the title starts inside `label` (after the time column and two spaces)."""
        return TIME_COLUMN_WIDTH + 2 if self.when else 0


def picker_row(
    meta: Metadata | CachedSession, now: datetime, tz: tzinfo | None = None
) -> PickerRow:
    when = time_label(meta.updated_at, now, tz) or ""
    title = display_title(meta.title)
    label = f"{when:<{TIME_COLUMN_WIDTH}}  {title}" if when else title
    return PickerRow(
        session_id=meta.session_id,
        label=label,
        when=when,
        title=title,
        model=one_line(meta.model_id.strip()),
        provider=one_line(meta.provider.strip()),
        event_count=meta.event_count,
        is_fork=meta.session_kind == "fork",
        workspace=one_line(meta.cwd),
    )


def picker_rows(
    metas: Iterable[Metadata | CachedSession], now: datetime, tz: tzinfo | None = None
) -> list[PickerRow]:
    return [picker_row(meta, now, tz) for meta in metas]


def middle_cut(text: str, width: int) -> str:
    """`text` in `width` characters, its middle replaced by `…` when it does not fit."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


def shorten_path(path: str, home: str, width: int) -> str:
    """`~` for the home directory; too long, the last folders kept whole: `…/src/project`.

    A last folder longer than the room is cut in its middle (`…/very-l…name` keeps both
    ends of a name, where its differences usually are).
    """
    if home and (path == home or path.startswith(home.rstrip("/") + "/")):
        path = "~" + path[len(home.rstrip("/")) :]
    if len(path) <= width:
        return path
    parts = [part for part in path.split("/") if part]
    if not parts:
        return middle_cut(path, width)
    kept = parts[-1]
    for part in reversed(parts[:-1]):
        if len(part) + 1 + len(kept) + 2 > width:
            break
        kept = part + "/" + kept
    if len(kept) + 2 <= width:
        return "…/" + kept
    return middle_cut(parts[-1], width)


def rescan_summary(before: Iterable[str], after: Iterable[str], store_total: int) -> str:
    """What a rescan (ctrl+r) found: `12 shown · 2 new · 1 gone · 340 in the store`."""
    old, new = set(before), set(after)
    parts = [f"{len(new):,} shown"]
    added, removed = len(new - old), len(old - new)
    if added or removed:
        if added:
            parts.append(f"{added:,} new")
        if removed:
            parts.append(f"{removed:,} gone")
    else:
        parts.append("no change")
    noun = "session" if store_total == 1 else "sessions"
    parts.append(f"{store_total:,} {noun} in the store")
    return " · ".join(parts)


# --- status line -------------------------------------------------------------------------


def status_text(
    *,
    shown: int,
    total_in_scope: int,
    query: str,
    all_workspaces: bool,
    include_empty: bool,
    other_workspace: int,
    empty_runs: int,
    not_resumable: int,
    unreadable: int = 0,
    loading: bool = False,
    scanned: tuple[int, int] | None = None,
    enclosing: Sequence[tuple[str, int]] = (),
) -> str:
    """The line that always says what the picker hides and why (design §3.2, §3.9).

    `enclosing`: folders above the workspace with sessions, named when none is shown here.
    """
    parts: list[str] = []
    if query:
        parts.append(f"{shown:,} of {total_in_scope:,} match")
    else:
        parts.append(f"{shown:,} shown")
    if all_workspaces:
        parts.append("all workspaces (Tab: this workspace)")
    elif other_workspace:
        parts.append(f"{other_workspace:,} in other workspaces (Tab: all)")
    if include_empty:
        parts.append("empty runs shown (ctrl+e: hide)")
    elif empty_runs:
        noun = "empty run" if empty_runs == 1 else "empty runs"
        parts.append(f"{empty_runs:,} {noun} (ctrl+e: show)")
    if not_resumable:
        noun = "sub-session" if not_resumable == 1 else "sub-sessions"
        parts.append(f"{not_resumable:,} {noun} not resumable")
    if unreadable:
        parts.append(f"{unreadable:,} unreadable (zero-tui check)")
    if enclosing and shown == 0 and not query and not all_workspaces:
        folders = ", ".join(f"{one_line(folder)} ({count})" for folder, count in enclosing)
        parts.insert(1, f"in enclosing folders: {folders} (alt+up: go there)")
    if loading:
        parts.append(scanning_text(scanned))
    return " · ".join(parts)


def scanning_text(scanned: tuple[int, int] | None) -> str:
    """What the status line says while the store is read: how far, when it is known."""
    if scanned is None:
        return "scanning…"
    done, total = scanned
    return f"scanning {done:,}/{total:,}…"


# --- preview -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PreviewExchange:
    role: str  # "user", "assistant", "tool" or "system"
    text: str


@dataclass(frozen=True, slots=True)
class PreviewData:
    session_id: str
    title: str
    workspace: str
    model: str
    provider: str
    created: str
    updated: str
    event_count: int
    kind: str
    exchanges: tuple[PreviewExchange, ...]
    error: str = ""
    shown_events: int | None = None  # the compaction-aware view's events, when read

    @property
    def events_label(self) -> str:
        return event_count_label(self.shown_events, self.event_count)


def clean_text(text: str) -> str:
    """Multi-line text with control characters removed (tabs become spaces)."""
    text = text.replace("\r\n", "\n").replace("\t", "    ")
    if all(char.isprintable() or char == "\n" for char in text):
        return text
    return "".join(
        char if char.isprintable() or char == "\n" else visible_codepoint(char)
        for char in text
        if char.isprintable() or char == "\n" or char in BIDI_CONTROLS
    )


def _message_exchange(payload: object) -> PreviewExchange | None:
    if not isinstance(payload, dict):
        return None
    role = payload.get("role")
    content = payload.get("displayContent") or payload.get("content")
    if not isinstance(content, str) or not content.strip():
        return None
    role_name = role.lower() if isinstance(role, str) else "assistant"
    if role_name == "user":
        return PreviewExchange("user", clean_text(content.strip()))
    if role_name in ("assistant", ""):
        return PreviewExchange("assistant", clean_text(content.strip()))
    return PreviewExchange("system", clean_text(content.strip()))


def _tool_exchange(payload: object) -> PreviewExchange | None:
    if not isinstance(payload, dict):
        return None
    name = payload.get("name")
    return PreviewExchange("tool", f"tool call: {one_line(name) if isinstance(name, str) else '?'}")


def preview_exchanges(events: Sequence[Event], limit: int = 8) -> list[PreviewExchange]:
    """The last `limit` user/assistant messages and tool calls, oldest first."""
    found: list[PreviewExchange] = []
    for event in reversed(events):
        exchange: PreviewExchange | None = None
        if event.type == "message":
            exchange = _message_exchange(event.payload)
        elif event.type == "tool_call":
            exchange = _tool_exchange(event.payload)
        if exchange is not None:
            found.append(exchange)
            if len(found) >= limit:
                break
    found.reverse()
    return found


def format_timestamp(value: str, tz: tzinfo | None = None) -> str:
    """`2026-07-04 12:00:00` in local time, or the raw value when it does not parse."""
    moment = parse_rfc3339(value)
    if moment is None:
        return one_line(value)
    return to_local(moment, tz).strftime("%Y-%m-%d %H:%M:%S")


def build_preview(
    meta: Metadata,
    events: Sequence[Event],
    *,
    tz: tzinfo | None = None,
    error: str = "",
    limit: int = 8,
    shown_events: int | None = None,
) -> PreviewData:
    """The preview of `meta` from its (compaction-aware) `events`; `shown_events` defaults
    to their number."""
    return PreviewData(
        session_id=meta.session_id,
        title=display_title(meta.title),
        workspace=one_line(meta.cwd),
        model=one_line(meta.model_id),
        provider=one_line(meta.provider),
        created=format_timestamp(meta.created_at, tz),
        updated=format_timestamp(meta.updated_at, tz),
        event_count=meta.event_count,
        kind=one_line(meta.session_kind),
        exchanges=tuple(preview_exchanges(events, limit)),
        error=one_line(error),
        shown_events=len(events) if shown_events is None else shown_events,
    )


def missing_preview(session_id: str, error: str) -> PreviewData:
    """The preview of a session whose metadata cannot be read."""
    return PreviewData(
        session_id=session_id,
        title=one_line(session_id),
        workspace="",
        model="",
        provider="",
        created="",
        updated="",
        event_count=0,
        kind="",
        exchanges=(),
        error=one_line(error),
    )


# --- the picker's first screen, remembered between runs ----------------------------------
#
# The catalog has to load every session before it can answer; a picker only needs its first
# screenful to paint. This small file keeps, per store and workspace, the first rows of each
# scope and the scope's counts as the last completed scan saw them. It is derived data: it is
# shown only until the revalidating scan of the store replaces it, and a bad file is ignored.

HEAD_ROWS = 120
HEAD_VERSION = 1


@dataclass(frozen=True, slots=True)
class CachedSession:
    """The `Metadata` fields a picker row needs, as the remembered head keeps them."""

    session_id: str
    title: str
    cwd: str
    model_id: str
    provider: str
    session_kind: str
    created_at: str
    updated_at: str
    event_count: int

    @classmethod
    def of(cls, meta: Metadata) -> CachedSession:
        return cls(
            meta.session_id,
            meta.title,
            meta.cwd,
            meta.model_id,
            meta.provider,
            meta.session_kind,
            meta.created_at,
            meta.updated_at,
            meta.event_count,
        )


@dataclass(frozen=True, slots=True)
class ScopeHead:
    """The first rows of one picker scope and what the scope hid, from the last scan."""

    sessions: tuple[CachedSession, ...]
    other_workspace: int
    empty_runs: int
    not_resumable: int
    store_total: int


def head_path(cache_dir: Path, store_root: Path, workspace: str) -> Path:
    identity = os.fsencode(os.path.abspath(store_root)) + b"\0" + os.fsencode(workspace)
    return cache_dir / f"picker-head-{hashlib.sha256(identity).hexdigest()[:20]}.json"


def _scope_name(all_workspaces: bool, include_empty: bool) -> str:
    return f"{int(all_workspaces)}{int(include_empty)}"


def load_head(path: Path, store_root: Path, workspace: str) -> dict[tuple[bool, bool], ScopeHead]:
    """The remembered scopes; empty when the file is missing, foreign or damaged."""
    try:
        document = json.loads(path.read_bytes())
        if (
            document.get("version") != HEAD_VERSION
            or document.get("root") != str(store_root)
            or document.get("workspace") != workspace
        ):
            return {}
        heads: dict[tuple[bool, bool], ScopeHead] = {}
        for all_workspaces in (False, True):
            for include_empty in (False, True):
                scope = document["scopes"].get(_scope_name(all_workspaces, include_empty))
                if scope is None:
                    continue
                sessions = tuple(
                    CachedSession(
                        str(s[0]),
                        str(s[1]),
                        str(s[2]),
                        str(s[3]),
                        str(s[4]),
                        str(s[5]),
                        str(s[6]),
                        str(s[7]),
                        int(s[8]),
                    )
                    for s in scope["sessions"]
                )
                heads[(all_workspaces, include_empty)] = ScopeHead(
                    sessions,
                    int(scope["otherWorkspace"]),
                    int(scope["emptyRuns"]),
                    int(scope["notResumable"]),
                    int(scope["storeTotal"]),
                )
        return heads
    except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError):
        return {}


def save_head(
    path: Path, store_root: Path, workspace: str, heads: dict[tuple[bool, bool], ScopeHead]
) -> None:
    """Write atomically; a cache that cannot be written is skipped."""
    document = {
        "version": HEAD_VERSION,
        "root": str(store_root),
        "workspace": workspace,
        "scopes": {
            _scope_name(*key): {
                "sessions": [
                    [
                        s.session_id,
                        s.title,
                        s.cwd,
                        s.model_id,
                        s.provider,
                        s.session_kind,
                        s.created_at,
                        s.updated_at,
                        s.event_count,
                    ]
                    for s in head.sessions
                ],
                "otherWorkspace": head.other_workspace,
                "emptyRuns": head.empty_runs,
                "notResumable": head.not_resumable,
                "storeTotal": head.store_total,
            }
            for key, head in heads.items()
        },
    }
    data = json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogateescape")
    with contextlib.suppress(OSError, AtomicWriteError):
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomic(str(path), data, durable=False)  # a cache: the next scan rewrites it
