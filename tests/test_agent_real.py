"""ExecEngine against the real Go agent, with a scripted model server on 127.0.0.1.

Runs where a `zero` can be found ($ZERO_BIN, else PATH; `.ci/run` installs it when Go
is present); skips otherwise, quoting why the CI install failed. Zero talks to
tests/model_server.py as an OpenAI-compatible provider (zero-exec §9.11), with HOME and
the XDG dirs private to the test, and writes the store itself.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from agent_fixtures import FAKE_ZERO, AgentSandbox, make_sandbox
from model_server import Failure, ModelServer, Response, serve, stalled, text_answer, tool_call
from process_tree import (
    LIVENESS,
    agent_marker,
    kill_all_with,
    left_alive,
    read_driver_until,
    start_driver,
    wait_for_processes_with,
)

from zero_tui.agent.engine import AgentUnavailable, ExecEngine, ExecRun, find_agent
from zero_tui.agent.outcome import HINTS, Category, RunOutcome
from zero_tui.agent.stream import (
    AgentError,
    AgentEvent,
    FinalAnswer,
    RunEnd,
    RunStart,
    TextDelta,
    ToolCall,
    ToolResult,
)
from zero_tui.agent.turn import TextBlock, ToolBlock, TurnModel
from zero_tui.store import SessionStore

pytestmark = pytest.mark.agent

INSTALL_LOG = Path(__file__).resolve().parents[1] / ".ci" / "zero-install.log"
UNKNOWN_MODEL = "zero-tui-test-model"  # an id Zero's registry does not know
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TMPDIR", "ZERO_BIN")


def last_log_line(path: Path) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return next((line.strip() for line in reversed(lines) if line.strip()), "")


def real_zero() -> str:
    try:
        return find_agent(os.environ)
    except AgentUnavailable as error:
        reason = f"no real Zero agent: {error}"
        install = last_log_line(INSTALL_LOG)
        if install:
            reason += f" (.ci/run's go install said: {install})"
        pytest.skip(reason)


@pytest.fixture
def real_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentSandbox:
    """A sandbox for the real `zero`: only PATH-like variables pass through, so no key
    or config of the user's reaches it."""
    binary = real_zero()
    sandbox = make_sandbox(tmp_path, monkeypatch)
    private = {key: sandbox.env[key] for key in sandbox.env if key.startswith(("HOME", "XDG_"))}
    passed = {key: os.environ[key] for key in PASSED_ENV if key in os.environ}
    sandbox.env.clear()
    sandbox.env.update(passed, **private, ZERO_BIN=binary)
    return sandbox


def point_at(sandbox: AgentSandbox, server: ModelServer) -> ExecEngine:
    sandbox.env.update(
        OPENAI_BASE_URL=server.base_url,
        OPENAI_API_KEY="test-key-not-secret",
        OPENAI_MODEL=UNKNOWN_MODEL,
    )
    return sandbox.engine(grace_seconds=10.0, exit_timeout=30.0)


async def run_with(
    sandbox: AgentSandbox, responses: list[Response], prompt: str, session_id: str | None
) -> tuple[list[AgentEvent], RunOutcome, ModelServer]:
    with serve(responses) as server:
        engine = point_at(sandbox, server)
        async with await engine.start(sandbox.request(prompt, session_id=session_id)) as run:
            events = [event async for event in run.events()]
            outcome = await run.wait()
    return events, outcome, server


def stored(store: SessionStore, session_id: str, after: int = 2) -> list[tuple[str, object]]:
    return [(event.type, event.payload) for event in store.read_events(session_id)[after:]]


async def test_a_plain_answer_streamed_in_chunks(real_agent: AgentSandbox) -> None:
    session = real_agent.new_session()
    events, outcome, server = await run_with(
        real_agent, [text_answer("Tiny web app ", "& date ", "parser.")], "Shorter, please", session
    )
    assert outcome.status == "success", outcome
    start = events[0]
    assert isinstance(start, RunStart)
    assert (start.session_id, start.model) == (session, UNKNOWN_MODEL)
    deltas = [event.delta for event in events if isinstance(event, TextDelta)]
    assert deltas == ["Tiny web app ", "& date ", "parser."]
    assert events[-2:] == [FinalAnswer("Tiny web app & date parser."), RunEnd("success", 0)]
    assert stored(real_agent.store, session) == [
        ("message", {"content": "Shorter, please", "role": "user"}),
        ("provider_usage", {"completionTokens": 7, "promptTokens": 50, "totalTokens": 57}),
        ("message", {"content": "Tiny web app & date parser.", "role": "assistant"}),
    ]
    (request,) = server.chat_requests()
    assert request["model"] == UNKNOWN_MODEL
    assert request["stream"] is True
    sent = "\n".join(str(message.get("content")) for message in request["messages"])
    assert f"Continuing Zero session {session}." in sent
    assert "Current user request:\nShorter, please" in sent


async def test_a_tool_call_reads_a_workspace_file(real_agent: AgentSandbox) -> None:
    session = real_agent.new_session()
    (real_agent.workspace / "notes.txt").write_text("the word is pineapple\n", encoding="utf-8")
    responses: list[Response] = [
        tool_call("call_1", "read_file", {"path": "notes.txt"}),
        text_answer("It says ", "pineapple."),
    ]
    events, outcome, server = await run_with(
        real_agent, responses, "What do my notes say?", session
    )
    assert outcome.status == "success", outcome
    turn = TurnModel("What do my notes say?")
    for event in events:
        turn.apply(event)
    tools = [block for block in turn.blocks if isinstance(block, ToolBlock)]
    assert len(tools) == 1
    assert tools[0].call == ToolCall("call_1", "read_file", {"path": "notes.txt"}, "read")
    result = tools[0].result
    assert isinstance(result, ToolResult)
    assert result.status == "ok"
    assert "pineapple" in result.output
    assert turn.blocks[-1] == TextBlock("It says pineapple.", final=True)
    types = [event_type for event_type, _payload in stored(real_agent.store, session)]
    assert types == [
        "message",
        "provider_usage",
        "tool_call",
        "tool_result",
        "provider_usage",
        "message",
    ]
    second = server.chat_requests()[1]
    assert any("pineapple" in str(message.get("content")) for message in second["messages"])


async def test_http_401_is_an_auth_error_with_its_hint(real_agent: AgentSandbox) -> None:
    session = real_agent.new_session()
    events, outcome, _server = await run_with(
        real_agent, [Failure(401, "Incorrect API key provided")], "hi", session
    )
    assert (outcome.status, outcome.exit_code) == ("error", 3)
    assert outcome.message.startswith("auth error:")
    assert "Incorrect API key provided" in outcome.message
    assert outcome.hint == HINTS[Category.AUTH]
    assert isinstance(events[-2], AgentError)
    assert stored(real_agent.store, session)[-1] == ("error", {"message": outcome.message})


async def test_http_429_retries_then_fails_with_the_rate_limit_hint(
    real_agent: AgentSandbox,
) -> None:
    session = real_agent.new_session()
    limited = Failure(429, "Rate limit reached for requests", (("Retry-After", "1"),))
    _events, outcome, server = await run_with(real_agent, [limited], "hi", session)
    assert (outcome.status, outcome.exit_code) == ("error", 3)
    assert outcome.message == "rate limit error: Rate limit reached for requests"
    assert outcome.hint == HINTS[Category.RATE_LIMIT]
    assert len(server.chat_requests()) == 6  # Zero's own retries, honouring Retry-After


async def test_a_stalled_stream_is_cancelled(real_agent: AgentSandbox) -> None:
    session = real_agent.new_session()
    with serve([stalled("Thinking about ", "it")]) as server:
        engine = point_at(real_agent, server)
        async with await engine.start(real_agent.request("hi", session_id=session)) as run:
            events = run.events()
            async for event in events:
                if isinstance(event, TextDelta) and event.delta == "it":
                    break
            await asyncio.to_thread(server.stalled.wait, 30)
            run.cancel()
            rest = [event async for event in events]
            outcome = await run.wait()
    assert rest[-2:] == [
        AgentError("interrupted", "run cancelled by signal"),
        RunEnd("interrupted", 130),
    ]
    assert (outcome.status, outcome.message) == ("interrupted", "Run cancelled.")
    assert not run.killed
    assert stored(real_agent.store, session) == [
        ("message", {"content": "hi", "role": "user"}),
        ("error", {"message": "interrupted"}),
    ]


async def test_a_new_session_and_a_prompt_sent_on_stdin(real_agent: AgentSandbox) -> None:
    prompt = "-- a prompt that looks like a flag, and long: " + "word " * 8000
    events, outcome, server = await run_with(real_agent, [text_answer("ok")], prompt, None)
    assert outcome.status == "success", outcome
    start = events[0]
    assert isinstance(start, RunStart)
    meta = real_agent.store.get(start.session_id)
    assert meta is not None
    assert meta.cwd == str(real_agent.workspace)
    assert stored(real_agent.store, start.session_id, after=0)[0] == (
        "message",
        {"content": prompt.strip(), "role": "user"},
    )
    (request,) = server.chat_requests()
    assert any(prompt.strip() in str(message.get("content")) for message in request["messages"])


async def test_a_store_dir_ending_in_zero_sessions_is_where_zero_writes(
    tmp_path: Path, real_agent: AgentSandbox
) -> None:
    other_root = tmp_path / "elsewhere" / "zero" / "sessions"
    real_agent.store = SessionStore(other_root)
    session = real_agent.new_session("zero_elsewhere")
    _events, outcome, _server = await run_with(real_agent, [text_answer("there")], "hi", session)
    assert outcome.status == "success", outcome
    assert stored(real_agent.store, session)[-1] == (
        "message",
        {"content": "there", "role": "assistant"},
    )
    default_store = SessionStore(Path(real_agent.env["XDG_DATA_HOME"]) / "zero" / "sessions")
    assert default_store.list() == []


# --- the fake agent answers as the real one does --------------------------------------------

OUT = ("--output-format", "stream-json")
STDIN = (*OUT, "--input-format", "stream-json")
USAGE_CASES: list[tuple[tuple[str, ...], bytes]] = [
    ((), b""),
    (OUT, b""),
    (("--max-turns", "0", *OUT, "hi"), b""),
    ((*OUT, "--resume=a", "--fork", "b", "--", "hi"), b""),
    ((*OUT, "--bogus", "hi"), b""),
    ((*OUT, "--resume", "zero_missing", "--", "hi"), b""),
    ((*OUT, "--resume", "fix the bug", "extra"), b""),
    ((*OUT, "--resume", "--", "hi"), b""),
    ((*OUT, "--resume=zero_side", "--", "hi"), b""),
    ((*OUT, "--resume=zero_side", "--init-session-id", "x", "--", "hi"), b""),
    ((*OUT, "--cwd", "/nonexistent", "--", "hi"), b""),
    ((*OUT, "--auto", "max", "--", "hi"), b""),
    ((*OUT, "--auto=max", "--", "hi"), b""),
    ((*OUT, "--model", "-x", "--", "hi"), b""),
    ((*STDIN, "hi"), b""),
    (STDIN, b"{bad"),
    (STDIN, b'{"schemaVersion":2,"type":"prompt","content":"x","extra":1}'),
    (STDIN, b'{"schemaVersion":1,"type":"prompt","content":"x"}'),
    (STDIN, b'{"schemaVersion":2,"type":"message","role":"assistant","content":"x"}'),
    (STDIN, b'{"schemaVersion":2,"type":"bogus","content":"x"}'),
    (STDIN, b'{"schemaVersion":2,"type":"prompt","content":"  "}'),
    (STDIN, b""),
]


def run_exec(binary: list[str], args: tuple[str, ...], stdin: bytes, home: Path) -> object:
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home)}
    env.update(XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"))
    SessionStore(home / "data" / "zero" / "sessions").create("zero_side", session_kind="side")
    result = subprocess.run(
        [*binary, "exec", *args],
        input=stdin,
        env=env,
        cwd=home,
        capture_output=True,
        timeout=60,
        check=False,
    )
    stdout = re.sub(rb"run_[0-9]{14}_[0-9a-f]{6}", b"<RID>", result.stdout)
    return result.returncode, stdout, result.stderr


@pytest.mark.parametrize(("args", "stdin"), USAGE_CASES)
def test_the_fake_answers_usage_errors_as_zero_does(
    tmp_path: Path, args: tuple[str, ...], stdin: bytes
) -> None:
    real = run_exec([real_zero()], args, stdin, tmp_path / "real")
    fake = run_exec([sys.executable, str(FAKE_ZERO)], args, stdin, tmp_path / "fake")
    assert fake == real


# --- the tools' processes (issue 18, item 6) ---------------------------------------------


def bash_sleeping() -> tuple[bytes, list[Response]]:
    """A bash tool call that sleeps 378 s, and the argv part that marks its processes (a
    fraction of a second no other `sleep` has)."""
    marker = f"378.{secrets.randbelow(10**6):06d}"
    command = f"sleep {marker}; touch AFTER"
    return marker.encode(), [tool_call("call_1", "bash", {"command": command}), text_answer("ok")]


@pytest.mark.parametrize(
    ("cancels", "status"),
    [pytest.param(1, "interrupted", id="cancelled"), pytest.param(2, "killed", id="Esc-Esc")],
)
async def test_no_bash_tool_outlives_a_cancelled_or_killed_run(
    real_agent: AgentSandbox, cancels: int, status: str
) -> None:
    """Zero runs each bash tool in a process group of its own: a kill of the agent's
    group used to leave `sh -c sleep 378` and `sleep 378` running under PID 1."""
    marker, responses = bash_sleeping()
    try:
        with serve(responses) as server:
            engine = point_at(real_agent, server)
            request = real_agent.request("run it", session_id=None, auto="high")
            run = await engine.start(request)
            events = asyncio.create_task(all_events(run))
            assert await asyncio.to_thread(wait_for_processes_with, marker), "no tool ran"
            for _ in range(cancels):
                run.cancel()
            await asyncio.wait_for(events, LIVENESS)
            outcome = await asyncio.wait_for(run.wait(), LIVENESS)
        assert outcome.status == status, outcome
        assert left_alive(marker, run.pid) == []
    finally:
        kill_all_with(marker, agent_marker(real_agent.workspace))
    assert not (real_agent.workspace / "AFTER").exists()


async def all_events(run: ExecRun) -> list[AgentEvent]:
    return [event async for event in run.events()]


def test_killing_the_process_that_ran_the_engine_takes_a_bash_tool_down(
    real_agent: AgentSandbox,
) -> None:
    """SIGKILL of zero-tui mid-tool: Zero gets its SIGINT (it records the cancel), then
    neither it nor its tool is left."""
    marker, responses = bash_sleeping()
    session = real_agent.new_session()
    try:
        with serve(responses) as server:
            point_at(real_agent, server)
            driver = start_driver(
                real_agent.env,
                real_agent.store.root,
                real_agent.workspace,
                "run it",
                session_id=session,
                auto="high",
            )
            try:
                agent = read_driver_until(driver, b"ToolCall")
                assert wait_for_processes_with(marker), "no tool ran"
            finally:
                driver.kill()
                driver.wait()
            assert left_alive(marker, agent) == []
    finally:
        kill_all_with(marker, agent_marker(real_agent.workspace))
    assert ("error", {"message": "interrupted"}) in stored(real_agent.store, session)
