"""What the md and html exports share: the session's facts, a tool card's parts, a turn's title.

The md exporter (`zero_tui.transcript.export`) and the html one
(`zero_tui.transcript.export_html`) both build on these; neither imports the other.
No Textual or Rich import here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from zero_tui.store import Metadata
from zero_tui.store.gotext import collapse_space, trim_space
from zero_tui.text.labels import event_count_label
from zero_tui.text.sanitize import sanitize_text
from zero_tui.transcript.row_model import Row, RowKind, ToolInfo


@dataclass(frozen=True, slots=True)
class Fact:
    label: str
    value: str
    code: bool = False


def session_facts(meta: Metadata, event_count: int) -> list[Fact]:
    """The header facts of an md/html export (empty values left out)."""
    events = event_count_label(event_count, meta.event_count)
    facts = [
        Fact("Session", meta.session_id, code=True),
        Fact("Kind", meta.session_kind),
        Fact("Workspace", meta.cwd, code=True),
        Fact("Model", meta.model_id, code=True),
        Fact("Provider", meta.provider),
        Fact("Parent", meta.parent_session_id, code=True),
        Fact("Created", meta.created_at),
        Fact("Updated", meta.updated_at),
        Fact("Events", events),
    ]
    if meta.goal is not None:
        facts.append(Fact("Goal", f"{meta.goal.status} — {meta.goal.objective}"))
    return [fact for fact in facts if trim_space(fact.value)]


def turn_excerpt(text: str, limit: int = 60) -> str:
    """The first non-blank line of a prompt, whitespace collapsed, cut to `limit` chars."""
    for line in sanitize_text(text).split("\n"):
        collapsed = collapse_space(line)
        if collapsed:
            return collapsed if len(collapsed) <= limit else collapsed[: limit - 1] + "…"
    return ""


@dataclass(frozen=True, slots=True)
class ToolView:
    """A tool card's parts, for md and html alike."""

    name: str
    status: str
    target: str
    secondary: str
    arguments: str
    argument_fields: tuple[tuple[str, str], ...]
    output: str
    output_is_diff: bool
    changed_files: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def failed(self) -> bool:
        return self.status not in ("ok", "no result")


_DIFF_START = re.compile(r"(?:--- |\+\+\+ |@@ |diff )")


def pretty_arguments(raw: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Tool arguments (a JSON string) for reading: (JSON text, ()) or ("", fields).

    Short arguments stay as recorded. Long ones are indented — or, when they are an object
    with a multi-line string (file contents, patches), split into (name, value) fields so
    the text reads as text rather than as one JSON string full of `\\n`.
    """
    text = trim_space(raw)
    if len(text) <= 80 or text in ("{}", ""):
        return ("" if text == "{}" else text), ()
    try:
        decoded = json.loads(text)
        if isinstance(decoded, dict) and any(
            isinstance(value, str) and "\n" in value for value in decoded.values()
        ):
            fields = tuple(
                (key, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
                for key, value in decoded.items()
            )
            return "", fields
        if isinstance(decoded, dict | list):
            return json.dumps(decoded, ensure_ascii=False, indent=2), ()
    except (ValueError, RecursionError):  # not JSON, or nested too deep to re-indent
        pass
    return text, ()


def tool_view(row: Row) -> ToolView:
    """The parts of a tool call's or a tool result's card."""
    info = row.tool_info or ToolInfo(name="unknown", call_id=row.id)
    if row.kind is RowKind.TOOL_CALL:
        status, output = "no result", ""
    else:
        status = info.status or "ok"
        output = info.display_preview or info.output
    arguments, argument_fields = pretty_arguments(info.arguments)
    notes = []
    budget = output_budget_tag(info.meta)
    if budget:
        notes.append(budget)
    if info.truncated:
        notes.append("output truncated by Zero")
    if info.redacted:
        notes.append("output redacted by Zero")
    return ToolView(
        name=info.name or "unknown",
        status=status,
        target=info.target,
        secondary=info.secondary,
        arguments=arguments,
        argument_fields=argument_fields,
        output=output,
        output_is_diff=bool(info.display_preview) and bool(_DIFF_START.match(output)),
        changed_files=tuple(info.changed_files),
        notes=tuple(notes),
    )


def output_budget_tag(meta: dict[str, str]) -> str:
    """What Zero's tool card says of a result's `meta` (Go's `toolResultBudgetTag`):
    `compact 12.3k→1.2k tok · raw saved` for an output Zero cut down, else nothing.

    The rest of `meta` (`emitted_bytes`, `output_budget_spill_created`, `exit_code`…) is
    Zero's bookkeeping for the model and the run; Zero's TUI never shows it."""
    if meta.get("command_output_reduced") != "true" and meta.get("truncated") != "true":
        return ""
    original = _go_atoi(meta.get("command_output_original_tokens"))
    if original is None:
        original = _go_atoi(meta.get("output_budget_estimated_original_tokens"))
    retained = _go_atoi(meta.get("command_output_retained_tokens"))
    if retained is None:
        retained = _go_atoi(meta.get("output_budget_estimated_retained_tokens"))
    tag = "compact output"
    if original is not None and retained is not None and original > retained:
        tag = f"compact {_go_compact_count(original)}→{_go_compact_count(retained)} tok"
    if trim_space(meta.get("spill_path", "")):
        tag += " · raw saved"
    return tag


_GO_INT = re.compile(r"[+-]?[0-9]+")


def _go_atoi(text: str | None) -> int | None:
    """Go's strconv.Atoi: an optional sign and ASCII digits, nothing else (64-bit range)."""
    if text is None or not _GO_INT.fullmatch(text):
        return None
    value = int(text)
    return value if -(1 << 63) <= value < 1 << 63 else None


def _go_compact_count(value: int) -> str:
    """Go's compactCount: `999`, `1.2k`, `12345.7k`."""
    return str(value) if value < 1000 else f"{value / 1000:.1f}k"
