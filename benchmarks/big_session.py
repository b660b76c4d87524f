"""A large, realistic session for the benchmarks, written fast but byte-compatible.

The session is created through the store; its log is then written directly, each line
built with `Event.to_json_line()` (an fsync per append would make 100,000 events take
minutes). About 1 KB a line: prompt, tool call, tool result, usage, answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from zero_tui.store import Event, SessionStore

SESSION_ID = "bench"
EVENT_COUNT = 100_000
_CREATED_AT = "2026-06-04T10:00:00Z"
_OUTPUT = "\n".join(
    f"{n:04d} src/module_{n}.go: func Handler{n}(w http.ResponseWriter)" for n in range(56)
)
_ANSWER = (
    "Here is what changed:\n\n- the **parser** now accepts `time.DateOnly`\n"
    "- the tests cover leap days\n\n```go\nfunc ParseDate(s string) (time.Time, error) {\n"
    "\treturn time.Parse(time.DateOnly, s)\n}\n```\n"
) * 4


def payloads(count: int) -> Iterator[tuple[str, object]]:
    """A realistic mix: prompt, tool call, tool result, usage, answer."""
    for number in range(count):
        turn, step = divmod(number, 5)
        if step == 0:
            yield (
                "message",
                {"content": f"Turn {turn}: please fix the failing test", "role": "user"},
            )
        elif step == 1:
            arguments = json.dumps({"pattern": f"Handler{turn}", "path": "src"})
            yield "tool_call", {"arguments": arguments, "id": f"call_{turn}", "name": "grep"}
        elif step == 2:
            yield (
                "tool_result",
                {"name": "grep", "output": _OUTPUT, "status": "ok", "toolCallId": f"call_{turn}"},
            )
        elif step == 3:
            yield (
                "provider_usage",
                {"completionTokens": 120, "promptTokens": 6000 + turn, "totalTokens": 6120 + turn},
            )
        else:
            yield "message", {"content": f"Turn {turn}. {_ANSWER}", "role": "assistant"}


def write_session(root: Path, count: int = EVENT_COUNT, session_id: str = SESSION_ID) -> Path:
    """Create the session through the store, then write its log directly; returns the log."""
    store = SessionStore(root)
    store.create(session_id, title="Benchmark session", model_id="gpt-5", provider="openai")
    path = store.events_path(session_id)
    with path.open("wb") as log:
        for sequence, (event_type, payload) in enumerate(payloads(count), start=1):
            raw = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
            event = Event(
                f"{session_id}:{sequence}", session_id, sequence, event_type, _CREATED_AT, raw
            )
            log.write(event.to_json_line())
    return path
