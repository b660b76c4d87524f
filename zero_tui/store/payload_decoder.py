"""`decode_payload`: an event's payload as its type's dataclass (`payloads`), decoded once.

Each field is read the way Zero's own reader of that type reads it: what the TUI shows is
read as a map (`gofields`: a number where a string belongs is written out, never an
error); what rehydration, rewinds and the usage report read is unmarshalled into Zero's
struct (`gojson.unmarshal_with_error`, with Zero's type names), and Unmarshal's first
error is kept in the payload's `error`. Decoding is lazy: a payload is decoded when asked
for, and the result is cached on the event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from zero_tui.store import gofields, gojson
from zero_tui.store.gofields import (
    child_map,
    first_non_blank,
    flag,
    payload_map,
    string_map,
    strings,
    text,
    whole_number,
)
from zero_tui.store.gojson import GO_BOOL, GO_INT, GO_STRING, GO_UINT32, GoType
from zero_tui.store.models import GOAL_GO_TYPE, Event, Goal
from zero_tui.store.payloads import (
    AskUserQuestion,
    ChangeSummary,
    CheckpointFile,
    CheckpointPayload,
    ChildPayload,
    CompactionPayload,
    ErrorPayload,
    EventRef,
    ForkPayload,
    GoalPayload,
    MessagePayload,
    Payload,
    PermissionBlock,
    PermissionPayload,
    PermissionRisk,
    RestoreReport,
    RewindPayload,
    SpecialistStartPayload,
    SpecialistStopPayload,
    SpecPayload,
    ToolCallPayload,
    ToolResultPayload,
    UnknownPayload,
    UsagePayload,
)

ATTACHMENT_COUNT_LIMIT = 64
"""The most images (and documents) of one message Zero's TUI counts."""

_RawMap = Mapping[str, Any]

_CHANGES = GoType(
    "slice",
    "[]execution.Change",
    elem=GoType(
        "struct",
        "execution.Change",
        fields=(
            ("path", "path", GO_STRING),
            ("kind", "kind", GoType("string", "execution.ChangeKind")),
            ("aggregated", "aggregated", GO_BOOL),
            ("count", "count", GO_INT),
        ),
    ),
)


def _payload_pairs(event: Event) -> Any:
    """The payload for a struct: objects as key/value pairs in source order."""
    raw = event.payload_raw
    if raw is None:
        return _MISSING
    try:
        return gojson.loads_pairs(raw, depth=1)
    except (ValueError, RecursionError) as error:
        return _Undecodable(str(error))


class _Undecodable:
    __slots__ = ("error",)

    def __init__(self, error: str) -> None:
        self.error = error


_MISSING = _Undecodable("unexpected end of JSON input")  # Go: Unmarshal of no bytes


def _unmarshal(go_type: GoType, event: Event) -> tuple[Any, str]:
    """json.Unmarshal of the payload into `go_type`: (the value as far as it was filled,
    "" or the error Unmarshal returns)."""
    value = _payload_pairs(event)
    if isinstance(value, _Undecodable):
        return go_type.zero(), value.error
    result, error = gojson.unmarshal_with_error(value, go_type)
    return result, "" if error is None else str(error)


_PLAIN_MESSAGE_KEYS = frozenset({"role", "content"})


def _message(event: Event) -> MessagePayload:
    payload = payload_map(event)
    role, content = text(payload, "role"), text(payload, "content")
    if payload.keys() <= _PLAIN_MESSAGE_KEYS:
        return MessagePayload(role=role, content=content, raw=payload)  # most messages
    attachments = child_map(payload, "attachments")
    questions: tuple[AskUserQuestion, ...] = ()
    raw_questions = payload.get("questions")
    if isinstance(raw_questions, list):
        questions = tuple(_question(entry) for entry in raw_questions if isinstance(entry, dict))
    raw_answers = payload.get("answers")
    answers: tuple[str, ...] = ()
    if isinstance(raw_answers, list):
        answers = tuple(answer if isinstance(answer, str) else "" for answer in raw_answers)
    return MessagePayload(
        role=role,
        content=content,
        display_content=text(payload, "displayContent"),
        origin=text(payload, "origin"),
        sender=text(payload, "from"),
        images=_attachment_count(attachments, "images"),
        documents=_attachment_count(attachments, "documents"),
        tool_call_id=text(payload, "toolCallId"),
        header=text(payload, "header"),
        questions=questions,
        answers=answers,
        raw=payload,
    )


def _question(entry: Mapping[str, Any]) -> AskUserQuestion:
    options = entry.get("options")
    if not isinstance(options, list):
        options = ()
    return AskUserQuestion(
        question=text(entry, "question"),
        options=tuple(option for option in options if isinstance(option, str)),
        multi_select=flag(entry, "multiSelect"),
    )


def _attachment_count(attachments: Mapping[str, Any] | None, key: str) -> int:
    if attachments is None:
        return 0
    return min(max(whole_number(attachments, key), 0), ATTACHMENT_COUNT_LIMIT)


def _call_id(payload: _RawMap) -> str:
    return first_non_blank(text(payload, "toolCallId"), text(payload, "id"))


def _tool_call(event: Event) -> ToolCallPayload:
    payload = payload_map(event)
    return ToolCallPayload(
        call_id=_call_id(payload),
        name=text(payload, "name"),
        arguments=text(payload, "arguments"),
        raw=payload,
    )


_PLAIN_RESULT_KEYS = frozenset({"toolCallId", "name", "status", "output"})


def _tool_result(event: Event) -> ToolResultPayload:
    payload = payload_map(event)
    if payload.keys() <= _PLAIN_RESULT_KEYS:  # nothing else to read
        return ToolResultPayload(
            call_id=_call_id(payload),
            name=text(payload, "name"),
            status=text(payload, "status"),
            output=text(payload, "output"),
            raw=payload,
        )
    summaries: tuple[ChangeSummary, ...] = ()
    if "changeSummaries" in payload:
        # Zero marshals the map value back to JSON and unmarshals that into []execution.Change
        value = gofields.remarshalled(payload["changeSummaries"])
        changes, error = gojson.unmarshal_with_error(value, _CHANGES)
        if error is None:
            summaries = tuple(ChangeSummary(**change) for change in changes or ())
    return ToolResultPayload(
        call_id=_call_id(payload),
        name=text(payload, "name"),
        status=text(payload, "status"),
        output=text(payload, "output"),
        display_preview=text(payload, "displayPreview"),
        meta=string_map(payload, "meta"),
        changed_files=strings(payload, "changedFiles"),
        change_summaries=summaries,
        truncated=flag(payload, "truncated"),
        redacted=flag(payload, "redacted"),
        raw=payload,
    )


def _risk(payload: _RawMap | None) -> PermissionRisk:
    if payload is None:
        return PermissionRisk()
    return PermissionRisk(
        text(payload, "level"), text(payload, "reason"), strings(payload, "categories")
    )


def _permission(event: Event) -> PermissionPayload:
    payload = payload_map(event)
    risk = _risk(child_map(payload, "risk"))
    block: PermissionBlock | None = None
    block_map = child_map(payload, "block")
    if block_map is not None:
        nested_risk = child_map(block_map, "risk")
        block = PermissionBlock(
            code=text(block_map, "code"),
            tool_name=text(block_map, "toolName"),
            action=text(block_map, "action"),
            path=text(block_map, "path"),
            reason=text(block_map, "reason"),
            recoverable=flag(block_map, "recoverable"),
            risk=_risk(nested_risk) if nested_risk is not None else risk,
        )
    return PermissionPayload(
        tool_call_id=_call_id(payload),
        tool_name=text(payload, "name") or text(payload, "toolName"),
        action=text(payload, "action"),
        decision_action=text(payload, "decisionAction"),
        permission=text(payload, "permission"),
        permission_granted=flag(payload, "permissionGranted"),
        permission_mode=text(payload, "permissionMode"),
        autonomy=text(payload, "autonomy"),
        side_effect=text(payload, "sideEffect"),
        reason=text(payload, "reason"),
        scope=text(payload, "scope"),
        decision_reason=text(payload, "decisionReason"),
        grant_matched=flag(payload, "grantMatched"),
        risk=risk,
        block=block,
        raw=payload,
    )


_USAGE = GoType(
    "struct",
    "usage.usageEventPayload",
    fields=(
        ("promptTokens", "prompt_tokens", GO_INT),
        ("completionTokens", "completion_tokens", GO_INT),
        ("totalTokens", "total_tokens", GO_INT),
        ("cachedInputTokens", "cached_input_tokens", GO_INT),
        ("cacheWriteTokens", "cache_write_tokens", GO_INT),
        ("reasoningTokens", "reasoning_tokens", GO_INT),
        ("model", "model", GO_STRING),
    ),
)


def _usage(event: Event) -> UsagePayload:
    if not event.payload_raw:
        values, error = _USAGE.zero(), ""  # Zero's report skips the decode of no payload
    else:
        values, error = _unmarshal(_USAGE, event)
    return UsagePayload(**values, error=error, raw=payload_map(event))


def _error(event: Event) -> ErrorPayload:
    payload = payload_map(event)
    return ErrorPayload(message=text(payload, "message"), raw=payload)


_CHECKPOINT_FILE = GoType(
    "struct",
    "sessions.CheckpointFile",
    fields=(
        ("path", "path", GO_STRING),
        ("blob", "blob", GO_STRING),
        ("absent", "absent", GO_BOOL),
        ("skipped", "skipped", GO_BOOL),
        ("bytes", "bytes", GO_INT),
        ("mode", "mode", GO_UINT32),
    ),
)
_CHECKPOINT = GoType(
    "struct",
    "sessions.CheckpointPayload",
    fields=(
        ("tool", "tool", GO_STRING),
        ("files", "files", GoType("slice", "[]sessions.CheckpointFile", elem=_CHECKPOINT_FILE)),
    ),
)


def _checkpoint(event: Event) -> CheckpointPayload:
    values, error = _unmarshal(_CHECKPOINT, event)
    return CheckpointPayload(
        tool=values["tool"],
        files=tuple(CheckpointFile(**file) for file in values["files"] or ()),
        error=error,
        raw=payload_map(event),
    )


_RESTORE_REPORT = GoType(
    "struct",
    "sessions.RestoreReport",
    fields=(
        ("targetSequence", "target_sequence", GO_INT),
        ("filesRestored", "files_restored", GO_INT),
        ("filesDeleted", "files_deleted", GO_INT),
        ("skipped", "skipped", GoType("slice", "[]string", elem=GO_STRING)),
    ),
)
_REWIND = GoType(
    "struct",
    "sessions.RewindMarker",
    fields=(
        ("targetSequence", "target_sequence", GO_INT),
        ("report", "report", _RESTORE_REPORT),
    ),
)


def _rewind(event: Event) -> RewindPayload:
    values, error = _unmarshal(_REWIND, event)
    report = values["report"]
    return RewindPayload(
        target_sequence=values["target_sequence"],
        report=RestoreReport(
            target_sequence=report["target_sequence"],
            files_restored=report["files_restored"],
            files_deleted=report["files_deleted"],
            skipped=tuple(report["skipped"] or ()),
        ),
        error=error,
        raw=payload_map(event),
    )


_EVENT_REFS = GoType(
    "slice",
    "[]sessions.EventRef",
    elem=GoType(
        "struct",
        "sessions.EventRef",
        fields=(
            ("id", "id", GO_STRING),
            ("sequence", "sequence", GO_INT),
            ("type", "type", GoType("string", "sessions.EventType")),
            ("createdAt", "created_at", GO_STRING),
        ),
    ),
)
_COMPACTION = GoType(
    "struct",
    "sessions.CompactionPayload",
    fields=(
        ("summary", "summary", GO_STRING),
        ("preserveLast", "preserve_last", GO_INT),
        ("compactableCount", "compactable_count", GO_INT),
        ("preservedCount", "preserved_count", GO_INT),
        ("compactedThroughEventId", "compacted_through_event_id", GO_STRING),
        ("compactedThroughSequence", "compacted_through_sequence", GO_INT),
        ("compactableEvents", "compactable_events", _EVENT_REFS),
        ("preservedEvents", "preserved_events", _EVENT_REFS),
        ("promptChars", "prompt_chars", GO_INT),
        ("truncated", "truncated", GO_BOOL),
    ),
)


def _event_refs(refs: list[dict[str, Any]] | None) -> tuple[EventRef, ...]:
    return tuple(EventRef(**ref) for ref in refs or ())


def _compaction(event: Event) -> CompactionPayload:
    values, error = _unmarshal(_COMPACTION, event)
    values["compactable_events"] = _event_refs(values["compactable_events"])
    values["preserved_events"] = _event_refs(values["preserved_events"])
    payload = payload_map(event)
    return CompactionPayload(**values, error=error, text=text(payload, "summary"), raw=payload)


def _fork(event: Event) -> ForkPayload:
    payload = payload_map(event)
    return ForkPayload(
        parent_session_id=text(payload, "parentSessionId"),
        forked_from_event_id=text(payload, "forkedFromEventId"),
        forked_from_sequence=whole_number(payload, "forkedFromSequence"),
        copied_event_count=whole_number(payload, "copiedEventCount"),
        parent_event_count=whole_number(payload, "parentEventCount"),
        raw=payload,
    )


def _child(event: Event) -> ChildPayload:
    payload = payload_map(event)
    return ChildPayload(
        child_session_id=text(payload, "childSessionId"),
        parent_session_id=text(payload, "parentSessionId"),
        root_session_id=text(payload, "rootSessionId"),
        agent_name=text(payload, "agentName"),
        task_id=text(payload, "taskId"),
        tag=text(payload, "tag"),
        depth=whole_number(payload, "depth"),
        prompt=text(payload, "prompt"),
        spawned_from_event_id=text(payload, "spawnedFromEventId"),
        spawned_from_sequence=whole_number(payload, "spawnedFromSequence"),
        raw=payload,
    )


def _specialist(event: Event) -> SpecialistStartPayload | SpecialistStopPayload:
    payload = payload_map(event)
    kind = SpecialistStopPayload if event.type == "specialist_stop" else SpecialistStartPayload
    return kind(
        child_session_id=text(payload, "childSessionId"),
        tool_call_id=text(payload, "toolCallId"),
        specialist=text(payload, "specialist"),
        description=text(payload, "description"),
        status=text(payload, "status"),
        error=text(payload, "error"),
        raw=payload,
    )


def _spec(event: Event) -> SpecPayload:
    payload = payload_map(event)
    return SpecPayload(
        spec_id=text(payload, "specId"),
        spec_status=text(payload, "specStatus"),
        spec_file_path=text(payload, "specFilePath"),
        spec_draft_model_id=text(payload, "specDraftModelId"),
        spec_draft_reasoning=text(payload, "specDraftReasoning"),
        spec_user_comment=text(payload, "specUserComment"),
        spec_reject_reason=text(payload, "specRejectReason"),
        spec_source_session_id=text(payload, "specSourceSessionId"),
        spec_impl_session_id=text(payload, "specImplSessionId"),
        raw=payload,
    )


def _goal(event: Event) -> GoalPayload:
    goal, error = _unmarshal(GOAL_GO_TYPE, event)
    return GoalPayload(goal=Goal(**goal), error=error, raw=payload_map(event))


_DECODERS: dict[str, Callable[[Event], Payload]] = {
    "message": _message,
    "tool_call": _tool_call,
    "tool_result": _tool_result,
    "permission": _permission,
    "permission_request": _permission,
    "permission_decision": _permission,
    "provider_usage": _usage,
    "error": _error,
    "session_checkpoint": _checkpoint,
    "session_rewind": _rewind,
    "session_compaction": _compaction,
    "session_fork": _fork,
    "session_child": _child,
    "specialist_start": _specialist,
    "specialist_stop": _specialist,
    "spec_draft": _spec,
    "spec_approved": _spec,
    "spec_rejected": _spec,
    "goal_created": _goal,
    "goal_updated": _goal,
    "goal_cleared": _goal,
}
KNOWN_TYPES = frozenset(_DECODERS)


def decode_payload(event: Event) -> Payload:
    """The event's payload as its type's dataclass (decoded once, then cached on it)."""
    cached = event._payload_typed
    if cached is not None and cached[0] is event.payload_raw and cached[1] is event.type:
        return cached[2]  # type: ignore[no-any-return]
    decoder = _DECODERS.get(event.type)
    payload = UnknownPayload(event.type, event.payload_raw) if decoder is None else decoder(event)
    event._payload_typed = (event.payload_raw, event.type, payload)
    return payload
