"""Zero's own commands behind rewind, grants and the cost estimate (issue 20, parts 2, 3, 5):
`zero_tui.agent.zero_commands`, against a scripted `zero` and, marked agent, the real one."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from zero_tui.agent.zero_commands import (
    FileChange,
    ZeroCommandError,
    allow_always,
    grants,
    revoke,
    rewind,
    rewind_plan,
    run_zero,
)
from zero_tui.store import SessionStore

SCRIPT = """#!{python}
import json, os, sys
log = os.environ["FAKE_ZERO_LOG"]
with open(log, "a") as handle:
    handle.write(json.dumps(sys.argv[1:]) + "\\n")
answers = json.loads(os.environ["FAKE_ZERO_ANSWERS"])
key = " ".join(sys.argv[1:3])
if key not in answers:
    sys.stderr.write("[zero] unknown command " + key + "\\n")
    sys.exit(2)
code, out = answers[key]
if code:
    sys.stderr.write("noise\\n[zero] " + out + "\\n")
else:
    sys.stdout.write(json.dumps(out))
sys.exit(code)
"""


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "data" / "zero" / "sessions")
    store.create("s", cwd=str(tmp_path))
    store.append_events(
        "s",
        [
            ("message", {"role": "user", "content": "edit"}),
            ("session_checkpoint", {"tool": "edit", "files": [{"path": "a.txt", "blob": "ab"}]}),
            ("session_checkpoint", {"tool": "edit", "files": [{"path": "b.txt", "absent": True}]}),
            ("session_checkpoint", {"tool": "edit", "files": [{"path": "a.txt", "absent": True}]}),
            ("message", {"role": "assistant", "content": "done"}),
        ],
    )
    return store


def scripted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers: dict[str, tuple[int, object]]
) -> Path:
    script = tmp_path / "bin" / "zero"
    script.parent.mkdir()
    script.write_text(SCRIPT.format(python=sys.executable))
    script.chmod(0o755)
    log = tmp_path / "zero-calls.jsonl"
    monkeypatch.setenv("ZERO_BIN", str(script))
    monkeypatch.setenv("FAKE_ZERO_LOG", str(log))
    monkeypatch.setenv("FAKE_ZERO_ANSWERS", json.dumps(answers))
    return log


def calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


PLAN = {
    "sessionId": "s",
    "targetSequence": 1,
    "keptCount": 1,
    "droppedCount": 4,
    "droppedEvents": [
        {"type": "session_checkpoint", "sequence": 2},
        {"type": "session_checkpoint", "sequence": 3},
        {"type": "session_checkpoint", "sequence": 4},
        {"type": "message", "sequence": 5},
    ],
}


def test_the_rewind_plan_is_zero_s_with_the_files_it_touches(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = scripted(tmp_path, monkeypatch, {"sessions rewind-plan": (0, PLAN)})
    plan = rewind_plan(store, "s", 1)
    assert calls(log) == [["sessions", "rewind-plan", "s", "--sequence", "1", "--json"]]
    assert (plan.kept, plan.dropped) == (1, 4)
    assert plan.dropped_types == {"session_checkpoint": 3, "message": 1}
    # oldest checkpoint first, the first entry of a path wins (Zero's restore)
    assert plan.files == (FileChange("a.txt", "restore"), FileChange("b.txt", "delete"))


def test_rewind_and_grants_run_zero_s_commands(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers: dict[str, tuple[int, object]] = {
        "sessions rewind": (
            0,
            {"filesRestored": 1, "filesDeleted": 1, "skipped": [], "targetSequence": 1},
        ),
        "sandbox grants": (
            0,
            {
                "grants": [
                    {"toolName": "exec_command", "decision": "allow", "approvedAt": "t"},
                    {"toolName": "write_file", "scope": "/w/a.txt", "decision": "allow"},
                ]
            },
        ),
    }
    log = scripted(tmp_path, monkeypatch, answers)
    result = rewind(store, "s", 1)
    assert (result.restored, result.deleted, result.skipped) == (1, 1, 0)
    grant, _ = grants(store)
    assert grant.describe() == "exec_command (every call) [allow]"
    allow_always(store, "write_file", path="/w/a.txt")
    revoke(store, "exec_command")
    assert calls(log) == [
        ["sessions", "rewind", "s", "--sequence", "1", "--json"],
        ["sandbox", "grants", "list", "--json"],
        ["sandbox", "grants", "allow", "write_file", "--path", "/w/a.txt", "--reason",
         "allowed from zero-tui"],
        ["sandbox", "grants", "list", "--json"],  # the grant is there
        ["sandbox", "grants", "revoke", "exec_command"],
    ]  # fmt: skip


def test_a_grant_is_asked_only_for_zero_s_tools_and_confirmed_by_zero_s_list(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25, item 10: `zero sandbox grants allow -h` prints Zero's help and exits 0."""
    log = scripted(tmp_path, monkeypatch, {"sandbox grants": (0, {"grants": []})})
    for name in ("-h", "--help", "help", "my_plugin_tool"):
        with pytest.raises(ZeroCommandError, match="is not one of Zero's tools"):
            allow_always(store, name)
    assert not log.exists()  # zero was never asked
    with pytest.raises(ZeroCommandError, match="Zero lists no such grant: bash is not allowed"):
        allow_always(store, "bash")  # it answers, and lists no grant
    assert calls(log) == [
        ["sandbox", "grants", "allow", "bash", "--reason", "allowed from zero-tui"],
        ["sandbox", "grants", "list", "--json"],
    ]


def test_what_zero_says_when_it_refuses_is_one_line(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripted(
        tmp_path,
        monkeypatch,
        {"sessions rewind-plan": (2, "rewind target sequence 99 was not found")},
    )
    with pytest.raises(ZeroCommandError, match=r"^rewind target sequence 99 was not found$"):
        rewind_plan(store, "s", 99)


def test_the_store_is_zero_s_data_and_a_missing_zero_is_said(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZERO_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(ZeroCommandError, match="not on PATH"):
        run_zero(store, ["sandbox", "grants", "list"])
    elsewhere = SessionStore(tmp_path / "not-zero-layout")
    monkeypatch.setenv("ZERO_BIN", sys.executable)
    with pytest.raises(ZeroCommandError, match="browse-only"):
        run_zero(elsewhere, ["sandbox", "grants", "list"])


def real_zero() -> str:
    found = os.environ.get("ZERO_BIN") or shutil.which("zero")
    if found is None:
        pytest.skip("no `zero` (ZERO_BIN or PATH): the real-agent checks skip")
    return found


@pytest.mark.agent
def test_against_the_real_zero(
    store: SessionStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_zero()
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    plan = rewind_plan(store, "s", 1)
    assert (plan.kept, plan.dropped, plan.target_sequence) == (1, 4, 1)
    assert grants(store) == []
    allow_always(store, "exec_command")
    assert [grant.tool for grant in grants(store)] == ["exec_command"]
    with pytest.raises(ZeroCommandError, match="is not one of Zero's tools"):
        allow_always(store, "-h")
    revoke(store, "exec_command")
    assert grants(store) == []
    result = rewind(store, "s", 4)  # drops the answer only; no checkpoint after 4
    assert result.target_sequence == 4
    assert [event.type for event in store.read_events("s")][-1] == "session_rewind"
