"""A tool card, drawn the same for a stored call and result (the transcript's rows) and for
one streaming in (the live turn): `▸ read_file  hello.txt  ok` and the first lines of the
output, or, expanded, the output in a panel.

`style` gives the Rich style of a part (`tool`, `tool-ok`, `tool-error`, `dim`, `output`):
each widget reads its own component classes, `transcript--<part>`.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.style import Style
from rich.text import Text

from zero_tui.commands import REGISTRY, Context
from zero_tui.store.approvals import ApprovalAsk
from zero_tui.text.labels import counted
from zero_tui.text.sanitize import sanitize_line, sanitize_text
from zero_tui.transcript.denied_calls import approval_hint
from zero_tui.transcript.rows import Row, RowKind

COLLAPSED_OUTPUT_LINES = 3
"""A collapsed tool card shows the first lines of its output, each cut to one screen line."""
EXPANDED_OUTPUT_LINES = 400
"""An expanded tool card shows at most this many output lines (the rest are counted)."""
PENDING_STATUS = "running…"
"""What a live card says until its result comes (a stored call without one: `no result`)."""

StyleOf = Callable[[str], Style]


def tool_card(
    row: Row,
    *,
    expanded: bool = False,
    style: StyleOf,
    pending: bool = False,
    approval_note: str = "",
) -> RenderableType:
    """The card of a tool call or result row; `pending`: a live call still running. A call
    Zero's sandbox denied says what was asked and the ways forward (`approval_note` after
    the key: a live card's `(once the run ends)`)."""
    info = row.tool_info
    name = sanitize_line(row.tool)
    target = sanitize_line(info.target if info else "")
    is_result = row.kind is RowKind.TOOL_RESULT
    status = row.status if is_result else (PENDING_STATUS if pending else "no result")
    status_style = style("tool-error" if status == "error" else "tool-ok")
    if pending and not is_result:
        status_style = style("dim") + Style(italic=True)
    header = Text()
    header.append("▾ " if expanded else "▸ ", style=style("tool"))
    header.append(name, style=style("tool") + Style(bold=True))
    if target:
        header.append("  " + target)
    header.append("  " + sanitize_line(status), style=status_style)
    parts: list[RenderableType] = [header]
    output = sanitize_text(row.detail if is_result else "")
    if is_result and row.approval is not None:
        parts += _approval_lines(row.approval, style, approval_note)
        if not expanded:
            return Group(*parts)  # its output is the reason, shown in the ask
    if not expanded:
        shown = output.strip("\n")
        lines = shown.split("\n", COLLAPSED_OUTPUT_LINES) if shown else []
        for line in lines[:COLLAPSED_OUTPUT_LINES]:
            parts.append(
                Text(
                    "  " + sanitize_line(line),
                    style=style("dim"),
                    no_wrap=True,
                    overflow="ellipsis",
                )
            )
        if len(lines) > COLLAPSED_OUTPUT_LINES:
            hidden = shown.count("\n") + 1 - COLLAPSED_OUTPUT_LINES
            parts.append(Text(f"  … {counted(hidden, 'more line')}", style=style("dim")))
        return Group(*parts)
    if info is not None and info.secondary:
        parts.append(Text("  " + sanitize_line(info.secondary), style=style("dim")))
    if output:
        lines = output.splitlines()
        body = _output_text(
            lines[:EXPANDED_OUTPUT_LINES],
            preview=info is not None and bool(info.display_preview),
            style=style,
        )
        if len(lines) > EXPANDED_OUTPUT_LINES:
            hidden = len(lines) - EXPANDED_OUTPUT_LINES
            body.append(f"\n… {counted(hidden, 'more line')}", style=style("dim"))
        parts.append(Panel(body, border_style=style("dim"), padding=(0, 1)))
    if info is not None and info.changed_files:
        files = ", ".join(sanitize_line(path) for path in info.changed_files)
        parts.append(Text("  changed: " + files, style=style("dim")))
    return Group(*parts)


def _approval_lines(ask: ApprovalAsk, style: StyleOf, note: str) -> list[RenderableType]:
    """What a denied call asked (tool, command, Zero's risk and reason), and the key to the
    ways forward Zero would honour."""
    asked = Text("  ⚑ approval required: ", style=style("permission"))
    asked.append(sanitize_line(ask.describe()))
    hint = approval_hint(ask, REGISTRY.key_for("approve", Context.TRANSCRIPT))
    return [asked, Text("    " + sanitize_line(hint) + note, style=style("dim"))]


def _output_text(lines: list[str], *, preview: bool, style: StyleOf) -> Text:
    """Tool output, with the added and removed lines of a diff coloured."""
    is_diff = any(line.startswith(("@@", "+++", "---")) for line in lines[:8]) or (
        preview and all(line[:1] in ("+", "-", " ", "") for line in lines)
    )
    body = Text(style=style("output"))
    for number, line in enumerate(lines):
        part = ""
        if is_diff and line.startswith("+") and not line.startswith("+++"):
            part = "tool-ok"
        elif is_diff and line.startswith("-") and not line.startswith("---"):
            part = "tool-error"
        elif is_diff and line.startswith("@@"):
            part = "dim"
        body.append(("\n" if number else "") + line, style=style(part) if part else "")
    return body
