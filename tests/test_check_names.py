"""`zero-tui check ID` names a session as every other command does: a unique prefix of an
id, or `latest` — and, being the command for damaged sessions, also one whose metadata
cannot be read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zero_tui.cli import main
from zero_tui.store import SessionStore
from zero_tui.store.store import METADATA_FILE

WORKSPACE = "/w"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SessionStore:
    monkeypatch.setenv("ZERO_TUI_CACHE_DIR", str(tmp_path / "cache"))
    store = SessionStore(tmp_path / "sessions")
    for session_id in ("alpha-1", "alpha-2", "beta"):
        store.create(session_id, cwd=WORKSPACE)
        store.append_events(session_id, [("message", {"role": "user", "content": "hi"})])
    return store


def check(store: SessionStore, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["check", *args, "--store", str(store.root), "--cwd", WORKSPACE])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_a_unique_prefix_names_the_session(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    (store.root / "beta" / "events.jsonl").write_bytes(b'{"torn')
    code, said = check(store, capsys, "be")
    assert code == 1
    assert "checked session beta: 2 problems" in said


def test_latest_is_what_resume_latest_opens(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store.append_events("alpha-1", [("message", {"role": "assistant", "content": "newest"})])
    assert check(store, capsys, "latest") == (0, "checked session alpha-1: healthy\n")
    code, said = check(store, capsys, "latest", "--json")
    assert code == 0
    assert json.loads(said)["sessionId"] == "alpha-1"


def test_the_json_names_the_session_checked_or_none_for_the_store(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    code, said = check(store, capsys, "be", "--json")
    assert (code, json.loads(said)["sessionId"], json.loads(said)["sessionsChecked"]) == (
        0,
        "beta",
        1,
    )
    code, said = check(store, capsys, "--json")
    assert (code, json.loads(said)["sessionId"]) == (0, None)


def test_an_ambiguous_prefix_names_the_sessions_it_matches(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    code, said = check(store, capsys, "alpha")
    assert code == 1
    assert "ambiguous session id 'alpha': 2 sessions start with it: alpha-1, alpha-2" in said


def test_a_prefix_finds_a_session_whose_metadata_cannot_be_read(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    (store.root / "beta" / METADATA_FILE).write_bytes(b"{not json")
    code, said = check(store, capsys, "bet")
    assert code == 1
    assert "checked session beta: " in said
    assert "metadata" in said
