"""The command registry, the slash parser, argument checks and /copy's answer rule (no UI)."""

from __future__ import annotations

import pytest

from zero_tui.commands import (
    REGISTRY,
    CommandError,
    Context,
    CopyRequest,
    ExportRequest,
    clean_title,
    parse_copy_args,
    parse_export_args,
    parse_slash,
)
from zero_tui.transcript.answers import answer_from_rows, code_blocks, ranked_answers
from zero_tui.transcript.rows import Row, RowKind


def test_parse_slash_splits_name_and_arguments() -> None:
    call = parse_slash("  /Export  my file.txt --format md ")
    assert call is not None
    assert (call.name, call.args) == ("export", "my file.txt --format md")
    bare = parse_slash("/copy")
    assert bare is not None
    assert (bare.name, bare.args) == ("copy", "")
    assert parse_slash("copy") is None


def test_registry_resolves_names_and_aliases_per_context() -> None:
    command, args = REGISTRY.resolve("/sessions latest", Context.TRANSCRIPT)
    assert (command.name, args) == ("resume", "latest")
    assert REGISTRY.resolve("/EXIT", Context.PICKER)[0].name == "quit"
    with pytest.raises(CommandError, match=r"unknown command /nope \(/help lists"):
        REGISTRY.resolve("/nope", Context.TRANSCRIPT)
    with pytest.raises(CommandError, match="/copy works in the transcript, not here"):
        REGISTRY.resolve("/copy", Context.PICKER)
    with pytest.raises(CommandError, match="type a command name"):
        REGISTRY.resolve("/", Context.TRANSCRIPT)


def test_every_command_has_help_and_unique_keys() -> None:
    names = [command.name for command in REGISTRY]
    assert names == [
        "copy",
        "export",
        "rename",
        "resume",
        "new",
        "retry",
        "edit",
        "fork",
        "rewind",
        "approve",
        "model",
        "auto",
        "usage",
        "permissions",
        "help",
        "quit",
    ]
    for command in REGISTRY:
        assert command.help
        assert "\n" not in command.help
    for context in Context:
        keys = [key.key for _command, key in REGISTRY.keys(context)]
        assert len(keys) == len(set(keys))


def test_completion_is_fuzzy_and_lists_everything_on_a_bare_slash() -> None:
    assert [c.name for c in REGISTRY.complete("/", Context.TRANSCRIPT)] == [
        "copy",
        "export",
        "rename",
        "resume",
        "new",
        "retry",
        "edit",
        "fork",
        "rewind",
        "approve",
        "model",
        "auto",
        "usage",
        "permissions",
        "help",
        "quit",
    ]
    assert REGISTRY.complete("/cop", Context.TRANSCRIPT)[0].name == "copy"
    assert REGISTRY.complete("/rsm", Context.TRANSCRIPT)[0].name == "resume"  # subsequence
    assert REGISTRY.complete("/expotr", Context.TRANSCRIPT)[0].name == "export"  # a typo
    assert REGISTRY.complete("/usa", Context.PICKER)[0].name == "usage"
    assert REGISTRY.complete("/sessions", Context.PICKER)[0].name == "resume"  # an alias
    assert "copy" not in [c.name for c in REGISTRY.complete("/", Context.PICKER)]
    assert REGISTRY.complete("/copy 2", Context.TRANSCRIPT) == []  # arguments: no list
    assert REGISTRY.complete("copy", Context.TRANSCRIPT) == []


def test_copy_arguments() -> None:
    assert parse_copy_args("") == CopyRequest(1, False)
    assert parse_copy_args("2") == CopyRequest(2, False)
    assert parse_copy_args("code") == CopyRequest(1, True)
    assert parse_copy_args("CODE 3") == CopyRequest(3, True)
    for bad in ("0", "-1", "two", "2 3", "code code"):
        with pytest.raises(CommandError, match=r"usage: /copy \[N \| code\]"):
            parse_copy_args(bad)


def test_export_arguments() -> None:
    assert parse_export_args("") == ExportRequest(None, None)
    assert parse_export_args("out.md") == ExportRequest("out.md", None)
    assert parse_export_args('"my notes.txt" --format md') == ExportRequest("my notes.txt", "md")
    assert parse_export_args("--format=HTML") == ExportRequest(None, "html")
    assert parse_export_args("-f json x.txt") == ExportRequest("x.txt", "json")
    assert parse_export_args("my notes.txt") == ExportRequest("my notes.txt", None)
    with pytest.raises(CommandError, match="unknown export format 'pdf'"):
        parse_export_args("--format pdf")
    with pytest.raises(CommandError, match="--format needs a value"):
        parse_export_args("x.txt --format")
    with pytest.raises(CommandError, match="usage: /export"):
        parse_export_args('"unclosed')
    with pytest.raises(CommandError, match="unknown option --bogus"):
        parse_export_args("--bogus")


def test_titles_are_trimmed_and_cut_to_80_bytes() -> None:
    assert clean_title("  Fix the parser \t") == "Fix the parser"
    long = "é" * 60  # 120 bytes
    cut = clean_title(long)
    assert cut == "é" * 40
    assert len(cut.encode()) == 80
    with pytest.raises(CommandError) as error:
        clean_title(" \n ")
    assert str(error.value) == "Could not rename session: session name cannot be empty."


def row(kind: RowKind, text: str, *, final: bool = False) -> Row:
    return Row(kind=kind, text=text, final=final)


def test_the_go_rule_for_the_last_answer() -> None:
    user = row(RowKind.USER, "hi")
    interim = row(RowKind.ASSISTANT, "interim narration")
    final = row(RowKind.ASSISTANT, "the final answer", final=True)
    system = row(RowKind.SYSTEM, "worked for 3s")
    assert answer_from_rows([user, interim, final, system]) == "the final answer"
    first = row(RowKind.ASSISTANT, "first")
    second = row(RowKind.ASSISTANT, "second")
    assert answer_from_rows([first, second]) == "second"
    old = row(RowKind.ASSISTANT, "old", final=True)
    partial = row(RowKind.ASSISTANT, "partial")
    assert answer_from_rows([old, partial]) == "old"
    assert answer_from_rows([user]) is None
    two = [row(RowKind.ASSISTANT, f"a{n}", final=True) for n in range(3)]
    assert answer_from_rows(two, 2) == "a1"
    assert answer_from_rows(two, 4) is None
    assert ranked_answers(reversed(two)) == ["a2", "a1", "a0"]


def test_code_blocks_of_an_answer() -> None:
    answer = "Intro\n\n```python\nprint(1)\n```\n\ntext\n\n~~~sh title\nls -la\nwc\n~~~\n"
    blocks = code_blocks(answer)
    assert [(b.language, b.text) for b in blocks] == [
        ("python", "print(1)\n"),
        ("sh", "ls -la\nwc\n"),
    ]
    assert blocks[1].label == "sh · 2 lines · ls -la"
    assert code_blocks("no code here") == []


def missing_handlers(screen: type, context: Context) -> list[str]:
    """What `screen` lacks to run what the registry offers in `context`: a
    `action_<name>` per command and per bound screen action."""
    missing = [
        f"{screen.__name__} offers /{command.name} but has no action_{command.action}"
        for command in REGISTRY.in_context(context)
        if not callable(getattr(screen, f"action_{command.action}", None))
    ]
    for action in REGISTRY.actions(context):
        name = action.action.partition("(")[0]
        if not callable(getattr(screen, f"action_{name}", None)):
            missing.append(f"{screen.__name__} binds {action.action} but has no action_{name}")
    return missing


def test_every_command_has_a_handler_on_every_screen_that_offers_it() -> None:
    """A missing `action_<name>` would only fail when someone types the command."""
    from zero_tui.ui.screens.picker import PickerScreen
    from zero_tui.ui.screens.transcript import TranscriptScreen

    assert missing_handlers(PickerScreen, Context.PICKER) == []
    assert missing_handlers(TranscriptScreen, Context.TRANSCRIPT) == []


def test_the_handler_check_sees_a_missing_handler() -> None:
    """The check itself works: a screen short of one command and one action is reported."""
    from zero_tui.ui.screens.picker import PickerScreen

    command = REGISTRY.in_context(Context.PICKER)[0].name
    actions = [action.action for action in REGISTRY.actions(Context.PICKER)]
    name = actions[0].partition("(")[0]

    class Lacking(PickerScreen):
        pass

    setattr(Lacking, f"action_{command}", None)  # shadows the inherited handler
    setattr(Lacking, f"action_{name}", "not callable")
    assert missing_handlers(Lacking, Context.PICKER) == [
        f"Lacking offers /{command} but has no action_{command}",
        *(
            f"Lacking binds {action} but has no action_{name}"
            for action in actions
            if action.partition("(")[0] == name
        ),
    ]
