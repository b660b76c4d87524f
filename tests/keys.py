"""Keys as a terminal delivers them: one at a time (Pilot) or all in one burst."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App
from textual.keys import _character_to_key


def key_event(character: str) -> events.Key:
    """The Key event Textual's driver makes for one typed character ("\\r" is Enter)."""
    if character == "\r":
        return events.Key("enter", "\r")
    if character == "\n":
        return events.Key("ctrl+j", "\n")
    if character == "\t":
        return events.Key("tab", "\t")
    if character == "\x7f":
        return events.Key("backspace", "\x7f")
    return events.Key(_character_to_key(character), character)


def burst(app: App[Any], keys: str | list[events.Key]) -> None:
    """Post every key to the app at once, as an unbracketed paste, `tmux send-keys` or a
    laggy SSH link delivers them: nothing is handled until all are queued."""
    for event in [key_event(c) for c in keys] if isinstance(keys, str) else keys:
        app.post_message(event)
