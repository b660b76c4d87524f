"""A run from the transcript, before, during and after (issues 17 and 18), through the fake
`zero` (tests/fake_zero.py): one run per session across zero-tuis and `zero` processes, a
healthy log first, what the agent said never dropped, the status of a run as it goes."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import textwrap
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_fixtures import AgentSandbox
from conftest import wait_until
from fake_zero import UNREACHABLE_MESSAGE
from test_app_agent import (
    SIZE,
    AgentApp,
    finished,
    outcome_text,
    ready,
    send,
    stored,
    whole_screen,
)
from test_transcript_screen import screen_text
from textual.pilot import Pilot
from textual.widgets import Static

from zero_tui.agent import running as running_module
from zero_tui.agent.engine import ExecEngine
from zero_tui.store.check import BACKUP_MARK, check_store
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.widgets import agent_pane
from zero_tui.ui.widgets.agent_pane import FINISHING_NOTE
from zero_tui.ui.widgets.row_painter import USER_MARKER

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def private_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """zero-tui's run registry in the test's own runtime directory."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setattr(running_module, "_process_scan", None)


def header(screen: TranscriptScreen) -> str:
    return str(screen.query_one("#transcript-facts", Static).visual)


def status(screen: TranscriptScreen) -> str:
    return str(screen.query_one("#run-status", Static).visual)


def notifications(pilot: Pilot[Any]) -> list[str]:
    return [note.message for note in pilot.app._notifications]


def aged(sandbox: AgentSandbox, session_id: str) -> None:
    """The session as written long ago: its log is no sign of a run in flight."""
    for path in (sandbox.store.events_path(session_id), sandbox.store.metadata_path(session_id)):
        os.utime(path, (1, 1))


# --- one run per session -----------------------------------------------------------------

CLAIMER = textwrap.dedent(
    """
    import sys, time
    from zero_tui.agent.running import claim_run
    from zero_tui.store import SessionStore
    claim = claim_run(SessionStore(sys.argv[1]), sys.argv[2])
    print("claimed", flush=True)
    time.sleep(60)
    """
)


@pytest.fixture
def another_zero_tui(fake_agent: AgentSandbox) -> Iterator[subprocess.Popen[str]]:
    """Another zero-tui process whose run holds zero_s1."""
    fake_agent.new_session()
    aged(fake_agent, "zero_s1")
    process = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, str(fake_agent.store.root), "zero_s1"],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "claimed\n"
    try:
        yield process
    finally:
        process.kill()
        process.wait()


async def test_a_session_another_zero_tui_runs_is_refused_and_followed(
    fake_agent: AgentSandbox, another_zero_tui: subprocess.Popen[str]
) -> None:
    before = stored(fake_agent, "zero_s1")
    async with AgentApp(fake_agent, "zero_s1").run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        where = f"in another zero-tui (pid {another_zero_tui.pid})"
        await wait_until(pilot, lambda: f"● running {where}" in header(screen))
        await send(pilot, "second run")
        await wait_until(pilot, lambda: bool(outcome_text(screen)))
        assert outcome_text(screen) == (
            f"✖ Not sent: this session is running {where}. The transcript follows that run "
            "live, read-only; send again once it has ended (your prompt is kept)."
        )
        # the prompt goes back in the composer as the run ends, a message after the note
        await wait_until(pilot, lambda: screen.composer.text == "second run")
        assert not screen.running
        # followed live: what the other run writes shows up, nothing pressed
        fake_agent.store.append_events(
            "zero_s1", [("message", {"role": "user", "content": "written by the other run"})]
        )
        await wait_until(pilot, lambda: "written by the other run" in screen_text(pilot))
        # the other zero-tui ends: the mark goes, and the prompt can be sent
        another_zero_tui.kill()
        another_zero_tui.wait()
        aged(fake_agent, "zero_s1")
        await wait_until(pilot, lambda: "● running" not in header(screen))
        await pilot.press("enter")
        await finished(pilot, screen)
    prompts = [p for t, p in stored(fake_agent, "zero_s1")[len(before) :] if t == "message"]
    assert prompts[0] == {"content": "written by the other run", "role": "user"}
    assert prompts[1] == {"content": "second run", "role": "user"}


@pytest.fixture
def zero_process(fake_agent: AgentSandbox, tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """A `zero exec --resume=zero_s1` running elsewhere (the fake sleeps)."""
    sid = fake_agent.new_session()
    aged(fake_agent, sid)
    fake = tmp_path / "elsewhere" / "zero"
    fake.parent.mkdir()
    fake.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(60)\n")
    fake.chmod(0o755)
    process = subprocess.Popen(
        [str(fake), "exec", f"--resume={sid}", "--", "slow external run"], text=True
    )
    try:
        yield process
    finally:
        process.kill()
        process.wait()


async def test_a_zero_process_naming_the_session_is_refused(
    fake_agent: AgentSandbox, zero_process: subprocess.Popen[str]
) -> None:
    before = stored(fake_agent, "zero_s1")
    async with AgentApp(fake_agent, "zero_s1").run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        where = f"in a `zero` process (pid {zero_process.pid})"
        await wait_until(pilot, lambda: where in header(screen))
        await send(pilot, "concurrent prompt")
        await wait_until(pilot, lambda: bool(outcome_text(screen)))
        assert where in outcome_text(screen)
        # the prompt goes back in the composer as the run ends, a message after the note
        await wait_until(pilot, lambda: screen.composer.text == "concurrent prompt")
    assert stored(fake_agent, "zero_s1") == before  # no second run interleaved


async def test_this_zero_tuis_own_run_marks_the_header(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "hang")
        await wait_until(pilot, lambda: "● running in this zero-tui" in header(screen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not screen.running)
        await wait_until(pilot, lambda: "● running" not in header(screen))


# --- a healthy log first -----------------------------------------------------------------


async def test_a_torn_tail_is_cut_before_the_run_and_said(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    log = fake_agent.store.events_path(sid)
    healthy = log.read_bytes()
    log.write_bytes(healthy + b'{"createdAt":"2026-')  # a crash mid-append
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "after the crash")
        await finished(pilot, screen)
        notes = outcome_text(screen)
        assert notes.startswith("⚠ Before the run: the log's last line was torn")
        assert "cut a torn tail of 19 bytes" in notes
        await wait_until(pilot, lambda: "You said: after the crash" in screen_text(pilot))
        assert "5 events" in header(screen)
    assert log.read_bytes().startswith(healthy)
    assert check_store(fake_agent.store, sid).healthy  # what Zero's reader accepts
    assert [p.name for p in log.parent.iterdir() if BACKUP_MARK in p.name]


async def test_a_damaged_log_refuses_the_run_and_keeps_the_prompt(
    fake_agent: AgentSandbox,
) -> None:
    sid = fake_agent.new_session()
    log = fake_agent.store.events_path(sid)
    first, second = log.read_bytes().splitlines(keepends=True)
    damaged = first + b"{not json}\n" + second
    log.write_bytes(damaged)
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "continue please")
        await wait_until(pilot, lambda: bool(outcome_text(screen)))
        notes = outcome_text(screen)
        assert notes.startswith(f"✖ Not continuing: {log}:2: ")
        assert notes.endswith(f"see zero-tui check {sid}.")
        assert "{" not in notes.partition(": ")[2].partition(f"{log}:2: ")[2][:20]
        assert screen.composer.text == "continue please"
        assert not screen.running
    assert log.read_bytes() == damaged  # nothing was sent, nothing written


async def test_a_usage_error_before_run_start_keeps_the_prompt(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "exit 2")
        await wait_until(pilot, lambda: not screen.running and bool(outcome_text(screen)))
        assert outcome_text(screen) == "✖ fake zero: a usage error, as the prompt asked"
        assert screen.composer.text == "exit 2"  # Zero stored nothing of it


# --- what the agent said is never dropped --------------------------------------------------


async def test_stderr_of_a_successful_run_is_shown_under_it(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "stderr-note")
        await finished(pilot, screen)
        assert outcome_text(screen) == (
            "⚠ zero: Model gpt-5 does not support image input; ignoring 1 image(s)."
        )
        await wait_until(pilot, lambda: "⚠ zero: Model gpt-5" in whole_screen(pilot))
        text = whole_screen(pilot)
        assert text.index("● done") < text.index("⚠ zero: Model gpt-5")  # under the run


async def test_a_session_removed_mid_run_keeps_what_was_on_screen(
    fake_agent: AgentSandbox,
) -> None:
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "vanish")
        await wait_until(pilot, lambda: not screen.running)
        notes = outcome_text(screen)
        assert notes.startswith("✖ This session was removed while the run was in flight")
        assert "⚠ zero: WARNING: session not fully recorded: " in notes
        # the rows and the run as they were on screen, the header still the session's
        assert "the end" in screen.live.blocks_text()
        assert screen.live.prompt == "vanish"
        # the log's follower looks again, and finds it gone
        await wait_until(
            pilot, lambda: "This session is no longer in the store" in whole_screen(pilot)
        )
        text = whole_screen(pilot)
        assert "earlier work" in text
        assert "untitled" not in text
        assert USER_MARKER + "q" in screen_text(pilot)
        assert "This session is no longer in the store" in text
        await send(pilot, "again")
        await wait_until(
            pilot, lambda: any("no longer in the store" in note for note in notifications(pilot))
        )
        assert screen.composer.text == "again"


async def test_a_log_replaced_mid_run_is_said_and_the_run_stays(
    fake_agent: AgentSandbox,
) -> None:
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "replace")
        await wait_until(pilot, lambda: not screen.running)
        assert outcome_text(screen).startswith("✖ This session's log was replaced")
        assert "after" in screen.live.blocks_text()

        def rows() -> list[str]:
            return [line.strip() for line in screen_text(pilot).splitlines()]

        # the log as it is now: the first prompt, then what the run appended to it
        await wait_until(pilot, lambda: "● a" not in rows() and "● after" in rows())
        assert screen.live.prompt == "replace"  # the run as it streamed, under the log as it is


async def test_no_connection_is_said_once_with_the_zero_doctor_hint(
    fake_agent: AgentSandbox,
) -> None:
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=(110, 50)) as pilot:
        screen = await ready(pilot)
        await send(pilot, "provider unreachable")
        await finished(pilot, screen)
        await wait_until(pilot, lambda: "upstream unreachable" in screen_text(pilot))
        assert outcome_text(screen) == (
            "✖ The run failed: its error is above. — Can't reach the provider — run `zero doctor`"
        )
        await pilot.pause(0.1)
        assert whole_screen(pilot).count("upstream unreachable") == 1
        assert UNREACHABLE_MESSAGE.startswith("upstream unreachable")


async def test_an_output_line_too_long_is_said_plainly(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    app = AgentApp(fake_agent, sid, line_limit=1024 * 1024)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "long-line")
        await wait_until(pilot, lambda: not screen.running)
        assert outcome_text(screen).endswith(
            "✖ Agent output line too long (over 1 MiB): the run was stopped."
        )


# --- the run as it goes --------------------------------------------------------------------


async def test_a_live_tool_card_is_drawn_as_the_stored_one(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    (fake_agent.workspace / "hello.txt").write_text("hello\nworld\n")
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "busy hello.txt")
        await wait_until(pilot, lambda: "one layout string" in screen.live.blocks_text())
        live = screen.live.blocks_text()
        assert "▸ read_file  hello.txt  ok\n  hello\n  world" in live
        assert '{"path"' not in live
        await pilot.press("escape")
        await wait_until(pilot, lambda: not screen.running)
        await wait_until(pilot, lambda: "▸ read_file  hello.txt  ok" in screen_text(pilot))


async def test_the_log_is_not_followed_from_the_moment_a_run_is_sent(
    fake_agent: AgentSandbox,
) -> None:
    """A look at the log between sending and the run's state coming back read the run's
    first appends, and its rows showed twice (in the rows and in the live turn)."""
    sid = fake_agent.new_session()
    (fake_agent.workspace / "hello.txt").write_text("hello\n")
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        assert await screen.send_prompt("busy hello.txt")
        assert not screen.transcript_log.following  # before any message is handled
        await wait_until(pilot, lambda: "one layout string" in screen.live.blocks_text())
        await pilot.pause(1.0)  # two looks at the log, were it followed
        assert whole_screen(pilot).count(USER_MARKER + "busy hello.txt") == 1
        await pilot.press("escape")
        await wait_until(pilot, lambda: not screen.running)
        assert screen.transcript_log.following


async def test_a_new_conversation_is_not_headed_resumed(fake_agent: AgentSandbox) -> None:
    async with AgentApp(fake_agent, None).run_test(size=SIZE) as pilot:
        screen = await ready(pilot, new=True)
        title = screen.query_one("#transcript-title", Static)
        await send(pilot, "slow 30")
        await wait_until(pilot, lambda: "● running in this zero-tui" in header(screen))
        assert str(title.visual) == "New conversation"  # named by Zero, not yet read
        await finished(pilot, screen)
        assert str(title.visual) == "slow 30"  # Zero's title for it
        await send(pilot, "a brand new one")
        await finished(pilot, screen)
        await wait_until(pilot, lambda: "You said: a brand new one" in screen_text(pilot))
        text = screen_text(pilot)
        assert "New Zero session" in text
        assert "Resumed Zero session" not in text


async def test_zeros_reconnects_show_in_the_status_line(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    seen: list[str] = []
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "reconnect")

        def watch() -> bool:
            seen.append(status(screen))
            return not screen.running

        await wait_until(pilot, watch)
    assert any("connection lost, reconnecting (1/4)" in line for line in seen), seen
    assert any("connection lost, reconnecting (2/4)" in line for line in seen), seen


async def test_a_quiet_run_says_it_waits_for_the_model(
    fake_agent: AgentSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 429 that Zero retries says nothing at all (not on stdout, not on stderr): the status
    line says how long the model has been silent."""
    monkeypatch.setattr(agent_pane, "QUIET_SECONDS", 0.5)
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "quiet 3")
        await wait_until(pilot, lambda: "waiting for the model: no output for" in status(screen))
        await wait_until(pilot, lambda: not screen.running)
        assert "/retry" in outcome_text(screen)


async def test_finishing_says_so_and_so_does_escape(fake_agent: AgentSandbox) -> None:
    """The agent has exited, but a process outside its tree (this test) still holds its
    output: the run ends after a short drain, and Esc meanwhile says why nothing is
    cancelled."""
    sid = fake_agent.new_session()
    name = f"zero-tui-test-{uuid.uuid4().hex}"
    fake_agent.env["FAKE_ZERO_LEND_TO"] = name
    app = AgentApp(fake_agent, sid, drain_seconds=3.0)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        loop = asyncio.get_running_loop()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            server.bind("\0" + name)
            server.listen(1)
            server.setblocking(False)
            await send(pilot, "lend-stdout")
            connection, _address = await asyncio.wait_for(loop.sock_accept(server), 30)
            with connection:
                connection.setblocking(True)
                _message, held, _flags, _address = socket.recv_fds(connection, 16, 2)
                try:
                    connection.sendall(b"k")
                    await wait_until(pilot, lambda: "finishing…" in status(screen))
                    await pilot.press("escape")
                    await wait_until(pilot, lambda: FINISHING_NOTE in notifications(pilot))
                    assert screen.running
                    await finished(pilot, screen)
                finally:
                    for descriptor in held:
                        os.close(descriptor)
        assert outcome_text(screen) == ""  # it succeeded


async def test_a_run_that_cannot_go_on_ends_on_screen(
    fake_agent: AgentSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unexpected failure before the agent starts (here: the claim) does not leave the
    screen running forever: the run ends, says why, and keeps the prompt."""

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("the registry is on fire")

    monkeypatch.setattr(ExecEngine, "guard", broken)
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "hello")
        await wait_until(pilot, lambda: not screen.running)
        assert outcome_text(screen) == "✖ The run could not go on: the registry is on fire"
        assert screen.composer.text == "hello"


async def test_a_run_killed_mid_turn_is_not_taken_for_someone_elses(
    fake_agent: AgentSandbox,
) -> None:
    """A killed agent leaves its log looking in flight (the prompt last, no closing event)
    for a while: this zero-tui knows that log was its own run's, so the header marks no
    run and the next prompt is sent."""
    sid = fake_agent.new_session()
    async with AgentApp(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "ignore-sigint")
        await wait_until(pilot, lambda: "child" in screen.live.blocks_text())
        await pilot.press("escape")  # SIGINT, ignored
        await pilot.press("escape")  # the kill
        await wait_until(pilot, lambda: not screen.running)
        assert stored(fake_agent, sid)[-1] == (
            "message",
            {"content": "ignore-sigint", "role": "user"},
        )
        # the header's look at who runs the session
        await wait_until(pilot, lambda: "● running" not in header(screen))
        await send(pilot, "slow 2")
        await finished(pilot, screen)
        assert "Not sent" not in outcome_text(screen)
    assert stored(fake_agent, sid)[-1][1] == {"content": "chunk 0 chunk 1 ", "role": "assistant"}


def footer_line(pilot: Pilot[Any]) -> str:
    return whole_screen(pilot).rstrip("\n").splitlines()[-1]


async def test_no_cancel_is_offered_while_another_process_may_own_the_run(
    fake_agent: AgentSandbox,
    another_zero_tui: subprocess.Popen[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 25, item 21: while zero-tui checks whether the session is free, and once it
    found another process running it, the footer offers no `esc Cancel run`."""
    checked = threading.Event()
    looked = threading.Event()
    real_guard = ExecEngine.guard

    def guard_when_looked(*args: Any, **kwargs: Any) -> Any:
        checked.set()
        looked.wait(30)
        return real_guard(*args, **kwargs)

    monkeypatch.setattr(ExecEngine, "guard", guard_when_looked)
    async with AgentApp(fake_agent, "zero_s1").run_test(size=SIZE) as pilot:
        screen = await ready(pilot)
        await send(pilot, "second run")
        await wait_until(pilot, checked.is_set)
        await pilot.pause()
        assert screen.running
        assert "Cancel run" not in footer_line(pilot)
        await wait_until(pilot, lambda: "checking that no other process" in status(screen))
        looked.set()
        await wait_until(pilot, lambda: bool(outcome_text(screen)))
        assert "Not sent" in outcome_text(screen)
        assert "Cancel run" not in footer_line(pilot)
