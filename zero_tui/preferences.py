"""The user's own keys and theme: `config.toml` in zero-tui's config folder, read and checked.

```toml
theme = "nord"          # any Textual theme

[keys]                  # a binding id (zero-tui keys lists them) = its keys
export = "ctrl+x"       # one key
rescan = ["f5", "ctrl+r"]  # or several (a list, or "f5,ctrl+r")
```

`load_preferences()` returns plain values the UI applies (Textual's keymap, by binding id;
the theme by name) and one line per entry it refused, which the app shows once and
`zero-tui keys` prints on stderr: nothing in the file can stop zero-tui from starting.

A key is refused when:

* its id is no binding's (the nearest ids are suggested), or names a command that has no key
  (it runs as `/name`);
* it is no key name (`ctrl+x`, `alt+up`, `f5`, `pageup`…), or a key a terminal does not
  send as written: a character typed alone or with shift (the query and the editor take
  it), `ctrl+shift+<character>` (sent as `ctrl+<character>`), `ctrl+i` / `ctrl+m` /
  `ctrl+h` / `ctrl+[` (sent as Tab, Enter, Backspace, Esc), `ctrl+<digit>`, F13 and above,
  super / meta / hyper (the kitty keyboard protocol only);
* another binding of the same screen has it once the file is applied, or it is one of
  zero-tui's own keys there (ctrl+q, F1, ctrl+c, and the editors' Enter, arrows…).

A refused entry leaves that binding on its default keys.

The theme the command palette switches to is remembered in zero-tui's own state file
(`preferences.json` in the data folder), never written into config.toml: it is used until
config.toml's `theme` changes (the file's choice then wins again).

No Textual or Rich import here: the UI passes Textual's theme names in.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from zero_tui.atomic import AtomicWriteError, write_atomic
from zero_tui.commands import REGISTRY, Context, KeyBinding
from zero_tui.paths import default_config_dir, default_data_dir
from zero_tui.picker.hint_keys import HintKeys
from zero_tui.text.labels import key_name

CONFIG_FILE = "config.toml"
STATE_FILE = "preferences.json"
CONFIG_LIMIT = 1 << 20  # a config.toml larger than this is not read

MODIFIERS = ("alt", "ctrl", "shift")  # Textual's order: sorted
_KITTY_ONLY = frozenset({"super", "meta", "hyper"})
NAMED_KEYS = frozenset(
    {
        "tab",
        "enter",
        "escape",
        "space",
        "backspace",
        "delete",
        "insert",
        "home",
        "end",
        "pageup",
        "pagedown",
        "up",
        "down",
        "left",
        "right",
    }
)
_SENT_AS = {"i": "Tab", "m": "Enter", "h": "Backspace", "[": "Esc", "left_square_bracket": "Esc"}
APP_KEYS = {"ctrl+q": "quit", "f1": "the command palette", "ctrl+c": "cancel, or quit twice"}
_LINE_KEYS = (
    "alt+backspace backspace ctrl+backspace ctrl+c ctrl+d ctrl+j ctrl+k ctrl+left "
    "ctrl+pagedown ctrl+pageup ctrl+right ctrl+shift+a ctrl+shift+left ctrl+shift+right "
    "ctrl+u ctrl+v ctrl+w delete enter left right shift+end shift+home shift+left shift+right"
)
_EDITOR_KEYS = (
    "alt+backspace alt+delete alt+enter backspace ctrl+a ctrl+backspace ctrl+c ctrl+d ctrl+e "
    "ctrl+j ctrl+k ctrl+left ctrl+pagedown ctrl+pageup ctrl+right ctrl+shift+k "
    "ctrl+shift+left ctrl+shift+right ctrl+u ctrl+v ctrl+w ctrl+x ctrl+z delete down end "
    "enter home left right shift+down shift+end shift+enter shift+home shift+left "
    "shift+right shift+up up"
)
EDITING_KEYS: dict[Context, dict[str, str]] = {
    Context.PICKER: dict.fromkeys(_LINE_KEYS.split(), "the query line's"),
    Context.TRANSCRIPT: dict.fromkeys(_EDITOR_KEYS.split(), "the editor's"),
}
"""Keys zero-tui keeps for itself in each screen: no binding may take them."""


def config_path() -> Path:
    return default_config_dir() / CONFIG_FILE


def state_path() -> Path:
    return default_data_dir() / STATE_FILE


@dataclass(frozen=True, slots=True)
class Preferences:
    """What config.toml asks for, checked: Textual's keymap (binding id -> `key,key`), the
    theme's name (None: Textual's default), and a line for each entry refused."""

    keymap: Mapping[str, str] = field(default_factory=dict)
    theme: str | None = None
    problems: tuple[str, ...] = ()


def load_preferences(path: Path | None = None) -> Preferences:
    """config.toml read and checked (a missing file: no preferences, no problem)."""
    path = path or config_path()
    where = str(path)
    try:
        with open(path, "rb") as handle:  # a symlink is fine: dotfiles are often linked
            if not os.path.isfile(path):
                return Preferences(problems=(f"{where}: not a regular file",))
            data = handle.read(CONFIG_LIMIT + 1)
    except FileNotFoundError:
        return Preferences()
    except OSError as error:
        return Preferences(problems=(f"{where}: {error.strerror or error}",))
    if len(data) > CONFIG_LIMIT:
        return Preferences(problems=(f"{where}: larger than {CONFIG_LIMIT:,} bytes; not read",))
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        return Preferences(problems=(f"{where}: {error}",))
    return preferences_from(table, where)


def preferences_from(table: Mapping[str, Any], where: str = CONFIG_FILE) -> Preferences:
    """The checked preferences of a parsed config.toml."""
    problems: list[str] = []
    theme = table.get("theme")
    if theme is not None and not isinstance(theme, str):
        problems.append(f"{where}: theme: a theme's name in quotes, not {theme!r}")
        theme = None
    keys = table.get("keys", {})
    if not isinstance(keys, dict):
        problems.append(f"{where}: [keys] must be a table of binding id = key")
        keys = {}
    keymap, key_problems = check_keys(keys)
    problems += [f"{where}: {problem}" for problem in key_problems]
    for name in table:
        if name not in ("theme", "keys"):
            problems.append(f"{where}: {name}: not a setting (theme and [keys] are)")
    return Preferences(keymap, theme or None, tuple(problems))


# --- keys ------------------------------------------------------------------------------------


def bindings_by_context() -> dict[Context, list[KeyBinding]]:
    return {context: REGISTRY.key_bindings(context) for context in Context}


def default_keys(context: Context) -> dict[str, tuple[str, ...]]:
    """Each binding id's default keys in one context, in the registry's order."""
    keys: dict[str, tuple[str, ...]] = {}
    for binding in REGISTRY.key_bindings(context):
        if binding.key not in keys.get(binding.binding_id, ()):
            keys[binding.binding_id] = (*keys.get(binding.binding_id, ()), binding.key)
    return keys


def keyless_commands() -> set[str]:
    bound = {b.binding_id for bindings in bindings_by_context().values() for b in bindings}
    return {command.binding_id for command in REGISTRY} - bound


def normalize_key(key: str) -> str:
    """`Ctrl+Shift+Up` -> `ctrl+shift+up` (modifiers sorted, as Textual names keys)."""
    *modifiers, base = [part.strip() for part in key.strip().split("+")] or [""]
    if len(base) != 1:
        base = base.lower()
    return "+".join([*sorted(modifier.lower() for modifier in modifiers), base])


def unsendable(key: str) -> str | None:
    """Why a terminal cannot send `key` (normalized) as written; None when it can."""
    *modifiers, base = key.split("+")
    if not base:
        return "is no key"
    if set(modifiers) & _KITTY_ONLY:
        return "needs the kitty keyboard protocol, which most terminals do not speak"
    if unknown := set(modifiers) - set(MODIFIERS):
        return f"has an unknown modifier ({', '.join(sorted(unknown))})"
    if len(modifiers) != len(set(modifiers)):
        return "names a modifier twice"
    function_key = base[0] == "f" and base[1:].isdigit()
    if function_key:
        number = int(base[1:])
        if not 1 <= number <= 24:
            return "is no key"
        if number > 12:
            return "is sent by few keyboards and terminals (F1 to F12 are)"
        return None
    if base in NAMED_KEYS:
        return None
    if len(base) != 1 or not base.isprintable():
        return "is no key name (ctrl+x, alt+up, f5, pageup…)"
    ctrl, alt, shift = "ctrl" in modifiers, "alt" in modifiers, "shift" in modifiers
    if not ctrl and not alt:
        return "types a character (the query and the editor take it)"
    if ctrl and shift:
        return f"arrives as ctrl+{base} in most terminals"
    if ctrl and base in _SENT_AS:
        return f"arrives as {_SENT_AS[base]}"
    if ctrl and base.isdigit():
        return "is not sent by most terminals"
    return None


def _keys_of(value: object) -> list[str] | None:
    if isinstance(value, str):
        keys = value.split(",")
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        keys = list(value)
    else:
        return None
    return [normalize_key(key) for key in keys if key.strip()]


def nearest_ids(name: str, ids: Iterable[str]) -> list[str]:
    return difflib.get_close_matches(name, sorted(ids), n=3, cutoff=0.5)


def check_keys(table: Mapping[str, object]) -> tuple[dict[str, str], list[str]]:
    """Textual's keymap from config.toml's `[keys]`, and a line for each entry refused."""
    by_context = bindings_by_context()
    known = {b.binding_id for bindings in by_context.values() for b in bindings}
    keyless = keyless_commands()
    wanted: dict[str, tuple[str, ...]] = {}
    problems: list[str] = []
    for name, value in table.items():
        where = f"keys.{name}"
        if name not in known:
            if name in keyless:
                problems.append(f"{where}: /{name} has no key to move (it runs as /{name})")
                continue
            near = nearest_ids(name, known | keyless)
            hint = f" (did you mean {' or '.join(near)}?)" if near else ""
            problems.append(f"{where}: no such binding id{hint}; zero-tui keys lists them")
            continue
        keys = _keys_of(value)
        if not keys:
            problems.append(f'{where}: a key in quotes ("ctrl+x") or a list of them')
            continue
        refused = [(key, why) for key in keys if (why := unsendable(key)) is not None]
        if refused:
            key, why = refused[0]
            problems.append(f"{where}: {key} {why}")
            continue
        wanted[name] = tuple(dict.fromkeys(keys))
    problems += _refuse_clashes(wanted)
    return {name: ",".join(keys) for name, keys in wanted.items()}, problems


def _refuse_clashes(wanted: dict[str, tuple[str, ...]]) -> list[str]:
    """Drop (from `wanted`) each entry whose key another binding of a screen it is on has
    once the others are applied; again until none clashes. A line for each one dropped."""
    problems: list[str] = []
    defaults = {context: default_keys(context) for context in Context}
    while True:
        clash = _first_clash(wanted, defaults)
        if clash is None:
            return problems
        name, line = clash
        del wanted[name]
        problems.append(f"keys.{name}: {line}")


def _first_clash(
    wanted: Mapping[str, tuple[str, ...]], defaults: Mapping[Context, dict[str, tuple[str, ...]]]
) -> tuple[str, str] | None:
    for name, keys in wanted.items():
        for context, keys_by_id in defaults.items():
            if name not in keys_by_id:
                continue
            reserved = {**APP_KEYS, **EDITING_KEYS[context]}
            for key in keys:
                if key in reserved:
                    return name, f"{key} is zero-tui's own key in the {context} ({reserved[key]})"
                for other, default in keys_by_id.items():
                    if other != name and key in wanted.get(other, default):
                        return name, f"{key} is already {other}'s key in the {context}"
    return None


@dataclass(frozen=True, slots=True)
class BindingRow:
    """One binding id in one screen, as `zero-tui keys` lists it."""

    binding_id: str
    context: str
    keys: tuple[str, ...]
    default_keys: tuple[str, ...]
    titles: tuple[str, ...]


def binding_rows(keymap: Mapping[str, str]) -> list[BindingRow]:
    """Every binding id of every screen with its keys (the user's where rebound), then the
    commands that have no key (context "" and no keys)."""
    rows: list[BindingRow] = []
    for context in Context:
        titles: dict[str, list[str]] = {}
        for binding in REGISTRY.key_bindings(context):
            said = titles.setdefault(binding.binding_id, [])
            if binding.title not in said:
                said.append(binding.title)
        for name, default in default_keys(context).items():
            keys = tuple(keymap[name].split(",")) if name in keymap else default
            rows.append(BindingRow(name, context.value, keys, default, tuple(titles[name])))
    for command in REGISTRY:
        if command.binding_id in keyless_commands():
            contexts = ", ".join(sorted(context.value for context in command.contexts))
            rows.append(BindingRow(command.binding_id, contexts, (), (), (f"/{command.name}",)))
    return rows


def effective_keys(keymap: Mapping[str, str], binding_id: str, default: str) -> list[str]:
    """The keys a binding has with the user's keymap applied."""
    return keymap[binding_id].split(",") if binding_id in keymap else [default]


def hint_keys(keymap: Mapping[str, str]) -> HintKeys:
    """The keys the picker's lines name (`HintKeys`: a field per binding id), each the
    registry's key with the user's `keymap` applied; a binding with several keys is named
    by its first."""
    defaults: dict[str, str] = {}
    for action, key in REGISTRY.action_keys(Context.PICKER):
        defaults.setdefault(action.binding_id, key.key)
    return HintKeys(
        **{
            name: key_name(effective_keys(keymap, name, defaults[name])[0].strip())
            for name in (field.name for field in fields(HintKeys))
        }
    )


def said_with_user_keys(text: str, keymap: Mapping[str, str], binding_id: str, default: str) -> str:
    """A help text that names its default key (`Search the rows (ctrl+f; …)`) naming the
    user's instead, when the binding is rebound."""
    if binding_id not in keymap:
        return text
    spelled = re.compile(rf"(?<![\w+]){re.escape(default)}(?![\w+])", re.IGNORECASE)
    return spelled.sub(keymap[binding_id].replace(",", " or "), text)


# --- the theme -----------------------------------------------------------------------------


def check_theme(name: str, available: Iterable[str]) -> str | None:
    """None when Textual has theme `name`, else the one line that says so."""
    names = sorted(available)
    if name in names:
        return None
    near = difflib.get_close_matches(name, names, n=4, cutoff=0.4)
    listed = ", ".join(near or names[:6])
    return f"{CONFIG_FILE}: theme {name!r} is not one of Textual's themes (close: {listed})"


@dataclass(frozen=True, slots=True)
class RememberedTheme:
    """The theme the palette last switched to, and config.toml's `theme` at the time."""

    theme: str
    config_theme: str | None


def remembered_theme(path: Path | None = None) -> RememberedTheme | None:
    """The palette's last choice (None: none, or the state file unreadable)."""
    try:
        data = json.loads((path or state_path()).read_bytes()[:65536])
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("theme"), str):
        return None
    config_theme = data.get("configTheme")
    return RememberedTheme(data["theme"], config_theme if isinstance(config_theme, str) else None)


def remember_theme(theme: str, config_theme: str | None, path: Path | None = None) -> str | None:
    """Keep the palette's choice; None, or why it could not be written."""
    target = path or state_path()
    document = {"theme": theme, "configTheme": config_theme}
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(str(target), (json.dumps(document, indent=2) + "\n").encode())
    except (OSError, AtomicWriteError) as error:
        return str(error)
    return None


def chosen_theme(config_theme: str | None, remembered: RememberedTheme | None) -> str | None:
    """The palette's remembered theme while config.toml's `theme` is what it was when it was
    chosen; else config.toml's."""
    if remembered is not None and remembered.config_theme == config_theme:
        return remembered.theme
    return config_theme
