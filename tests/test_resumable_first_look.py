"""Whether a log holds anything to resume, found with a first look past the user's own lines
(`resumable._progress_after_the_prompts`): the same answer as reading the lines in order,
for every log, whatever its damage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zero_tui.store import Event, SessionStore, events, resumable
from zero_tui.store.resumable import has_resumable_content, log_has_resumable_content

SESSION = "s"


def line(event_type: str, payload: object, sequence: int) -> bytes:
    event = {
        "id": f"e{sequence}",
        "sessionId": SESSION,
        "sequence": sequence,
        "type": event_type,
        "createdAt": "2026-07-01T10:00:00Z",
        "payload": payload,
    }
    return json.dumps(event, separators=(",", ":")).encode()


_LINES = st.sampled_from(
    [
        ("message", {"role": "user", "content": "fix the parser"}),
        ("message", {"role": "assistant", "content": "Done."}),
        ("message", {"role": "assistant", "content": "   "}),
        ("message", {"role": "User", "content": "shouting"}),
        ("tool_call", {"name": "bash", "arguments": {}}),
        ("tool_result", {"output": {"role": "user"}}),  # names the role, shows progress
        ("provider_usage", {"promptTokens": 3}),
        ("error", {"message": "boom"}),
        ("bad", None),
        ("blank", None),
    ]
)


def _log(kinds: list[tuple[str, object]], *, spaced: bool, torn: int, newline: bool) -> bytes:
    pieces: list[bytes] = []
    for number, (kind, payload) in enumerate(kinds, 1):
        if kind == "bad":
            pieces.append(b'{"id":"broken", "type":')
        elif kind == "blank":
            pieces.append(b"   ")
        else:
            encoded = line(kind, payload, number)
            pieces.append(b" " + encoded if spaced else encoded)
    data = b"\n".join(pieces) + (b"\n" if newline and pieces else b"")
    return data[: max(0, len(data) - torn)]


@settings(max_examples=400, deadline=None)
@given(
    kinds=st.lists(_LINES, max_size=8),
    spaced=st.booleans(),
    torn=st.integers(0, 30),
    newline=st.booleans(),
)
def test_the_first_look_answers_as_the_lines_read_in_order(
    tmp_path_factory: pytest.TempPathFactory,
    kinds: list[tuple[str, object]],
    spaced: bool,
    torn: int,
    newline: bool,
) -> None:
    data = _log(kinds, spaced=spaced, torn=torn, newline=newline)
    found = log_has_resumable_content(data, SESSION)
    original = resumable._progress_after_the_prompts
    try:
        resumable._progress_after_the_prompts = lambda chunk, session_id: False
        in_order = log_has_resumable_content(data, SESSION)
    finally:
        resumable._progress_after_the_prompts = original
    assert found == in_order
    store = SessionStore(tmp_path_factory.mktemp("store"))
    store.create(SESSION, cwd="/w")
    store.events_path(SESSION).write_bytes(data)
    assert has_resumable_content(store, SESSION) == found


def test_a_prompt_and_its_answer_decode_only_the_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's prompt is passed over: the answer after it settles it."""
    decoded: list[int] = []
    real = events.decode_line

    def counted(content: bytes, session_id: str, number: int) -> Event:
        decoded.append(number)
        return real(content, session_id, number)

    monkeypatch.setattr(resumable, "decode_line", counted)
    data = b"\n".join(
        [
            line("message", {"role": "user", "content": "hi"}, 1),
            line("message", {"role": "assistant", "content": "hello"}, 2),
            b"",
        ]
    )
    assert log_has_resumable_content(data, SESSION)
    assert decoded == [2]
