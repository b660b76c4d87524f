"""The transcript's rows: what each one is and holds (tui-behaviour §6.2), and its de-dup key
(§6.3). Built by `rows.RowBuilder`; no Textual or Rich import here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from zero_tui.store.approvals import ApprovalAsk
from zero_tui.store.gotext import trim_space
from zero_tui.store.payloads import AskUserQuestion, ChangeSummary, PermissionPayload

ATTACHMENT_VISIBLE_ITEMS = 4

ROW_EVENT_TYPES = frozenset(
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
"""The event types that can make a row; Zero's transcript skips every other type."""


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
    permission: PermissionPayload | None = None
    ask_user: AskUserInfo | None = None
    specialist: SpecialistInfo | None = None
    approval: ApprovalAsk | None = None
    """A tool result Zero's sandbox stopped for want of an approval: what was asked."""

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
            return permission_detail(self.permission)
        if self.ask_user is not None:
            return ask_user_detail(self.ask_user)
        if self.specialist is not None:
            return specialist_detail(self.specialist)
        return ""


RowKey = tuple[str, str, str]


def row_key(row: Row) -> RowKey | None:
    """De-dup key of §6.3 (all rehydrated rows share run id 0), or None: always appended."""
    if row.kind in (RowKind.TOOL_CALL, RowKind.TOOL_RESULT, RowKind.ASK_USER):
        return (row.kind.value, row.id, "") if row.id else None
    if row.kind is RowKind.PERMISSION and row.permission is not None:
        call_id = row.permission.tool_call_id
        return (row.kind.value, call_id, row.permission.action) if call_id else None
    return None


def turn_start_indices(rows: Sequence[Row]) -> list[int]:
    """Indices of the rows that start a turn (user rows), for turn-to-turn navigation."""
    return [index for index, row in enumerate(rows) if row.kind is RowKind.USER]


def effective_tool_row_id(call_id: str, occurrence: int) -> str:
    """A tool row's id: the call id, or `id#k` for the k-th call of a repeated id."""
    if not call_id or occurrence <= 1:
        return call_id
    return f"{call_id}#{occurrence}"


# --- the second text of a row ---------------------------------------------------------------

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


def permission_detail(permission: PermissionPayload) -> str:
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


def ask_user_detail(request: AskUserInfo) -> str:
    lines = []
    for index, question in enumerate(request.questions, start=1):
        line = f"{index}. {question.question}"
        if question.options:
            line += "  (" + ", ".join(question.options) + ")"
        lines.append(line)
    return "\n".join(lines)


def specialist_detail(info: SpecialistInfo) -> str:
    lines = [line for line in (info.description, info.error) if line]
    return "\n".join(lines)
