"""The keys the picker's own lines name — the status line, the query's placeholder, the
empty list and the preview — spelled as the user guide spells them (`Tab`, `ctrl+e`,
`F5`) and moved where the user's config.toml (`[keys]`) moved them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from zero_tui.text.labels import key_name


@dataclass(frozen=True, slots=True)
class HintKeys:
    """One field per binding id a line names, holding the key it shows."""

    scope: str = "Tab"
    empty: str = "ctrl+e"
    search_mode: str = "ctrl+t"
    archived: str = "alt+h"
    clear: str = "Esc"
    rescan: str = "ctrl+r"
    enclosing_folder: str = "alt+up"


DEFAULT_HINT_KEYS = HintKeys()


def hint_keys(keymap: Mapping[str, str]) -> HintKeys:
    """The keys as `keymap` (binding id -> its keys, comma-separated) moves them: a binding
    with several keys is named by its first."""
    moved = {
        name: key_name(keymap[name].split(",")[0].strip())
        for name in (field.name for field in fields(HintKeys))
        if keymap.get(name, "").strip()
    }
    return replace(DEFAULT_HINT_KEYS, **moved)
