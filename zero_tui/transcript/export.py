"""Transcript exports: txt (Zero's format), md, json and html (design §3.6, tui-behaviour §5).

The pure API the app calls from a worker, and `zero-tui export` calls directly:

* `resolve_export_path(arg, fmt, workspace, now) -> (path, fmt)` — where the file goes and
  in which format (default name `zero-transcript-YYYYMMDD-HHMMSS.<ext>` in local time; a
  relative path is joined onto the workspace, `~` expanded; the extension picks the format
  when none is given: none means txt, an unknown one is an ExportFormatError);
* `render_export(meta, events, fmt) -> bytes` (and `iter_export`, the same bytes in chunks);
* `export_session(store, session_id, *, fmt, path, workspace, now) -> ExportResult` — reads
  the session's rehydrated events (the raw ones, with a notice, when the latest compaction
  cannot be used: the same fallback as the transcript), renders and writes atomically
  (`zero_tui.atomic`). Raises StoreError (unknown session, unreadable log) or
  AtomicWriteError (`failed to write <path>: <reason>`).

Formats:

* txt — Zero's /export: the resume card, then the user, assistant, system and error rows as
  `you: ` / `zero: ` / `· ` / `error: ` blocks, each `prefix + text + "\\n\\n"` with the
  text's trailing newlines removed and whitespace-only rows skipped. Unlike Zero, no
  internal card marker (a NUL) is written.
* md — a document: the session's facts, one section per turn, tool calls and their output
  in `<details>` blocks (as Zero's tool cards show them: not the result's internal `meta`),
  fenced code kept, the compaction summary marked as such.
* json — the events as `zero-tui show --json` prints them (an indented JSON array of
  `{id, sessionId, sequence, type, createdAt, payload}`), written one event at a time.
* html — one self-contained page (`zero_tui.transcript.export_html`).

Redacted (`redact=True`, `zero-tui export --redact`): every event's payload and the
session's metadata pass through a `Redactor` (`zero_tui.transcript.redaction`: Zero's rules,
and the home folder as `~`) before they are rendered, and the export says at its top how
many values it masked: txt in a first `· redacted: …` block, md and html in a note under
the title, json as an object `{"redaction": {"masked", "secrets", "homePaths"}, "events":
[…]}` in place of the bare array (its events are streamed through a spooled file, since the
count is known only once they are all read).

Session text is data: control characters (escape sequences included) never reach an
export — they are removed from txt/md/html and escaped in json — and nothing in the text
can open markup: md escapes HTML outside code and fences tool output, html escapes all.
No Textual or Rich import here.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial
from html import escape as _html_escape
from typing import Any, BinaryIO, assert_never

from zero_tui.atomic import AtomicWriteError, DestinationExists, write_destination
from zero_tui.store import Event, Metadata, SessionStore, StoreError, gojson
from zero_tui.store.events import rehydrate
from zero_tui.store.gojson import GoJSONError, JSONNumber
from zero_tui.store.gotext import clean_path, decode_utf8, trim_space
from zero_tui.text.sanitize import escape_json_controls, sanitize_line, sanitize_text
from zero_tui.transcript.cards import resume_card
from zero_tui.transcript.collapse import collapse_for_display
from zero_tui.transcript.export_formats import ExportFormat, format_for_path, parse_format
from zero_tui.transcript.export_html import html_pieces
from zero_tui.transcript.export_parts import session_facts, tool_view, turn_excerpt
from zero_tui.transcript.log_index import LogIndex
from zero_tui.transcript.redaction import RedactionCount, Redactor
from zero_tui.transcript.row_model import Row, RowKind
from zero_tui.transcript.rows import RowBuilder

_WINDOWS = os.name == "nt"
CHUNK_CHARS = 1 << 20
DEFAULT_NAME_PREFIX = "zero-transcript-"


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What `export_session` wrote: the final path, the format, and the fallback notice."""

    path: str
    fmt: ExportFormat
    notice: str | None
    size: int
    event_count: int
    redacted: RedactionCount | None = None


# --- where and what ------------------------------------------------------------------------


def default_export_name(fmt: ExportFormat | str, now: datetime) -> str:
    """`zero-transcript-YYYYMMDD-HHMMSS.<ext>` in local time (a naive `now` is local time)."""
    local = now.astimezone() if now.tzinfo is not None else now
    return f"{DEFAULT_NAME_PREFIX}{local.strftime('%Y%m%d-%H%M%S')}.{parse_format(fmt).value}"


def resolve_export_path(
    arg: str | None,
    fmt: ExportFormat | str | None,
    workspace: str,
    now: datetime,
) -> tuple[str, ExportFormat]:
    """The file to write and its format: the one rule of the CLI, /export and the dialog.

    The argument is trimmed (spaces inside are kept) and a leading `~` is expanded (unlike
    Zero, which would write `<workspace>/~/x`). Empty: the default name. A relative path is
    joined onto the workspace (the join also cleans `..`); an absolute path is used as
    given; an existing folder (or a path ending in `/`) gets the default name inside it.
    `fmt` wins when given; otherwise the extension decides (`format_for_path`: none means
    txt, an unknown one raises ExportFormatError).
    """
    path, chosen, _defaulted = _resolve(arg, fmt, workspace, now)
    return path, chosen


def _resolve(
    arg: str | None, fmt: ExportFormat | str | None, workspace: str, now: datetime
) -> tuple[str, ExportFormat, bool]:
    """`resolve_export_path`, and whether the file name is the default one."""
    text = trim_space(arg or "")
    chosen = parse_format(fmt) if fmt else None
    folder = ""
    if text:
        names_a_folder = text.endswith(("/", os.sep))
        if text.startswith("~"):
            text = os.path.expanduser(text)
        if not os.path.isabs(text):
            text = clean_path(
                os.path.join(workspace, text) if workspace else text, windows=_WINDOWS
            )
        if names_a_folder or os.path.isdir(text):
            folder, text = text, ""
    if text:
        return text, chosen or format_for_path(text), False
    chosen = chosen or ExportFormat.TXT
    name = default_export_name(chosen, now)
    base = folder or workspace
    if not base:
        return name, chosen, True
    return clean_path(os.path.join(base, name), windows=_WINDOWS), chosen, True


def _numbered(path: str, number: int) -> str:
    """`zero-transcript-…-093000-2.txt`: the default name, made unique."""
    stem, dot, extension = path.rpartition(".")
    return f"{stem}-{number}{dot}{extension}" if dot else f"{path}-{number}"


# --- reading ---------------------------------------------------------------------------------


def load_export_events(
    store: SessionStore, session_id: str
) -> tuple[Metadata, list[Event], str | None]:
    """Metadata, the rehydrated events and None — or the raw events and a notice saying so.

    StoreError for an unknown session or an unreadable log.
    """
    meta = store.get(session_id)
    if meta is None:
        raise StoreError(f"zero session not found: {session_id}")
    events = store.read_events(session_id)
    try:
        return meta, rehydrate(events), None
    except StoreError as error:
        return meta, events, sanitize_line(f"exported the raw log, not the compacted view: {error}")


@dataclass(slots=True)
class SessionSource:
    """One session opened for streaming: its metadata, and its events in display order.

    `events()` decodes them one at a time from the log (LogIndex), so showing or exporting
    a session holds an index of the log, never the log or its events. `fallback` is the
    reason the raw log stands in for the compacted view, if it does.
    """

    meta: Metadata
    index: LogIndex
    order: Sequence[int]
    fallback: str | None

    @property
    def event_count(self) -> int:
        return len(self.order)

    def events(self, types: Container[str] | None = None) -> Iterator[Event]:
        """The events in order; with `types`, only those of these types (the other lines
        are still read with Go's rules, so a corrupt one fails the stream all the same)."""
        return self.index.iter_decoded(self.order, types)


@contextmanager
def open_session(
    store: SessionStore, session_id: str, *, raw: bool = False
) -> Iterator[SessionSource]:
    """The session's rehydrated events (raw with `raw`, or when the latest compaction
    cannot be applied: then `fallback` says why). StoreError for an unknown session or an
    unreadable log."""
    meta = store.get(session_id)
    if meta is None:
        raise StoreError(f"zero session not found: {session_id}")
    with LogIndex.open(store.events_path(session_id), session_id) as index:
        fallback: str | None = None
        order: Sequence[int] = range(len(index))
        if not raw:
            try:
                order = index.rehydrated_order()
            except StoreError as error:
                fallback = str(error)
        yield SessionSource(meta, index, order, fallback)


# --- text helpers ------------------------------------------------------------------------------

_SURROGATES = re.compile("[\ud800-\udfff]")


def encode_utf8(text: str) -> bytes:
    """UTF-8, with any lone surrogate (from a `\\ud800` escape in a payload) as U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", text).encode("utf-8")


def _chunked(pieces: Iterable[str], size: int = CHUNK_CHARS) -> Iterator[bytes]:
    buffer: list[str] = []
    held = 0
    for piece in pieces:
        buffer.append(piece)
        held += len(piece)
        if held >= size:
            yield encode_utf8("".join(buffer))
            buffer.clear()
            held = 0
    if buffer:
        yield encode_utf8("".join(buffer))


# --- txt: Zero's format -----------------------------------------------------------------------

_SYSTEM_PREFIX = "· "


def _txt_prefix(kind: RowKind) -> str | None:
    """The prefix of a row's block in Zero's format; None: the row is not exported."""
    match kind:
        case RowKind.USER:
            return "you: "
        case RowKind.ASSISTANT:
            return "zero: "
        case RowKind.SYSTEM | RowKind.SUMMARY | RowKind.FORK | RowKind.PEER | RowKind.CARD:
            return _SYSTEM_PREFIX  # Zero's system rows
        case RowKind.ERROR:
            return "error: "
        case (
            RowKind.WELCOME
            | RowKind.TOOL_CALL
            | RowKind.TOOL_RESULT
            | RowKind.PERMISSION
            | RowKind.ASK_USER
            | RowKind.SPECIALIST
        ):
            return None
        case _:
            assert_never(kind)


_TXT_PREFIXES = {kind: _txt_prefix(kind) for kind in RowKind}
# Only these events can give user/assistant/system/error rows; leaving the others out of the
# builder gives the same rows for them (tool, permission and specialist state never touches a
# message row) at a fraction of the cost.
_TXT_EVENT_TYPES = frozenset({"message", "error", "session_compaction", "session_fork"})


def txt_block(prefix: str, text: str) -> str:
    """One block of Zero's format; "" for a whitespace-only text."""
    body = sanitize_text(text).rstrip("\n")
    if not trim_space(body):
        return ""
    return prefix + body + "\n\n"


STREAM_BATCH = 4096  # events given to the row builder at a time


def build_rows(events: Iterable[Event]) -> list[Row]:
    """All rows of a stream of events, fed to the builder in batches (the events are not
    kept: only the rows are)."""
    builder = RowBuilder()
    iterator = iter(events)
    while batch := list(itertools.islice(iterator, STREAM_BATCH)):
        builder.add_events(batch)
    return builder.rows


def _txt_pieces(
    events: Iterable[Event], card: Sequence[str], redactor: Redactor | None
) -> Iterator[str]:
    rows = build_rows(event for event in events if event.type in _TXT_EVENT_TYPES)
    if redactor is not None:
        yield txt_block(_SYSTEM_PREFIX, f"redacted: {redactor.count.note()}")
    yield txt_block(_SYSTEM_PREFIX, "\n".join(card))
    for row in rows:
        prefix = _TXT_PREFIXES[row.kind]
        if prefix is not None:
            yield txt_block(prefix, row.text)


# --- json: `show --json` -----------------------------------------------------------------------

_json_string = json.encoder.encode_basestring  # the C one: ensure_ascii=False's escaping


def _json_scalar(value: object) -> str | None:
    """A scalar exactly as json.dumps writes it; None for containers (and anything else)."""
    if isinstance(value, str):
        return _json_string(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float) and math.isfinite(value):
        return float.__repr__(value)
    if isinstance(value, JSONNumber):  # 1e400, or 5,000 digits: kept as spelled
        return value.text
    return None


_END = object()


def json_indented(value: object, level: int = 0) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)` as if nested `level` deep.

    Iterative (a payload may nest as deep as Go reads, 10,000 levels, where json's own
    indenting encoder recurses) and it writes a JSONNumber as spelled.
    """
    scalar = _json_scalar(value)
    if scalar is not None:
        return scalar
    out: list[str] = []
    stack: list[list[Any]] = []  # [items, closing, level, first, is_object]

    def open_container(container: object, depth: int) -> None:
        if isinstance(container, dict):
            opening, closing, items = "{", "}", iter(container.items())
        elif isinstance(container, list):
            opening, closing, items = "[", "]", iter(container)
        else:
            raise TypeError(f"Object of type {type(container).__name__} is not JSON serializable")
        if not container:
            out.append(opening + closing)
            return
        out.append(opening)
        stack.append([items, closing, depth + 1, True, opening == "{"])

    open_container(value, level)
    while stack:
        frame = stack[-1]
        items, closing, depth, first, is_object = frame
        entry: Any = next(items, _END)
        if entry is _END:
            out.append("\n" + "  " * (depth - 1) + closing)
            stack.pop()
            continue
        out.append(("\n" if first else ",\n") + "  " * depth)
        frame[3] = False
        if is_object:
            key, entry = entry
            out.append(_json_string(key) + ": ")
        scalar = _json_scalar(entry)
        if scalar is None:
            open_container(entry, depth)
        else:
            out.append(scalar)
    return "".join(out)


def _json_payload(payload: object) -> str:
    """The payload at depth 2 of the array, as `json.dumps(..., indent=2)` would write it.

    Most payloads are flat objects of strings and numbers: those are written here with the C
    string encoder; anything nested goes through the (slow, pure-Python) indenting encoder.
    """
    if isinstance(payload, dict) and payload:
        items = []
        for key, value in payload.items():
            scalar = _json_scalar(value)
            if scalar is None or not isinstance(key, str):
                break
            items.append(_json_string(key) + ": " + scalar)
        else:
            return "{\n      " + ",\n      ".join(items) + "\n    }"
    else:
        scalar = _json_scalar(payload)
        if scalar is not None:
            return scalar
    return json_indented(payload, 2)


def _json_head(event: Event) -> str:
    return (
        '{\n    "id": '
        + _json_string(event.id)
        + ',\n    "sessionId": '
        + _json_string(event.session_id)
        + ',\n    "sequence": '
        + int.__repr__(event.sequence)
        + ',\n    "type": '
        + _json_string(event.type)
        + ',\n    "createdAt": '
        + _json_string(event.created_at)
        + ',\n    "payload": '
    )


def json_event(event: Event) -> str:
    """One event of the array, indented as `zero-tui show --json` prints it."""
    return escape_json_controls(_json_head(event) + _json_payload(event.payload) + "\n  }")


def raw_json_indented(raw: bytes, level: int) -> Iterator[str]:
    """Valid JSON bytes re-indented as `json_indented` would, from the text itself, in pieces.

    For payloads too big to decode (gojson.HUGE_VALUE): memory stays at one piece. The
    value is the same; strings keep their escapes and numbers their spelling as stored.
    """
    out: list[str] = []
    depth = level
    tokens = gojson.iter_tokens(decode_utf8(raw))
    pending: str | None = None
    for token in tokens:
        if pending is not None:
            if token in ("}", "]"):  # an empty container
                out.append(pending + token)
                pending = None
                continue
            depth += 1
            out.append(pending + "\n" + "  " * depth)
            pending = None
        if token in ("{", "["):
            pending = token
        elif token in ("}", "]"):
            depth -= 1
            out.append("\n" + "  " * depth + token)
        elif token == ",":
            out.append(",\n" + "  " * depth)
        elif token == ":":
            out.append(": ")
        else:
            out.append(token)
        if len(out) >= 4096:
            yield escape_json_controls("".join(out))
            out.clear()
    if pending is not None:
        out.append(pending)
    yield escape_json_controls("".join(out))


def json_pieces(events: Iterable[Event]) -> Iterator[str]:
    """The `show --json` array, one event at a time (DEL, C1 and lone surrogates escaped)."""
    separator = "[\n  "
    for event in events:
        raw = event.payload_raw
        if raw is not None and len(raw) > gojson.HUGE_VALUE:
            yield separator + escape_json_controls(_json_head(event))
            yield from raw_json_indented(raw, 2)
            yield "\n  }"
        else:
            yield separator + json_event(event)
        separator = ",\n  "
    yield "[]\n" if separator == "[\n  " else "\n]\n"


# --- rows for md and html ------------------------------------------------------------------


def display_rows(events: Iterable[Event]) -> list[Row]:
    """The rows a transcript shows for these events (§6.2 mapping, §6.3 display collapse)."""
    return collapse_for_display(build_rows(events))


# --- md ------------------------------------------------------------------------------------------

_BACKTICK_RUN = re.compile("`+")
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)
# `<` that could start an HTML tag, comment or declaration — but not a URL autolink
_HTML_OPENER = re.compile(r"<(?=[A-Za-z/!?])(?!(?:https?|mailto):[^\s<>]*>)")
_MD_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>|&~])")


def md_inline(text: str) -> str:
    """One line of literal text in Markdown: no emphasis, link, code or HTML from it."""
    return _MD_INLINE_SPECIAL.sub(r"\\\1", sanitize_line(text))


def _longest_backtick_run(text: str) -> int:
    if "`" not in text:
        return 0
    return max(len(run) for run in _BACKTICK_RUN.findall(text))


def md_code_span(text: str) -> str:
    text = sanitize_line(text)
    if not text:
        return ""
    longest = _longest_backtick_run(text)
    ticks = "`" * (longest + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def md_fence(text: str, info: str = "") -> str:
    """A fenced code block holding `text` literally (its own backtick runs cannot close it)."""
    body = sanitize_text(text).rstrip("\n")
    fence = "`" * max(3, _longest_backtick_run(body) + 1)
    return f"{fence}{info}\n{body}\n{fence}\n"


def _neutralize_html(line: str) -> str:
    """Escape HTML openers outside inline code spans (`a < b` stays as written)."""
    if "<" not in line:
        return line
    out: list[str] = []
    index = 0
    while True:
        opening = _BACKTICK_RUN.search(line, index)
        if opening is None:
            out.append(_HTML_OPENER.sub("&lt;", line[index:]))
            return "".join(out)
        out.append(_HTML_OPENER.sub("&lt;", line[index : opening.start()]))
        closing = next(
            (
                run
                for run in _BACKTICK_RUN.finditer(line, opening.end())
                if len(run.group()) == len(opening.group())
            ),
            None,
        )
        if closing is None:
            out.append(opening.group())
            index = opening.end()
        else:
            out.append(line[opening.start() : closing.end()])
            index = closing.end()


def _neutralize_block(text: str) -> str:
    if "<" not in text:
        return text
    return "\n".join(_neutralize_html(line) for line in text.split("\n"))


def _closes_fence(line: str, fence: str) -> bool:
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return False
    run = len(stripped) - len(stripped.lstrip(fence[0]))
    return run >= len(fence) and not stripped[run:].strip(" \t")


def md_markdown(text: str) -> str:
    """Session Markdown (answers, prompts, summaries) made safe to embed in a document.

    Kept as written — emphasis, lists, fenced code — except that HTML outside code is
    escaped (so `<script>` or `</details>` in the text is shown, never interpreted) and a
    fence the text leaves open is closed (it would swallow the rest of the document).
    Only the lines that look like fences are examined one by one.
    """
    text = sanitize_text(text).rstrip("\n")
    if "```" not in text and "~~~" not in text:
        return _neutralize_block(text)
    out: list[str] = []
    position = 0
    fence = ""
    for match in _FENCE_LINE.finditer(text):
        line = match.group()
        if fence:
            if _closes_fence(line, fence):
                out.append(text[position : match.end()])
                position = match.end()
                fence = ""
            continue
        if match.group(1)[0] == "`" and "`" in match.group(2):
            continue  # not a fence: a backtick fence's info string has no backtick
        out.append(_neutralize_block(text[position : match.start()]))
        out.append(line)
        position = match.end()
        fence = match.group(1)
    if fence:
        out.append(text[position:] + "\n" + fence)
    else:
        out.append(_neutralize_block(text[position:]))
    return "".join(out)


def _md_quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.split("\n"))


def _md_lines(text: str) -> str:
    """Literal lines (each escaped), kept as separate lines with hard breaks."""
    lines = [md_inline(line) for line in sanitize_text(text).strip("\n").split("\n")]
    return "  \n".join(lines)


def _md_tool(row: Row) -> str:
    view = tool_view(row)
    summary = f"<b>{_html_escape(sanitize_line(view.name))}</b>"
    if view.target:
        summary += f" <code>{_html_escape(sanitize_line(view.target))}</code>"
    if view.secondary:
        summary += f" <code>{_html_escape(sanitize_line(view.secondary))}</code>"
    status = _html_escape(sanitize_line(view.status))
    summary += f" — <b>{status}</b>" if view.failed else f" — {status}"
    parts = [f"<details>\n<summary>{summary}</summary>\n"]
    if view.arguments:
        parts.append("**Arguments**\n\n" + md_fence(view.arguments, "json"))
    for name, value in view.argument_fields:
        if "\n" in value:
            parts.append(f"**{md_inline(name)}**\n\n" + md_fence(value, "text"))
        else:
            parts.append(f"**{md_inline(name)}:** {md_code_span(value)}\n")
    if row.kind is RowKind.TOOL_RESULT:
        if trim_space(view.output):
            label = "Diff" if view.output_is_diff else "Output"
            parts.append(
                f"**{label}**\n\n"
                + md_fence(view.output, "diff" if view.output_is_diff else "text")
            )
        else:
            parts.append("*(no output)*\n")
    if view.changed_files:
        files = ", ".join(md_code_span(path) for path in view.changed_files)
        parts.append(f"**Changed files:** {files}\n")
    for note in view.notes:
        parts.append(f"*({note})*\n")
    return "\n".join(parts) + "\n</details>\n\n"


def _md_row(row: Row) -> str:
    match row.kind:
        case RowKind.USER:
            block = "**You**\n\n" + _md_quote(md_markdown(row.text)) + "\n\n"
            if not row.attachments.empty:
                block += f"*{md_inline(row.attachments.label())}*\n\n"
            return block
        case RowKind.ASSISTANT:
            return "**Zero**\n\n" + md_markdown(row.text) + "\n\n"
        case RowKind.ERROR:
            return "**Error:** " + _md_lines(row.text) + "\n\n"
        case RowKind.TOOL_CALL | RowKind.TOOL_RESULT:
            return _md_tool(row)
        case RowKind.SUMMARY:
            heading = "**Summary of the earlier conversation** (compaction summary)"
            return _md_quote(heading + "\n\n" + md_markdown(row.text)) + "\n\n"
        case RowKind.SYSTEM | RowKind.FORK | RowKind.PEER | RowKind.CARD:
            if not trim_space(sanitize_text(row.text)):
                return ""
            return _md_quote(_md_lines(row.text)) + "\n\n"
        case RowKind.WELCOME | RowKind.PERMISSION | RowKind.ASK_USER | RowKind.SPECIALIST:
            return _md_event(row)
        case _:
            assert_never(row.kind)


def _md_event(row: Row) -> str:
    """A label line, then the details (a permission's decision, the questions asked…)."""
    if not trim_space(sanitize_text(row.text)):
        return ""
    block = f"*{md_inline(row.text)}*"
    detail = row.detail
    if trim_space(detail):
        block += "  \n" + _md_lines(detail)
    return block + "\n\n"


def _md_pieces(
    meta: Metadata,
    event_count: int,
    rows: Sequence[Row],
    notice: str | None,
    redaction: str | None,
) -> Iterator[str]:
    yield f"# {md_inline(trim_space(meta.title) or 'untitled')}\n\n"
    if redaction:
        yield f"> **Redacted:** {md_inline(redaction)}\n\n"
    for fact in session_facts(meta, event_count):
        value = md_code_span(fact.value) if fact.code else md_inline(fact.value)
        yield f"- **{fact.label}:** {value}\n"
    if notice:
        yield f"\n> **Note:** {md_inline(notice)}\n"
    yield "\n---\n\n"
    for row in rows:
        if row.kind is RowKind.USER:
            excerpt = turn_excerpt(row.text)
            title = f"Turn {row.turn}" + (f": {md_inline(excerpt)}" if excerpt else "")
            yield f"## {title}\n\n"
        yield _md_row(row)


# --- the API -------------------------------------------------------------------------------------


def iter_export(
    meta: Metadata,
    events: Iterable[Event],
    fmt: ExportFormat | str,
    *,
    notice: str | None = None,
    model: str | None = None,
    provider: str | None = None,
    event_count: int | None = None,
    redactor: Redactor | None = None,
) -> Iterator[bytes]:
    """The export's bytes in chunks of about a MiB (what `render_export` joins).

    `events` may be a stream (`SessionSource.events()`), read once: pass `event_count`
    then. `notice` (the raw-log fallback) is shown in md and html. `model`/`provider` are
    the app's own for the txt resume card (default: the session's, so no `(recorded: …)`).
    With a `redactor`, what is exported is masked first and the export says how much was
    (`redactor.count`, complete once the chunks are all read).
    """
    chosen = parse_format(fmt)
    count = event_count if event_count is not None else len(events)  # type: ignore[arg-type]
    if redactor is not None:
        meta = redactor.metadata(meta)
        notice = None if notice is None else redactor.text(notice)
        model = None if model is None else redactor.text(model)
        provider = None if provider is None else redactor.text(provider)
        events = map(partial(redact_event, redactor), events)
    if chosen is ExportFormat.TXT:
        card = resume_card(
            meta,
            count,
            model=meta.model_id if model is None else model,
            provider=meta.provider if provider is None else provider,
        )
        return _chunked(_txt_pieces(events, card, redactor))
    if chosen is ExportFormat.JSON:
        if redactor is not None:
            return _redacted_json(events, redactor)
        return _chunked(json_pieces(events))
    rows = display_rows(events)
    redaction = None if redactor is None else redactor.count.note()
    if chosen is ExportFormat.MD:
        return _chunked(_md_pieces(meta, count, rows, notice, redaction))
    return _chunked(html_pieces(meta, count, rows, notice, redaction))


def redact_event(redactor: Redactor, event: Event) -> Event:
    """The event with its payload masked (the same event when there was nothing to mask)."""
    if event.payload_raw is None:
        return event
    before = redactor.count.total
    try:
        masked = redactor.value(event.payload)
    except GoJSONError:  # not JSON: what the store holds is masked as text
        masked = redactor.text(decode_utf8(event.payload_raw))
    if redactor.count.total == before:
        return event
    return replace(
        event,
        payload_raw=gojson.marshal(masked),
        _payload=None,
        _payload_decoded=False,
        _payload_typed=None,
    )


SPOOL_BYTES = 8 << 20  # a redacted json export held in memory up to this, then on disk


def _redacted_json(events: Iterable[Event], redactor: Redactor) -> Iterator[bytes]:
    """`{"redaction": {…}, "events": […]}`: the array first spooled, so that the count leads."""
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
        for chunk in _chunked(json_pieces(events)):
            spool.write(chunk)
        tally = redactor.count
        counts = {"masked": tally.total, "secrets": tally.secrets, "homePaths": tally.home_paths}
        yield f'{{\n  "redaction": {json.dumps(counts)},\n  "events": '.encode()
        spool.seek(0)
        while chunk := spool.read(CHUNK_CHARS):
            yield chunk
        yield b"}\n"


def render_export(
    meta: Metadata,
    events: Iterable[Event],
    fmt: ExportFormat | str,
    *,
    notice: str | None = None,
    model: str | None = None,
    provider: str | None = None,
    event_count: int | None = None,
    redactor: Redactor | None = None,
) -> bytes:
    """The whole export as bytes (UTF-8)."""
    return b"".join(
        iter_export(
            meta,
            events,
            fmt,
            notice=notice,
            model=model,
            provider=provider,
            event_count=event_count,
            redactor=redactor,
        )
    )


def export_session(
    store: SessionStore,
    session_id: str,
    *,
    fmt: ExportFormat | str | None = None,
    path: str | None = None,
    workspace: str,
    now: datetime,
    model: str | None = None,
    provider: str | None = None,
    force: bool = False,
    redact: bool = False,
) -> ExportResult:
    """Export one session to a file; the app runs this in a thread worker.

    `path` is the user's argument (None/empty: the default name); `fmt` None means "from
    the extension". An existing file is replaced only with `force` (DestinationExists
    otherwise); a default name never collides: `-2`, `-3`… is added to it instead. With
    `redact`, secrets and the home folder are masked (the result's `redacted` counts them).
    Raises StoreError (unknown session, unreadable log) or AtomicWriteError.
    """
    first, chosen, defaulted = _resolve(path, fmt, workspace, now)
    _check_folder(first)
    target = first
    for number in range(2, DEFAULT_NAME_TRIES + 2):
        try:
            return _export(
                store,
                session_id,
                chosen,
                target,
                partial(write_destination, target, replace=force),
                model=model,
                provider=provider,
                redact=redact,
            )
        except DestinationExists:
            if not defaulted:
                raise
            target = _numbered(first, number)
    raise DestinationExists(target)


DEFAULT_NAME_TRIES = 100  # default names in one folder in the same second, before giving up


def _check_folder(target: str) -> None:
    """One clear line for a folder that is not there (the write would say less)."""
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise AtomicWriteError(target, f"the folder {folder} {what}")


def export_to_stream(
    store: SessionStore,
    session_id: str,
    stream: BinaryIO,
    *,
    fmt: ExportFormat | str | None = None,
    model: str | None = None,
    provider: str | None = None,
    redact: bool = False,
) -> ExportResult:
    """Export one session to an open binary stream (`zero-tui export ID -o -`: stdout).

    `fmt` None means txt. The result's path is "-".
    """

    def write(chunks: Iterable[bytes]) -> int:
        size = 0
        for chunk in chunks:
            stream.write(chunk)
            size += len(chunk)
        stream.flush()
        return size

    chosen = parse_format(fmt) if fmt else ExportFormat.TXT
    return _export(
        store, session_id, chosen, "-", write, model=model, provider=provider, redact=redact
    )


def _export(
    store: SessionStore,
    session_id: str,
    chosen: ExportFormat,
    target: str,
    write: Callable[[Iterable[bytes]], int],
    *,
    model: str | None,
    provider: str | None,
    redact: bool,
) -> ExportResult:
    redactor = Redactor() if redact else None
    with open_session(store, session_id) as source:
        notice = None
        if source.fallback is not None:
            notice = sanitize_line(
                f"exported the raw log, not the compacted view: {source.fallback}"
            )
        size = write(
            iter_export(
                source.meta,
                source.events(_TXT_EVENT_TYPES if chosen is ExportFormat.TXT else None),
                chosen,
                notice=notice,
                model=model,
                provider=provider,
                event_count=source.event_count,
                redactor=redactor,
            )
        )
    redacted = None if redactor is None else redactor.count
    return ExportResult(target, chosen, notice, size, source.event_count, redacted)
