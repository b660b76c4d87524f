"""Which sessions the resume picker lists, and `/resume latest|<id>` (tui-behaviour §10).

Cases 1-20 and 31-36 of tui-behaviour §10, through `filter_resumable` and
`resolve_resume_target` (not the UI). Cases 21-24 are about row labels and picker
navigation and are not store behaviour. Deliberate difference from Zero's HEAD
(design §3.1): a session recorded under one spelling of a directory is listed from
another spelling of the same directory (case 9: symlinked path → listed).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import StoreBuilder

from zero_tui.store import Event, Metadata, SessionStore, StoreError
from zero_tui.store import workspace as workspace_module
from zero_tui.store.gojson import marshal
from zero_tui.store.resumable import (
    ResumeList,
    filter_resumable,
    has_resumable_content,
    is_no_progress_answer,
    resolve_resume_target,
    resolve_session,
)

UPDATED = "2026-07-04T10:00:00Z"
NO_PROGRESS = (
    "Agent stopped after {} turns with no output (no visible text and no tool calls) "
    "to avoid consuming tokens without making progress."
)

EventSpec = tuple[str, object]


def A(text: str) -> EventSpec:
    return ("message", {"role": "assistant", "content": text})


def U(text: str) -> EventSpec:
    return ("message", {"role": "user", "content": text})


def event_line(sid: str, sequence: int, spec: EventSpec) -> bytes:
    event_type, payload = spec
    raw = None if payload is None else marshal(payload)
    return Event(f"{sid}:{sequence}", sid, sequence, event_type, UPDATED, raw).to_json_line()


def write_session(
    root: Path,
    sid: str,
    events: list[EventSpec],
    *,
    cwd: str = "",
    kind: str = "",
    updated: str = UPDATED,
    title: str = "",
    event_count: int | None = None,
    log: bytes | None = None,
) -> None:
    """The spec's S(id, meta, events): metadata defaults derived from the events."""
    directory = root / sid
    directory.mkdir(parents=True)
    meta = Metadata(
        session_id=sid,
        session_kind=kind,
        title=title,
        cwd=cwd,
        created_at=updated,
        updated_at=updated,
        event_count=len(events) if event_count is None else event_count,
        last_event_type=events[-1][0] if events else "",
    )
    (directory / "metadata.json").write_bytes(meta.to_json_bytes())
    if log is None:
        log = b"".join(event_line(sid, n, spec) for n, spec in enumerate(events, 1))
    (directory / "events.jsonl").write_bytes(log)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "sessions"
    path.mkdir()
    return path


@pytest.fixture
def store(root: Path) -> SessionStore:
    return SessionStore(root)


def listed(
    store: SessionStore,
    workspace: str,
    *,
    all_workspaces: bool = False,
    include_empty: bool = False,
) -> list[str]:
    result = filter_resumable(
        store, workspace, all_workspaces=all_workspaces, include_empty=include_empty
    )
    return [meta.session_id for meta in result.sessions]


W = "/home/u/proj"


# --- workspace scoping (1-9) ------------------------------------------------------------------


@pytest.mark.parametrize(
    "cwd",
    [
        "/home/u/proj",  # case 1
        "/home/u/proj/",  # case 2
        "/home/u//proj/./",  # case 3
        "/home/u/x/../proj",  # case 3
        "//home/u/proj",  # Go's Clean collapses a leading // (normpath would not)
        "",  # case 5: no recorded cwd
        "  /home/u/proj  ",  # trimmed
    ],
)
def test_cases_1_to_5_matching_workspace_is_listed(
    store: SessionStore, root: Path, cwd: str
) -> None:
    write_session(root, "a1", [U("fix it"), A("done")], cwd=cwd, title="Fix parser")
    assert listed(store, W) == ["a1"]


def test_case_4_other_workspace_is_hidden_and_counted(store: SessionStore, root: Path) -> None:
    write_session(root, "a1", [U("fix it"), A("done")], cwd="/home/u/other")
    result = filter_resumable(store, W)
    assert result.sessions == []
    assert (result.other_workspace, result.empty_runs, result.not_resumable) == (1, 0, 0)
    assert result.hidden == 1
    assert listed(store, W, all_workspaces=True) == ["a1"]


def test_case_6_unknown_workspace_lists_everything(store: SessionStore, root: Path) -> None:
    write_session(root, "x", [A("x")], cwd="/x", updated="2026-07-04T10:00:00Z")
    write_session(root, "y", [A("y")], cwd="/y", updated="2026-07-04T11:00:00Z")
    assert listed(store, "") == ["y", "x"]
    assert listed(store, "   ") == ["y", "x"]


def test_case_7_posix_compare_is_case_sensitive(store: SessionStore, root: Path) -> None:
    write_session(root, "a1", [A("x")], cwd="/home/U/Proj")
    assert listed(store, "/home/u/proj") == []


def test_case_7_windows_compare_is_case_insensitive(
    store: SessionStore, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workspace_module, "_WINDOWS", True)
    write_session(root, "a1", [A("x")], cwd="C:\\Proj")
    write_session(root, "a2", [A("x")], cwd="C:/Proj/sub/..")
    write_session(root, "b1", [A("x")], cwd="C:\\Other")
    assert sorted(listed(store, "c:\\proj")) == ["a1", "a2"]


def test_case_8_relative_cwd_never_matches(
    store: SessionStore, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    monkeypatch.chdir(tmp_path)
    write_session(root, "rel", [A("x")], cwd="repo")
    write_session(root, "dot", [A("x")], cwd=".")
    assert listed(store, W) == []
    # not rebased onto our cwd, even where it would name the workspace directory
    assert listed(store, str(project)) == []
    assert listed(store, str(tmp_path)) == []
    assert filter_resumable(store, str(project)).other_workspace == 2


def test_case_9_symlinked_spelling_is_listed(
    store: SessionStore, root: Path, tmp_path: Path
) -> None:
    """Design §3.1 widens Zero's rule: the same directory on disk is the same workspace.

    Zero's HEAD hides this session (string compare only); we list it, both ways round.
    """
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    write_session(root, "by_real", [A("x")], cwd=str(real))
    write_session(root, "by_link", [A("x")], cwd=str(link), updated="2026-07-04T11:00:00Z")
    assert listed(store, str(link)) == ["by_link", "by_real"]
    assert listed(store, str(real)) == ["by_link", "by_real"]
    assert listed(store, str(real) + "/") == ["by_link", "by_real"]


def test_identity_needs_both_directories_to_exist(
    store: SessionStore, root: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    write_session(root, "gone", [A("x")], cwd=str(tmp_path / "deleted"))
    assert listed(store, str(real)) == []
    # a deleted project is still listed by its own spelling
    assert listed(store, str(tmp_path / "deleted")) == ["gone"]


# --- kinds and content (10-19) ----------------------------------------------------------------


def test_case_10_only_regular_and_fork_sessions(store: SessionStore, root: Path) -> None:
    kinds = {"k_absent": "", "k_fork": "fork", "k_child": "child", "k_side": "side"}
    kinds |= {"k_draft": "spec-draft", "k_impl": "spec-impl", "k_Fork": "Fork"}
    for sid, kind in kinds.items():
        write_session(root, sid, [A("x")], kind=kind)
    result = filter_resumable(store, W)
    assert sorted(m.session_id for m in result.sessions) == ["k_absent", "k_fork"]
    assert result.not_resumable == 5
    assert result.hidden == 0  # kinds are not "hidden": they are never resumable


def test_case_11_zero_event_count_is_an_empty_run(store: SessionStore, root: Path) -> None:
    write_session(root, "z0", [A("x")], event_count=0)
    result = filter_resumable(store, W)
    assert result.sessions == []
    assert result.empty_runs == 1
    assert listed(store, W, include_empty=True) == ["z0"]


def test_case_12_no_progress_answer_is_an_empty_run(store: SessionStore, root: Path) -> None:
    write_session(root, "e1", [U("do a thing"), A(NO_PROGRESS.format(3))])
    write_session(root, "e2", [U("do a thing"), A("here is the thing")])
    result = filter_resumable(store, W)
    assert [m.session_id for m in result.sessions] == ["e2"]
    assert result.empty_runs == 1


@pytest.mark.parametrize(
    ("count", "shown"),
    [
        ("several", True),
        ("3_0", True),
        ("3.0", True),
        ("9223372036854775808", True),  # does not fit: Atoi fails, so it is real text
        ("+3", False),
        ("-1", False),
        ("0", False),
        ("007", False),
    ],
)
def test_case_13_no_progress_count_must_pass_atoi(
    store: SessionStore, root: Path, count: str, shown: bool
) -> None:
    write_session(root, "n", [U("go"), A(NO_PROGRESS.format(count))])
    assert listed(store, W) == (["n"] if shown else [])


def test_no_progress_text_rules() -> None:
    text = NO_PROGRESS.format(3)
    assert is_no_progress_answer(text)
    assert is_no_progress_answer(f" \n{text}\u00a0\n")  # trimmed with TrimSpace
    assert not is_no_progress_answer(text + " Sorry.")
    assert not is_no_progress_answer("Note: " + text)
    assert not is_no_progress_answer(text.replace("3 turns", "3  turns"))
    assert not is_no_progress_answer(text.rstrip("."))
    assert not is_no_progress_answer(f"\x1c{text}")  # U+001C is not Go whitespace


@pytest.mark.parametrize(
    "events",
    [
        [U("hello")],  # case 14
        [("message", {"role": "USER", "content": "hi"})],  # case 14: role case-insensitive
        [A("   \n")],  # case 17
        [("error", {"message": "boom"}), ("provider_usage", {"totalTokens": 3})],  # case 17
        [("message", {"role": "assistant"})],  # no content
        [("message", {"role": "assistant", "content": None})],
        [("message", {"role": "ask_user", "toolCallId": "q", "questions": []})],
        [("message", None)],
        [("message", "just a string")],
        [("session_compaction", {"summary": "s"})],
    ],
)
def test_cases_14_17_no_real_content_is_hidden(
    store: SessionStore, root: Path, events: list[EventSpec]
) -> None:
    write_session(root, "h", events)
    assert listed(store, W) == []
    assert filter_resumable(store, W).empty_runs == 1


@pytest.mark.parametrize(
    "events",
    [
        [("tool_call", {"id": "c1", "name": "bash", "arguments": "{}"})],  # case 15
        [("tool_result", {"toolCallId": "c1", "status": "ok"})],  # case 15
        [("tool_call", None)],  # the type alone counts
        [("message", {"content": "old"})],  # case 16: no role
        [("message", {"role": "goal", "content": "Continue"})],
        [("message", {"role": "assistant", "content": 42})],  # stringified: "42"
        [("message", {"role": "assistant", "content": False})],  # "false"
        [("message", {"role": "assistant", "content": {"a": 1}})],  # compact JSON
        [("message", {"role": 7, "content": "numeric role is not user"})],
        [("message", {"role": "user", "content": "q"}), A(" answer ")],
    ],
)
def test_cases_15_16_real_content_is_listed(
    store: SessionStore, root: Path, events: list[EventSpec]
) -> None:
    write_session(root, "l", events)
    assert listed(store, W) == ["l"]


def test_role_compare_uses_go_equal_fold(store: SessionStore, root: Path) -> None:
    write_session(root, "fold", [("message", {"role": "u\u017fer", "content": "hi"})])
    assert listed(store, W) == []


def test_case_18_corrupt_log_fails_open(store: SessionStore, root: Path) -> None:
    log = event_line("c", 1, U("x")) + b"not json\n" + event_line("c", 3, U("y"))
    write_session(root, "c", [U("x"), U("?"), U("y")], log=log)
    assert listed(store, W) == ["c"]
    meta, message = resolve_resume_target(store, "c", W)
    assert meta is not None
    assert message is None


def test_unreadable_log_fails_open(store: SessionStore, root: Path) -> None:
    write_session(root, "u", [U("x")])
    log = root / "u" / "events.jsonl"
    log.unlink()
    log.mkdir()  # reading it fails (a chmod would not stop root)
    assert listed(store, W) == ["u"]
    assert has_resumable_content(store, "u")


def test_missing_log_is_listed_not_an_empty_run(store: SessionStore, root: Path) -> None:
    """Zero hides it as an empty run; its metadata counts an event, so it is damaged, and
    zero-tui lists it (design 3.2: nothing vanishes; opening it says the log is missing)."""
    write_session(root, "m", [A("x")])
    (root / "m" / "events.jsonl").unlink()
    assert listed(store, W) == ["m"]


def test_case_19_torn_tail_is_dropped_like_the_reader_does(store: SessionStore, root: Path) -> None:
    torn = b'{"type":"message","payload":{"content":"tru'
    good = event_line("t", 1, A("ok")) + event_line("t", 2, A("ok"))
    write_session(root, "t", [A("ok"), A("ok")], log=good + torn)
    assert listed(store, W) == ["t"]
    assert len(store.read_events("t")) == 2


def test_case_19_partial_line_with_newline_fails_open(store: SessionStore, root: Path) -> None:
    log = (
        event_line("t", 1, U("only a question")) + b'{"type":"message","payload":{"content":"tru\n'
    )
    write_session(root, "t", [U("q"), A("?")], log=log)
    assert listed(store, W) == ["t"]


def test_torn_tail_without_content_is_an_empty_run(store: SessionStore, root: Path) -> None:
    log = event_line("t", 1, U("q")) + b'{"type":"tool_call","payload":{"na'
    write_session(root, "t", [U("q"), U("?")], log=log)
    assert listed(store, W) == []


def test_torn_tail_ending_in_spaces_is_dropped(store: SessionStore, root: Path) -> None:
    """Zero's quirk (§5.2): a bad newline-terminated last line counts as torn when the file
    ends in whitespace other than a newline, so the read succeeds with no content."""
    log = event_line("t", 1, U("q")) + b'{"type":"tool_call","seq\n   '
    write_session(root, "t", [U("q"), U("?")], log=log)
    assert store.read_events("t")[0].sequence == 1
    assert listed(store, W) == []


def test_early_qualifying_event_then_garbage_is_listed(store: SessionStore, root: Path) -> None:
    log = event_line("g", 1, A("real answer")) + b"\x00\xff garbage {{{\n" * 50 + b"more junk\n"
    write_session(root, "g", [A("x")], log=log)
    assert listed(store, W) == ["g"]


def test_big_log_with_its_only_qualifying_event_at_the_end(store: SessionStore, root: Path) -> None:
    filler = [U(f"question {n} " + "q" * 997) for n in range(3000)]  # ~3 MB, many chunks
    lines = [event_line("big", n, spec) for n, spec in enumerate(filler, 1)]
    without = b"".join(lines)
    assert len(without) > 3 * 64 * 1024
    write_session(root, "big", filler, log=without)
    assert listed(store, W) == []
    (root / "big" / "events.jsonl").write_bytes(without + event_line("big", 3001, A("finally")))
    assert listed(store, W) == ["big"]


def test_blank_and_crlf_lines_are_tolerated(store: SessionStore, root: Path) -> None:
    log = b"\n  \n" + event_line("b", 1, U("q")).replace(b"\n", b"\r\n") + b"\n\t"
    log += event_line("b", 2, A("a")).replace(b"\n", b"\r\n")
    write_session(root, "b", [U("q"), A("a")], log=log)
    assert listed(store, W) == ["b"]


# --- order and counts (20) ---------------------------------------------------------------------


def test_case_20_order_is_updated_at_desc_then_id(store: SessionStore, root: Path) -> None:
    write_session(root, "b", [A("x")], updated="2026-07-04T09:00:00Z")
    write_session(root, "a", [A("x")], updated="2026-07-04T09:00:00Z")
    write_session(root, "c", [A("x")], updated="2026-07-04T11:00:00Z")
    assert listed(store, W) == ["c", "a", "b"]


def test_counts_of_every_filter(store: SessionStore, root: Path) -> None:
    write_session(root, "ok1", [A("x")], cwd=W)
    write_session(root, "ok2", [A("x")])
    write_session(root, "other1", [A("x")], cwd="/elsewhere")
    write_session(root, "other2", [], cwd="/elsewhere", event_count=0)  # hidden twice over
    write_session(root, "empty1", [U("x")], cwd=W)
    write_session(root, "empty2", [], cwd=W, event_count=0)
    write_session(root, "child", [A("x")], cwd="/elsewhere", kind="child")  # kind first
    write_session(root, "side", [], kind="side")
    result = filter_resumable(store, W)
    assert isinstance(result, ResumeList)
    assert sorted(m.session_id for m in result.sessions) == ["ok1", "ok2"]
    assert (result.other_workspace, result.empty_runs, result.not_resumable) == (1, 2, 2)
    assert result.other_empty_runs == 1  # Tab adds 1, ctrl+e adds 2: both together add 4
    assert result.hidden == 4
    everything = filter_resumable(store, W, all_workspaces=True, include_empty=True)
    assert len(everything.sessions) == 6
    assert (everything.other_workspace, everything.empty_runs) == (0, 0)
    assert everything.not_resumable == 2


def test_metadata_given_by_the_caller_is_filtered_the_same_way(
    store: SessionStore, root: Path
) -> None:
    write_session(root, "s1", [A("x")], updated="2026-07-04T09:00:00Z")
    write_session(root, "s2", [A("x")], updated="2026-07-04T10:00:00Z", cwd="/other")
    write_session(root, "s3", [A("x")], updated="2026-07-04T11:00:00Z")
    metas = store.list()
    result = filter_resumable(store, W, sessions=reversed(metas))
    assert [m.session_id for m in result.sessions] == ["s3", "s1"]
    assert result.other_workspace == 1


def test_bad_sessions_do_not_stop_the_list(store: SessionStore, root: Path) -> None:
    write_session(root, "good", [A("x")])
    (root / "broken").mkdir()
    (root / "broken" / "metadata.json").write_bytes(b"{not json")
    (root / "stray-file").write_bytes(b"x")
    (root / "bad.name").mkdir()
    assert listed(store, W) == ["good"]


# --- /resume latest and /resume <id> (31-36) -------------------------------------------------


def test_case_31_latest_takes_the_first_listed(store: SessionStore, root: Path) -> None:
    write_session(root, "new1", [A("x")], kind="child", updated="2026-07-04T11:03:00Z", cwd="/w")
    write_session(root, "new2", [A("x")], cwd="/other", updated="2026-07-04T11:02:00Z")
    write_session(root, "new3", [U("x")], cwd="/w", updated="2026-07-04T11:01:00Z")
    write_session(root, "ok1", [A("new answer")], cwd="/w", updated="2026-07-04T11:00:00Z")
    for argument in ("latest", "LATEST", "  Latest  "):
        meta, message = resolve_resume_target(store, argument, "/w")
        assert message is None
        assert meta is not None
        assert meta.session_id == "ok1"


def test_latest_keyword_uses_go_equal_fold(store: SessionStore, root: Path) -> None:
    write_session(root, "ok1", [A("x")], cwd="/w")
    meta, message = resolve_resume_target(store, "late\u017ft", "/w")
    assert message is None
    assert meta is not None
    assert meta.session_id == "ok1"


def test_case_32_nothing_qualifies(store: SessionStore, root: Path) -> None:
    write_session(root, "new3", [U("x")], cwd="/w")
    assert resolve_resume_target(store, "latest", "/w") == (
        None,
        "no zero sessions available to resume",
    )


def test_case_32_empty_store(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "missing-root")
    assert resolve_resume_target(store, "latest", "/w") == (
        None,
        "no zero sessions available to resume",
    )
    assert not (tmp_path / "missing-root").exists()  # listing never creates the root


def test_case_33_unknown_id(store: SessionStore) -> None:
    assert resolve_resume_target(store, "zero_123", "/w") == (
        None,
        "zero session not found: zero_123",
    )


@pytest.mark.parametrize("kind", ["child", "side", "spec-draft", "spec-impl", "Fork"])
def test_case_34_not_resumable_kind(store: SessionStore, root: Path, kind: str) -> None:
    write_session(root, "c1", [A("x")], kind=kind)
    assert resolve_resume_target(store, "c1", "/w") == (None, "zero session is not resumable: c1")


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("a:b", 'invalid zero session id "a:b"'),
        ("a b", 'invalid zero session id "a b"'),
        ("../x", 'invalid zero session id "../x"'),
        ("x" * 129, 'invalid zero session id "' + "x" * 129 + '"'),
    ],
)
def test_case_35_invalid_id(store: SessionStore, argument: str, message: str) -> None:
    assert resolve_resume_target(store, argument, "/w") == (None, message)


def test_case_36_explicit_id_bypasses_scope_and_content(store: SessionStore, root: Path) -> None:
    write_session(root, "x1", [], cwd="repo", event_count=0)
    assert listed(store, "/w") == []
    meta, message = resolve_resume_target(store, "x1", "/w")
    assert message is None
    assert meta is not None
    assert (meta.session_id, meta.event_count, meta.cwd) == ("x1", 0, "repo")


def test_explicit_id_with_corrupt_metadata_reports_it(store: SessionStore, root: Path) -> None:
    (root / "m1").mkdir()
    (root / "m1" / "metadata.json").write_bytes(b'{"eventCount":"3"}')
    meta, message = resolve_resume_target(store, "m1", "/w")
    assert meta is None
    assert message is not None
    assert message.startswith("invalid zero session metadata m1: ")


def test_explicit_fork_is_resumable_from_another_workspace(store: SessionStore, root: Path) -> None:
    write_session(root, "f1", [U("q")], kind="fork", cwd="/elsewhere")
    meta, message = resolve_resume_target(store, " f1 ", "/w")
    assert message is None
    assert meta is not None
    assert meta.session_id == "f1"


def test_workspace_spelling_from_pwd(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """current_workspace keeps the shell's (symlinked) spelling, as Go's os.Getwd does."""
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    monkeypatch.chdir(link)
    monkeypatch.setenv("PWD", str(link))
    assert workspace_module.current_workspace() == str(link)
    monkeypatch.setenv("PWD", str(tmp_path))  # names another directory: ignored
    assert workspace_module.current_workspace() == os.getcwd()
    assert workspace_module.resolve_workspace("sub/../x") == os.path.join(os.getcwd(), "x")
    assert workspace_module.resolve_workspace("  ") == ""


def test_each_count_is_exactly_what_its_key_adds(store: SessionStore, root: Path) -> None:
    # issue 9, fault 10: "17 in other workspaces" was shown where Tab added 16, because
    # the empty runs of other workspaces were counted there
    write_session(root, "here", [A("x")], cwd=W)
    write_session(root, "here-empty", [U("x")], cwd=W)
    for index in range(5):
        write_session(root, f"away{index}", [A("x")], cwd="/elsewhere")
    for index in range(3):
        write_session(root, f"away-empty{index}", [U("x")], cwd="/elsewhere")
    write_session(root, "away-zero", [], cwd="/elsewhere", event_count=0)

    def shown(*, all_workspaces: bool, include_empty: bool) -> ResumeList:
        return filter_resumable(
            store, W, all_workspaces=all_workspaces, include_empty=include_empty
        )

    for include_empty in (False, True):
        scoped = shown(all_workspaces=False, include_empty=include_empty)
        widened = shown(all_workspaces=True, include_empty=include_empty)
        assert len(widened.sessions) - len(scoped.sessions) == scoped.other_workspace
    for all_workspaces in (False, True):
        hiding = shown(all_workspaces=all_workspaces, include_empty=False)
        showing = shown(all_workspaces=all_workspaces, include_empty=True)
        assert len(showing.sessions) - len(hiding.sessions) == hiding.empty_runs
    narrow = shown(all_workspaces=False, include_empty=False)
    wide = shown(all_workspaces=True, include_empty=True)
    assert (narrow.other_workspace, narrow.empty_runs, narrow.other_empty_runs) == (5, 1, 4)
    assert len(wide.sessions) - len(narrow.sessions) == narrow.hidden == 10


def test_a_unique_prefix_names_a_session_and_an_ambiguous_one_lists_them(
    store: SessionStore, root: Path
) -> None:
    write_session(root, "abc1", [A("x")], cwd="/w")
    write_session(root, "abc2", [A("x")], cwd="/w")
    write_session(root, "abd", [A("x")], cwd="/elsewhere")
    write_session(root, "abc", [A("x")], kind="child", cwd="/w")
    assert resolve_session(store, "abd", "/w")[0] == "abd"
    assert resolve_session(store, "abc", "/w")[0] == "abc"  # an exact id wins
    assert resolve_session(store, " abd ", "/w")[0] == "abd"
    with pytest.raises(StoreError, match=r"ambiguous session id 'ab': 4 sessions start with it"):
        resolve_session(store, "ab", "/w")
    with pytest.raises(StoreError, match="zero session not found: zz"):
        resolve_session(store, "zz", "/w")
    # /resume and --resume take the same names; a child is found but not resumable
    meta, message = resolve_resume_target(store, "abc1", "/w")
    assert (meta is not None and meta.session_id, message) == ("abc1", None)
    assert resolve_resume_target(store, "abc", "/w") == (None, "zero session is not resumable: abc")
    meta, message = resolve_resume_target(store, "ab", "/w")
    assert meta is None
    assert message is not None
    assert message.startswith("ambiguous session id 'ab'")


def test_a_session_whose_log_is_gone_is_listed_not_hidden_as_an_empty_run(
    make_store: Callable[..., StoreBuilder],
) -> None:
    """Its metadata counts events; the log was deleted: damaged, and said so when opened."""
    builder = make_store()
    builder.add("gone", cwd="/w", title="lost its log")
    builder.add("fine", cwd="/w", title="fine")
    builder.store.events_path("gone").unlink()
    found = filter_resumable(builder.store, "/w")
    assert sorted(meta.session_id for meta in found.sessions) == ["fine", "gone"]
    assert found.empty_runs == 0
    builder.store.create("never", cwd="/w")  # a run that wrote nothing is still an empty run
    assert filter_resumable(builder.store, "/w").empty_runs == 1
