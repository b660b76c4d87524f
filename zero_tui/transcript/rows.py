"""Session events -> transcript rows, as Zero's TUI rebuilds them on /resume.

The mapping follows tui-behaviour §6.2 (`transcriptRowsFromSessionEvents`) over the typed
payloads of `store.payloads`, with the key-based de-duplication of §6.3. The rows
themselves are `row_model`, the display collapse `collapse`, the whole-log facts
`log_facts`, the rows from no event `cards`.

`RowBuilder` is incremental: events that arrive later (a live session) extend the rows without
recomputing the earlier ones. One rule of Zero's is not local: a `Task` tool call or result is
dropped when *some* `specialist_start` event names its call id, and Go finds those ids in a
pre-pass over the whole list. A batch given to `add_events` is pre-scanned the same way; a
`specialist_start` that arrives after its `Task` rows were already built makes the builder
recompute the rows of that one call id (their occurrence numbers and de-dup keys depend only
on events of the same id) and splice them back in, so the rows always equal a batch build.
`add`/`add_events` return the index of the first row that changed so a UI re-renders from
there.

No Textual or Rich import here.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from zero_tui.store import Event, gojson
from zero_tui.store.gotext import trim_space, truncate_utf8
from zero_tui.store.payload_decoder import decode_payload
from zero_tui.store.payloads import (
    CheckpointPayload,
    ChildPayload,
    CompactionPayload,
    ErrorPayload,
    ForkPayload,
    GoalPayload,
    MessageKind,
    MessagePayload,
    PermissionPayload,
    RewindPayload,
    SpecialistPayload,
    SpecialistStartPayload,
    SpecialistStopPayload,
    SpecPayload,
    ToolCallPayload,
    ToolResultPayload,
    UnknownPayload,
    UsagePayload,
)
from zero_tui.transcript.cards import card_row, resume_card, welcome_row
from zero_tui.transcript.collapse import collapse_for_display, visible_row_indices
from zero_tui.transcript.denied_calls import PROMPT_ACTION, ask_of, decoded_arguments
from zero_tui.transcript.log_facts import LogFacts, event_links
from zero_tui.transcript.row_model import (
    ROW_EVENT_TYPES,
    AskUserInfo,
    AttachmentSummary,
    Row,
    RowKey,
    RowKind,
    SpecialistInfo,
    ToolInfo,
    effective_tool_row_id,
    row_key,
    turn_start_indices,
)

__all__ = [  # the builder, and what this module's importers had from it before the split
    "LogFacts",
    "Row",
    "RowBuilder",
    "RowKind",
    "ToolInfo",
    "argument_hints",
    "card_row",
    "collapse_for_display",
    "event_links",
    "resume_card",
    "rows_from_events",
    "streamed_tool_row",
    "truncate_tool_output",
    "turn_start_indices",
    "visible_row_indices",
    "welcome_row",
]

TOOL_OUTPUT_LIMIT_BYTES = 240
TRUNCATED_SUFFIX = " [truncated]"

_TARGET_ARGUMENT_KEYS = (
    "path",
    "file",
    "file_path",
    "filepath",
    "pattern",
    "query",
    "command",
    "cmd",
    "url",
    "task",
)
_SECONDARY_ARGUMENT_KEYS = ("pattern", "query", "command", "cmd", "url")
_NOTEWORTHY_PERMISSION_ACTIONS = frozenset({"prompt", "deny", "cancel"})


# --- what one event's row says ----------------------------------------------------------


def _flattened(output: str) -> str:
    return trim_space(output.replace("\r\n", "\n")).replace("\n", " ")


def truncate_tool_output(output: str, limit: int = TOOL_OUTPUT_LIMIT_BYTES) -> str:
    """One line, cut to `limit` UTF-8 bytes on a code-point boundary + ` [truncated]`."""
    if limit <= 0:
        return _flattened(output)
    if len(output) > 2 * limit + 2:
        # Only the start is shown: flatten a head of a long output. Where the flattened
        # head is longer than the limit (and one more, as its last character may be a
        # "\r" the rest pairs with), its first `limit` characters are the whole one's.
        head = _flattened(output[: 2 * limit + 2])
        if len(head) > limit + 1:
            return truncate_utf8(head[:limit], limit) + TRUNCATED_SUFFIX
    flat = _flattened(output)
    if len(flat) <= limit and len(flat.encode("utf-8", "surrogatepass")) <= limit:
        return flat
    # `limit` characters hold at least `limit` bytes, so the cut never needs more of the text.
    return truncate_utf8(flat[:limit], limit) + TRUNCATED_SUFFIX


def _single_line(text: str) -> str:
    text = trim_space(text.replace("\r\n", "\n"))
    if not text:
        return ""
    lines = (trim_space(line) for line in text.replace("\r", "\n").split("\n"))
    return " ".join(line for line in lines if line)


def _decode_arguments(raw: str) -> dict[str, Any] | None:
    raw = trim_space(raw)
    if raw in ("", "{}"):
        return None
    try:
        decoded = gojson.loads(raw)
    except ValueError:
        return None
    return decoded if isinstance(decoded, dict) else None


def _first_argument(arguments: Mapping[str, Any] | None, keys: Sequence[str]) -> str:
    if arguments is None:
        return ""
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, str) and trim_space(value):
            return _single_line(value)
    return ""


def argument_hints(raw_arguments: str) -> tuple[str, str]:
    """(main argument, secondary argument) of a tool call's raw JSON arguments."""
    arguments = _decode_arguments(raw_arguments)
    target = _first_argument(arguments, _TARGET_ARGUMENT_KEYS)
    secondary = _first_argument(arguments, _SECONDARY_ARGUMENT_KEYS)
    if secondary == target:
        secondary = ""
    return target, secondary


def streamed_tool_row(
    name: str,
    call_id: str,
    arguments: object,
    *,
    result_status: str | None = None,
    output: str = "",
    changed_files: Sequence[str] = (),
) -> Row:
    """The row of a tool call as `zero exec` streams it (its `arguments` decoded, or the
    raw string when they were not JSON), with its result once it came (`result_status`
    not None): the same row the stored call and result give, so the card is drawn alike."""
    info = ToolInfo(name=name or "unknown", call_id=call_id)
    if isinstance(arguments, Mapping):
        info.target = _first_argument(arguments, _TARGET_ARGUMENT_KEYS)
        info.secondary = _first_argument(arguments, _SECONDARY_ARGUMENT_KEYS)
        if info.secondary == info.target:
            info.secondary = ""
    elif isinstance(arguments, str):
        info.target, info.secondary = argument_hints(arguments)
    if result_status is None:
        return Row(kind=RowKind.TOOL_CALL, text="tool call: " + info.name, tool_info=info)
    info.status = result_status or "ok"
    info.output = output
    info.changed_files = list(changed_files)
    text = f"tool result: {info.name} {info.status} {truncate_tool_output(output)}"
    return Row(kind=RowKind.TOOL_RESULT, text=text, tool_info=info)


def permission_is_noteworthy(permission: PermissionPayload) -> bool:
    """Silent auto-approvals (allow without decision or block) produce no row."""
    return (
        permission.action in _NOTEWORTHY_PERMISSION_ACTIONS
        or bool(trim_space(permission.decision_action))
        or permission.block is not None
    )


def _permission_text(permission: PermissionPayload) -> str:
    parts = ["permission:"]
    if permission.tool_name:
        parts.append(permission.tool_name)
    if permission.action:
        parts.append(permission.action)
    return " ".join(parts)


def _ask_user_text(request: AskUserInfo) -> str:
    header = trim_space(request.header)
    if header:
        return f"ask_user: {header}"
    return f"ask_user: {len(request.questions)} question(s)"


def _answers_text(answers: Sequence[str]) -> str:
    lines = [
        f"{index}. {answer if trim_space(answer) else '(skipped)'}"
        for index, answer in enumerate(answers, start=1)
    ]
    return "Answers\n" + "\n".join(lines) if lines else ""


def specialist_info(payload: SpecialistPayload) -> SpecialistInfo | None:
    """A specialist card's facts, or None without a child session id."""
    if not payload.child_session_id:
        return None
    status = payload.status
    if status == "success":
        status = "completed"
    elif status not in ("running", "completed"):
        status = "error"
    return SpecialistInfo(
        child_session_id=payload.child_session_id,
        name=payload.specialist,
        description=payload.description,
        status=status,
        error=payload.error,
    )


def _specialist_text(info: SpecialistInfo) -> str:
    return f"specialist: {info.name or 'specialist'} {info.status}"


def _tool_info(payload: ToolCallPayload | ToolResultPayload) -> ToolInfo:
    """The name and call id of a tool call or result (what both have)."""
    return ToolInfo(name=payload.name or "unknown", call_id=payload.call_id)


# --- the builder --------------------------------------------------------------------------


@dataclass(slots=True)
class _ToolCandidate:
    row: Row
    included: bool = False


class RowBuilder:
    """Builds transcript rows from rehydrated (or raw) session events, incrementally.

    `rows` is one list, changed in place: new rows are appended; a specialist stop updates
    its card in place; a late `specialist_start` removes (and may renumber) earlier rows of
    its call id. `add`/`add_events` return the first index that changed.
    """

    def __init__(
        self, *, specialist_call_ids: Iterable[str] = (), turn: int = 0, unnamed_calls: int = 0
    ) -> None:
        """`specialist_call_ids`, `turn` and `unnamed_calls` (tool calls without an id) preset
        what events outside the ones added would have set: a builder of one part of a log
        starts from the `LogFacts`."""
        self.rows: list[Row] = []
        self._keys: set[RowKey] = set()
        self._call_occurrences: dict[str, int] = {}
        self._specialist_call_ids: set[str] = set(specialist_call_ids)
        self._specialist_cards: dict[str, Row] = {}
        self._tool_candidates: dict[str, list[_ToolCandidate]] = {}
        self._calls_by_row_id: dict[str, Row] = {}
        self._permission_prompts: dict[str, PermissionPayload] = {}
        self._next_order = 0
        self._turn = turn
        if unnamed_calls:
            self._call_occurrences[""] = unnamed_calls

    @property
    def turn_count(self) -> int:
        return self._turn

    def add_events(self, events: Iterable[Event]) -> int | None:
        """Add a batch; returns the index of the first changed row, or None if none changed."""
        batch = list(events)
        first_changed: int | None = None
        # The §6.2 pre-pass over this batch: register every specialist call id first.
        for event in batch:
            payload = decode_payload(event) if event.type == "specialist_start" else None
            if isinstance(payload, SpecialistStartPayload):
                changed = self._register_specialist_call(payload.tool_call_id)
                first_changed = _earliest(first_changed, changed)
        for event in batch:
            first_changed = _earliest(first_changed, self.add(event))
        return first_changed

    def add(self, event: Event, order: int | None = None) -> int | None:
        """Add one event; returns the index of the first changed row, or None.

        `order` places it among the others (default: after the last one); orders must grow.
        """
        if order is None:
            order = self._next_order
        self._next_order = order + 1
        if event.type not in ROW_EVENT_TYPES:
            return None  # usage, checkpoints, rewinds, goals, specs, unknown: no row, no decode
        payload = decode_payload(event)
        sequence = event.sequence
        match payload:
            case MessagePayload():
                return self._add_message(payload, sequence, order)
            case ToolCallPayload():
                return self._add_tool_call(payload, sequence, order)
            case ToolResultPayload():
                return self._add_tool_result(payload, sequence, order)
            case PermissionPayload():
                changed = self._note_permission_prompt(payload)
                if not permission_is_noteworthy(payload):
                    return changed
                text = _permission_text(payload)
                row = self._row(RowKind.PERMISSION, text, sequence, order, id=payload.tool_call_id)
                row.permission = payload
                return _earliest(changed, self._append_keyed(row))
            case ErrorPayload(message=message):
                return self._append_text(RowKind.ERROR, message, sequence, order)
            case CompactionPayload(text=summary):
                return self._append_text(RowKind.SUMMARY, summary, sequence, order)
            case ForkPayload(parent_session_id=parent):
                text = "forked from session: " + parent if parent else ""
                return self._append_text(RowKind.FORK, text, sequence, order)
            case SpecialistStartPayload():
                changed = self._register_specialist_call(payload.tool_call_id)
                return _earliest(changed, self._add_specialist(payload, sequence, order))
            case SpecialistStopPayload():
                return self._add_specialist(payload, sequence, order, stop=True)
            case (
                UsagePayload()
                | CheckpointPayload()
                | RewindPayload()
                | ChildPayload()
                | SpecPayload()
                | GoalPayload()
                | UnknownPayload()
            ):
                return None
            case _:
                assert_never(payload)

    # -- messages --

    def _add_message(self, message: MessagePayload, sequence: int, order: int) -> int | None:
        kind = message.kind
        match kind:
            case MessageKind.PEER:
                body = message.display_content or message.content
                text = f"Message from {trim_space(message.sender)}\n{body}"
                return self._append(self._row(RowKind.PEER, text, sequence, order))
            case MessageKind.ASK_USER:
                request = AskUserInfo(message.tool_call_id, message.header, message.questions)
                text = _ask_user_text(request)
                row = self._row(RowKind.ASK_USER, text, sequence, order, id=request.tool_call_id)
                row.ask_user = request
                return self._append_keyed(row)
            case MessageKind.ASK_USER_ANSWERS:
                answers = _answers_text(message.answers)
                return self._append_text(RowKind.SYSTEM, answers, sequence, order)
            case MessageKind.USER:
                if not message.content:
                    return None
                self._turn += 1
                row = self._row(RowKind.USER, message.content, sequence, order)
                row.attachments = AttachmentSummary(message.images, message.documents)
                return self._append(row)
            case MessageKind.ASSISTANT:
                if not message.content:
                    return None
                row = self._row(RowKind.ASSISTANT, message.content, sequence, order)
                row.final = True
                return self._append(row)
            case MessageKind.OTHER:
                return self._append_text(RowKind.SYSTEM, message.content, sequence, order)
            case _:
                assert_never(kind)

    # -- tools --

    def _add_tool_call(self, payload: ToolCallPayload, sequence: int, order: int) -> int | None:
        info = _tool_info(payload)
        info.arguments = payload.arguments
        info.target, info.secondary = argument_hints(info.arguments)
        info.call_sequence = sequence
        row = self._row(RowKind.TOOL_CALL, "tool call: " + info.name, sequence, order)
        row.tool_info = info
        return self._add_tool_row(row, info.call_id)

    def _add_tool_result(self, payload: ToolResultPayload, sequence: int, order: int) -> int | None:
        info = _tool_info(payload)
        info.status = payload.status or "ok"
        info.output = payload.output
        info.display_preview = payload.display_preview
        info.meta = dict(payload.meta)
        info.changed_files = list(payload.changed_files)
        info.change_summaries = list(payload.change_summaries)
        info.truncated = payload.truncated
        info.redacted = payload.redacted
        info.result_sequence = sequence
        text = f"tool result: {info.name} {info.status} {truncate_tool_output(info.output)}"
        row = self._row(RowKind.TOOL_RESULT, text, sequence, order)
        row.tool_info = info
        index = self._add_tool_row(row, info.call_id)
        if index is not None and info.status == "error":
            self._set_approval(row)
        return index

    def _set_approval(self, row: Row) -> None:
        """What a result Zero's sandbox stopped asked for (with its permission event's risk,
        once known)."""
        info = row.tool_info
        assert info is not None
        permission = self._permission_prompts.get(info.call_id) if info.call_id else None
        arguments = decoded_arguments(info.arguments) if info.arguments else None
        row.approval = ask_of(info.name, arguments, info.output, permission)

    def _note_permission_prompt(self, permission: PermissionPayload) -> int | None:
        """Keep a call's `prompt` permission event for its result card (Zero writes it just
        before the result); a result already built gets its risk now."""
        call_id = permission.tool_call_id
        if permission.action != PROMPT_ACTION or not call_id:
            return None
        self._permission_prompts[call_id] = permission
        changed: int | None = None
        for candidate in self._tool_candidates.get(call_id, []):
            row = candidate.row
            if candidate.included and row.approval is not None:
                self._set_approval(row)
                index = bisect_left(self.rows, row.order, key=_row_order)
                changed = _earliest(changed, index)
        return changed

    def _add_tool_row(self, row: Row, call_id: str) -> int | None:
        """Keep a call's or a result's row as a candidate of its call id; append it if
        `_admit_tool_row` lets it in."""
        candidate = _ToolCandidate(row)
        if call_id:
            self._tool_candidates.setdefault(call_id, []).append(candidate)
        if not self._admit_tool_row(row, call_id):
            return None
        candidate.included = True
        self.rows.append(row)
        return len(self.rows) - 1

    def _admit_tool_row(self, row: Row, call_id: str) -> bool:
        """Occurrence numbering, the Task/specialist skip and key de-dup for one tool row."""
        info = row.tool_info
        assert info is not None
        if info.name == "Task" and call_id in self._specialist_call_ids:
            return False
        if row.kind is RowKind.TOOL_CALL:
            occurrence = self._call_occurrences.get(call_id, 0) + 1
            self._call_occurrences[call_id] = occurrence
        else:
            occurrence = self._call_occurrences.get(call_id, 0)
        info.occurrence = occurrence
        row.id = effective_tool_row_id(call_id, occurrence)
        key = row_key(row)
        if key is not None:
            if key in self._keys:
                return False
            self._keys.add(key)
        if row.kind is RowKind.TOOL_CALL:
            if row.id:
                self._calls_by_row_id[row.id] = row
        elif row.id:
            call = self._calls_by_row_id.get(row.id)
            if call is not None and call.tool_info is not None:
                info.arguments = call.tool_info.arguments
                info.target = call.tool_info.target
                info.secondary = call.tool_info.secondary
                info.call_sequence = call.tool_info.call_sequence
        return True

    def _register_specialist_call(self, call_id: str) -> int | None:
        if not call_id or call_id in self._specialist_call_ids:
            return None
        self._specialist_call_ids.add(call_id)
        candidates = self._tool_candidates.get(call_id, [])
        if not any(candidate.row.tool == "Task" for candidate in candidates):
            return None
        return self._recompute_tool_rows(call_id)

    def _recompute_tool_rows(self, call_id: str) -> int | None:
        """Rebuild the rows of one call id after the specialist set gained it."""
        candidates = self._tool_candidates.get(call_id, [])
        if not candidates:
            return None
        old_rows = [c.row for c in candidates if c.included]
        for row in old_rows:
            key = row_key(row)
            if key is not None:
                self._keys.discard(key)
            if row.kind is RowKind.TOOL_CALL and self._calls_by_row_id.get(row.id) is row:
                del self._calls_by_row_id[row.id]
        self._call_occurrences[call_id] = 0
        for candidate in candidates:
            candidate.included = self._admit_tool_row(candidate.row, call_id)
        removed = {id(row) for row in old_rows}
        self.rows[:] = [row for row in self.rows if id(row) not in removed]
        for candidate in candidates:
            if candidate.included:
                position = bisect_left(self.rows, candidate.row.order, key=_row_order)
                self.rows.insert(position, candidate.row)
        earliest_order = min(c.row.order for c in candidates)
        return bisect_left(self.rows, earliest_order, key=_row_order)

    # -- specialists --

    def _add_specialist(
        self, payload: SpecialistPayload, sequence: int, order: int, *, stop: bool = False
    ) -> int | None:
        info = specialist_info(payload)
        if info is None:
            return None
        existing = self._specialist_cards.get(info.child_session_id) if stop else None
        if existing is not None:
            existing.specialist = info
            existing.text = _specialist_text(info)
            existing.sequences = (*existing.sequences, sequence)
            return bisect_left(self.rows, existing.order, key=_row_order)
        row = self._row(RowKind.SPECIALIST, _specialist_text(info), sequence, order)
        row.specialist = info
        self._specialist_cards.setdefault(info.child_session_id, row)
        return self._append(row)

    # -- plumbing --

    def _row(self, kind: RowKind, text: str, sequence: int, order: int, id: str = "") -> Row:
        return Row(kind=kind, text=text, sequences=(sequence,), order=order, turn=self._turn, id=id)

    def _append(self, row: Row) -> int:
        self.rows.append(row)
        return len(self.rows) - 1

    def _append_text(self, kind: RowKind, text: str, sequence: int, order: int) -> int | None:
        """A row of just its text, when there is any."""
        if not text:
            return None
        return self._append(self._row(kind, text, sequence, order))

    def _append_keyed(self, row: Row) -> int | None:
        key = row_key(row)
        if key is not None:
            if key in self._keys:
                return None
            self._keys.add(key)
        return self._append(row)


def _row_order(row: Row) -> int:
    return row.order


def _earliest(current: int | None, candidate: int | None) -> int | None:
    if candidate is None:
        return current
    if current is None:
        return candidate
    return min(current, candidate)


def rows_from_events(events: Iterable[Event]) -> list[Row]:
    """All transcript rows of an event list (Zero's `transcriptRowsFromSessionEvents`)."""
    builder = RowBuilder()
    builder.add_events(events)
    return builder.rows
