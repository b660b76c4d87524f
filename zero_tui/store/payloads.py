"""Event payloads as typed values: one frozen dataclass per event type Zero writes.

The types of store-format §11 (the three permission types share one, and so do the three
spec and the three goal types), and `UnknownPayload` for any other type, kept as its bytes.
`payload_decoder.decode_payload` makes them, reading each field as Zero's own reader of
that type does. Keys no field holds are in `raw`, the payload as a map (empty when it is not
an object); the event keeps the payload's bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeAlias

from zero_tui.store import gojson
from zero_tui.store.models import Goal

_RawMap: TypeAlias = Mapping[str, Any]


# --- the payloads --------------------------------------------------------------------------


class MessageKind(StrEnum):
    """Which branch of Zero's transcript a message takes (§6.2), from its role and origin."""

    PEER = "peer"  # role user from another session (origin cross_session)
    ASK_USER = "ask_user"
    ASK_USER_ANSWERS = "ask_user_answers"
    USER = "user"
    ASSISTANT = "assistant"
    OTHER = "other"  # goal, system, a missing role, anything else


@dataclass(frozen=True, slots=True)
class AskUserQuestion:
    question: str
    options: tuple[str, ...] = ()
    multi_select: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class MessagePayload:
    """`message`. `role` as written (roles compare case-insensitively); `sender` is `from`.
    `images`/`documents` count attachments (whole positive numbers only, at most 64 each);
    `questions`/`answers` belong to the `ask_user`/`ask_user_answers` roles (a non-string
    answer reads as "")."""

    role: str = ""
    content: str = ""
    display_content: str = ""
    origin: str = ""
    sender: str = ""
    images: int = 0
    documents: int = 0
    tool_call_id: str = ""
    header: str = ""
    questions: tuple[AskUserQuestion, ...] = ()
    answers: tuple[str, ...] = ()
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)

    @property
    def kind(self) -> MessageKind:
        role = self.role.lower()
        if role == "user":
            return MessageKind.PEER if self.origin == "cross_session" else MessageKind.USER
        if role == "ask_user":
            return MessageKind.ASK_USER
        if role == "ask_user_answers":
            return MessageKind.ASK_USER_ANSWERS
        return MessageKind.ASSISTANT if role == "assistant" else MessageKind.OTHER


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallPayload:
    """`tool_call`. `call_id` is the first non-blank of `toolCallId` and `id`, trimmed;
    `arguments` the tool's JSON arguments, as a string."""

    call_id: str = ""
    name: str = ""
    arguments: str = ""
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ChangeSummary:
    path: str = ""
    kind: str = ""
    aggregated: bool = False
    count: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultPayload:
    """`tool_result`. `status` as written (Zero shows "" as ok); `meta` keeps string values,
    `changed_files` non-empty strings; `change_summaries` is empty when any entry fails
    Go's decoding of `[]execution.Change`."""

    call_id: str = ""
    name: str = ""
    status: str = ""
    output: str = ""
    display_preview: str = ""
    meta: Mapping[str, str] = field(default_factory=dict)
    changed_files: tuple[str, ...] = ()
    change_summaries: tuple[ChangeSummary, ...] = ()
    truncated: bool = False
    redacted: bool = False
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class PermissionRisk:
    level: str = ""
    reason: str = ""
    categories: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PermissionBlock:
    code: str = ""
    tool_name: str = ""
    action: str = ""
    path: str = ""
    reason: str = ""
    recoverable: bool = False
    risk: PermissionRisk = PermissionRisk()
    """Its own `risk` when it has one, else the permission's."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PermissionPayload:
    """`permission`, `permission_request` and `permission_decision` (the action tells them
    apart). `tool_call_id` falls back to `id`, `tool_name` (`name`) to `toolName`."""

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
    risk: PermissionRisk = PermissionRisk()
    block: PermissionBlock | None = None
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class UsagePayload:
    """`provider_usage`, as Zero's usage report unmarshals it (`error`: its first error)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    model: str = ""
    error: str = ""
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorPayload:
    """`error`."""

    message: str = ""
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class CheckpointFile:
    path: str = ""
    blob: str = ""
    absent: bool = False
    skipped: bool = False
    bytes: int = 0
    mode: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckpointPayload:
    """`session_checkpoint` (store-format §10.6), as a rewind unmarshals it."""

    tool: str = ""
    files: tuple[CheckpointFile, ...] = ()
    error: str = ""
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class RestoreReport:
    target_sequence: int = 0
    files_restored: int = 0
    files_deleted: int = 0
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class RewindPayload:
    """`session_rewind` (store-format §10.3): Zero's RewindMarker struct."""

    target_sequence: int = 0
    report: RestoreReport = RestoreReport()
    error: str = ""
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class EventRef:
    id: str = ""
    sequence: int = 0
    type: str = ""
    created_at: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionPayload:
    """`session_compaction` (store-format §10.4), as rehydration unmarshals it; `error` is
    Unmarshal's, and a blank `summary` is one too (rehydration says so).

    `text` is the summary as the transcript reads it, as a map value: it differs from
    `summary` only for a payload Zero never writes (a repeated or re-cased key, a
    non-string summary)."""

    summary: str = ""
    preserve_last: int = 0
    compactable_count: int = 0
    preserved_count: int = 0
    compacted_through_event_id: str = ""
    compacted_through_sequence: int = 0
    compactable_events: tuple[EventRef, ...] = ()
    preserved_events: tuple[EventRef, ...] = ()
    prompt_chars: int = 0
    truncated: bool = False
    error: str = ""
    text: str = ""
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)

    @property
    def compacted_ids(self) -> frozenset[str]:
        """The ids it replaced (empty ids ignored)."""
        return frozenset(ref.id for ref in self.compactable_events if ref.id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ForkPayload:
    """`session_fork` (store-format §10.5), read as a map (numbers: whole ones only)."""

    parent_session_id: str = ""
    forked_from_event_id: str = ""
    forked_from_sequence: int = 0
    copied_event_count: int = 0
    parent_event_count: int = 0
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChildPayload:
    """`session_child` (store-format §10.7), read as a map (numbers: whole ones only)."""

    child_session_id: str = ""
    parent_session_id: str = ""
    root_session_id: str = ""
    agent_name: str = ""
    task_id: str = ""
    tag: str = ""
    depth: int = 0
    prompt: str = ""
    spawned_from_event_id: str = ""
    spawned_from_sequence: int = 0
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecialistPayload:
    """What `specialist_start` and `specialist_stop` share: the fields Zero's transcript
    reads (`specialist` is the specialist's name, `status` as written)."""

    child_session_id: str = ""
    tool_call_id: str = ""
    specialist: str = ""
    description: str = ""
    status: str = ""
    error: str = ""
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecialistStartPayload(SpecialistPayload):
    """`specialist_start`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecialistStopPayload(SpecialistPayload):
    """`specialist_stop`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecPayload:
    """`spec_draft`, `spec_approved`, `spec_rejected` (store-format §10.8)."""

    spec_id: str = ""
    spec_status: str = ""
    spec_file_path: str = ""
    spec_draft_model_id: str = ""
    spec_draft_reasoning: str = ""
    spec_user_comment: str = ""
    spec_reject_reason: str = ""
    spec_source_session_id: str = ""
    spec_impl_session_id: str = ""
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class GoalPayload:
    """`goal_created`, `goal_updated`, `goal_cleared`: the goal, as Zero's Goal struct."""

    goal: Goal = field(default_factory=Goal)
    error: str = ""
    raw: _RawMap = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class UnknownPayload:
    """Any other type: kept as it is (`raw`: the payload's bytes, None when absent)."""

    event_type: str
    raw: bytes | None

    def value(self) -> Any:
        """The payload decoded (None when absent); GoJSONError if it cannot be."""
        return None if self.raw is None else gojson.loads(self.raw, depth=1)


Payload: TypeAlias = (
    MessagePayload
    | ToolCallPayload
    | ToolResultPayload
    | PermissionPayload
    | UsagePayload
    | ErrorPayload
    | CheckpointPayload
    | RewindPayload
    | CompactionPayload
    | ForkPayload
    | ChildPayload
    | SpecialistStartPayload
    | SpecialistStopPayload
    | SpecPayload
    | GoalPayload
    | UnknownPayload
)
