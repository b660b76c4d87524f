"""Typed stream-json events of `zero exec` (zero-exec.md §2), one per stdout line.

`parse_line` never raises: a line that is not a JSON object, or carries another
`schemaVersion`, becomes `Unreadable` (shown to the user); unknown types give None and
unknown keys are ignored. A field of the wrong JSON type reads as absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from zero_tui.store import gojson
from zero_tui.store.gojson import GoJSONError

SCHEMA_VERSION = 2
UNREADABLE_TEXT_LIMIT = 300


@dataclass(frozen=True, slots=True)
class RunStart:
    run_id: str
    session_id: str
    cwd: str
    provider: str
    model: str
    api_model: str


@dataclass(frozen=True, slots=True)
class AgentWarning:
    message: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    delta: str


@dataclass(frozen=True, slots=True)
class TextDelta:
    delta: str


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


@dataclass(frozen=True, slots=True)
class ToolCall:
    call_id: str
    name: str
    args: object | None  # decoded JSON arguments; the raw string when not JSON
    side_effect: str


@dataclass(frozen=True, slots=True)
class CheckpointSaved:
    sequence: int
    tool: str
    files: tuple[str, ...]


PermissionKind = Literal["request", "decision", "other"]


@dataclass(frozen=True, slots=True)
class PermissionEvent:
    kind: PermissionKind
    call_id: str
    name: str
    action: str  # prompt (request) | allow | deny | cancel
    reason: str
    granted: bool
    decision_reason: str = ""
    risk_level: str = ""
    risk_categories: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolResult:
    call_id: str
    name: str
    status: str  # ok | error
    output: str  # model-facing text, cut at 10 KiB by exec
    truncated: bool
    summary: str  # display.summary, or ""
    display_kind: str = ""  # display.kind: file, diff, shell, ...
    changed_files: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FinalAnswer:
    text: str


@dataclass(frozen=True, slots=True)
class AgentError:
    code: str  # usage_error, provider_error, interrupted, incomplete, ...
    message: str


@dataclass(frozen=True, slots=True)
class RunEnd:
    status: str  # success | error | interrupted | incomplete
    exit_code: int | None


@dataclass(frozen=True, slots=True)
class Unreadable:
    text: str  # the line, cut to UNREADABLE_TEXT_LIMIT characters
    reason: str


AgentEvent = (
    RunStart
    | AgentWarning
    | ReasoningDelta
    | TextDelta
    | Usage
    | ToolCall
    | CheckpointSaved
    | PermissionEvent
    | ToolResult
    | FinalAnswer
    | AgentError
    | RunEnd
    | Unreadable
)


def _str(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def _int(obj: dict[str, Any], key: str) -> int | None:
    value = obj.get(key)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _bool(obj: dict[str, Any], key: str) -> bool:
    return obj.get(key) is True


def _obj(obj: dict[str, Any], key: str) -> dict[str, Any]:
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def _strings(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(item for item in value if isinstance(item, str))


def _shorten(text: str) -> str:
    if len(text) <= UNREADABLE_TEXT_LIMIT:
        return text
    return text[: UNREADABLE_TEXT_LIMIT - 1] + "…"


def size_text(size: int) -> str:
    """A byte count for a message: `32 MiB`, or `1,000 bytes` when not whole mebibytes."""
    mebibyte = 1024 * 1024
    if size >= mebibyte and size % mebibyte == 0:
        return f"{size // mebibyte} MiB"
    return f"{size:,} bytes"


def line_too_long(head: bytes, limit: int) -> Unreadable:
    """A stdout line longer than `limit` bytes, dropped after its `head` was read."""
    return _unreadable(head, f"agent output line too long: over {size_text(limit)}, dropped")


def _unreadable(line: bytes, reason: str) -> Unreadable:
    # decode only the head: a multi-megabyte line is never copied whole for display
    head = line[: UNREADABLE_TEXT_LIMIT * 4].decode("utf-8", errors="replace")
    return Unreadable(_shorten(head), reason)


def _run_start(obj: dict[str, Any]) -> RunStart:
    return RunStart(
        run_id=_str(obj, "runId"),
        session_id=_str(obj, "sessionId"),
        cwd=_str(obj, "cwd"),
        provider=_str(obj, "provider"),
        model=_str(obj, "model"),
        api_model=_str(obj, "apiModel"),
    )


def _usage(obj: dict[str, Any]) -> Usage:
    return Usage(
        prompt_tokens=_int(obj, "promptTokens") or 0,
        completion_tokens=_int(obj, "completionTokens") or 0,
        total_tokens=_int(obj, "totalTokens") or 0,
    )


def _tool_call(obj: dict[str, Any]) -> ToolCall:
    return ToolCall(
        call_id=_str(obj, "id"),
        name=_str(obj, "name"),
        args=obj.get("args"),
        side_effect=_str(obj, "sideEffect"),
    )


def _checkpoint(obj: dict[str, Any]) -> CheckpointSaved:
    checkpoint = _obj(obj, "checkpoint")
    return CheckpointSaved(
        sequence=_int(checkpoint, "sequence") or 0,
        tool=_str(checkpoint, "tool"),
        files=_strings(checkpoint.get("files")),
    )


_PERMISSION_KINDS: dict[str, PermissionKind] = {
    "permission_request": "request",
    "permission_decision": "decision",
    "permission": "other",
}


def _permission(obj: dict[str, Any], kind: PermissionKind) -> PermissionEvent:
    return PermissionEvent(
        kind=kind,
        call_id=_str(obj, "id"),
        name=_str(obj, "name"),
        action=_str(obj, "action"),
        reason=_str(obj, "reason"),
        granted=_bool(obj, "permissionGranted"),
        decision_reason=_str(obj, "decisionReason"),
        risk_level=_str(_obj(obj, "risk"), "level"),
        risk_categories=_strings(_obj(obj, "risk").get("categories")),
    )


def _tool_result(obj: dict[str, Any]) -> ToolResult:
    display = _obj(obj, "display")
    return ToolResult(
        call_id=_str(obj, "id"),
        name=_str(obj, "name"),
        status=_str(obj, "status"),
        output=_str(obj, "output"),
        truncated=_bool(obj, "truncated"),
        summary=_str(display, "summary"),
        display_kind=_str(display, "kind"),
        changed_files=_strings(obj.get("changedFiles")),
    )


def _from_object(obj: dict[str, Any], event_type: str) -> AgentEvent | None:
    if event_type == "run_start":
        return _run_start(obj)
    if event_type == "warning":
        return AgentWarning(_str(obj, "message"))
    if event_type == "reasoning":
        return ReasoningDelta(_str(obj, "delta"))
    if event_type == "text":
        return TextDelta(_str(obj, "delta"))
    if event_type == "usage":
        return _usage(obj)
    if event_type == "tool_call":
        return _tool_call(obj)
    if event_type == "checkpoint":
        return _checkpoint(obj)
    if event_type in _PERMISSION_KINDS:
        return _permission(obj, _PERMISSION_KINDS[event_type])
    if event_type == "tool_result":
        return _tool_result(obj)
    if event_type == "final":
        return FinalAnswer(_str(obj, "text"))
    if event_type == "error":
        return AgentError(_str(obj, "code"), _str(obj, "message"))
    if event_type == "run_end":
        return RunEnd(_str(obj, "status"), _int(obj, "exitCode"))
    return None  # "restore" and types of later versions


def parse_line(line: bytes) -> AgentEvent | None:
    """One stdout line (with or without its newline) -> its event; None when blank/unknown."""
    stripped = line.strip()
    if not stripped:
        return None
    try:
        obj = gojson.loads(stripped)
    except GoJSONError as error:
        return _unreadable(stripped, f"not JSON: {error}")
    if not isinstance(obj, dict):
        return _unreadable(stripped, "not a JSON object")
    version = obj.get("schemaVersion")
    if isinstance(version, bool) or version != SCHEMA_VERSION:
        shown = "missing" if version is None else gojson.marshal(version).decode()
        return _unreadable(stripped, f"schemaVersion {shown}, expected {SCHEMA_VERSION}")
    event_type = obj.get("type")
    if not isinstance(event_type, str):
        return _unreadable(stripped, "no event type")
    return _from_object(obj, event_type)
