"""The keys the picker's own lines name — the status line, the query's placeholder, the
empty list and the preview — spelled as the user guide spells them (`Tab`, `ctrl+e`,
`F5`). `zero_tui.preferences.hint_keys` moves them where the user's config.toml
(`[keys]`) moved them; the defaults are the registry's keys (a test holds them equal)."""

from __future__ import annotations

from dataclasses import dataclass


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
