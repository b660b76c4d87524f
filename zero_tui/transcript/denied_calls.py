"""The tool calls of a log that Zero's sandbox stopped for want of an approval.

`zero exec` can answer no permission prompt: a prompt-gated call leaves a `tool_call`, the
`permission_request` Zero emits once the tool returned (its risk level, categories and,
for some, a reason), and a `tool_result` saying `Sandbox approval required for …` (Zero's
agent loop writes them in that order). `denied_calls` pairs them into
`store.approvals.ApprovalAsk` values, each with the turn whose prompt a retry sends again;
the wording of the ways forward, and why one would not help, is here too.

No Textual or Rich import here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zero_tui.store import Event, SessionStore, StoreError, gojson
from zero_tui.store.approvals import ApprovalAsk, approval_ask, is_zero_tool
from zero_tui.store.payload_decoder import decode_payload
from zero_tui.store.payloads import PermissionPayload, ToolCallPayload, ToolResultPayload
from zero_tui.transcript.turns import TurnSpan, turn_of

PROMPT_ACTION = "prompt"
NO_DENIED_CALL = "no tool call of this session waits for an approval"


@dataclass(frozen=True, slots=True)
class DeniedCall:
    """One denied call: what was asked, the sequences of its events (call, permission,
    result), and its turn (the prompt a retry sends again)."""

    ask: ApprovalAsk
    call_id: str
    sequences: tuple[int, ...]
    turn: TurnSpan | None


def decoded_arguments(raw: str) -> object:
    """A tool call's JSON arguments as a value (None when they are not JSON)."""
    try:
        return gojson.loads(raw)
    except ValueError:
        return None


def ask_of(
    tool: str, arguments: object, output: str, permission: PermissionPayload | None
) -> ApprovalAsk | None:
    """`approval_ask` for a stored result, with its permission event's risk when known."""
    if permission is None:
        return approval_ask(tool, arguments, output)
    return approval_ask(
        tool,
        arguments,
        output,
        risk_level=permission.risk.level,
        categories=permission.risk.categories,
        reason=permission.reason,
    )


def denied_calls(events: Sequence[Event]) -> list[DeniedCall]:
    """Every call of the log that ended with `Sandbox approval required`, in log order."""
    calls: dict[str, tuple[int, str]] = {}
    prompts: dict[str, tuple[int, PermissionPayload]] = {}
    results: list[tuple[int, ToolResultPayload]] = []
    for event in events:
        if event.type not in ("tool_call", "tool_result", "permission_request", "permission"):
            continue
        payload = decode_payload(event)
        if isinstance(payload, ToolCallPayload) and payload.call_id:
            calls[payload.call_id] = (event.sequence, payload.arguments)
        elif isinstance(payload, PermissionPayload) and payload.action == PROMPT_ACTION:
            if payload.tool_call_id:
                prompts[payload.tool_call_id] = (event.sequence, payload)
        elif isinstance(payload, ToolResultPayload) and payload.status == "error":
            results.append((event.sequence, payload))
    found: list[DeniedCall] = []
    for sequence, result in results:
        call = calls.get(result.call_id) if result.call_id else None
        prompt = prompts.get(result.call_id) if result.call_id else None
        arguments = decoded_arguments(call[1]) if call is not None else None
        ask = ask_of(result.name, arguments, result.output, prompt[1] if prompt else None)
        if ask is None:
            continue
        sequences = [call[0]] if call is not None else []
        sequences += [prompt[0]] if prompt is not None else []
        sequences.append(sequence)
        found.append(DeniedCall(ask, result.call_id, tuple(sequences), turn_of(events, sequence)))
    return found


def read_denied(store: SessionStore, session_id: str, sequence: int | None) -> DeniedCall:
    """The denied call one of whose events has `sequence` (None: the log's last denied
    call); StoreError (one line) when there is none."""
    found = denied_calls(store.read_events(session_id))
    if not found:
        raise StoreError(NO_DENIED_CALL)
    if sequence is None:
        return found[-1]
    for denied in found:
        if sequence in denied.sequences:
            return denied
    raise StoreError(
        "the highlighted row is not a tool call waiting for an approval (with no row "
        "highlighted, /approve takes the last one)"
    )


# --- the ways forward, in words -----------------------------------------------------------


def ways_forward(ask: ApprovalAsk) -> list[str]:
    """The ways forward Zero would honour, for a card's hint: `allow and retry`, …"""
    ways = []
    if ask.retry_helps:
        ways.append("allow and retry")
    if ask.grant_helps:
        ways.append(f"always allow {ask.tool}")
    return ways


def approval_hint(ask: ApprovalAsk, key: str | None) -> str:
    """A denied card's second line: the key and the ways forward, or why there is none."""
    ways = ways_forward(ask)
    if not ways:
        return why_no_retry(ask)
    return f"{key or '/approve'}: " + " · ".join(ways)


def why_no_retry(ask: ApprovalAsk) -> str:
    """Why running the turn again at `--auto high` would not get past this."""
    return (
        "Zero blocks network access for shell commands even at --auto high: a retry would "
        "be denied again."
    )


def why_no_grant(ask: ApprovalAsk) -> str:
    """Why Zero's persistent grant for the tool would not cover this call."""
    if not is_zero_tool(ask.tool):
        return (
            f"{ask.tool} is not one of Zero's tools (the session's text names it): there is "
            "no grant of Zero's to offer for it."
        )
    categories = set(ask.categories)
    reason = ask.reason.lower()
    if "network" in categories or "network access" in reason:
        what = "network access"
    elif "destructive" in categories or "destructive" in reason:
        what = "destructive commands"
    else:
        what = "an escalation of the sandbox"
    return (
        f"Zero asks about {what} before it looks at any grant: always allowing {ask.tool} "
        "would not cover this call."
    )
