"""Session text never controls the terminal (issue 9, faults 2 and 12) and no session
vanishes from the CLI silently (fault 10).

Escape sequences in stored or user-supplied text are removed from every human-readable
line; JSON escapes every control character; bidi controls are shown as `⟨U+202E⟩` in text
and kept exact in JSON.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from zero_tui.cli import main
from zero_tui.store import Event, SessionStore
from zero_tui.text.labels import clean_text, display_title
from zero_tui.text.sanitize import sanitize_line, sanitize_text
from zero_tui.transcript.export import export_session

UPDATED = "2026-07-04T10:00:00Z"
HOSTILE = "\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIC8=\x07\x1b[2J\x9b31m\x7f"
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# what must never reach a terminal: C0 except TAB/LF, DEL, C1, and raw bidi controls
_TERMINAL_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZERO_TUI_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions")


def hostile_session(store: SessionStore, sid: str = "hostile") -> None:
    """A session whose metadata sessionId (not its directory name) carries escapes."""
    store.root.mkdir(exist_ok=True)
    (store.root / sid).mkdir()
    meta = {
        "sessionId": sid + HOSTILE,
        "title": "title" + HOSTILE + BIDI,
        "cwd": "/w" + HOSTILE,
        "modelId": "model" + HOSTILE,
        "createdAt": UPDATED,
        "updatedAt": UPDATED,
        "eventCount": 1,
    }
    store.metadata_path(sid).write_text(json.dumps(meta))
    payload = json.dumps({"role": "assistant", "content": "answer" + HOSTILE + BIDI}).encode()
    line = Event(f"{sid}:1", sid, 1, "message", UPDATED, payload).to_json_line()
    store.events_path(sid).write_bytes(line)


def assert_terminal_safe(text: str) -> None:
    found = _TERMINAL_UNSAFE.findall(text)
    assert not found, f"unsafe characters reached the output: {found!r}"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- fault 2: escape sequences -------------------------------------------------------------------


def test_sessions_prints_no_escape_sequence_from_metadata(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile_session(store)
    code, out, err = run(["sessions", "--all", "--store", str(store.root)], capsys)
    assert code == 0
    assert "hostile]0;pwned" in out  # the text stays, the controls go
    assert_terminal_safe(out + err)


def test_no_sessions_line_sanitises_the_workspace_and_store(
    store: SessionStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / ("store" + HOSTILE)
    code, out, err = run(["sessions", "--store", str(root), "--cwd", "/x" + HOSTILE], capsys)
    assert code == 1  # an explicit store that does not exist
    assert err.startswith("zero-tui: no session store at ")
    assert_terminal_safe(out + err)
    root.mkdir()
    code, out, err = run(["sessions", "--store", str(root), "--cwd", "/x" + HOSTILE], capsys)
    assert code == 0
    assert err.startswith("no sessions for /x]0;pwned")  # stderr: stdout is the table
    assert_terminal_safe(out + err)


def test_error_lines_are_sanitised(
    store: SessionStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile_session(store)
    for args in (
        ["show", "nope" + HOSTILE, "--store", str(store.root)],
        ["export", "hostile", "-o", str(tmp_path / ("missing" + HOSTILE) / "x.txt")],
        ["show", "x", "--store", str(store.root), "--bogus" + HOSTILE],
    ):
        if args[0] == "export":
            args += ["--store", str(store.root)]
        code, out, err = run(args, capsys)
        assert code in (1, 2)
        assert err.count("\n") == 1
        assert_terminal_safe(out + err)


def test_show_text_and_txt_export_are_safe(
    store: SessionStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile_session(store)
    code, out, err = run(["show", "hostile", "--store", str(store.root)], capsys)
    assert code == 0
    assert_terminal_safe(out + err)
    for suffix in ("txt", "md", "html"):
        target = tmp_path / f"out.{suffix}"
        export_session(store, "hostile", path=str(target), workspace="", now=_now())
        text = target.read_text()
        assert_terminal_safe(text)
        assert "⟨U+202E⟩" in text


def test_sessions_json_escapes_every_control_as_show_json_does(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile_session(store)
    code, out, _ = run(["sessions", "--all", "--json", "--store", str(store.root)], capsys)
    assert code == 0
    assert re.search("[\x00-\x1f\x7f-\x9f]", out.replace("\n", "")) is None
    (listed,) = json.loads(out)
    assert listed["title"] == "title" + HOSTILE + BIDI  # exact: bidi kept in JSON
    code, out, _ = run(["show", "hostile", "--json", "--store", str(store.root)], capsys)
    assert re.search("[\x00-\x1f\x7f-\x9f]", out.replace("\n", "")) is None
    assert json.loads(out)[0]["payload"]["content"] == "answer" + HOSTILE + BIDI


# --- fault 12: bidi controls ---------------------------------------------------------------------


def test_the_sanitiser_makes_bidi_controls_visible() -> None:
    text = "access = \u202e\u2066// admin\u2069\u2066 denied"
    shown = sanitize_text(text)
    assert shown == "access = ⟨U+202E⟩⟨U+2066⟩// admin⟨U+2069⟩⟨U+2066⟩ denied"
    assert sanitize_line("a\u202ab\nc") == "a⟨U+202A⟩b c"
    assert sanitize_text("plain é ✓") == "plain é ✓"
    assert sanitize_text("x\u200fy\u061c") == "x\u200fy\u061c"  # marks, not controls


def test_picker_titles_and_previews_show_bidi_controls() -> None:
    assert display_title("evil\u202etxt.exe") == "evil⟨U+202E⟩txt.exe"
    assert clean_text("line\u2067one\nline two\x1b") == "line⟨U+2067⟩one\nline two"


# --- fault 10: the CLI says what it could not read -----------------------------------------------


def test_sessions_says_on_stderr_how_many_are_unreadable(
    store: SessionStore, capsys: pytest.CaptureFixture[str]
) -> None:
    store.create("good")
    store.append_events("good", [("message", {"role": "assistant", "content": "fine"})])
    for sid, content in (("garbage", b"{not json"), ("empty", b"")):
        (store.root / sid).mkdir()
        store.metadata_path(sid).write_bytes(content)
    (store.root / "nometa").mkdir()
    code, out, err = run(["sessions", "--all", "--json", "--store", str(store.root)], capsys)
    assert code == 0
    assert [item["sessionId"] for item in json.loads(out)] == ["good"]
    assert err == "zero-tui: 3 unreadable sessions not listed (see zero-tui check)\n"
    scan = store.scan()
    reasons = {entry.session_id: entry.reason for entry in scan.unreadable}
    assert set(reasons) == {"garbage", "empty", "nometa"}
    assert reasons["nometa"] == "no metadata.json"
    assert "invalid zero session metadata garbage" in reasons["garbage"]


def _now() -> datetime:
    return datetime(2026, 7, 4, 12, 0, 0).astimezone()
