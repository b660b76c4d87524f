"""A readable plain-text transcript for the terminal (`zero-tui show ID`).

Not Zero's export format (that one drops tool cards): this one keeps every row it is given
(normally the rows left by the display collapse), with a clear prefix per kind, and cuts long
tool output to a few lines.
All session text passes through `sanitize_text`, so nothing in it can drive the terminal.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import assert_never

from zero_tui.store.models import Metadata
from zero_tui.store.token_counts import Tokens
from zero_tui.text.labels import counted
from zero_tui.text.sanitize import sanitize_line, sanitize_text
from zero_tui.transcript.row_model import Row, RowKind

TOOL_OUTPUT_PREVIEW_LINES = 6
_INDENT = "    "


def render_transcript_text(meta: Metadata, rows: Sequence[Row]) -> str:
    """Header with the session facts, a blank line, then one block per row.

    The rows are rendered as given: pass `collapse_for_display(rows)` for what a transcript
    shows (the collapse is not idempotent, so it is not applied a second time here).
    """
    return "".join(iter_transcript_text(meta, rows))


def iter_transcript_text(
    meta: Metadata,
    rows: Sequence[Row],
    *,
    usage: Tokens | None = None,
    kept: Sequence[tuple[str, str]] = (),
    parent_note: str = "",
) -> Iterator[str]:
    """`render_transcript_text` a block at a time (for streaming to a terminal or pipe);
    `usage`: the session's tokens, said in the header (None: not said); `kept`: more
    facts for the header (zero-tui's pins and tags); `parent_note`: said after the parent
    (its tags)."""
    yield "\n".join(_header_lines(meta, usage, kept, parent_note))
    for row in rows:
        block = _render_row(row)
        if block:
            yield "\n\n" + block
    yield "\n"


def _header_lines(
    meta: Metadata,
    usage: Tokens | None = None,
    kept: Sequence[tuple[str, str]] = (),
    parent_note: str = "",
) -> list[str]:
    lines = [f"session {sanitize_line(meta.session_id)}"]
    facts = [
        ("title", meta.title or "untitled"),
        ("kind", meta.session_kind),
        ("cwd", meta.cwd),
        ("model", meta.model_id),
        ("provider", meta.provider),
        ("parent", meta.parent_session_id and meta.parent_session_id + parent_note),
        ("created", meta.created_at),
        ("updated", meta.updated_at),
        ("events", str(meta.event_count)),
    ]
    if usage is not None:
        facts.append(("usage", usage.describe()))
    if meta.goal is not None:
        facts.append(("goal", f"{meta.goal.status} — {meta.goal.objective}"))
    facts += kept
    lines += [f"  {name}: {sanitize_line(value)}" for name, value in facts if value]
    return lines


def _indent(text: str, prefix: str = _INDENT) -> str:
    return "\n".join(prefix + line if line else line for line in text.split("\n"))


def _prefixed(prefix: str, text: str) -> str:
    """`prefix` on the first line, continuation lines indented to line up under the text."""
    first, _, rest = sanitize_text(text).rstrip("\n").partition("\n")
    if not rest:
        return prefix + first
    return prefix + first + "\n" + _indent(rest, " " * len(prefix))


def _output_preview(text: str) -> str:
    lines = sanitize_text(text).strip("\n").split("\n")
    if lines == [""]:
        return ""
    shown = lines[:TOOL_OUTPUT_PREVIEW_LINES]
    if len(lines) > len(shown):
        shown.append(f"… ({counted(len(lines) - len(shown), 'more line')})")
    return _indent("\n".join(shown))


def _render_tool(row: Row) -> str:
    info = row.tool_info
    name = sanitize_line(row.tool or "unknown")
    target = info.target if info else ""
    secondary = info.secondary if info else ""
    if row.kind is RowKind.TOOL_CALL:
        status = "no result"
        body = ""
    else:
        status = row.status or "ok"
        body = row.detail
    head = f"tool {name} [{sanitize_line(status)}]"
    if target:
        head += " " + sanitize_line(target)
    if secondary:
        head += f"  ({sanitize_line(secondary)})"
    parts = [head]
    if info is not None and info.changed_files:
        parts.append(
            _INDENT + "changed: " + ", ".join(sanitize_line(f) for f in info.changed_files)
        )
    preview = _output_preview(body)
    if preview:
        parts.append(preview)
    return "\n".join(parts)


def _render_row(row: Row) -> str:
    match row.kind:
        case RowKind.USER:
            text = _prefixed("you: ", row.text)
            if not row.attachments.empty:
                text += "\n" + _INDENT + row.attachments.label()
            return text
        case RowKind.ASSISTANT:
            return _prefixed("zero: ", row.text)
        case RowKind.ERROR:
            return _prefixed("error: ", row.text)
        case RowKind.TOOL_CALL | RowKind.TOOL_RESULT:
            return _render_tool(row)
        case RowKind.PERMISSION:
            detail = row.detail
            return sanitize_line(row.text) + (f"  ({sanitize_line(detail)})" if detail else "")
        case RowKind.ASK_USER | RowKind.SPECIALIST:
            detail = row.detail
            text = sanitize_line(row.text)
            return text + ("\n" + _indent(sanitize_text(detail)) if detail else "")
        case RowKind.SUMMARY:
            body = _indent(sanitize_text(row.text).strip("\n"))
            return "· summary of earlier conversation:\n" + body
        case RowKind.SYSTEM | RowKind.FORK | RowKind.PEER | RowKind.CARD | RowKind.WELCOME:
            if not row.text.strip():
                return ""
            return _prefixed("· ", row.text)
        case _:
            assert_never(row.kind)
