"""The composer and the commands, driven as a user drives them (Pilot).

The clipboard is a recorder injected into the app (`make_app(copier=...)`): what /copy
hands to `zero_tui.clipboard.copy_text` is asserted here; the real clipboard routes are
covered by tests/test_clipboard*.py and the tmux end-to-end test.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import EventSpec, StoreBuilder, assistant, fixed_clock, user, wait_until
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from zero_tui.clipboard import CopyResult
from zero_tui.ui.app import ZeroApp, make_app
from zero_tui.ui.screens.dialogs import (
    CodeBlockPicker,
    ConfirmDialog,
    ExportDialog,
    HelpScreen,
    LineEditor,
)
from zero_tui.ui.screens.picker import PickerScreen
from zero_tui.ui.screens.transcript import TranscriptScreen
from zero_tui.ui.widgets.composer import Composer, PromptEditor, SlashComplete
from zero_tui.ui.widgets.transcript_view import TranscriptView

SIZE = (110, 40)
ANSWER = "Here is **the fix**:\n\n```python\nprint('one')\n```\n\nand\n\n```sh\nls -la\n```\n"


class Recorder:
    """Stands in for the clipboard: remembers each text and says it was copied."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, text: str) -> CopyResult:
        self.texts.append(text)
        return CopyResult(True, f"Copied {len(text):,} characters (test)", ["test"], len(text))


def app_for(builder: StoreBuilder, workspace: Path, recorder: Recorder, **options: Any) -> ZeroApp:
    return make_app(
        builder.store, cwd=str(workspace), clock=fixed_clock(), copier=recorder, **options
    )


async def opened(pilot: Pilot[Any], session_id: str = "s1") -> TranscriptScreen:
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


def files_in(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def notes(pilot: Pilot[Any]) -> list[str]:
    return [note.message for note in pilot.app._notifications]


async def wait_note(pilot: Pilot[Any], text: str) -> None:
    await wait_until(pilot, lambda: any(text in note for note in notes(pilot)))


async def type_text(pilot: Pilot[Any], text: str) -> None:
    await pilot.press(*["space" if char == " " else char for char in text])


async def command(pilot: Pilot[Any], text: str) -> None:
    await type_text(pilot, text)
    await pilot.press("enter")


def composer(pilot: Pilot[Any]) -> Composer | PromptEditor:
    """The screen's editor: the picker's query line or the transcript's prompt editor."""
    screen = pilot.app.screen
    if isinstance(screen, TranscriptScreen):
        return screen.composer
    return screen.query_one(Composer)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


@pytest.fixture
def session(make_store: Callable[..., StoreBuilder], workspace: Path) -> StoreBuilder:
    builder = make_store()
    events: list[EventSpec] = [
        user("first question"),
        assistant("first answer"),
        user("second question"),
        assistant(ANSWER),
    ]
    builder.add("s1", title="Fix the parser", cwd=str(workspace), events=events)
    builder.add(
        "s2",
        title="Other",
        cwd=str(workspace),
        updated_at="2026-07-04T09:00:00Z",
        events=[user("other question"), assistant("other answer")],
    )
    return builder


# --- the composer ------------------------------------------------------------------------------


async def test_composer_has_focus_and_copy_copies_the_last_answer(
    session: StoreBuilder, workspace: Path
) -> None:
    recorder = Recorder()
    app = app_for(session, workspace, recorder, resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert screen.focused is composer(pilot)
        await type_text(pilot, "/co")
        popup = screen.query_one(SlashComplete)
        assert popup.is_open
        assert popup.commands[0].name == "copy"
        shown = str(popup.get_option_at_index(0).prompt)
        assert "/copy [N | code]" in shown
        assert "Copy the last answer" in shown
        await pilot.press("enter")  # runs the highlighted completion
        await wait_until(pilot, lambda: recorder.texts == [ANSWER])
        await wait_note(pilot, f"Copied {len(ANSWER):,} characters (test)")
        assert composer(pilot).value == ""
        assert not popup.is_open


async def test_tab_completes_and_enter_runs_a_unique_match(
    session: StoreBuilder, workspace: Path
) -> None:
    app = app_for(session, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await type_text(pilot, "/ren")
        await pilot.press("tab")
        assert composer(pilot).value == "/rename "
        assert not screen.query_one(SlashComplete).is_open
        assert screen.focused is composer(pilot)  # Tab completed: the focus stayed
        await type_text(pilot, "Tabbed")
        await pilot.press("enter")
        await wait_note(pilot, "Session renamed to Tabbed.")
        await type_text(pilot, "/nope")  # matches /new fuzzily, but nobody chose it
        assert screen.query_one(SlashComplete).is_open
        await pilot.press("enter")
        await wait_note(pilot, "unknown command /nope")
        assert app.screen is screen
        assert composer(pilot).value == "/nope"
        await pilot.press("ctrl+u")
        await type_text(pilot, "/re")  # rename or resume: Enter runs neither
        await pilot.press("enter")
        await wait_note(pilot, "unknown command /re ")
        await pilot.press("ctrl+u")
        await type_text(pilot, "/hlp")  # a subsequence: the first match, chosen with a key
        assert screen.query_one(SlashComplete).commands[0].name == "help"
        await pilot.press("down", "up", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await type_text(pilot, "/he")  # the start of one name only: Enter runs it
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))


async def test_copy_n_and_its_errors_keep_the_text(session: StoreBuilder, workspace: Path) -> None:
    recorder = Recorder()
    app = app_for(session, workspace, recorder, resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, "/copy 2")
        await wait_until(pilot, lambda: recorder.texts == ["first answer"])
        await command(pilot, "/copy 3")
        await wait_note(pilot, "there is no answer 3 back: this session has 2.")
        await pilot.press("ctrl+u")
        await command(pilot, "/copy two")
        await wait_note(pilot, "usage: /copy [N | code]")
        assert composer(pilot).value == "/copy two"  # the typed text stays
        await pilot.press("ctrl+u")
        await command(pilot, "/frobnicate")
        await wait_note(pilot, "unknown command /frobnicate (/help lists the commands)")
        assert composer(pilot).value == "/frobnicate"
        assert recorder.texts == ["first answer"]


async def test_copy_with_no_answer(
    make_store: Callable[..., StoreBuilder], workspace: Path
) -> None:
    builder = make_store()
    builder.add("s1", cwd=str(workspace), events=[user("only a question")])
    recorder = Recorder()
    async with app_for(builder, workspace, recorder, resume="s1").run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, "/copy")
        await wait_note(pilot, "no answer to copy yet.")
        assert recorder.texts == []


async def test_copy_code_picks_a_block(session: StoreBuilder, workspace: Path) -> None:
    recorder = Recorder()
    app = app_for(session, workspace, recorder, resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, "/copy code")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CodeBlockPicker))
        options = pilot.app.screen.query_one(OptionList)
        assert str(options.get_option_at_index(0).prompt) == "1. python · 1 line · print('one')"
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: recorder.texts == ["ls -la\n"])
        await opened(pilot)
        await command(pilot, "/copy 2 code")
        await wait_note(pilot, "that answer has no code block.")


async def test_ctrl_y_copies_the_highlighted_message(
    session: StoreBuilder, workspace: Path
) -> None:
    recorder = Recorder()
    app = app_for(session, workspace, recorder, resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("ctrl+y")  # nothing highlighted: the last answer
        await wait_until(pilot, lambda: recorder.texts == [ANSWER])
        await pilot.press("up")  # from the command line: the rows' highlight moves
        await pilot.press("ctrl+y")
        await wait_until(pilot, lambda: recorder.texts == [ANSWER, "second question"])
        await pilot.press("tab")
        assert screen.focused is screen.view
        await pilot.press("up", "ctrl+y")
        await wait_until(pilot, lambda: recorder.texts[-1] == "first answer")


async def test_keys_keep_working_while_the_composer_has_focus(
    make_store: Callable[..., StoreBuilder], workspace: Path
) -> None:
    builder = make_store()
    events: list[EventSpec] = []
    for turn in range(40):
        events += [user(f"question {turn}"), assistant(f"answer {turn}")]
    builder.add("s1", cwd=str(workspace), events=events)
    app = app_for(builder, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        view = screen.query_one(TranscriptView)
        bottom = round(view.scroll_y)
        await pilot.press("pageup")
        assert round(view.scroll_y) < bottom
        await pilot.press("ctrl+end")
        assert round(view.scroll_y) == bottom
        await pilot.press("alt+up")
        assert view.cursor is not None
        await pilot.press("q")  # typed, not quit
        assert app.is_running
        assert composer(pilot).value == "q"
        await pilot.press("escape")  # clears the line
        assert composer(pilot).value == ""
        assert isinstance(app.screen, TranscriptScreen)
        await pilot.press("tab")
        assert screen.focused is view
        await pilot.press("slash")  # `/` on the rows: back to the command line, typed
        assert composer(pilot).has_focus
        assert composer(pilot).value == "/"
        await pilot.press("escape")  # closes the completion list
        assert not screen.query_one(SlashComplete).is_open
        await pilot.press("escape", "escape")  # clears, then (empty) back to the picker
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))


# --- /export -------------------------------------------------------------------------------------


async def test_export_writes_in_the_workspace(session: StoreBuilder, workspace: Path) -> None:
    app = app_for(session, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, '/export "my notes.md"')
        target = workspace / "my notes.md"
        await wait_note(pilot, f"wrote transcript to {target}")
        assert "the fix" in target.read_text(encoding="utf-8")
        await command(pilot, "/export --format json")
        default = workspace / "zero-transcript-20260704-120000.json"
        await wait_note(pilot, f"wrote transcript to {default}")
        assert json.loads(default.read_text(encoding="utf-8"))[0]["sessionId"] == "s1"
        await command(pilot, "/export missing-dir/out.txt")
        await wait_note(pilot, f"failed to write {workspace / 'missing-dir' / 'out.txt'}: ")
        await pilot.press("ctrl+u")
        await command(pilot, "/export --format pdf")
        await wait_note(pilot, "unknown export format 'pdf'")
        assert composer(pilot).value == "/export --format pdf"


async def test_export_falls_back_to_the_raw_log_and_says_so(
    make_store: Callable[..., StoreBuilder], workspace: Path
) -> None:
    builder = make_store()
    events = [user("alpha"), assistant("beta"), ("session_compaction", {"summary": ""})]
    builder.add("s1", cwd=str(workspace), events=events)
    app = app_for(builder, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, "/export out.txt")
        await wait_note(pilot, "wrote transcript to")
        await wait_note(pilot, "exported the raw log, not the compacted view")
        assert "alpha" in (workspace / "out.txt").read_text(encoding="utf-8")


async def test_export_with_nothing_to_export(
    make_store: Callable[..., StoreBuilder], workspace: Path
) -> None:
    builder = make_store()
    builder.add("s1", cwd=str(workspace), events=[])
    app = app_for(builder, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, "/export")
        await wait_note(pilot, "nothing to export yet.")
        assert files_in(workspace) == []


async def export_dialog(pilot: Pilot[Any]) -> None:
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ExportDialog))


async def test_ctrl_s_exports_from_a_dialog(session: StoreBuilder, workspace: Path) -> None:
    app = app_for(session, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await export_dialog(pilot)
        await type_text(pilot, "dialog.txt")
        await pilot.press("enter")
        await wait_note(pilot, f"wrote transcript to {workspace / 'dialog.txt'}")


async def test_the_export_dialog_says_what_formats_hold_and_follows_the_extension(
    session: StoreBuilder, workspace: Path
) -> None:
    app = app_for(session, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await export_dialog(pilot)
        said = str(pilot.app.screen.query_one("#export-formats", Static).visual)
        assert "txt: Zero's own format, without the tool calls" in said
        assert "md, html: with the tool calls" in said
        await type_text(pilot, "dialog.html")
        await pilot.press("enter")
        await wait_note(pilot, f"wrote transcript to {workspace / 'dialog.html'}")
        assert (workspace / "dialog.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
        await export_dialog(pilot)
        await type_text(pilot, "x.pdf")
        await pilot.press("enter")
        await wait_note(pilot, "cannot tell the export format from the extension '.pdf'")
        assert not (workspace / "x.pdf").exists()


async def test_the_export_dialogs_redact_choice_masks_the_home_folder(
    make_store: Callable[..., StoreBuilder], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(workspace.parent))
    builder = make_store()
    key = "sk-proj-abcDEF123_ghiJKL456-mnoPQR789stu"
    events = [user(f"use {key} in {workspace}/app"), assistant("done")]
    builder.add("s1", title="Keys", cwd=str(workspace), events=events)
    app = app_for(builder, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await export_dialog(pilot)
        await type_text(pilot, "shared.md")
        await pilot.press("tab", "tab", "space", "shift+tab", "shift+tab")  # tick Redact
        await pilot.press("enter")
        await wait_note(pilot, "(redacted: 3 values masked (1 secret, 2 home paths as ~))")
        text = (workspace / "shared.md").read_text(encoding="utf-8")
        assert key not in text
        assert str(workspace.parent) not in text
        assert "use \\[REDACTED\\] in \\~/proj/app" in text
        await command(pilot, "/export plain.md")
        await wait_note(pilot, f"wrote transcript to {workspace / 'plain.md'}")
        assert key in (workspace / "plain.md").read_text(encoding="utf-8")
        await command(pilot, "/export --redact again.md")
        await wait_note(pilot, f"wrote transcript to {workspace / 'again.md'} (redacted: ")


# --- /rename --------------------------------------------------------------------------------------


async def test_rename_keeps_updated_at(session: StoreBuilder, workspace: Path) -> None:
    before = session.store.get("s1")
    assert before is not None
    app = app_for(session, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await command(pilot, "/rename   A better title  ")
        await wait_note(pilot, "Session renamed to A better title.")
        after = session.store.get("s1")
        assert after is not None
        assert after.title == "A better title"
        assert after.updated_at == before.updated_at
        title = screen.query_one("#transcript-title", Static).render()
        assert "A better title" in str(title)
        await command(pilot, "/rename " + "é" * 50)
        await wait_note(pilot, "Session renamed to " + "é" * 40 + ".")
        await command(pilot, "/rename")  # bare: an editor prefilled with the title
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, LineEditor))
        editor = pilot.app.screen.query_one(Input)
        assert editor.value == "é" * 40
        await pilot.press("ctrl+u", "enter")
        await wait_note(pilot, "Could not rename session: session name cannot be empty.")
        again = session.store.get("s1")
        assert again is not None
        assert again.title == "é" * 40


# --- /resume, /new, /help, /quit ------------------------------------------------------------


async def test_resume_from_inside_a_transcript(session: StoreBuilder, workspace: Path) -> None:
    app = app_for(session, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, "/resume nope")
        await wait_note(pilot, "zero session not found: nope")
        assert isinstance(app.screen, TranscriptScreen)
        await pilot.press("ctrl+u")
        await command(pilot, "/resume s2")
        await opened(pilot, "s2")
        assert [type(screen).__name__ for screen in app.screen_stack[1:]] == [
            "PickerScreen",
            "TranscriptScreen",
        ]
        await command(pilot, "/resume")  # bare: the picker
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))


async def test_new_opens_an_empty_conversation(session: StoreBuilder, workspace: Path) -> None:
    app = app_for(session, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, "/new now")
        await wait_note(pilot, "/new takes no arguments")
        await pilot.press("ctrl+u")
        await command(pilot, "/new")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, TranscriptScreen) and app.screen.session_id is None,
        )
        await wait_note(pilot, "Left session s1 — resume it anytime with /resume s1.")
        await pilot.press("escape")  # back to the picker, as from any transcript
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await command(pilot, "/new")  # the picker's /new: the same empty conversation
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, TranscriptScreen) and app.screen.session_id is None,
        )


async def test_help_lists_the_registry(session: StoreBuilder, workspace: Path) -> None:
    app = app_for(session, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, "/help")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = str(app.screen.query_one("#help-text", Static).render())
        for usage in ("/copy [N | code]", "/export [path]", "/rename [title]", "/resume"):
            assert usage in text
        assert "(also /sessions)" in text
        assert "Between the editor and the rows (Tab)" not in text  # one line per key
        assert "From the editor to the rows (Tab)" in text
        await pilot.press("escape")
        assert isinstance(app.screen, TranscriptScreen)
        await command(pilot, "/quit")
        await wait_until(pilot, lambda: not app.is_running)


async def test_palette_lists_the_commands(session: StoreBuilder, workspace: Path) -> None:
    app = app_for(session, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        titles = [command.title for command in screen.system_commands()]
        assert "/copy [N | code]" in titles
        assert "/export [path] [--format txt|md|json|html] [--redact]" in titles
        picker_titles = [command.title for command in app.get_system_commands(app.screen_stack[1])]
        assert "/export [path] [--format txt|md|json|html] [--redact]" in picker_titles
        assert "/copy [N | code]" not in picker_titles


# --- the picker ----------------------------------------------------------------------


async def picker_ready(pilot: Pilot[Any]) -> PickerScreen:
    await wait_until(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, PickerScreen)
            and pilot.app.screen.session_list.highlighted_row is not None
        ),
    )
    screen = pilot.app.screen
    assert isinstance(screen, PickerScreen)
    return screen


async def test_slash_in_the_picker_query_runs_commands(
    session: StoreBuilder, workspace: Path
) -> None:
    app = app_for(session, workspace, Recorder())
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_ready(pilot)
        await type_text(pilot, "/")
        popup = screen.query_one(SlashComplete)
        assert popup.is_open
        assert [c.name for c in popup.commands] == [
            "export",
            "rename",
            "resume",
            "new",
            "model",
            "auto",
            "usage",
            "permissions",
            "help",
            "quit",
        ]
        assert screen.session_list.row_count == 2  # the list is not filtered by a command
        await type_text(pilot, "hel")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await type_text(pilot, "/copy")
        await pilot.press("enter")  # a full name runs as typed, whatever the list shows
        await wait_note(pilot, "/copy works in the transcript, not here")
        await pilot.press("escape")  # leaves command mode
        assert screen.composer.value == ""
        assert app.is_running
        await type_text(pilot, "/resume s2")
        await pilot.press("enter")
        await opened(pilot, "s2")


async def test_picker_keys_export_and_rename_the_highlighted_session(
    session: StoreBuilder, workspace: Path
) -> None:
    app = app_for(session, workspace, Recorder())
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_ready(pilot)
        await pilot.press("down")  # s2
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportDialog))
        await pilot.press("enter")  # the default: txt in the workspace
        default = workspace / "zero-transcript-20260704-120000.txt"
        await wait_note(pilot, f"wrote transcript to {default}")
        assert "other answer" in default.read_text(encoding="utf-8")
        assert isinstance(app.screen, PickerScreen)  # not opened
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, LineEditor))
        assert app.screen.query_one(Input).value == "Other"
        await pilot.press("ctrl+u", *"Renamed", "enter")
        await wait_note(pilot, "Session renamed to Renamed.")
        renamed = session.store.get("s2")
        assert renamed is not None
        assert renamed.title == "Renamed"
        await wait_until(
            pilot, lambda: any(row.title == "Renamed" for row in screen.session_list.visible_rows())
        )
        await type_text(pilot, "/rename  ")
        await pilot.press("enter")  # bare: the editor again
        await wait_until(pilot, lambda: isinstance(app.screen, LineEditor))
        await pilot.press("escape")  # cancelled: nothing written
        assert isinstance(app.screen, PickerScreen)
        await type_text(pilot, "/export --format md")
        await pilot.press("enter")
        await wait_note(pilot, "zero-transcript-20260704-120000.md")


async def test_a_command_key_refused_says_why_and_leaves_the_query(
    session: StoreBuilder, workspace: Path
) -> None:
    """F2 runs /rename's action with no arguments: with no row to act on, the action
    declines, the reason shows, and the query typed stays as it was."""
    app = app_for(session, workspace, Recorder())
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_ready(pilot)
        await type_text(pilot, "qqqqzz")
        await wait_until(pilot, lambda: screen.session_list.highlighted_row is None)
        await pilot.press("f2")
        await wait_note(pilot, "no session is highlighted")
        assert app.screen is screen
        assert screen.composer.value == "qqqqzz"


async def test_an_existing_file_is_replaced_only_when_the_user_says_so(
    session: StoreBuilder, workspace: Path
) -> None:
    target = workspace / "notes.md"
    target.write_text("my own notes", encoding="utf-8")
    app = app_for(session, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, "/export notes.md")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        await pilot.press("n")
        await wait_note(pilot, "nothing written")
        assert target.read_text(encoding="utf-8") == "my own notes"
        await export_dialog(pilot)
        await type_text(pilot, "notes.md")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_note(pilot, f"wrote transcript to {target}")
        assert "the fix" in target.read_text(encoding="utf-8")


async def test_default_names_never_collide(session: StoreBuilder, workspace: Path) -> None:
    app = app_for(session, workspace, Recorder(), resume="s1")
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await command(pilot, "/export")
        await wait_note(
            pilot, f"wrote transcript to {workspace / 'zero-transcript-20260704-120000.txt'}"
        )
        await command(pilot, "/export")
        await wait_note(
            pilot, f"wrote transcript to {workspace / 'zero-transcript-20260704-120000-2.txt'}"
        )
