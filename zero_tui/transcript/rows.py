"""Session events -> transcript rows, as Zero's TUI rebuilds them on /resume.

The mapping follows tui-behaviour §6.2 (`transcriptRowsFromSessionEvents`) and the key-based
de-duplication of §6.3; `visible_row_indices` / `collapse_for_display` apply §6.3's display
collapse, which is a rendering concern and never changes the rows themselves.

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

import math
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from zero_tui.store import Event, Metadata, gojson
from zero_tui.store.gojson import go_sprint
from zero_tui.store.gotext import collapse_space, trim_space, truncate_utf8

WELCOME_TEXT = "Welcome to Zero. Type /help for commands."
TOOL_OUTPUT_LIMIT_BYTES = 240
TRUNCATED_SUFFIX = " [truncated]"
ATTACHMENT_COUNT_LIMIT = 64
ATTACHMENT_VISIBLE_ITEMS = 4

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
_HIDDEN_PLUMBING_TOOLS = frozenset({"Task", "TaskOutput", "tool_search"})
_HIDDEN_CALL_TOOLS = _HIDDEN_PLUMBING_TOOLS | {"update_plan"}
_NOTEWORTHY_PERMISSION_ACTIONS = frozenset({"prompt", "deny", "cancel"})
_DECISION_ACTIONS = frozenset({"allow", "deny", "cancel"})
_ROW_EVENT_TYPES = frozenset(
    {
        "message",
        "tool_call",
        "tool_result",
        "permission",
        "permission_request",
        "permission_decision",
        "error",
        "session_compaction",
        "session_fork",
        "specialist_start",
        "specialist_stop",
    }
)


class RowKind(StrEnum):
    """What a row is; every renderer handles each one (`match` + `assert_never`).

    Zero's transcript calls the summary, fork, peer and card rows system rows; here each
    has a kind of its own, since each is drawn differently.
    """

    WELCOME = "welcome"
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    SUMMARY = "summary"
    """The compaction summary of the earlier conversation."""
    FORK = "fork"
    """`forked from session: <parent>`."""
    PEER = "peer"
    """A message from another session (Zero: a system row, tool `peer`)."""
    CARD = "card"
    """A command card, e.g. the resume summary: a title line, then the card's lines."""
    ERROR = "error"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    PERMISSION = "permission"
    ASK_USER = "ask_user"
    SPECIALIST = "specialist"


@dataclass(frozen=True, slots=True)
class AttachmentSummary:
    images: int = 0
    documents: int = 0

    @property
    def empty(self) -> bool:
        return self.images <= 0 and self.documents <= 0

    def label(self) -> str:
        """`[Image #1] … [Document #1] … [+N attachments]`, at most 4 of each kind shown."""
        visible_images = min(self.images, ATTACHMENT_VISIBLE_ITEMS)
        visible_documents = min(self.documents, ATTACHMENT_VISIBLE_ITEMS)
        parts = [f"[Image #{index}]" for index in range(1, visible_images + 1)]
        parts += [f"[Document #{index}]" for index in range(1, visible_documents + 1)]
        hidden = self.images + self.documents - visible_images - visible_documents
        if hidden > 0:
            parts.append(f"[+{hidden} attachments]")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class ChangeSummary:
    path: str = ""
    kind: str = ""
    aggregated: bool = False
    count: int = 0


@dataclass(slots=True)
class ToolInfo:
    """Everything a tool card needs. A result row also carries its call's arguments."""

    name: str
    call_id: str
    occurrence: int = 0
    arguments: str = ""
    target: str = ""
    secondary: str = ""
    status: str = ""
    output: str = ""
    display_preview: str = ""
    meta: dict[str, str] = field(default_factory=dict)
    changed_files: list[str] = field(default_factory=list)
    change_summaries: list[ChangeSummary] = field(default_factory=list)
    truncated: bool = False
    redacted: bool = False
    call_sequence: int | None = None
    result_sequence: int | None = None


@dataclass(frozen=True, slots=True)
class RiskInfo:
    level: str = ""
    reason: str = ""


@dataclass(frozen=True, slots=True)
class BlockInfo:
    code: str = ""
    tool_name: str = ""
    action: str = ""
    path: str = ""
    reason: str = ""
    recoverable: bool = False
    risk: RiskInfo = RiskInfo()


@dataclass(frozen=True, slots=True)
class PermissionInfo:
    tool_call_id: str = ""
    tool_name: str = ""
    action: str = ""
    decision_action: str = ""
    permission: str = ""
    permission_granted: bool = False
    permission_mode: str = ""
    autonomy: str = ""
    side_effect: str = ""
    reason: str = ""
    scope: str = ""
    decision_reason: str = ""
    grant_matched: bool = False
    risk: RiskInfo = RiskInfo()
    block: BlockInfo | None = None


@dataclass(frozen=True, slots=True)
class AskUserQuestion:
    question: str
    options: tuple[str, ...] = ()
    multi_select: bool = False


@dataclass(frozen=True, slots=True)
class AskUserInfo:
    tool_call_id: str = ""
    header: str = ""
    questions: tuple[AskUserQuestion, ...] = ()


@dataclass(frozen=True, slots=True)
class SpecialistInfo:
    child_session_id: str
    name: str = ""
    description: str = ""
    status: str = "error"  # running | completed | error
    error: str = ""


@dataclass(slots=True, eq=False)
class Row:
    """One transcript row. `sequences` are the event sequences it was built from.

    `order` is the position of the (first) source event in the builder's input; rows are
    kept sorted by it. `turn` counts user rows so far (a user row starts a new turn; rows
    before the first user row are turn 0).
    """

    kind: RowKind
    text: str = ""
    sequences: tuple[int, ...] = ()
    order: int = 0
    turn: int = 0
    id: str = ""
    final: bool = False
    attachments: AttachmentSummary = AttachmentSummary()
    tool_info: ToolInfo | None = None
    permission: PermissionInfo | None = None
    ask_user: AskUserInfo | None = None
    specialist: SpecialistInfo | None = None

    @property
    def sequence(self) -> int:
        """The first source event's sequence (0 for rows not built from an event)."""
        return self.sequences[0] if self.sequences else 0

    @property
    def tool(self) -> str:
        """The tool's name (a tool or permission row), a specialist's, or `peer`."""
        if self.tool_info is not None:
            return self.tool_info.name
        if self.permission is not None:
            return self.permission.tool_name
        if self.specialist is not None:
            return self.specialist.name
        return "peer" if self.kind is RowKind.PEER else ""

    @property
    def status(self) -> str:
        """A tool result's status, or a specialist's (running, completed, error)."""
        if self.tool_info is not None:
            return self.tool_info.status
        return self.specialist.status if self.specialist is not None else ""

    @property
    def detail(self) -> str:
        """The row's second text: a call's main argument, a result's output (its display
        preview when it has one), a permission's decision, the questions asked, or a
        specialist's description and error."""
        if self.tool_info is not None:
            info = self.tool_info
            if self.kind is RowKind.TOOL_CALL:
                return info.target
            return info.display_preview or info.output
        if self.permission is not None:
            return _permission_detail(self.permission)
        if self.ask_user is not None:
            return _ask_user_detail(self.ask_user)
        if self.specialist is not None:
            return _specialist_detail(self.specialist)
        return ""


RowKey = tuple[str, str, str]


@dataclass(slots=True)
class _ToolCandidate:
    row: Row
    included: bool = False


# --- payload helpers (Go `payloadString` & co.) -------------------------------------------


def event_payload_map(event: Event) -> dict[str, Any]:
    """The payload as a JSON object; undecodable, null or non-object payloads are empty."""
    raw = event.payload_raw
    if raw is None or raw.lstrip(b" \t\n\r")[:1] != b"{":
        return {}  # not an object: nothing to decode (a huge array costs nothing here)
    try:
        value = event.payload
    except (ValueError, TypeError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def payload_string(payload: Mapping[str, Any], key: str) -> str:
    value = payload.get(key)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return go_sprint(value)


def _payload_bool(payload: Mapping[str, Any], key: str) -> bool:
    value = payload.get(key)
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return trim_space(value).lower() == "true"
    return False


def _payload_object(payload: Mapping[str, Any], key: str) -> dict[str, Any] | None:
    value = payload.get(key)
    return value if isinstance(value, dict) else None


def _first_non_blank(*values: str) -> str:
    for value in values:
        trimmed = trim_space(value)
        if trimmed:
            return trimmed
    return ""


def _positive_count(payload: Mapping[str, Any], key: str) -> int:
    value = payload.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    if value <= 0 or value != math.trunc(value):
        return 0
    return min(int(value), ATTACHMENT_COUNT_LIMIT)


def truncate_tool_output(output: str, limit: int = TOOL_OUTPUT_LIMIT_BYTES) -> str:
    """One line, cut to `limit` UTF-8 bytes on a code-point boundary + ` [truncated]`."""
    flat = trim_space(output.replace("\r\n", "\n")).replace("\n", " ")
    if limit <= 0:
        return flat
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


def effective_tool_row_id(call_id: str, occurrence: int) -> str:
    if not call_id or occurrence <= 1:
        return call_id
    return f"{call_id}#{occurrence}"


def row_key(row: Row) -> RowKey | None:
    """De-dup key of §6.3 (all rehydrated rows share run id 0), or None: always appended."""
    if row.kind in (RowKind.TOOL_CALL, RowKind.TOOL_RESULT, RowKind.ASK_USER):
        return (row.kind.value, row.id, "") if row.id else None
    if row.kind is RowKind.PERMISSION and row.permission is not None:
        call_id = row.permission.tool_call_id
        return (row.kind.value, call_id, row.permission.action) if call_id else None
    return None


# --- single-event row builders ------------------------------------------------------------


def _string_map(payload: Mapping[str, Any], key: str) -> dict[str, str]:
    value = _payload_object(payload, key)
    if value is None:
        return {}
    return {name: text for name, text in value.items() if isinstance(text, str)}


def _string_list(payload: Mapping[str, Any], key: str) -> list[str]:
    value = payload.get(key)
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str) and item]


def _change_summaries(payload: Mapping[str, Any], key: str) -> list[ChangeSummary]:
    value = payload.get(key)
    if not isinstance(value, list):
        return []
    summaries: list[ChangeSummary] = []
    for item in value:
        if item is None:
            summaries.append(ChangeSummary())
            continue
        if not isinstance(item, dict):
            return []  # Go's Unmarshal into []Change fails as a whole
        path, kind = item.get("path", ""), item.get("kind", "")
        aggregated, count = item.get("aggregated", False), item.get("count", 0)
        if path is None:
            path = ""
        if kind is None:
            kind = ""
        if aggregated is None:
            aggregated = False
        if count is None:
            count = 0
        if not (isinstance(path, str) and isinstance(kind, str) and isinstance(aggregated, bool)):
            return []
        if isinstance(count, bool) or not isinstance(count, int):
            return []
        summaries.append(ChangeSummary(path, kind, aggregated, count))
    return summaries


def _risk_from(payload: Mapping[str, Any] | None) -> RiskInfo:
    if payload is None:
        return RiskInfo()
    return RiskInfo(payload_string(payload, "level"), payload_string(payload, "reason"))


def permission_from_payload(payload: Mapping[str, Any]) -> PermissionInfo:
    risk = _risk_from(_payload_object(payload, "risk"))
    block: BlockInfo | None = None
    block_payload = _payload_object(payload, "block")
    if block_payload is not None:
        nested_risk = _payload_object(block_payload, "risk")
        block = BlockInfo(
            code=payload_string(block_payload, "code"),
            tool_name=payload_string(block_payload, "toolName"),
            action=payload_string(block_payload, "action"),
            path=payload_string(block_payload, "path"),
            reason=payload_string(block_payload, "reason"),
            recoverable=_payload_bool(block_payload, "recoverable"),
            risk=_risk_from(nested_risk) if nested_risk is not None else risk,
        )
    return PermissionInfo(
        tool_call_id=_first_non_blank(
            payload_string(payload, "toolCallId"), payload_string(payload, "id")
        ),
        tool_name=payload_string(payload, "name") or payload_string(payload, "toolName"),
        action=payload_string(payload, "action"),
        decision_action=payload_string(payload, "decisionAction"),
        permission=payload_string(payload, "permission"),
        permission_granted=_payload_bool(payload, "permissionGranted"),
        permission_mode=payload_string(payload, "permissionMode"),
        autonomy=payload_string(payload, "autonomy"),
        side_effect=payload_string(payload, "sideEffect"),
        reason=payload_string(payload, "reason"),
        scope=payload_string(payload, "scope"),
        decision_reason=payload_string(payload, "decisionReason"),
        grant_matched=_payload_bool(payload, "grantMatched"),
        risk=risk,
        block=block,
    )


def permission_is_noteworthy(permission: PermissionInfo) -> bool:
    """Silent auto-approvals (allow without decision or block) produce no row."""
    return (
        permission.action in _NOTEWORTHY_PERMISSION_ACTIONS
        or bool(trim_space(permission.decision_action))
        or permission.block is not None
    )


_DECISION_DETAILS = {
    "allow": "approved once",
    "allow_strict": "approved with review",
    "allow_for_session": "approved for this session",
    "allow_prefix_for_session": "approved command prefix for this session",
    "always_allow_prefix": "always approved command prefix",
    "always_allow": "always approved",
    "deny": "denied by user",
    "cancel": "cancelled by user",
}


def _permission_detail(permission: PermissionInfo) -> str:
    parts: list[str] = []
    if permission.decision_action:
        decision = permission.decision_action
        parts.append(_DECISION_DETAILS.get(decision, decision.replace("_", " ")))
    if permission.grant_matched:
        parts.append("approved by saved permission")
    if permission.action == "prompt" and trim_space(permission.reason):
        parts.append(trim_space(permission.reason))
    if permission.block is not None:
        block_parts = ["blocked: " + permission.block.code.replace("_", " ")]
        if trim_space(permission.block.path):
            block_parts.append("path: " + trim_space(permission.block.path))
        if trim_space(permission.block.reason):
            block_parts.append(trim_space(permission.block.reason))
        parts.append("  ".join(block_parts))
    return "  ".join(parts)


def _permission_text(permission: PermissionInfo) -> str:
    parts = ["permission:"]
    if permission.tool_name:
        parts.append(permission.tool_name)
    if permission.action:
        parts.append(permission.action)
    return " ".join(parts)


def ask_user_from_payload(payload: Mapping[str, Any]) -> AskUserInfo:
    questions: list[AskUserQuestion] = []
    raw_questions = payload.get("questions")
    if isinstance(raw_questions, list):
        for entry in raw_questions:
            if not isinstance(entry, dict):
                continue
            raw_options = entry.get("options")
            options: tuple[str, ...] = ()
            if isinstance(raw_options, list):
                options = tuple(option for option in raw_options if isinstance(option, str))
            questions.append(
                AskUserQuestion(
                    question=payload_string(entry, "question"),
                    options=options,
                    multi_select=_payload_bool(entry, "multiSelect"),
                )
            )
    return AskUserInfo(
        tool_call_id=payload_string(payload, "toolCallId"),
        header=payload_string(payload, "header"),
        questions=tuple(questions),
    )


def _ask_user_text(request: AskUserInfo) -> str:
    header = trim_space(request.header)
    if header:
        return f"ask_user: {header}"
    return f"ask_user: {len(request.questions)} question(s)"


def _ask_user_detail(request: AskUserInfo) -> str:
    lines = []
    for index, question in enumerate(request.questions, start=1):
        line = f"{index}. {question.question}"
        if question.options:
            line += "  (" + ", ".join(question.options) + ")"
        lines.append(line)
    return "\n".join(lines)


def _answers_text(payload: Mapping[str, Any]) -> str:
    answers = payload.get("answers")
    if not isinstance(answers, list) or not answers:
        return ""
    lines = []
    for index, answer in enumerate(answers, start=1):
        text = answer if isinstance(answer, str) else ""
        if not trim_space(text):
            text = "(skipped)"
        lines.append(f"{index}. {text}")
    return "Answers\n" + "\n".join(lines)


def specialist_from_payload(payload: Mapping[str, Any]) -> SpecialistInfo | None:
    child_session_id = payload_string(payload, "childSessionId")
    if not child_session_id:
        return None
    status = payload_string(payload, "status")
    if status == "success":
        status = "completed"
    elif status not in ("running", "completed"):
        status = "error"
    return SpecialistInfo(
        child_session_id=child_session_id,
        name=payload_string(payload, "specialist"),
        description=payload_string(payload, "description"),
        status=status,
        error=payload_string(payload, "error"),
    )


def _specialist_text(info: SpecialistInfo) -> str:
    return f"specialist: {info.name or 'specialist'} {info.status}"


def _specialist_detail(info: SpecialistInfo) -> str:
    lines = [line for line in (info.description, info.error) if line]
    return "\n".join(lines)


def _tool_call_id(payload: Mapping[str, Any]) -> str:
    return _first_non_blank(payload_string(payload, "toolCallId"), payload_string(payload, "id"))


def _tool_info(payload: Mapping[str, Any]) -> ToolInfo:
    """The name and call id of a tool call or result (what both have)."""
    return ToolInfo(
        name=payload_string(payload, "name") or "unknown", call_id=_tool_call_id(payload)
    )


# --- the builder --------------------------------------------------------------------------


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
            if event.type == "specialist_start":
                changed = self._register_specialist_call(event_payload_map(event))
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
        event_type = event.type
        if event_type not in _ROW_EVENT_TYPES:
            return None  # usage, checkpoints, rewinds, goals, specs, unknown: no row, no decode
        payload = event_payload_map(event)
        sequence = event.sequence
        if event_type == "message":
            return self._add_message(payload, sequence, order)
        if event_type == "tool_call":
            return self._add_tool_call(payload, sequence, order)
        if event_type == "tool_result":
            return self._add_tool_result(payload, sequence, order)
        if event_type in ("permission", "permission_request", "permission_decision"):
            permission = permission_from_payload(payload)
            if not permission_is_noteworthy(permission):
                return None
            row = self._row(
                RowKind.PERMISSION,
                _permission_text(permission),
                sequence,
                order,
                id=permission.tool_call_id,
                permission=permission,
            )
            return self._append_keyed(row)
        if event_type == "error":
            message = payload_string(payload, "message")
            if not message:
                return None
            return self._append(self._row(RowKind.ERROR, message, sequence, order))
        if event_type == "session_compaction":
            summary = payload_string(payload, "summary")
            if not summary:
                return None
            return self._append(self._row(RowKind.SUMMARY, summary, sequence, order))
        if event_type == "session_fork":
            parent = payload_string(payload, "parentSessionId")
            if not parent:
                return None
            text = "forked from session: " + parent
            return self._append(self._row(RowKind.FORK, text, sequence, order))
        if event_type == "specialist_start":
            changed = self._register_specialist_call(payload)
            return _earliest(changed, self._add_specialist(payload, sequence, order, stop=False))
        if event_type == "specialist_stop":
            return self._add_specialist(payload, sequence, order, stop=True)
        return None

    # -- messages --

    def _add_message(self, payload: dict[str, Any], sequence: int, order: int) -> int | None:
        role = payload_string(payload, "role").lower()
        if role == "user" and payload_string(payload, "origin") == "cross_session":
            body = payload_string(payload, "displayContent") or payload_string(payload, "content")
            text = f"Message from {trim_space(payload_string(payload, 'from'))}\n{body}"
            return self._append(self._row(RowKind.PEER, text, sequence, order))
        if role == "ask_user":
            request = ask_user_from_payload(payload)
            row = self._row(
                RowKind.ASK_USER,
                _ask_user_text(request),
                sequence,
                order,
                id=request.tool_call_id,
                ask_user=request,
            )
            return self._append_keyed(row)
        if role == "ask_user_answers":
            answers = _answers_text(payload)
            if not answers:
                return None
            return self._append(self._row(RowKind.SYSTEM, answers, sequence, order))
        content = payload_string(payload, "content")
        if not content:
            return None
        if role == "user":
            self._turn += 1
            attachments = _payload_object(payload, "attachments")
            if attachments is None:  # most prompts: the row's default, made once
                return self._append(self._row(RowKind.USER, content, sequence, order))
            summary = AttachmentSummary(
                images=_positive_count(attachments, "images"),
                documents=_positive_count(attachments, "documents"),
            )
            row = self._row(RowKind.USER, content, sequence, order, attachments=summary)
            return self._append(row)
        if role == "assistant":
            return self._append(self._row(RowKind.ASSISTANT, content, sequence, order, final=True))
        return self._append(self._row(RowKind.SYSTEM, content, sequence, order))

    # -- tools --

    def _add_tool_call(self, payload: dict[str, Any], sequence: int, order: int) -> int | None:
        info = _tool_info(payload)
        info.arguments = payload_string(payload, "arguments")
        info.target, info.secondary = argument_hints(info.arguments)
        info.call_sequence = sequence
        row = self._row(
            RowKind.TOOL_CALL, "tool call: " + info.name, sequence, order, tool_info=info
        )
        return self._add_tool_row(row, info.call_id)

    def _add_tool_result(self, payload: dict[str, Any], sequence: int, order: int) -> int | None:
        info = _tool_info(payload)
        info.status = payload_string(payload, "status") or "ok"
        info.output = payload_string(payload, "output")
        info.display_preview = payload_string(payload, "displayPreview")
        info.meta = _string_map(payload, "meta")
        info.changed_files = _string_list(payload, "changedFiles")
        info.change_summaries = _change_summaries(payload, "changeSummaries")
        info.truncated = _payload_bool(payload, "truncated")
        info.redacted = _payload_bool(payload, "redacted")
        info.result_sequence = sequence
        text = f"tool result: {info.name} {info.status} {truncate_tool_output(info.output)}"
        row = self._row(RowKind.TOOL_RESULT, text, sequence, order, tool_info=info)
        return self._add_tool_row(row, info.call_id)

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

    def _register_specialist_call(self, payload: Mapping[str, Any]) -> int | None:
        call_id = payload_string(payload, "toolCallId")
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
        self, payload: dict[str, Any], sequence: int, order: int, *, stop: bool
    ) -> int | None:
        info = specialist_from_payload(payload)
        if info is None:
            return None
        existing = self._specialist_cards.get(info.child_session_id) if stop else None
        if existing is not None:
            existing.specialist = info
            existing.text = _specialist_text(info)
            existing.sequences = (*existing.sequences, sequence)
            return bisect_left(self.rows, existing.order, key=_row_order)
        row = self._row(
            RowKind.SPECIALIST, _specialist_text(info), sequence, order, specialist=info
        )
        self._specialist_cards.setdefault(info.child_session_id, row)
        return self._append(row)

    # -- plumbing --

    def _row(self, kind: RowKind, text: str, sequence: int, order: int, **fields: Any) -> Row:
        return Row(
            kind=kind, text=text, sequences=(sequence,), order=order, turn=self._turn, **fields
        )

    def _append(self, row: Row) -> int:
        self.rows.append(row)
        return len(self.rows) - 1

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


# --- whole-log facts: what the rows of part of a log take from the rest of it ------------
#
# Most rows depend on their own event only. The rest depend on other events through a key:
# a tool call, its results, its permission rows and an ask_user row through the call id
# (occurrence numbers, de-dup keys, the call's arguments on the result card, the display
# collapse); a specialist card through the child session id (its stops update it); every
# row through the number of user rows before it (its turn); a tool row without an id
# through the number of such calls before it (its occurrence); and a Task row through the
# set of specialist call ids (Go's pre-pass over the whole list). `LogFacts` holds these for
# a whole log, so the rows of any window of it — fed with the events linked to the window's
# events — are exactly the rows a build of the whole log gives there.


def _call_link(call_id: str) -> str:
    # Row ids are `id` or `id#k`, so ids that could collide share what precedes the first '#'.
    return "call:" + call_id.partition("#")[0] if call_id else ""


def _is_unnamed_call(event: Event) -> bool:
    return event.type == "tool_call" and not _tool_call_id(event_payload_map(event))


def event_links(event: Event) -> tuple[str, ...]:
    """The keys through which this event's rows depend on other events' rows (or theirs on it)."""
    event_type = event.type
    if event_type not in _ROW_EVENT_TYPES:
        return ()
    payload = event_payload_map(event)
    if event_type in ("tool_call", "tool_result"):
        link = _call_link(_tool_call_id(payload))
    elif event_type in ("permission", "permission_request", "permission_decision"):
        link = _call_link(permission_from_payload(payload).tool_call_id)
    elif event_type == "message" and payload_string(payload, "role").lower() == "ask_user":
        link = _call_link(payload_string(payload, "toolCallId"))
    elif event_type in ("specialist_start", "specialist_stop"):
        child = payload_string(payload, "childSessionId")
        links = ["child:" + child] if child else []
        if event_type == "specialist_start":
            # it drops the Task rows of its call id: they depend on it (a live log tells)
            links.append(_call_link(payload_string(payload, "toolCallId")))
        return tuple(link for link in links if link)
    else:
        link = ""
    return (link,) if link else ()


def _starts_turn(event: Event) -> bool:
    """Whether the event makes a user row (which starts a turn)."""
    if event.type != "message":
        return False
    payload = event_payload_map(event)
    role = payload_string(payload, "role").lower()
    if role != "user" or payload_string(payload, "origin") == "cross_session":
        return False
    return bool(payload_string(payload, "content"))


@dataclass(slots=True)
class LogFacts:
    """The facts of a whole log that rows of a part of it need (see above), by position.

    Built by `add`, one event at a time in log order; `unreadable` counts positions that
    could not be decoded (`note_unreadable`), with the first few reasons kept.
    """

    specialist_call_ids: set[str] = field(default_factory=set)
    turn_starts: list[int] = field(default_factory=list)
    unnamed_calls: list[int] = field(default_factory=list)
    linked: dict[str, list[int]] = field(default_factory=dict)
    length: int = 0
    unreadable: int = 0
    unreadable_reasons: list[str] = field(default_factory=list)

    def add(self, event: Event) -> None:
        position = self.length
        self.length += 1
        if event.type == "specialist_start":
            call_id = payload_string(event_payload_map(event), "toolCallId")
            if call_id:
                self.specialist_call_ids.add(call_id)
        elif _starts_turn(event):
            self.turn_starts.append(position)
        elif _is_unnamed_call(event):
            self.unnamed_calls.append(position)
        for link in event_links(event):
            self.linked.setdefault(link, []).append(position)

    def merge(self, later: LogFacts) -> None:
        """Take in the facts of the positions that follow (a grown log): `later` was built
        from `LogFacts(length=self.length)`."""
        # a new set, not an update: a worker may be reading the old one
        self.specialist_call_ids = self.specialist_call_ids | later.specialist_call_ids
        self.turn_starts += later.turn_starts
        self.unnamed_calls += later.unnamed_calls
        for link, positions in later.linked.items():
            self.linked.setdefault(link, []).extend(positions)
        self.length = later.length
        self.unreadable += later.unreadable
        self.unreadable_reasons += later.unreadable_reasons[: 3 - len(self.unreadable_reasons)]

    def note_unreadable(self, reason: str) -> None:
        """The event at the next position could not be read (it stands in as an error)."""
        self.unreadable += 1
        if len(self.unreadable_reasons) < 3:
            self.unreadable_reasons.append(reason)

    def turn_before(self, position: int) -> int:
        """User rows before `position`: the turn a row there starts in."""
        return bisect_left(self.turn_starts, position)

    def unnamed_calls_before(self, position: int) -> int:
        """Tool calls without an id before `position` (they count occurrences of id "")."""
        return bisect_left(self.unnamed_calls, position)

    def linked_positions(self, links: Iterable[str]) -> set[int]:
        """Every position whose event shares one of `links`."""
        found: set[int] = set()
        for link in links:
            found.update(self.linked.get(link, ()))
        return found


def log_facts(events: Iterable[Event]) -> LogFacts:
    facts = LogFacts()
    for event in events:
        facts.add(event)
    return facts


# --- display collapse (§6.3, rendering only) ----------------------------------------------


def visible_row_indices(rows: Sequence[Row]) -> list[int]:
    """Indices of the rows a transcript shows after §6.3's display collapse.

    Hidden: a tool call whose result row exists (the result card shows both; its
    `tool_info` carries the call's arguments); call cards of Task, TaskOutput, tool_search
    and update_plan; successful results of Task, TaskOutput and tool_search; a `prompt`
    permission row once a later allow/deny/cancel row exists for the call; an `allow` row
    with no prompt before it for the call.
    """
    resolved = {row.id for row in rows if row.kind is RowKind.TOOL_RESULT and row.id}
    hidden = [False] * len(rows)
    prompted: set[str] = set()
    for index, row in enumerate(rows):
        if row.kind is RowKind.TOOL_CALL:
            hidden[index] = row.tool in _HIDDEN_CALL_TOOLS or (bool(row.id) and row.id in resolved)
        elif row.kind is RowKind.TOOL_RESULT:
            hidden[index] = row.tool in _HIDDEN_PLUMBING_TOOLS and row.status != "error"
        elif row.kind is RowKind.PERMISSION and row.permission and row.permission.tool_call_id:
            call_id = row.permission.tool_call_id
            if row.permission.action == "prompt":
                prompted.add(call_id)
            elif row.permission.action == "allow":
                hidden[index] = call_id not in prompted
    decided_later: set[str] = set()
    for index in range(len(rows) - 1, -1, -1):
        row = rows[index]
        if row.kind is not RowKind.PERMISSION or not row.permission:
            continue
        call_id = row.permission.tool_call_id
        if not call_id:
            continue
        if row.permission.action == "prompt" and call_id in decided_later:
            hidden[index] = True
        elif row.permission.action in _DECISION_ACTIONS:
            decided_later.add(call_id)
    return [index for index, is_hidden in enumerate(hidden) if not is_hidden]


def collapse_for_display(rows: Sequence[Row]) -> list[Row]:
    return [rows[index] for index in visible_row_indices(rows)]


# --- turns, welcome and cards -------------------------------------------------------------


def turn_start_indices(rows: Sequence[Row]) -> list[int]:
    """Indices of the rows that start a turn (user rows), for turn-to-turn navigation."""
    return [index for index, row in enumerate(rows) if row.kind is RowKind.USER]


def welcome_row() -> Row:
    return Row(kind=RowKind.WELCOME, text=WELCOME_TEXT)


def card_row(lines: Sequence[str]) -> Row:
    """A command card (e.g. the resume summary): its title line, then its lines."""
    return Row(kind=RowKind.CARD, text="\n".join(lines))


def _display_value(value: str, fallback: str) -> str:
    trimmed = trim_space(value)
    return trimmed if trimmed else fallback


def _recorded_suffix(recorded: str, current: str) -> str:
    recorded = trim_space(recorded)
    if recorded and recorded.lower() != current.lower():
        return f"  (recorded: {recorded})"
    return ""


def resume_card(
    meta: Metadata,
    event_count: int,
    *,
    model: str = "",
    provider: str = "",
    problems: Sequence[str] = (),
) -> list[str]:
    """The §1.4 resume summary card, one string per line.

    `model`/`provider` are the UI's own; a UI without them passes the session's values, and
    then no `(recorded: …)` suffix appears. Lines are whitespace-collapsed as Go's card
    renderer does (secret redaction is not applied). `problems` (a missing log, unreadable
    lines) make it `status: error` with a Problems section instead of `status: ok`.
    """
    section = [
        "id: " + meta.session_id,
        "title: " + _display_value(meta.title, "untitled"),
        "model: " + _display_value(model, "none") + _recorded_suffix(meta.model_id, model),
        "provider: " + _display_value(provider, "none") + _recorded_suffix(meta.provider, provider),
        f"events: {event_count}",
    ]
    goal = meta.goal
    if goal is not None:
        line = f"goal: {goal.status} — {goal.objective}"
        if goal.status == "active":
            line += " (run /goal resume to continue)"
        section.append(line)
    status = "status: error" if problems else "status: ok"
    lines = ["Resumed Zero session", status, "Session"]
    lines += ["  " + text for text in (collapse_space(line) for line in section) if text]
    if problems:
        lines.append("Problems")
        lines += ["  " + collapse_space(problem) for problem in problems]
    return lines
