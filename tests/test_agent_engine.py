"""ExecEngine: argv, environment and checks (zero-exec §6), outcomes (§1.5), and runs of
the fake `zero` (tests/fake_zero.py): streaming, crashes, bad output, cancel, kill."""

from __future__ import annotations

import asyncio
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agent_fixtures import FAKE_ZERO, AgentSandbox, make_sandbox, run_to_end, write_fake_zero
from fake_zero import (
    AUTH_MESSAGE,
    PLAIN_ANSWER,
    RATE_LIMIT_MESSAGE,
    SCENARIOS,
    UNREACHABLE_MESSAGE,
)
from process_tree import alive

from zero_tui.agent.engine import (
    ARGV_PROMPT_LIMIT,
    AgentUnavailable,
    ExecEngine,
    ExecRun,
    RunRequest,
    agent_environment,
    autonomy_warning,
    build_command,
    check_request,
    choose_cwd,
    find_agent,
    live_runs,
    terminate_all,
)
from zero_tui.agent.outcome import (
    HINTS,
    Category,
    RunOutcome,
    classify,
    describe_outcome,
    provider_hint,
    stderr_notes,
)
from zero_tui.agent.stream import (
    AgentError,
    FinalAnswer,
    ReasoningDelta,
    RunEnd,
    RunStart,
    TextDelta,
    ToolCall,
    ToolResult,
    Unreadable,
)
from zero_tui.agent.turn import TextBlock, TurnModel
from zero_tui.store import SessionStore, default_root

RUN_ID = re.compile(r"run_[0-9]{14}_[0-9a-f]{6}")

# --- argv ------------------------------------------------------------------------------


def test_argv_to_resume_a_session() -> None:
    argv, stdin = build_command("/bin/zero", RunRequest("Shorter, please", "zero_s1", "/w"))
    assert argv == [
        "/bin/zero",
        "exec",
        "--output-format",
        "stream-json",
        "--resume=zero_s1",
        "--cwd",
        "/w",
        "--no-completion-gate",
        "--no-notify",
        "--",
        "Shorter, please",
    ]
    assert stdin is None


def test_argv_for_a_new_session_with_model_and_autonomy() -> None:
    request = RunRequest("help", None, "/w", model="gpt-5-mini", auto="HIGH")
    argv, stdin = build_command("zero", request)
    assert argv == [
        "zero",
        "exec",
        "--output-format",
        "stream-json",
        "--cwd",
        "/w",
        "--model",
        "gpt-5-mini",
        "--auto",
        "high",
        "--no-completion-gate",
        "--no-notify",
        "--",
        "help",
    ]
    assert stdin is None
    assert not any(arg.startswith("--resume") for arg in argv)


@pytest.mark.parametrize(
    "prompt",
    [
        pytest.param("-x looks like a flag", id="dash"),
        pytest.param("a\0b", id="nul"),
        pytest.param("y" * (ARGV_PROMPT_LIMIT + 1), id="long"),
        pytest.param("\udcff lone surrogate", id="surrogate"),
    ],
)
def test_prompts_that_go_by_stream_json_stdin(prompt: str) -> None:
    argv, stdin = build_command("zero", RunRequest(prompt, "zero_s1", "/w"))
    assert argv[-2:] == ["--input-format", "stream-json"]
    assert "--" not in argv
    assert prompt not in argv
    assert stdin is not None
    assert stdin.endswith(b"\n")
    assert stdin.count(b"\n") == 1


def test_stdin_line_is_go_encoded() -> None:
    _argv, stdin = build_command("zero", RunRequest("-a <b> & c\n", None, "/w"))
    assert (
        stdin
        == b'{"content":"-a \\u003cb\\u003e \\u0026 c\\n","schemaVersion":2,"type":"prompt"}\n'
    )


def test_a_prompt_at_the_argv_limit_stays_in_argv() -> None:
    prompt = "y" * ARGV_PROMPT_LIMIT
    argv, stdin = build_command("zero", RunRequest(prompt, "zero_s1", "/w"))
    assert argv[-1] == prompt
    assert stdin is None


# --- the executable, the store, the workspace --------------------------------------------


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_find_agent_prefers_zero_bin(tmp_path: Path) -> None:
    configured = executable(tmp_path / "custom" / "zero-dev")
    on_path = executable(tmp_path / "bin" / "zero")
    env = {"ZERO_BIN": str(configured), "PATH": str(on_path.parent)}
    assert find_agent(env) == str(configured)
    assert find_agent({"PATH": str(on_path.parent)}) == str(on_path)
    assert find_agent({"ZERO_BIN": "zero", "PATH": str(on_path.parent)}) == str(on_path)


def test_a_relative_zero_bin_is_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configured = executable(tmp_path / "custom" / "zero")
    monkeypatch.chdir(tmp_path)
    assert find_agent({"ZERO_BIN": "custom/zero", "PATH": ""}) == str(configured)


def test_find_agent_refuses_a_bad_zero_bin(tmp_path: Path) -> None:
    not_executable = tmp_path / "zero"
    not_executable.write_text("", encoding="utf-8")
    for value in (str(tmp_path / "missing"), str(not_executable), str(tmp_path)):
        with pytest.raises(AgentUnavailable, match="is not an executable file") as caught:
            find_agent({"ZERO_BIN": value, "PATH": ""})
        assert value in str(caught.value)


def test_find_agent_without_zero_names_the_install(tmp_path: Path) -> None:
    with pytest.raises(AgentUnavailable) as caught:
        find_agent({"PATH": str(tmp_path)})
    message = str(caught.value)
    assert "`zero`" in message
    assert "go install github.com/Gitlawb/zero/cmd/zero@latest" in message
    assert "\n" not in message


def test_environment_for_the_default_store_is_unchanged(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), "PATH": "/usr/bin"}
    assert agent_environment(default_root(env), env) == env
    env_xdg = {**env, "XDG_DATA_HOME": str(tmp_path / "data")}
    assert agent_environment(tmp_path / "data" / "zero" / "sessions", env_xdg) == env_xdg


def test_environment_for_a_store_dir_ending_in_zero_sessions(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home")}
    root = tmp_path / "elsewhere" / "zero" / "sessions"
    moved = agent_environment(root, env)
    assert moved == {**env, "XDG_DATA_HOME": str(tmp_path / "elsewhere")}
    assert default_root(moved) == root


def test_environment_for_a_relative_store_dir_is_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    moved = agent_environment(Path("data/zero/sessions"), {"HOME": "/nowhere"})
    assert moved["XDG_DATA_HOME"] == str(tmp_path / "data")


def test_relative_paths_in_the_environment_become_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent runs in the workspace: a relative XDG_DATA_HOME (or HOME, or a config
    path) would be read there, not where zero-tui reads it."""
    monkeypatch.chdir(tmp_path)
    env = {
        "HOME": "home",
        "XDG_DATA_HOME": "data",
        "XDG_CONFIG_HOME": " conf ",
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "ZERO_SKILLS_DIR": "skills",
        "ZERO_TRACE": "-",
        "PATH": "bin",
    }
    expected = {
        **env,
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "conf"),
        "ZERO_SKILLS_DIR": str(tmp_path / "skills"),
    }
    assert agent_environment(Path("data/zero/sessions"), env) == expected
    elsewhere = agent_environment(Path("other/zero/sessions"), env)
    assert elsewhere == {**expected, "XDG_DATA_HOME": str(tmp_path / "other")}


async def test_a_relative_xdg_data_home_reaches_the_same_store(
    fake_agent: AgentSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = fake_agent.new_session()
    data_home = fake_agent.store.root.parents[1]
    monkeypatch.chdir(data_home.parent)
    fake_agent.env["XDG_DATA_HOME"] = data_home.name
    store = SessionStore(Path(data_home.name, "zero", "sessions"))
    engine = ExecEngine(store, env=fake_agent.env)
    _events, outcome = await run_to_end(engine, fake_agent.request("hello"))
    assert outcome.ok, outcome
    assert fake_agent.store.read_events(session)[-1].payload["role"] == "assistant"


def test_any_other_store_dir_is_browse_only(tmp_path: Path) -> None:
    with pytest.raises(AgentUnavailable, match="browse-only") as caught:
        agent_environment(tmp_path / "my-sessions", {"HOME": str(tmp_path)})
    assert str(tmp_path / "my-sessions") in str(caught.value)


def test_choose_cwd(tmp_path: Path) -> None:
    here = tmp_path / "here"
    there = tmp_path / "there"
    here.mkdir()
    there.mkdir()
    assert choose_cwd(str(here), str(here)) == (str(here), None)
    chosen, note = choose_cwd(str(there), str(here))
    assert chosen == str(there)
    assert note is not None
    assert str(there) in note
    chosen, note = choose_cwd(str(tmp_path / "gone"), str(here))
    assert chosen == str(here)
    assert note is not None
    assert "gone" in note
    chosen, note = choose_cwd("", str(here))
    assert chosen == str(here)
    assert note is not None
    chosen, note = choose_cwd("relative/dir", str(here))
    assert chosen == str(here)


def test_check_request(make_store: object, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "store")
    store.create("zero_ok", cwd=str(tmp_path))
    store.create("zero_fork", session_kind="fork")
    store.create("zero_side", session_kind="side")
    store.create("zero_child", session_kind="child")
    check_request(store, RunRequest("hi", "zero_ok", str(tmp_path)))
    check_request(store, RunRequest("hi", "zero_fork", str(tmp_path), auto="Medium"))
    check_request(store, RunRequest("hi", None, str(tmp_path), model="gpt-5"))
    refusals = {
        RunRequest("hi", "zero_side", str(tmp_path)): "Zero session is not resumable: zero_side",
        RunRequest("hi", "zero_child", str(tmp_path)): "Zero session is not resumable: zero_child",
        RunRequest("hi", "zero_gone", str(tmp_path)): "Zero session not found: zero_gone",
        RunRequest("hi", "bad id!", str(tmp_path)): 'invalid zero session id "bad id!"',
        RunRequest(" \n ", "zero_ok", str(tmp_path)): "the prompt is empty",
        RunRequest("hi", "zero_ok", str(tmp_path), auto="max"): 'Invalid autonomy level "max"',
        RunRequest("hi", "zero_ok", str(tmp_path), model="-m"): 'Invalid model id "-m"',
        RunRequest("hi", "zero_ok", str(tmp_path / "nope")): "cwd must be an existing directory",
    }
    for request, message in refusals.items():
        with pytest.raises(AgentUnavailable) as caught:
            check_request(store, request)
        assert message in str(caught.value)
        assert "\n" not in str(caught.value)


# --- outcomes ---------------------------------------------------------------------------


def test_outcomes_from_run_end() -> None:
    cases = [
        (RunEnd("success", 0), None, 0, "success", ""),
        (RunEnd("interrupted", 130), AgentError("interrupted", "x"), 130, "interrupted", ""),
        (RunEnd("incomplete", 4), AgentError("incomplete", "plan left"), 4, "incomplete", ""),
        (
            RunEnd("error", 2),
            AgentError("usage_error", "Zero session not found: z"),
            2,
            "usage_error",
            "",
        ),
        (
            RunEnd("error", 3),
            AgentError("provider_error", AUTH_MESSAGE),
            3,
            "error",
            HINTS[Category.AUTH],
        ),
        (
            RunEnd("error", 3),
            AgentError("provider_error", RATE_LIMIT_MESSAGE),
            3,
            "error",
            HINTS[Category.RATE_LIMIT],
        ),
        (RunEnd("error", 3), AgentError("mcp_error", "provider error: x"), 3, "error", ""),
    ]
    for run_end, error, code, status, hint in cases:
        outcome = describe_outcome(run_end, error, code, "", cancelled=False)
        assert (outcome.status, outcome.exit_code, outcome.hint) == (status, code, hint)
    assert (
        describe_outcome(RunEnd("interrupted", 130), None, 130, "", True).message
        == "Run cancelled."
    )
    incomplete = describe_outcome(
        RunEnd("incomplete", 4), AgentError("incomplete", "r"), 4, "", False
    )
    assert incomplete.message == "Run incomplete: r"
    usage = describe_outcome(
        RunEnd("error", 2), AgentError("usage_error", "bad flag"), 2, "", False
    )
    assert usage.message == "bad flag"


def test_outcomes_without_run_end() -> None:
    crash = describe_outcome(None, None, 1, "noise\n[zero] panic: boom\n\n", cancelled=False)
    assert crash == RunOutcome(
        "crashed", 1, "The agent crashed (exit 1): panic: boom", "", "noise\n[zero] panic: boom\n\n"
    )
    silent = describe_outcome(None, None, 0, "", cancelled=False)
    assert silent.status == "crashed"
    assert "without finishing its output" in silent.message
    signalled = describe_outcome(None, None, -signal.SIGSEGV, "", cancelled=False)
    assert (signalled.status, signalled.message) == ("killed", "The agent was killed by SIGSEGV.")
    early = describe_outcome(None, None, -signal.SIGINT, "", cancelled=True)
    assert (early.status, early.message) == ("interrupted", "Run cancelled before it started.")
    killed = describe_outcome(None, None, -signal.SIGKILL, "", cancelled=True, killed=True)
    assert killed.status == "killed"
    assert "did not stop in time" in killed.message


@pytest.mark.parametrize(
    ("message", "category"),
    [
        (AUTH_MESSAGE, Category.AUTH),
        ("provider request error: 403 Forbidden", Category.AUTH),
        (RATE_LIMIT_MESSAGE, Category.RATE_LIMIT),
        ("provider error: 529 overloaded", Category.RATE_LIMIT),
        (
            "provider request error: model_not_found: the model x does not exist",
            Category.MODEL_NOT_FOUND,
        ),
        (
            "provider stream error: dial tcp 127.0.0.1:1: connect: connection refused",
            Category.CONNECTIVITY,
        ),
        (
            "provider request error: maximum context length is 8192 tokens",
            Category.CONTEXT_OVERFLOW,
        ),
        (
            # what the real Zero 0.8.0 said with nothing listening on the port
            "upstream unreachable: the model server could not connect to 127.0.0.1:9 "
            "(connection refused). The request never reached the model — this is a network "
            "failure between the model server and its upstream, not a model error.",
            Category.CONNECTIVITY,
        ),
        ("provider error: completed in 4290ms", Category.UNKNOWN),
        ("open config: permission denied", Category.UNKNOWN),  # local, not provider-marked
        ("", Category.UNKNOWN),
    ],
)
def test_classify_like_zeros_errhint(message: str, category: Category) -> None:
    assert classify(message) is category
    assert provider_hint(message) == HINTS.get(category, "")


def test_stderr_is_said_line_by_line_without_what_the_outcome_says() -> None:
    tail = (
        "[zero] WARNING: session not fully recorded: open /s/session.lock: no such file\n"
        "\n"
        "Model m does not support image input; ignoring 1 image(s).\n"
    )
    assert stderr_notes(tail) == [
        "WARNING: session not fully recorded: open /s/session.lock: no such file",
        "Model m does not support image input; ignoring 1 image(s).",
    ]
    crash = "panic: fake crash\n"
    assert stderr_notes(crash, "The agent crashed (exit 1): panic: fake crash") == []
    many = "".join(f"line {n}\n" for n in range(20))
    notes = stderr_notes(many)
    assert notes[0] == "… 12 earlier lines of the agent's stderr"
    assert notes[1:] == [f"line {n}" for n in range(12, 20)]


def test_hints_name_zero_tui_commands() -> None:
    assert "/retry" in HINTS[Category.RATE_LIMIT]
    assert "zero auth" in HINTS[Category.AUTH]
    assert "zero doctor" in HINTS[Category.CONNECTIVITY]
    assert "/model" in HINTS[Category.MODEL_NOT_FOUND]


# --- runs of the fake agent ---------------------------------------------------------------


def wait_until_gone(pid: int, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


async def test_plain_answer_streams_and_the_store_holds_what_the_agent_wrote(
    fake_agent: AgentSandbox,
) -> None:
    session = fake_agent.new_session()
    events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("hello there"))
    assert outcome == RunOutcome("success", 0, "", "", "")
    start = events[0]
    assert isinstance(start, RunStart)
    assert RUN_ID.fullmatch(start.run_id)
    assert (start.session_id, start.cwd) == (session, str(fake_agent.workspace))
    deltas = [event.delta for event in events if isinstance(event, TextDelta)]
    answer = PLAIN_ANSWER.format(prompt="hello there")
    assert len(deltas) > 1
    assert "".join(deltas) == answer
    assert events[-2:] == [FinalAnswer(answer), RunEnd("success", 0)]
    stored = fake_agent.store.read_events(session)
    assert [(event.type, event.payload) for event in stored[2:]] == [
        ("message", {"content": "hello there", "role": "user"}),
        ("provider_usage", {"completionTokens": 21, "promptTokens": 11, "totalTokens": 32}),
        ("message", {"content": answer, "role": "assistant"}),
    ]
    assert live_runs() == []


async def test_a_new_session_gets_its_id_from_run_start(fake_agent: AgentSandbox) -> None:
    events, outcome = await run_to_end(
        fake_agent.engine(), fake_agent.request("Fix   the\nbug", session_id=None)
    )
    assert outcome.ok
    start = events[0]
    assert isinstance(start, RunStart)
    meta = fake_agent.store.get(start.session_id)
    assert meta is not None
    assert meta.title == "Fix the bug"
    assert meta.cwd == str(fake_agent.workspace)


@pytest.mark.parametrize(
    "prompt",
    [pytest.param("-rf looks like a flag", id="dash"), pytest.param("long " * 8000, id="40KB")],
)
async def test_prompts_sent_on_stdin_arrive_whole(fake_agent: AgentSandbox, prompt: str) -> None:
    session = fake_agent.new_session()
    _events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request(prompt))
    assert outcome.ok
    user = fake_agent.store.read_events(session)[2]
    assert user.payload == {"content": prompt.strip(), "role": "user"}


async def test_a_tool_call_pairs_with_its_result(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    (fake_agent.workspace / "notes.txt").write_text("pineapple\n", encoding="utf-8")
    events, outcome = await run_to_end(
        fake_agent.engine(), fake_agent.request("tool read notes.txt")
    )
    assert outcome.ok
    turn = TurnModel("tool read notes.txt")
    for event in events:
        turn.apply(event)
    calls = [event for event in events if isinstance(event, ToolCall)]
    results = [event for event in events if isinstance(event, ToolResult)]
    assert calls == [ToolCall("call_1", "read_file", {"path": "notes.txt"}, "read")]
    assert [(result.call_id, result.output, result.summary) for result in results] == [
        ("call_1", "pineapple\n", "Read notes.txt (1 lines).")
    ]
    assert turn.blocks[0] == TextBlock("Let me read notes.txt.")
    assert turn.blocks[-1] == TextBlock("I read notes.txt.", final=True)


async def test_reasoning_comes_before_the_text(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    events, _outcome = await run_to_end(fake_agent.engine(), fake_agent.request("think"))
    kinds = [type(event) for event in events]
    assert kinds.index(ReasoningDelta) < kinds.index(TextDelta)


async def test_a_crash_mid_stream(fake_agent: AgentSandbox) -> None:
    session = fake_agent.new_session()
    events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("crash"))
    assert TextDelta("about to crash") in events
    assert not any(isinstance(event, RunEnd) for event in events)
    assert outcome.status == "crashed"
    assert outcome.exit_code == 1
    assert outcome.message == "The agent crashed (exit 1): panic: fake crash in the agent loop"
    assert fake_agent.store.read_events(session)[-1].payload == {"content": "crash", "role": "user"}


async def test_a_session_removed_mid_run_ends_well_with_zeros_warning_on_stderr(
    fake_agent: AgentSandbox,
) -> None:
    session = fake_agent.new_session()
    events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("vanish"))
    assert outcome.ok
    assert FinalAnswer(" the end") in events
    assert outcome.stderr_tail.startswith("[zero] WARNING: session not fully recorded: ")
    assert not fake_agent.store.session_dir(session).exists()


async def test_a_log_replaced_mid_run(fake_agent: AgentSandbox) -> None:
    session = fake_agent.new_session()
    _events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("replace"))
    assert outcome.ok
    assert [event.type for event in fake_agent.store.read_events(session)] == [
        "message",
        "provider_usage",
        "message",
    ]


async def test_stderr_of_a_successful_run_is_kept(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    _events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("stderr-note"))
    assert outcome.ok
    assert stderr_notes(outcome.stderr_tail) == [
        "Model gpt-5 does not support image input; ignoring 1 image(s)."
    ]


async def test_zeros_reconnect_notices_are_reasoning(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("reconnect"))
    assert outcome.ok
    notices = [event.delta for event in events if isinstance(event, ReasoningDelta)]
    assert notices == [
        "\n[connection lost — reconnecting 1/4…]\n",
        "\n[connection lost — reconnecting 2/4…]\n",
    ]


async def test_a_quiet_rate_limited_run_then_its_error(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("quiet 1"))
    assert [type(event).__name__ for event in events] == ["RunStart", "AgentError", "RunEnd"]
    assert outcome.hint == HINTS[Category.RATE_LIMIT]


async def test_paragraphs_of_deltas(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("paragraphs 100"))
    deltas = [event.delta for event in events if isinstance(event, TextDelta)]
    assert deltas.count("\n\n") == 2
    assert len(deltas) == 100
    assert outcome.ok


async def test_garbage_lines_are_shown_and_reading_goes_on(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("garbage"))
    unreadable = [event for event in events if isinstance(event, Unreadable)]
    assert unreadable[0].text == "this is not json"
    assert unreadable[0].reason.startswith("not JSON")
    assert unreadable[1].reason == "schemaVersion 1, expected 2"
    assert outcome.ok
    assert FinalAnswer("before after") in events


async def test_a_five_megabyte_line(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("big"))
    assert outcome.ok
    (delta,) = [event for event in events if isinstance(event, TextDelta)]
    assert len(delta.delta) == 5 * 1024 * 1024
    assert delta.delta.startswith("0123456789abcdef")
    assert FinalAnswer(delta.delta) in events


@pytest.mark.parametrize(
    ("prompt", "status", "code", "message", "hint"),
    [
        ("exit 2", "usage_error", 2, "fake zero: a usage error, as the prompt asked", ""),
        ("exit 3", "error", 3, "provider error: upstream failed (500 Internal Server Error)", ""),
        ("exit 4", "incomplete", 4, "Run incomplete: plan items remain", ""),
        ("provider 401", "error", 3, AUTH_MESSAGE, HINTS[Category.AUTH]),
        ("provider 429", "error", 3, RATE_LIMIT_MESSAGE, HINTS[Category.RATE_LIMIT]),
        ("provider unreachable", "error", 3, UNREACHABLE_MESSAGE, HINTS[Category.CONNECTIVITY]),
    ],
)
async def test_exit_codes_map_to_outcomes(
    fake_agent: AgentSandbox, prompt: str, status: str, code: int, message: str, hint: str
) -> None:
    fake_agent.new_session()
    _events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request(prompt))
    assert (outcome.status, outcome.exit_code, outcome.message, outcome.hint) == (
        status,
        code,
        message,
        hint,
    )


async def test_a_usage_error_before_run_start_writes_nothing(fake_agent: AgentSandbox) -> None:
    session = fake_agent.new_session()
    events, _outcome = await run_to_end(fake_agent.engine(), fake_agent.request("exit 2"))
    assert [type(event) for event in events] == [AgentError, RunEnd]
    assert len(fake_agent.store.read_events(session)) == 2


async def first_text(run: ExecRun) -> tuple[list[object], str]:
    seen: list[object] = []
    async for event in run.events():
        seen.append(event)
        if isinstance(event, TextDelta):
            return seen, event.delta
    raise AssertionError(f"no text before EOF: {seen}")


async def test_cancel_sends_sigint_and_reads_on_to_run_end(fake_agent: AgentSandbox) -> None:
    session = fake_agent.new_session()
    run = await fake_agent.engine().start(fake_agent.request("hang"))
    events = run.events()
    async for event in events:
        if isinstance(event, TextDelta):
            break
    run.cancel()
    assert run.cancelled
    rest = [event async for event in events]
    assert rest[-2:] == [
        AgentError("interrupted", "run cancelled by signal"),
        RunEnd("interrupted", 130),
    ]
    outcome = await run.wait()
    assert (outcome.status, outcome.exit_code, outcome.message) == (
        "interrupted",
        130,
        "Run cancelled.",
    )
    assert [event.type for event in fake_agent.store.read_events(session)[2:]] == [
        "message",
        "error",
    ]


async def test_a_process_that_ignores_sigint_is_killed_with_its_group(
    fake_agent: AgentSandbox,
) -> None:
    fake_agent.new_session()
    run = await fake_agent.engine(grace_seconds=0.5).start(fake_agent.request("ignore-sigint"))
    events = run.events()
    child = 0
    async for event in events:
        if isinstance(event, TextDelta):
            child = int(event.delta.split()[1])
            break
    run.cancel()
    rest = [event async for event in events]  # EOF only once the child is gone too
    outcome = await run.wait()
    assert not any(isinstance(event, RunEnd) for event in rest)
    assert outcome.status == "killed"
    assert outcome.exit_code == -signal.SIGKILL
    assert "did not stop in time" in outcome.message
    assert run.killed
    assert wait_until_gone(child)
    assert not alive(run.pid)


async def test_a_second_cancel_kills_at_once(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    run = await fake_agent.engine(grace_seconds=600).start(fake_agent.request("ignore-sigint"))
    events = run.events()
    async for event in events:
        if isinstance(event, TextDelta):
            break
    run.cancel()
    run.cancel()
    _rest = [event async for event in events]
    outcome = await run.wait()
    assert outcome.status == "killed"


async def test_cancel_before_run_start_stops_it_outright(fake_agent: AgentSandbox) -> None:
    session = fake_agent.new_session()
    run = await fake_agent.engine().start(fake_agent.request("slow-start"))
    while "starting slowly" not in run.stderr_tail:  # noqa: ASYNC110 (the child's stderr)
        await asyncio.sleep(0.02)
    run.cancel()
    events = [event async for event in run.events()]
    outcome = await run.wait()
    assert events == []
    assert (outcome.status, outcome.exit_code) == ("interrupted", -signal.SIGINT)
    assert len(fake_agent.store.read_events(session)) == 2


async def test_wait_alone_drains_the_output(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    run = await fake_agent.engine().start(fake_agent.request("deltas 20000"))
    outcome = await run.wait()
    assert outcome.ok
    assert run.run_end == RunEnd("success", 0)


async def test_leaving_the_context_on_an_error_cancels_the_run(fake_agent: AgentSandbox) -> None:
    session = fake_agent.new_session()
    run = await fake_agent.engine().start(fake_agent.request("hang"))

    async def consume_then_fail() -> None:
        async with run:
            async for event in run.events():
                if isinstance(event, TextDelta):
                    raise RuntimeError("the UI went away")

    with pytest.raises(RuntimeError, match="the UI went away"):
        await consume_then_fail()
    outcome = await run.wait()
    assert (outcome.status, outcome.exit_code) == ("interrupted", 130)
    assert run.run_end == RunEnd("interrupted", 130)  # read on by wait() after the error
    assert fake_agent.store.read_events(session)[-1].payload == {"message": "interrupted"}
    assert live_runs() == []


async def test_a_cancelled_consumer_cancels_the_run(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    run = await fake_agent.engine(grace_seconds=0.5).start(fake_agent.request("ignore-sigint"))
    first_delta = asyncio.Event()

    async def consume() -> None:
        async with run:
            async for event in run.events():
                if isinstance(event, TextDelta):
                    first_delta.set()

    consumer = asyncio.create_task(consume())
    await first_delta.wait()
    consumer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await consumer
    assert run.cancelled
    outcome = await run.wait()
    assert outcome.status == "killed"
    assert not run.running
    assert live_runs() == []


async def test_terminate_all_interrupts_runs_that_listen(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    run = await fake_agent.engine().start(fake_agent.request("hang"))
    events = run.events()
    async for event in events:
        if isinstance(event, TextDelta):
            break
    terminate_all(20.0)  # synchronous, as at app exit
    assert live_runs() == []
    rest = [event async for event in events]
    outcome = await run.wait()
    assert rest[-1] == RunEnd("interrupted", 130)
    assert outcome.status == "interrupted"


async def test_terminate_all_kills_the_groups_that_do_not(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    run = await fake_agent.engine().start(fake_agent.request("ignore-sigint"))
    _seen, text = await first_text(run)
    child = int(text.split()[1])
    terminate_all(0.3)
    assert wait_until_gone(child)
    outcome = await run.wait()
    assert outcome.status == "killed"


async def test_start_refuses_before_anything_runs(fake_agent: AgentSandbox) -> None:
    fake_agent.store.create("zero_side", session_kind="side")
    engine = fake_agent.engine()
    with pytest.raises(AgentUnavailable, match="Zero session is not resumable: zero_side"):
        await engine.start(fake_agent.request("hi", session_id="zero_side"))
    assert live_runs() == []
    assert fake_agent.store.read_events("zero_side") == []


async def test_an_agent_that_cannot_be_executed_is_said_so(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    not_a_program = executable(fake_agent.workspace.parent / "bin" / "garbage")
    not_a_program.write_bytes(b"\x7fELF, or not quite")
    fake_agent.env["ZERO_BIN"] = str(not_a_program)
    with pytest.raises(AgentUnavailable) as caught:
        await fake_agent.engine().start(fake_agent.request("hi"))
    assert str(caught.value) == f"cannot start {not_a_program}: Exec format error"
    assert live_runs() == []


async def test_start_without_the_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = make_sandbox(tmp_path, monkeypatch)
    sandbox.env["PATH"] = str(tmp_path / "empty")
    sandbox.new_session()
    with pytest.raises(AgentUnavailable, match="go install"):
        await sandbox.engine().start(sandbox.request("hi"))


def test_every_scenario_of_the_fake_is_tested() -> None:
    tested = {
        "slow N": "slow 3",
        "deltas N": "deltas 20000",
        "deltas N R": "deltas 40 400",
        "think": "think",
        "tool read FILE": "tool read notes.txt",
        "crash": "crash",
        "garbage": "garbage",
        "big": "big",
        "exit 2": "exit 2",
        "exit 3": "exit 3",
        "exit 4": "exit 4",
        "provider 401": "provider 401",
        "provider 429": "provider 429",
        "provider unreachable": "provider unreachable",
        "hang": "hang",
        "busy FILE": "busy notes.txt",
        "ignore-sigint": "ignore-sigint",
        "slow-start": "slow-start",
        "hold-stdout": "hold-stdout",
        "lend-stdout": "lend-stdout",
        "tree": "tree",
        "tree deaf": "tree deaf",
        "long-line": "long-line",
        "vanish": "vanish",
        "replace": "replace",
        "stderr-note": "stderr-note",
        "reconnect": "reconnect",
        "quiet S": "quiet 1",
        "paragraphs N": "paragraphs 100",
        "deny CMD": "deny ls -la",
    }
    assert set(tested) == set(SCENARIOS)
    source = "".join(
        path.read_text(encoding="utf-8") for path in Path(__file__).parent.glob("test_agent_*.py")
    )
    for prompt in tested.values():
        assert f'"{prompt}"' in source


async def test_a_denied_shell_command_ends_its_tool_with_zero_s_approval_error(
    fake_agent: AgentSandbox,
) -> None:
    fake_agent.new_session()
    events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("deny ls -la"))
    assert outcome.ok
    results = [event for event in events if isinstance(event, ToolResult)]
    assert len(results) == 1
    assert results[0].status == "error"
    assert results[0].output.startswith("Error: Sandbox approval required for exec_command: ")


async def test_paced_deltas(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    events, outcome = await run_to_end(fake_agent.engine(), fake_agent.request("deltas 40 400"))
    assert outcome.ok
    assert [event for event in events if isinstance(event, TextDelta)] == [TextDelta("x")] * 40
    assert FinalAnswer("x" * 40) in events


async def test_a_busy_run_is_caught_mid_answer_and_cancelled(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    (fake_agent.workspace / "notes.txt").write_text("one\ntwo\n")
    run = await fake_agent.engine().start(fake_agent.request("busy notes.txt"))
    seen: list[object] = []
    async for event in run.events():
        seen.append(event)
        if isinstance(event, TextDelta) and "layout string" in event.delta:
            run.cancel()
    outcome = await run.wait()
    assert outcome.status == "interrupted"
    kinds = [type(event).__name__ for event in seen]
    assert kinds.index("ReasoningDelta") < kinds.index("ToolCall") < kinds.index("ToolResult")
    assert kinds[-1] == "RunEnd"


async def test_slow_output_arrives_as_it_is_written(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    run = await fake_agent.engine().start(fake_agent.request("slow 3"))
    texts = [event.delta async for event in run.events() if isinstance(event, TextDelta)]
    assert texts == ["chunk 0 ", "chunk 1 ", "chunk 2 "]
    assert (await run.wait()).ok


# --- the fake itself follows zero-exec §7 --------------------------------------------------


def run_fake(
    sandbox: AgentSandbox, *args: str, stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, str(FAKE_ZERO), *args],
        input=stdin,
        env=sandbox.env,
        capture_output=True,
        timeout=60,
        check=False,
        cwd=sandbox.workspace,
    )


def shape_e(result: subprocess.CompletedProcess[bytes], message: str) -> None:
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 2, result.stdout
    rid = re.search(r'"runId":"([^"]+)"', lines[0])
    assert rid is not None
    assert RUN_ID.fullmatch(rid.group(1))
    p = f'"runId":"{rid.group(1)}","schemaVersion":2'
    from zero_tui.store.gojson import encode_string

    assert lines == [
        f'{{"code":"usage_error","message":{encode_string(message)},"recoverable":false,{p},"type":"error"}}',
        f'{{"exitCode":2,{p},"status":"error","type":"run_end"}}',
    ]
    assert result.returncode == 2
    assert result.stderr == b""


def test_fake_usage_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = make_sandbox(tmp_path, monkeypatch)
    write_fake_zero(tmp_path / "bin")
    required = 'Prompt required. Use `zero exec "prompt"` or `zero exec --file prompt.txt`.'
    bare = run_fake(sandbox, "exec")
    assert (bare.stdout, bare.stderr, bare.returncode) == (b"", f"[zero] {required}\n".encode(), 2)
    shape_e(run_fake(sandbox, "exec", "--output-format", "stream-json"), required)
    text_mode = run_fake(
        sandbox, "exec", "--max-turns", "0", "--output-format", "stream-json", "hi"
    )
    assert text_mode.stdout == b""
    assert text_mode.stderr == b'[zero] invalid --max-turns "0". Expected a positive integer.\n'
    o = ("exec", "--output-format", "stream-json")
    shape_e(
        run_fake(sandbox, *o, "--resume=a", "--fork", "b", "--", "hi"),
        "Use either --resume or --fork, not both.",
    )
    shape_e(run_fake(sandbox, *o, "--bogus", "hi"), 'unknown exec flag "--bogus"')
    shape_e(
        run_fake(sandbox, *o, "--resume", "zero_missing", "--", "hi"),
        "Zero session not found: zero_missing",
    )
    shape_e(
        run_fake(sandbox, *o, "--resume", "fix the bug", "extra"),
        'invalid zero session id "fix the bug"',
    )
    shape_e(run_fake(sandbox, *o, "--resume", "--", "hi"), "No Zero sessions available to resume.")
    sandbox.store.create("zero_side", session_kind="side")
    shape_e(
        run_fake(sandbox, *o, "--resume=zero_side", "--", "hi"),
        "Zero session is not resumable: zero_side",
    )
    shape_e(
        run_fake(sandbox, *o, "--resume=zero_side", "--init-session-id", "x", "--", "hi"),
        "Use --init-session-id only when creating or forking a session.",
    )
    shape_e(
        run_fake(sandbox, *o, "--cwd", "/nonexistent", "--", "hi"),
        "cwd must be an existing directory: /nonexistent",
    )
    i = (*o, "--input-format", "stream-json")
    bad = "Invalid stream-json input at line 1: "
    shape_e(run_fake(sandbox, *i, stdin=b"{bad"), bad + "expected a JSON object.")
    shape_e(
        run_fake(sandbox, *i, stdin=b'{"schemaVersion":2,"type":"prompt","content":"x","extra":1}'),
        bad + "unknown field extra",
    )
    shape_e(
        run_fake(sandbox, *i, stdin=b'{"schemaVersion":1,"type":"prompt","content":"x"}'),
        bad + "schemaVersion must be 2",
    )
    shape_e(
        run_fake(
            sandbox,
            *i,
            stdin=b'{"schemaVersion":2,"type":"message","role":"assistant","content":"x"}',
        ),
        bad + "role must be user",
    )
    shape_e(
        run_fake(sandbox, *i),
        "Stream-json input must include at least one prompt or user message event.",
    )
    shape_e(
        run_fake(sandbox, *i, "hi"),
        "Stream-json input does not accept positional prompt text. Pipe JSONL or use --file.",
    )
    assert sandbox.store.list() == [sandbox.store.get("zero_side")]


def test_fake_plain_run_lines_are_exact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = make_sandbox(tmp_path, monkeypatch)
    session = sandbox.new_session()
    result = run_fake(
        sandbox,
        "exec",
        "--output-format",
        "stream-json",
        f"--resume={session}",
        "--cwd",
        str(sandbox.workspace),
        "--no-completion-gate",
        "--",
        "a < b",
    )
    lines = result.stdout.decode().splitlines()
    rid = RUN_ID.search(lines[0])
    assert rid is not None
    p = f'"runId":"{rid.group()}","schemaVersion":2'
    cwd = str(sandbox.workspace)
    assert lines[0] == (
        f'{{"apiModel":"gpt-5","cwd":"{cwd}","model":"gpt-5","provider":"openai",{p},'
        f'"sessionId":"{session}","type":"run_start"}}'
    )
    assert lines[1:4] == [
        f'{{"delta":"You s",{p},"type":"text"}}',
        f'{{"delta":"aid: ",{p},"type":"text"}}',
        f'{{"delta":"a \\u003c b",{p},"type":"text"}}',
    ]
    assert lines[4] == (
        f'{{"completionTokens":15,"promptTokens":5,{p},"totalTokens":20,"type":"usage"}}'
    )
    assert lines[-2] == f'{{{p},"text":"You said: a \\u003c b","type":"final"}}'
    assert lines[-1] == f'{{"exitCode":0,{p},"status":"success","type":"run_end"}}'
    assert all(p in line for line in lines)
    assert result.returncode == 0
    stored = sandbox.store.read_events(session)
    assert stored[2].payload == {"content": "a < b", "role": "user"}
    assert stored[-1].payload == {"content": "You said: a < b", "role": "assistant"}


def test_fake_help_and_prompt_help(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = make_sandbox(tmp_path, monkeypatch)
    assert run_fake(sandbox, "exec", "help").returncode == 0
    prompt_help = run_fake(sandbox, "exec", "--output-format", "stream-json", "--", "help")
    assert b'"text":"You said: help"' in prompt_help.stdout


async def test_one_run_per_session_at_a_time(fake_agent: AgentSandbox) -> None:
    session = fake_agent.new_session()
    engine = fake_agent.engine()
    async with await engine.start(fake_agent.request("hang")) as run:
        with pytest.raises(AgentUnavailable, match=f"already in flight on session {session}"):
            await engine.start(fake_agent.request("again"))
        await first_text(run)  # the run has started: a SIGINT now is a cancel, not a kill
        run.cancel()
    cancelled = await run.wait()
    assert cancelled.status == "interrupted", cancelled
    _events, outcome = await run_to_end(engine, fake_agent.request("now it may"))
    assert outcome.ok


def test_autonomy_warning_is_zeros_text() -> None:
    assert autonomy_warning("HIGH") == (
        "Unsafe permissions are active for this run because --auto high was passed."
    )
    assert autonomy_warning("low") is None
    assert autonomy_warning(None) is None


async def test_two_starts_at_once_on_one_session_give_one_run(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    engine = fake_agent.engine()
    started = await asyncio.gather(
        engine.start(fake_agent.request("slow 2")),
        engine.start(fake_agent.request("slow 2")),
        return_exceptions=True,
    )
    runs = [item for item in started if isinstance(item, ExecRun)]
    refusals = [item for item in started if isinstance(item, AgentUnavailable)]
    assert (len(runs), len(refusals)) == (1, 1)
    assert (await runs[0].wait()).ok
