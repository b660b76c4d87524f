"""config.toml's keys and theme, checked below the UI: one line per bad entry, never a crash."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.app import App

from zero_tui.commands import REGISTRY, Context
from zero_tui.picker.hint_keys import DEFAULT_HINT_KEYS
from zero_tui.preferences import (
    EDITING_KEYS,
    RememberedTheme,
    check_keys,
    check_theme,
    chosen_theme,
    hint_keys,
    load_preferences,
    normalize_key,
    remember_theme,
    remembered_theme,
    said_with_user_keys,
)
from zero_tui.ui.widgets.composer import Composer, PromptEditor


def problems_of(table: dict[str, object]) -> list[str]:
    return check_keys(table)[1]


@pytest.mark.parametrize(
    ("table", "line"),
    [
        # an unknown id: the nearest ids are suggested
        ({"exprot": "f9"}, "keys.exprot: no such binding id (did you mean export or empty?)"),
        ({"zzz": "f9"}, "keys.zzz: no such binding id; zero-tui keys lists them"),
        ({"usage": "f9"}, "keys.usage: /usage has no key to move (it runs as /usage)"),
        # a key another binding of the same screen has, or zero-tui's own
        ({"first": "ctrl+t"}, "keys.first: ctrl+t is already search_mode's key in the picker"),
        ({"find": "ctrl+g"}, "keys.find: ctrl+g is already fork's key in the transcript"),
        ({"last": "ctrl+q"}, "keys.last: ctrl+q is zero-tui's own key in the picker (quit)"),
        (
            {"rescan": "ctrl+u"},
            "keys.rescan: ctrl+u is zero-tui's own key in the picker (the query line's)",
        ),
        (
            {"export": "ctrl+z"},
            "keys.export: ctrl+z is zero-tui's own key in the transcript (the editor's)",
        ),
        # keys a terminal does not send as written
        ({"fork": "ctrl+shift+g"}, "keys.fork: ctrl+shift+g arrives as ctrl+g in most terminals"),
        ({"copy": "ctrl+i"}, "keys.copy: ctrl+i arrives as Tab"),
        ({"copy": "ctrl+m"}, "keys.copy: ctrl+m arrives as Enter"),
        ({"top": "x"}, "keys.top: x types a character (the query and the editor take it)"),
        ({"top": "shift+x"}, "keys.top: shift+x types a character"),
        ({"bottom": "super+end"}, "keys.bottom: super+end needs the kitty keyboard protocol"),
        ({"next_turn": "f13"}, "keys.next_turn: f13 is sent by few keyboards and terminals"),
        ({"toggle_card": "ctrl+5"}, "keys.toggle_card: ctrl+5 is not sent by most terminals"),
        ({"top": "ctrl+banana"}, "keys.top: ctrl+banana is no key name"),
        ({"top": 5}, 'keys.top: a key in quotes ("ctrl+x") or a list of them'),
        ({"top": ""}, 'keys.top: a key in quotes ("ctrl+x") or a list of them'),
    ],
)
def test_each_bad_entry_is_one_clear_line_and_not_applied(
    table: dict[str, object], line: str
) -> None:
    keymap, problems = check_keys(table)
    assert keymap == {}
    assert len(problems) == 1
    assert problems[0].startswith(line)


def test_good_entries_are_textuals_keymap() -> None:
    keymap, problems = check_keys(
        {"export": "F9", "rescan": ["f5", "Shift+Ctrl+Up"], "find": "ctrl+b, alt+f"}
    )
    assert problems == []
    assert keymap == {"export": "f9", "rescan": "f5,ctrl+shift+up", "find": "ctrl+b,alt+f"}


def test_two_bindings_may_swap_keys_but_not_share_one() -> None:
    keymap, problems = check_keys({"search_mode": "ctrl+e", "empty": "ctrl+t"})
    assert (keymap, problems) == ({"search_mode": "ctrl+e", "empty": "ctrl+t"}, [])
    keymap, problems = check_keys({"search_mode": "f6", "empty": "f6"})
    assert keymap == {"empty": "f6"}
    assert problems == ["keys.search_mode: f6 is already empty's key in the picker"]


def test_a_key_freed_by_a_refused_entry_is_checked_again() -> None:
    # rescan takes f8 only if delete_session moves off it; delete_session's move is refused
    keymap, problems = check_keys({"delete_session": "x", "rescan": "f8"})
    assert keymap == {}
    assert len(problems) == 2


def test_the_same_id_in_two_screens_moves_in_both() -> None:
    keymap, problems = check_keys({"export": "f9"})
    assert (keymap, problems) == ({"export": "f9"}, [])


def test_normalize_key_sorts_modifiers_as_textual_names_keys() -> None:
    assert normalize_key(" Shift+Ctrl+Up ") == "ctrl+shift+up"
    assert normalize_key("Alt+Ctrl+X") == "alt+ctrl+X"
    assert normalize_key("PageUp") == "pageup"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "zero-tui-config" / "config.toml"  # conftest's ZERO_TUI_CONFIG_DIR
    path.parent.mkdir(parents=True)
    return path


def test_no_file_no_preferences_no_problem(config: Path) -> None:
    preferences = load_preferences()
    assert (dict(preferences.keymap), preferences.theme, preferences.problems) == ({}, None, ())


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[keys\nexport = 1", "Expected ']'"),
        ("theme = 3\n", "theme: a theme's name in quotes, not 3"),
        ("keys = 'f9'\n", "[keys] must be a table of binding id = key"),
        ("colour = 'red'\n", "colour: not a setting (theme and [keys] are)"),
        (b"\xff\xfe".decode("latin-1"), "invalid"),
    ],
)
def test_a_broken_file_is_one_line(config: Path, text: str, line: str) -> None:
    config.write_text(text, encoding="latin-1")
    preferences = load_preferences()
    assert len(preferences.problems) == 1
    assert preferences.problems[0].startswith(f"{config}: ")
    assert line in preferences.problems[0]


def test_a_huge_file_is_not_read(config: Path) -> None:
    config.write_bytes(b"#" * (2 << 20))
    assert "not read" in load_preferences().problems[0]


def test_a_folder_in_place_of_the_file(config: Path) -> None:
    config.mkdir()
    assert len(load_preferences().problems) == 1


def test_the_editing_keys_are_the_editors_own() -> None:
    """The keys kept for the query line and the editor are theirs in Textual: those their
    bindings run, less what they give the screen (Esc and Tab, and the screen's own)."""
    for editor, context in ((Composer, Context.PICKER), (PromptEditor, Context.TRANSCRIPT)):
        given = getattr(editor, "SCREEN_KEYS", frozenset()) | getattr(
            editor, "SCREEN_ACTIONS", frozenset()
        )
        screen_keys = {binding.key for binding in REGISTRY.key_bindings(context)}
        theirs = (
            {
                key
                for key, bindings in editor._merge_bindings().key_to_bindings.items()
                if not any(binding.action in given for binding in bindings)
                and not key.startswith("super+")
            }
            - screen_keys
            - {"escape", "tab"}
        )
        assert theirs == set(EDITING_KEYS[context])


def test_bindings_that_share_a_key_share_an_id() -> None:
    """Textual's keymap drops every binding of a key it moves one binding off: what shares
    a key must be moved as one."""
    for context in Context:
        ids_by_key: dict[str, set[str]] = {}
        keys_by_id: dict[str, set[str]] = {}
        for binding in REGISTRY.key_bindings(context):
            ids_by_key.setdefault(binding.key, set()).add(binding.binding_id)
            keys_by_id.setdefault(binding.binding_id, set()).add(binding.key)
        assert {key: ids for key, ids in ids_by_key.items() if len(ids) > 1} == {}


def test_help_names_the_users_key() -> None:
    help_text = "Search the rows (ctrl+f; Enter / shift+Enter: next / previous)"
    assert said_with_user_keys(help_text, {"find": "ctrl+b,f3"}, "find", "ctrl+f") == (
        "Search the rows (ctrl+b or f3; Enter / shift+Enter: next / previous)"
    )
    assert said_with_user_keys("Quit (q on the rows)", {"quit_app": "f10"}, "quit_app", "q") == (
        "Quit (f10 on the rows)"
    )
    assert said_with_user_keys(help_text, {}, "find", "ctrl+f") == help_text


# --- the theme -----------------------------------------------------------------------------


def test_an_unknown_theme_lists_close_names() -> None:
    themes = App().available_themes
    assert check_theme("nord", themes) is None
    line = check_theme("nrod", themes)
    assert line is not None
    assert line.startswith("config.toml: theme 'nrod' is not one of Textual's themes (close: ")
    assert "nord" in line


def test_the_palettes_choice_is_remembered_until_config_toml_changes(tmp_path: Path) -> None:
    state = tmp_path / "state" / "preferences.json"
    assert remembered_theme(state) is None
    assert remember_theme("dracula", "nord", state) is None
    remembered = remembered_theme(state)
    assert remembered == RememberedTheme("dracula", "nord")
    assert chosen_theme("nord", remembered) == "dracula"  # config.toml as it was
    assert chosen_theme("gruvbox", remembered) == "gruvbox"  # the user edited config.toml
    assert chosen_theme(None, remembered) is None
    assert chosen_theme(None, RememberedTheme("dracula", None)) == "dracula"


def test_a_broken_state_file_is_no_remembered_theme(tmp_path: Path) -> None:
    state = tmp_path / "preferences.json"
    for text in ("{", "[]", '{"theme": 3}'):
        state.write_text(text)
        assert remembered_theme(state) is None


def test_the_pickers_hint_keys_are_the_registrys_as_the_keymap_moves_them() -> None:
    """HintKeys' defaults (what the picker's lines say with no config.toml) are the
    registry's keys, spelled as the user guide spells them; a moved key is named by its
    first key."""
    assert hint_keys({}) == DEFAULT_HINT_KEYS
    moved = hint_keys({"scope": "f5", "clear": "ctrl+g,escape", "export": "f9"})
    assert moved == replace(DEFAULT_HINT_KEYS, scope="F5", clear="ctrl+g")
