"""The transcript's turn commands in the app, through the fake `zero` (issue 20, parts 1,
2 and 5): /fork (ctrl+g) and the parent (alt+p), /rewind with Zero's plan first, and a denied
tool call's ways forward (/approve, alt+a) with /permissions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_fixtures import AgentSandbox
from conftest import EventSpec, assistant, user, wait_until
from keys import burst
from test_transcript_screen import screen_text
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import Static

from zero_tui.agent import running as running_module
from zero_tui.store import SessionStore
from zero_tui.transcript.rows import RowKind
from zero_tui.ui.app import make_app
from zero_tui.ui.messages import ActionFailed
from zero_tui.ui.screens.dialogs import ConfirmDialog
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.screens.zero_dialogs import ApprovalDialog, PermissionsDialog, RewindDialog
from zero_tui.ui.widgets.agent_pane import RunStatus

SIZE = (120, 40)
TURNS: list[EventSpec] = [
    user("plan the parser"),
    ("provider_usage", {"promptTokens": 10, "completionTokens": 5, "totalTokens": 15}),
    assistant("the plan is ready"),
    user("write the tests"),
    assistant("tests written"),
    user("run them"),
    assistant("all green"),
]


def with_turns(sandbox: AgentSandbox, session_id: str = "s1") -> str:
    sandbox.store.create(session_id, title="Parser work", cwd=str(sandbox.workspace))
    sandbox.store.append_events(session_id, TURNS)
    return session_id


def app_for(sandbox: AgentSandbox, session_id: str) -> Any:
    return make_app(sandbox.store, cwd=str(sandbox.workspace), resume=session_id)


async def opened(pilot: Pilot[Any], session_id: str) -> TranscriptScreen:
    def ready() -> bool:
        screen = pilot.app.screen
        return (
            isinstance(screen, TranscriptScreen)
            and screen.session_id == session_id
            and screen.loaded
        )

    await wait_until(pilot, ready)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, TranscriptScreen)
    return screen


def highlight(screen: TranscriptScreen, text: str) -> None:
    """Put the cursor on the row whose text is `text`, as ↑ ↓ on the rows would."""
    view = screen.view
    for position in range(view.event_count):
        row = view.row_at(position)
        if row is not None and row.text == text:
            view.move_cursor(position)
            screen.set_focus(view)
            return
    raise AssertionError(f"no row {text!r}")


def notes(pilot: Pilot[Any]) -> list[str]:
    return [note.message for note in pilot.app._notifications]


async def command(pilot: Pilot[Any], screen: TranscriptScreen, text: str) -> None:
    screen.set_focus(screen.composer)
    screen.composer.clear_line()  # a command that failed stays in the editor
    burst(pilot.app, text + "\r")
    await pilot.pause()


async def dialog_of(pilot: Pilot[Any], kind: type[Any]) -> Any:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, kind))
    await pilot.pause()
    return pilot.app.screen


async def hanging_run(pilot: Pilot[Any], screen: TranscriptScreen) -> None:
    """A run in flight until it is cancelled (the fake zero waits)."""
    burst(pilot.app, "hang\r")
    await wait_until(pilot, lambda: "waiting" in screen.live.blocks_text())


def types(store: SessionStore, session_id: str) -> list[str]:
    return [event.type for event in store.read_events(session_id)]


# --- /fork ----------------------------------------------------------------------------


async def test_ctrl_g_forks_the_highlighted_turn_and_opens_the_fork(
    fake_agent: AgentSandbox,
) -> None:
    store = fake_agent.store
    sid = with_turns(fake_agent)
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        highlight(screen, "the plan is ready")
        await pilot.press("ctrl+g")
        await wait_until(
            pilot,
            lambda: (
                isinstance(pilot.app.screen, TranscriptScreen)
                and pilot.app.screen.session_id not in (None, sid)
            ),
        )
        fork_id = pilot.app.screen.session_id
        assert fork_id is not None
        fork_screen = await opened(pilot, fork_id)
        fork = store.get(fork_id)
        assert fork is not None
        assert (fork.session_kind, fork.parent_session_id, fork.forked_from_sequence) == (
            "fork",
            sid,
            3,
        )
        assert fork.title == "Parser work (fork)"
        assert types(store, fork_id) == ["message", "message", "session_fork"]
        lineage = fork_screen.query_one("#transcript-lineage", Static)
        await wait_until(pilot, lambda: lineage.display)
        assert str(lineage.visual) == (
            f"↳ forked from “Parser work” ({sid}) at turn 1 “plan the parser” (event #3) "
            "· alt+p opens it"
        )
        text = screen_text(pilot)
        assert "the plan is ready" in text
        assert "write the tests" not in text
        assert any(f"into {fork_id}" in note for note in notes(pilot))
        # the parent opens above the fork, at the turn; Esc comes back to the fork
        await pilot.press("alt+p")
        parent_screen = await opened(pilot, sid)
        assert parent_screen.view.cursor is not None
        row = parent_screen.view.row_at(parent_screen.view.cursor)
        assert row is not None
        assert row.text == "the plan is ready"
        await pilot.press("escape")
        await wait_until(pilot, lambda: pilot.app.screen is fork_screen)


async def test_fork_with_nothing_highlighted_takes_the_whole_session_and_a_title(
    fake_agent: AgentSandbox,
) -> None:
    sid = with_turns(fake_agent)
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        await command(pilot, screen, "/fork try another way")
        await wait_until(pilot, lambda: pilot.app.screen is not screen)
        fork_id = pilot.app.screen.session_id
        assert isinstance(fork_id, str)
        fork = fake_agent.store.get(fork_id)
        assert fork is not None
        assert (fork.title, fork.forked_from_sequence) == ("try another way", 7)
        assert types(fake_agent.store, fork_id).count("message") == 6


async def test_a_fork_continues_with_the_agent(fake_agent: AgentSandbox) -> None:
    sid = with_turns(fake_agent)
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        highlight(screen, "write the tests")
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: pilot.app.screen is not screen)
        fork_id = pilot.app.screen.session_id
        assert isinstance(fork_id, str)
        fork_screen = await opened(pilot, fork_id)
        burst(pilot.app, "hello fork\r")
        await wait_until(pilot, lambda: "You said: hello fork" in screen_text(pilot))
        assert not fork_screen.running
    events = fake_agent.store.read_events(fork_id)
    assert [event.type for event in events][:5] == [
        "message",
        "message",
        "message",
        "message",
        "session_fork",
    ]
    assert events[-1].payload == {"content": "You said: hello fork", "role": "assistant"}


# --- /rewind ---------------------------------------------------------------------------


async def test_rewind_shows_zero_s_plan_and_rewinds_only_on_yes(
    fake_agent: AgentSandbox,
) -> None:
    store = fake_agent.store
    sid = with_turns(fake_agent)
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        highlight(screen, "plan the parser")
        await command(pilot, screen, "/rewind")
        dialog = await dialog_of(pilot, RewindDialog)
        plan = str(dialog.query_one("#rewind-plan", Static).visual)
        assert "keep 3 events, through #3; drop the 4 after them." in plan
        assert "dropped: 4 message" in plan
        await pilot.press("n")
        await wait_until(pilot, lambda: pilot.app.screen is screen)
        assert len(store.read_events(sid)) == 7  # nothing happened
        assert "nothing rewound" in notes(pilot)

        highlight(screen, "the plan is ready")
        await command(pilot, screen, "/rewind")
        await dialog_of(pilot, RewindDialog)
        await pilot.press("y")
        await wait_until(pilot, lambda: types(store, sid)[-1] == "session_rewind")
        await wait_until(pilot, lambda: "write the tests" not in screen_text(pilot))
        assert "the plan is ready" in screen_text(pilot)
        await wait_until(
            pilot, lambda: any(n.startswith("Rewound to event #3: 0 file(s)") for n in notes(pilot))
        )
    assert types(store, sid) == ["message", "provider_usage", "message", "session_rewind"]


async def test_rewind_says_what_stands_in_its_way(
    fake_agent: AgentSandbox, monkeypatch: Any
) -> None:
    store = fake_agent.store
    sid = with_turns(fake_agent)
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        await command(pilot, screen, "/rewind")  # nothing highlighted
        assert "highlight the turn to rewind to" in notes(pilot)[-1]

        highlight(screen, "all green")
        await command(pilot, screen, "/rewind")
        await wait_until(pilot, lambda: "nothing to rewind" in " ".join(notes(pilot)))

        # a `zero` resuming the store's latest session without naming it (issue 25 item 1)
        with monkeypatch.context() as patched:
            resuming = running_module._ZeroProcess(None, 4242, None)
            patched.setattr(running_module, "_zero_processes_of", lambda *_: [resuming])
            patched.setattr(running_module, "_started_at", lambda _pid: None)
            highlight(screen, "tests written")
            await command(pilot, screen, "/rewind")
            await wait_until(
                pilot,
                lambda: (
                    notes(pilot)[-1]
                    == f"not rewinding {sid}: a `zero` process (pid 4242) is resuming the latest "
                    "session of this store, which may be this one"
                ),
            )
            assert not isinstance(pilot.app.screen, RewindDialog)

        monkeypatch.setenv("ZERO_BIN", str(fake_agent.workspace / "no-zero-here"))
        highlight(screen, "tests written")
        await command(pilot, screen, "/rewind")
        await wait_until(pilot, lambda: "ZERO_BIN=" in notes(pilot)[-1])
        assert "\n" not in notes(pilot)[-1]

        # an agent writing the session (a prompt just stored, no answer yet): never rewound
        store.append_events(sid, [user("one more thing")])
        highlight(screen, "tests written")
        await command(pilot, screen, "/rewind")
        await wait_until(pilot, lambda: f"not rewinding {sid}: it is running" in notes(pilot)[-1])
        assert not isinstance(pilot.app.screen, RewindDialog)
    assert types(store, sid)[-1] == "message"


# --- approvals ---------------------------------------------------------------------------


async def run_denied(pilot: Pilot[Any], screen: TranscriptScreen, prompt: str) -> None:
    screen.set_focus(screen.composer)
    burst(pilot.app, prompt + "\r")
    await wait_until(pilot, lambda: screen.running)
    await wait_until(
        pilot, lambda: not screen.running and "approval required" in screen_text(pilot)
    )


async def test_allow_and_retry_runs_the_turn_once_at_auto_high(fake_agent: AgentSandbox) -> None:
    store = fake_agent.store
    sid = fake_agent.new_session()
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        await run_denied(pilot, screen, "deny ls -la")
        text = " ".join(screen_text(pilot).split())
        assert (
            "⚑ approval required: exec_command: ls -la — high risk (shell): Shell commands can "
            "read, write, or execute programs." in text
        )
        assert "alt+a: allow and retry · always allow exec_command" in text
        await pilot.press("alt+a")
        dialog = await dialog_of(pilot, ApprovalDialog)
        said = str(dialog.query_one("#approval-text", Static).visual)
        assert (
            "r  Allow and retry: send “deny ls -la” again, as a new turn, with --auto high" in said
        )
        assert "the runs after it stay at auto low." in said
        statuses: list[RunStatus] = []
        screen.watch(screen, "run_status", lambda status: statuses.append(status), init=False)
        await pilot.press("r")
        await wait_until(pilot, lambda: "Ran ls -la." in screen_text(pilot))
        assert screen.settings.auto is None  # the override did not stick
        status = str(screen.query_one("#run-status", Static).visual)
        assert "auto: low" in status
        in_flight = [status.text(0.0) for status in statuses if status.run.running]
        assert in_flight
        assert all("auto: high" in text for text in in_flight)  # the run's own level
        assert any("again with --auto high, this run only" in note for note in notes(pilot))
    results = [e.payload for e in store.read_events(sid) if e.type == "tool_result"]
    assert [r["status"] for r in results] == ["error", "ok"]


async def test_always_allow_is_zero_s_grant_then_the_turn_again_if_asked(
    fake_agent: AgentSandbox,
) -> None:
    store = fake_agent.store
    sid = fake_agent.new_session()
    grants_file = Path(fake_agent.env["XDG_CONFIG_HOME"]) / "zero" / "sandbox-grants.json"
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        await run_denied(pilot, screen, "deny git status")
        highlight(screen, next(_denied_card_texts(screen)))
        await command(pilot, screen, "/approve")
        await dialog_of(pilot, ApprovalDialog)
        await pilot.press("a")
        await dialog_of(pilot, ConfirmDialog)
        saved = json.loads(grants_file.read_text())["grants"]
        assert [grant["toolName"] for grant in saved["exec_command"]] == ["exec_command"]
        await pilot.press("y")
        await wait_until(pilot, lambda: "Ran git status." in screen_text(pilot))
        assert screen.settings.auto is None

        # /permissions lists it; Enter revokes it through Zero
        await command(pilot, screen, "/permissions")
        dialog = await dialog_of(pilot, PermissionsDialog)
        assert "exec_command (every call) [allow]" in str(
            dialog.query_one("#grants").get_option_at_index(0).prompt
        )
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("revoked every" in note for note in notes(pilot)))
        await grants_done(pilot)
        # issue 25, item 12: no dialog opens again later to take the keys typed meanwhile
        assert pilot.app.screen is screen
        assert screen.focused is screen.composer
        assert notes(pilot)[-1] == (
            "revoked every grant of exec_command: Zero asks before it runs again. No grant is left."
        )
        burst(pilot.app, "/export after.md\r")
        await wait_until(pilot, lambda: (fake_agent.workspace / "after.md").exists())
    assert json.loads(grants_file.read_text())["grants"] == {}
    decisions = [e.payload for e in store.read_events(sid) if e.type == "permission_decision"]
    assert decisions[-1]["grantMatched"] is True


async def grants_done(pilot: Pilot[Any]) -> None:
    """Every `zero sandbox grants` command this app started has answered."""

    def done() -> bool:
        return not any(
            worker.group == "grants" and not worker.is_finished for worker in pilot.app.workers
        )

    await wait_until(pilot, done)
    await pilot.pause()


def _denied_card_texts(screen: TranscriptScreen) -> Any:
    view = screen.view
    for position in range(view.event_count):
        row = view.row_at(position)
        if row is not None and row.kind is RowKind.TOOL_RESULT and row.approval is not None:
            yield row.text


async def test_network_access_offers_nothing_zero_would_refuse(fake_agent: AgentSandbox) -> None:
    store = fake_agent.store
    sid = fake_agent.new_session()
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        await run_denied(pilot, screen, "deny curl https://example.com")
        assert "Zero blocks network access for shell commands even at --auto high" in " ".join(
            screen_text(pilot).split()
        )
        await pilot.press("alt+a")
        dialog = await dialog_of(pilot, ApprovalDialog)
        said = str(dialog.query_one("#approval-text", Static).visual)
        assert "r  Allow" not in said
        assert "a  Always" not in said
        assert "before it looks at any grant" in said
        await pilot.press("r", "a")  # neither is offered: nothing happens
        await pilot.pause()
        assert pilot.app.screen is dialog
        await pilot.press("escape")
        await wait_until(pilot, lambda: pilot.app.screen is screen)
    assert [e.type for e in store.read_events(sid)].count("message") == 4  # no retry ran


async def test_a_hostile_stored_denial_offers_no_grant(fake_agent: AgentSandbox) -> None:
    """Issue 25, item 10: a stored `Sandbox approval required for -h` offered "always allow
    -h"; Zero printed its help, exited 0, and zero-tui said the grant was saved."""
    sid = with_turns(fake_agent)
    output = "Error: Sandbox approval required for -h: Shell commands can run programs."
    result = {"toolCallId": "c1", "name": "-h", "output": output, "status": "error"}
    fake_agent.store.append_events(
        sid,
        [
            user("list the files"),
            ("tool_call", {"id": "c1", "name": "-h", "arguments": '{"cmd": "ls"}'}),
            ("tool_result", result),
            assistant("I need your approval."),
        ],
    )
    grants_file = Path(fake_agent.env["XDG_CONFIG_HOME"]) / "zero" / "sandbox-grants.json"
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        text = " ".join(screen_text(pilot).split())
        assert "always allow" not in text
        await command(pilot, screen, "/approve")
        dialog = await dialog_of(pilot, ApprovalDialog)
        said = " ".join(str(dialog.query_one("#approval-text", Static).visual).split())
        assert "✗ Always allow: -h is not one of Zero's tools" in said
        await pilot.press("a")  # not offered: nothing happens
        await pilot.pause()
        assert pilot.app.screen is dialog
        await pilot.press("escape")
        await wait_until(pilot, lambda: pilot.app.screen is screen)
        assert not any("Always allow" in note for note in notes(pilot))
    assert not grants_file.exists()


async def test_approve_during_a_run_waits_for_its_end(fake_agent: AgentSandbox) -> None:
    sid = fake_agent.new_session()
    async with app_for(fake_agent, sid).run_test(size=SIZE) as pilot:
        screen = await opened(pilot, sid)
        await hanging_run(pilot, screen)
        await command(pilot, screen, "/approve")
        assert "answer its denied calls once it ends" in notes(pilot)[-1]
        screen.action_cancel_run()
        await wait_until(pilot, lambda: not screen.running)


async def test_permissions_from_the_picker_too(fake_agent: AgentSandbox) -> None:
    fake_agent.new_session()
    app = make_app(fake_agent.store, cwd=str(fake_agent.workspace))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        burst(pilot.app, "/permissions\r")
        dialog = await dialog_of(pilot, PermissionsDialog)
        assert dialog.query("#no-grants")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(pilot.app.screen, PermissionsDialog))


async def test_a_revoke_from_the_picker_gives_the_keys_back_to_the_query(
    fake_agent: AgentSandbox,
) -> None:
    """Issue 25, item 12: after the revoke, what is typed filters the picker."""
    from zero_tui.agent.zero_commands import allow_always
    from zero_tui.ui.screens.picker import PickerScreen

    fake_agent.new_session()
    allow_always(fake_agent.store, "read_file")
    allow_always(fake_agent.store, "exec_command")
    app = make_app(fake_agent.store, cwd=str(fake_agent.workspace))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        picker = pilot.app.screen
        assert isinstance(picker, PickerScreen)
        burst(pilot.app, "/permissions\r")
        await dialog_of(pilot, PermissionsDialog)
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("revoked every" in note for note in notes(pilot)))
        await grants_done(pilot)
        assert notes(pilot)[-1].endswith("1 grant left: /permissions lists them.")
        assert pilot.app.screen is picker
        assert isinstance(picker, PickerScreen)
        burst(pilot.app, "earl")
        await wait_until(pilot, lambda: picker.composer.value == "earl")


async def test_a_turn_command_s_failure_is_said_once(
    fake_agent: AgentSandbox, monkeypatch: Any
) -> None:
    """`ActionFailed` stays with the widget that posted it: bubbling on to the screen, whose
    own handler says it too, it was said twice."""
    sid = with_turns(fake_agent)
    monkeypatch.setenv("ZERO_BIN", str(fake_agent.workspace / "no-zero-here"))
    posts: list[ActionFailed] = []

    def record(message: Message) -> None:
        if isinstance(message, ActionFailed):
            posts.append(message)

    async with app_for(fake_agent, sid).run_test(size=SIZE, message_hook=record) as pilot:
        screen = await opened(pilot, sid)
        highlight(screen, "tests written")
        await command(pilot, screen, "/rewind")
        await wait_until(pilot, lambda: any("ZERO_BIN=" in note for note in notes(pilot)))
        await pilot.pause()
        assert len(posts) == 1  # posted once, never passed on to the screen
        assert sum("ZERO_BIN=" in note for note in notes(pilot)) == 1
