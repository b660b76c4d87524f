"""The agent's whole process tree, with the fake `zero` (tests/fake_zero.py): a run ends once
the agent has exited, whoever else holds its output; no process it started outlives the
run, a kill, or the death of the process that ran the engine; one endless line of output
ends the run with memory bounded."""

from __future__ import annotations

import asyncio
import os
import socket
import tracemalloc
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from agent_fixtures import AgentSandbox, run_to_end
from process_tree import (
    LIVENESS,
    agent_marker,
    kill_all_with,
    left_alive,
    processes_with,
    read_driver_until,
    start_driver,
    wait_for_processes_with,
)

from zero_tui.agent import engine as engine_module
from zero_tui.agent.engine import (
    MAX_LINE_BYTES,
    AgentUnavailable,
    ExecEngine,
    live_runs,
    terminate_all,
)
from zero_tui.agent.stream import AgentEvent, FinalAnswer, RunEnd, TextDelta, Unreadable
from zero_tui.store import SessionStore

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")


def sleeper_marker(sandbox: AgentSandbox) -> bytes:
    """What the argv of a tool process of the fake holds (fake_zero.spawn_sleeper)."""
    return b"\0sleeper\0" + str(sandbox.workspace).encode() + b"\0"


def sleepers(sandbox: AgentSandbox) -> list[int]:
    return processes_with(sleeper_marker(sandbox))


def wait_for_the_tree_to_go(sandbox: AgentSandbox, *pids: int) -> list[int]:
    return left_alive(sleeper_marker(sandbox), *pids)


@pytest.fixture
def tree_agent(fake_agent: AgentSandbox) -> Iterator[AgentSandbox]:
    """The fake agent; whatever it leaves behind is killed after the test (if it failed)."""
    fake_agent.new_session()
    yield fake_agent
    kill_all_with(sleeper_marker(fake_agent), agent_marker(fake_agent.workspace))


async def read_until(events: AsyncIterator[AgentEvent], text: str) -> None:
    async for event in events:
        if isinstance(event, TextDelta) and event.delta == text:
            return
    raise AssertionError(f"the run ended before saying {text!r}")


async def rest_of(events: AsyncIterator[AgentEvent]) -> list[AgentEvent]:
    return [event async for event in events]


# --- a run ends when the agent has exited (issue 18, item 5) ----------------------------


async def test_a_run_ends_though_a_process_in_its_own_session_holds_stdout(
    tree_agent: AgentSandbox,
) -> None:
    run = await tree_agent.engine().start(tree_agent.request("hold-stdout"))
    events = await asyncio.wait_for(rest_of(run.events()), LIVENESS)
    outcome = await asyncio.wait_for(run.wait(), LIVENESS)
    assert outcome.ok, outcome
    assert events[-1] == RunEnd("success", 0)
    assert wait_for_the_tree_to_go(tree_agent) == []
    assert not run.output_cut  # its holder was killed with the run: the pipe ended


async def test_a_run_ends_though_a_process_outside_its_tree_holds_its_output(
    tree_agent: AgentSandbox,
) -> None:
    """The agent hands its stdout and stderr to this test process, which no sweep of the
    agent's processes reaches: the run still ends, after a short drain."""
    name = f"zero-tui-test-{uuid.uuid4().hex}"
    tree_agent.env["FAKE_ZERO_LEND_TO"] = name
    loop = asyncio.get_running_loop()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind("\0" + name)
        server.listen(1)
        server.setblocking(False)
        run = await tree_agent.engine().start(tree_agent.request("lend-stdout"))
        connection, _address = await asyncio.wait_for(loop.sock_accept(server), LIVENESS)
        with connection:
            connection.setblocking(True)
            _message, held, _flags, _address = socket.recv_fds(connection, 16, 2)
            try:
                connection.sendall(b"k")
                events = await asyncio.wait_for(rest_of(run.events()), LIVENESS)
                outcome = await asyncio.wait_for(run.wait(), LIVENESS)
            finally:
                for descriptor in held:
                    os.close(descriptor)
    assert len(held) == 2
    assert outcome.ok, outcome
    assert events[-1] == RunEnd("success", 0)
    assert run.output_cut  # ended by the drain, not by an end of file


# --- no process of the run outlives it (issue 18, item 6) -------------------------------


@pytest.mark.parametrize(
    ("prompt", "cancels", "status"),
    [
        pytest.param("tree", 1, "interrupted", id="cancelled"),
        pytest.param("tree deaf", 1, "killed", id="grace-expired"),
        pytest.param("tree deaf", 2, "killed", id="cancelled-twice"),
    ],
)
async def test_no_tool_outlives_a_cancelled_or_killed_run(
    tree_agent: AgentSandbox, prompt: str, cancels: int, status: str
) -> None:
    run = await tree_agent.engine(grace_seconds=0.5).start(tree_agent.request(prompt))
    events = run.events()
    await asyncio.wait_for(read_until(events, "tree ready"), LIVENESS)
    assert len(sleepers(tree_agent)) == 3
    for _ in range(cancels):
        run.cancel()
    rest = await asyncio.wait_for(rest_of(events), LIVENESS)
    outcome = await asyncio.wait_for(run.wait(), LIVENESS)
    assert outcome.status == status, outcome
    if status == "interrupted":
        assert rest[-1] == RunEnd("interrupted", 130)
    assert wait_for_the_tree_to_go(tree_agent, run.pid) == []


async def test_terminate_all_takes_every_tool_down(tree_agent: AgentSandbox) -> None:
    run = await tree_agent.engine().start(tree_agent.request("tree deaf"))
    events = run.events()
    await asyncio.wait_for(read_until(events, "tree ready"), LIVENESS)
    terminate_all(0.3)
    assert wait_for_the_tree_to_go(tree_agent, run.pid) == []
    outcome = await asyncio.wait_for(run.wait(), LIVENESS)
    assert outcome.status == "killed"


def test_killing_the_process_that_ran_the_engine_takes_the_tree_down(
    tree_agent: AgentSandbox,
) -> None:
    """SIGKILL of zero-tui mid-tool: the agent still gets its SIGINT (it records the
    cancel), then nothing it started survives."""
    driver = start_driver(
        tree_agent.env, tree_agent.store.root, tree_agent.workspace, "tree", session_id="zero_s1"
    )
    try:
        agent = read_driver_until(driver, b"TextDelta tree ready")
        assert len(sleepers(tree_agent)) == 3
    finally:
        driver.kill()
        driver.wait()
    assert wait_for_the_tree_to_go(tree_agent, agent) == []
    store = SessionStore(tree_agent.store.root)
    assert store.read_events("zero_s1")[-1].payload == {"message": "interrupted"}


@pytest.mark.parametrize("how", ["timeout", "cancel"])
async def test_a_start_that_gets_no_answer_leaves_nothing_running(
    tree_agent: AgentSandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, how: str
) -> None:
    mute = tmp_path / "mute-supervisor.py"
    mute.write_text("import time\ntime.sleep(378)\n", encoding="utf-8")
    monkeypatch.setattr(engine_module, "SUPERVISOR", mute)
    monkeypatch.setattr(engine_module, "START_TIMEOUT", 0.5)
    marker = b"\0" + str(mute).encode() + b"\0"
    start = asyncio.create_task(tree_agent.engine().start(tree_agent.request("hello")))
    try:
        if how == "timeout":
            with pytest.raises(AgentUnavailable, match="its supervisor did not answer"):
                await asyncio.wait_for(start, LIVENESS)
        else:
            await asyncio.to_thread(wait_for_processes_with, marker)
            start.cancel()
            with pytest.raises(asyncio.CancelledError):
                await start
        assert left_alive(marker) == []
    finally:
        kill_all_with(marker)
    assert live_runs() == []


# --- one endless line (issue 18, item 8) -------------------------------------------------


async def test_an_endless_line_ends_the_run_with_memory_bounded(tree_agent: AgentSandbox) -> None:
    tracemalloc.start()
    try:
        events, outcome = await asyncio.wait_for(
            run_to_end(tree_agent.engine(), tree_agent.request("long-line")), LIVENESS
        )
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome.status == "output_too_long", outcome
    assert outcome.message.startswith("Agent output line too long")
    (dropped,) = [event for event in events if isinstance(event, Unreadable)]
    assert dropped.text.startswith("xxxx")
    assert "too long" in dropped.reason
    assert events[-1] == RunEnd("interrupted", 130)  # the lines after it are read again
    # the fake wrote 100 MiB on that line: only about the cap was ever held
    assert peak < MAX_LINE_BYTES + 32 * 1024 * 1024


async def test_lines_over_the_cap_are_dropped_and_the_rest_read(tree_agent: AgentSandbox) -> None:
    """`big` writes a 5 MiB delta, then (unless our SIGINT came first) a 5 MiB final
    answer: with a 4 MiB cap each is dropped whole, and the lines after them are read."""
    engine = ExecEngine(tree_agent.store, env=tree_agent.env, line_limit=4 * 1024 * 1024)
    events, outcome = await asyncio.wait_for(
        run_to_end(engine, tree_agent.request("big")), LIVENESS
    )
    dropped = [event for event in events if isinstance(event, Unreadable)]
    assert 1 <= len(dropped) <= 2
    assert {event.reason for event in dropped} == {
        "agent output line too long: over 4 MiB, dropped"
    }
    assert dropped[0].text.startswith('{"delta":"0123456789abcdef')
    assert not any(isinstance(event, TextDelta | FinalAnswer) for event in events)
    assert events[-1] in (RunEnd("success", 0), RunEnd("interrupted", 130))
    assert outcome.status == "output_too_long"
    assert outcome.message == "Agent output line too long (over 4 MiB): the run was stopped."
