"""Session metadata and events, with Zero's exact bytes on the way out (store-format §4, §5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zero_tui.store import gojson
from zero_tui.store.gojson import GoJSONError, encode_string

# (python attribute, JSON key, kind) in Go struct declaration order; kind "s" = string
# with omitempty, "i" = int with omitempty, "S"/"I" = never omitted.
_METADATA_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("session_id", "sessionId", "S"),
    ("session_kind", "sessionKind", "s"),
    ("title", "title", "s"),
    ("cwd", "cwd", "s"),
    ("model_id", "modelId", "s"),
    ("provider", "provider", "s"),
    ("tag", "tag", "s"),
    ("depth", "depth", "i"),
    ("parent_session_id", "parentSessionId", "s"),
    ("root_session_id", "rootSessionId", "s"),
    ("agent_name", "agentName", "s"),
    ("task_id", "taskId", "s"),
    ("forked_from_event_id", "forkedFromEventId", "s"),
    ("forked_from_sequence", "forkedFromSequence", "i"),
    ("spawned_from_event_id", "spawnedFromEventId", "s"),
    ("spawned_from_sequence", "spawnedFromSequence", "i"),
    ("spec_id", "specId", "s"),
    ("spec_file_path", "specFilePath", "s"),
    ("spec_status", "specStatus", "s"),
    ("spec_draft_model_id", "specDraftModelId", "s"),
    ("spec_draft_reasoning", "specDraftReasoning", "s"),
    ("spec_user_comment", "specUserComment", "s"),
    ("spec_reject_reason", "specRejectReason", "s"),
    ("spec_source_session_id", "specSourceSessionId", "s"),
    ("spec_impl_session_id", "specImplSessionId", "s"),
    ("goal", "goal", "g"),
    ("created_at", "createdAt", "S"),
    ("updated_at", "updatedAt", "S"),
    ("event_count", "eventCount", "I"),
    ("last_event_type", "lastEventType", "s"),
)

_GOAL_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("objective", "objective", "S"),
    ("status", "status", "S"),
    ("status_reason", "statusReason", "s"),
    ("token_budget", "tokenBudget", "i"),
    ("tokens_used", "tokensUsed", "i"),
    ("continuation_count", "continuationCount", "i"),
    ("continuation_limit", "continuationLimit", "i"),
    ("created_at", "createdAt", "S"),
    ("updated_at", "updatedAt", "S"),
)

# the named string types of Zero's structs, as Go's errors spell them
_GO_TYPE_NAMES = {
    "sessionKind": "sessions.SessionKind",
    "specStatus": "sessions.SpecStatus",
    "lastEventType": "sessions.EventType",
    "status": "sessions.GoalStatus",
}


def _go_struct(name: str, fields: tuple[tuple[str, str, str], ...]) -> gojson.GoType:
    def go_type(key: str, kind: str) -> gojson.GoType:
        if kind == "g":
            return gojson.GoType("pointer", "*sessions.Goal", elem=GOAL_GO_TYPE)
        if kind in "iI":
            return gojson.GO_INT
        return gojson.GoType("string", _GO_TYPE_NAMES.get(key, "string"))

    return gojson.GoType(
        "struct", name, fields=tuple((key, attr, go_type(key, kind)) for attr, key, kind in fields)
    )


GOAL_GO_TYPE = _go_struct("sessions.Goal", _GOAL_FIELDS)
_METADATA_TYPE = _go_struct("sessions.Metadata", _METADATA_FIELDS)

RESUMABLE_KINDS = frozenset({"", "fork"})


@dataclass(frozen=True, slots=True)
class Goal:
    objective: str = ""
    status: str = ""
    status_reason: str = ""
    token_budget: int = 0
    tokens_used: int = 0
    continuation_count: int = 0
    continuation_limit: int = 0
    created_at: str = ""
    updated_at: str = ""


@dataclass(frozen=True, slots=True)
class Metadata:
    """One session's metadata.json (Go struct sessions.Metadata)."""

    session_id: str = ""
    session_kind: str = ""
    title: str = ""
    cwd: str = ""
    model_id: str = ""
    provider: str = ""
    tag: str = ""
    depth: int = 0
    parent_session_id: str = ""
    root_session_id: str = ""
    agent_name: str = ""
    task_id: str = ""
    forked_from_event_id: str = ""
    forked_from_sequence: int = 0
    spawned_from_event_id: str = ""
    spawned_from_sequence: int = 0
    spec_id: str = ""
    spec_file_path: str = ""
    spec_status: str = ""
    spec_draft_model_id: str = ""
    spec_draft_reasoning: str = ""
    spec_user_comment: str = ""
    spec_reject_reason: str = ""
    spec_source_session_id: str = ""
    spec_impl_session_id: str = ""
    goal: Goal | None = None
    created_at: str = ""
    updated_at: str = ""
    event_count: int = 0
    last_event_type: str = ""

    @property
    def is_resumable_kind(self) -> bool:
        return self.session_kind in RESUMABLE_KINDS

    def to_json_bytes(self) -> bytes:
        """Exactly Zero's metadata.json: json.MarshalIndent(meta, "", "  ") plus a newline."""
        lines = _indented_object(self, _METADATA_FIELDS, "")
        return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")

    def to_dict(self) -> dict[str, Any]:
        """The metadata as Zero's JSON object (omitted fields left out), for scripts."""
        result: dict[str, Any] = {}
        for attribute, key, kind in _METADATA_FIELDS:
            value = getattr(self, attribute)
            if kind == "g":
                if value is not None:
                    result[key] = {
                        goal_key: getattr(value, goal_attr)
                        for goal_attr, goal_key, goal_kind in _GOAL_FIELDS
                        if goal_kind.isupper() or getattr(value, goal_attr)
                    }
            elif kind.isupper() or value:
                result[key] = value
        return result

    @classmethod
    def from_json(cls, data: bytes) -> Metadata:
        """Decode metadata.json exactly as Zero's json.Unmarshal does; raises GoJSONError."""
        pairs = gojson.loads_pairs(data)
        plain = _plain_fields(pairs)
        return cls(**plain) if plain is not None else cls.from_pairs(pairs)

    @classmethod
    def from_pairs(cls, pairs: object) -> Metadata:
        """A decoded metadata.json (`gojson.loads_pairs`) through Go's json.Unmarshal rules."""
        values = gojson.unmarshal(pairs, _METADATA_TYPE)
        goal = values["goal"]
        values["goal"] = None if goal is None else Goal(**goal)
        return cls(**values)


# key -> (attribute, kind) of the fields a plain metadata file holds (not the goal)
_PLAIN_FIELDS = {key: (attribute, kind) for attribute, key, kind in _METADATA_FIELDS if kind != "g"}


def _plain_fields(pairs: object) -> dict[str, Any] | None:
    """The fields of a metadata object that needs none of Go's special rules, as they go
    into `Metadata`: every key of a field written exactly and once, with a string or an
    int64 as the field wants, and no goal (other keys are ignored, as Go ignores them).
    None: `Metadata.from_pairs` must decide."""
    if not isinstance(pairs, gojson.JSONObject):
        return None
    values: dict[str, Any] = {}
    for key, value in pairs:
        field = _PLAIN_FIELDS.get(key)
        if field is None:
            if key == "goal" or (gojson.fold_key(key) or "") in _METADATA_TYPE.by_fold:
                return None  # a pointer, or a key Go matches to a field case-insensitively
            continue
        attribute, kind = field
        if attribute in values:
            return None  # each occurrence of a key is decoded in turn
        if kind in "sS":
            if value.__class__ is not str:
                return None
        elif value.__class__ is not int or not gojson.INT64_MIN <= value <= gojson.INT64_MAX:
            return None
        values[attribute] = value
    return values


def _scalar_json(value: object) -> str:
    if isinstance(value, str):
        return encode_string(value)
    return str(value)


def _indented_object(
    obj: object, fields: tuple[tuple[str, str, str], ...], indent: str
) -> list[str]:
    inner = indent + "  "
    entries: list[list[str]] = []
    for attribute, key, kind in fields:
        value = getattr(obj, attribute)
        if kind == "g":
            if value is None:
                continue
            nested = _indented_object(value, _GOAL_FIELDS, inner)
            entries.append([f"{inner}{encode_string(key)}: {nested[0]}", *nested[1:]])
            continue
        if kind.islower() and not value:
            continue
        entries.append([f"{inner}{encode_string(key)}: {_scalar_json(value)}"])
    if not entries:
        return ["{}"]
    lines = ["{"]
    for index, entry in enumerate(entries):
        if index < len(entries) - 1:
            entry = [*entry[:-1], entry[-1] + ","]
        lines.extend(entry)
    lines.append(indent + "}")
    return lines


@dataclass(slots=True)
class Event:
    """One line of events.jsonl. `payload_raw` keeps the payload's exact source bytes."""

    id: str = ""
    session_id: str = ""
    sequence: int = 0
    type: str = ""
    created_at: str = ""
    payload_raw: bytes | None = None
    _payload: Any = field(default=None, repr=False, compare=False)
    _payload_decoded: bool = field(default=False, repr=False, compare=False)
    _payload_typed: Any = field(default=None, repr=False, compare=False)  # payloads.decode_payload

    @property
    def has_payload(self) -> bool:
        return self.payload_raw is not None

    @property
    def payload(self) -> Any:
        """The decoded payload (None when absent or JSON null); decoded once, on demand."""
        if not self._payload_decoded:
            raw = self.payload_raw
            self._payload = None if raw is None else gojson.loads(raw, depth=1)
            self._payload_decoded = True
        return self._payload

    def payload_object(self) -> dict[str, Any]:
        """The payload as an object, or {} when absent, null, not an object or undecodable."""
        try:
            payload = self.payload
        except GoJSONError:
            return {}
        return payload if isinstance(payload, dict) else {}

    def to_json_line(self) -> bytes:
        """Zero's line for this event (json.Marshal of the Go struct) with its newline."""
        head = (
            '{"id":'
            + encode_string(self.id)
            + ',"sessionId":'
            + encode_string(self.session_id)
            + ',"sequence":'
            + str(self.sequence)
            + ',"type":'
            + encode_string(self.type)
            + ',"createdAt":'
            + encode_string(self.created_at)
        ).encode("utf-8", "surrogateescape")
        if self.payload_raw is None:
            return head + b"}\n"
        return head + b',"payload":' + gojson.compact_raw(self.payload_raw) + b"}\n"

    def to_dict(self) -> dict[str, Any]:
        """The CLI's `show --json` shape: payload decoded, absent payload as null."""
        return {
            "id": self.id,
            "sessionId": self.session_id,
            "sequence": self.sequence,
            "type": self.type,
            "createdAt": self.created_at,
            "payload": self.payload,
        }
