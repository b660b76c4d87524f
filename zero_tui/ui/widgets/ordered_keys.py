"""Keys handled in the order they were typed, even when they arrive in one burst.

Textual hands a key to the focused widget's message queue, but runs the key's *binding*
elsewhere: priority bindings in the app before the widget sees the key, other bindings
only once the key has bubbled up through every ancestor's queue. Printable keys, meanwhile,
are inserted by the widget at once. When keys arrive faster than they are handled — an
unbracketed paste, `tmux send-keys`, a laggy SSH link — a bound key (`/`, Backspace, Tab)
therefore lands before or after the characters typed around it: `/export /tmp/x` became
`///export tmpx`. And keys already queued for a widget that has just given the focus away
are handled by the wrong widget.

`OrderedKeys` makes the focused widget handle every key itself, in its own queue, in order:
a key that arrives after the focus moved on is handed to the widget that has the focus now;
a bound key runs its binding right there (the same bindings, from the focused widget up, as
Textual would run); any other key gets the widget's own handling. Screens that use it bind
no keys with `priority=True` (those would still run ahead of the queue).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.widget import Widget

if TYPE_CHECKING:
    _WidgetMixin = Widget
else:
    # A plain mixin at run time: Textual takes CSS and component classes from the first
    # base that is a DOMNode, which must stay the widget mixed into (Input, TextArea, ...).
    _WidgetMixin = object


async def run_key_binding(widget: Widget, key: str) -> bool:
    """Run the binding Textual would run for `key` (from the focused widget up, skipping
    disabled actions and SkipAction, as Textual does); False when none handled it.

    This is the one use of Textual's private `App._check_bindings`: the public API can list
    the active bindings (`Screen.active_bindings`) but not fall through from one that
    declines (SkipAction) to the next. tests/test_ordered_keys.py fails if it changes.
    """
    return await widget.app._check_bindings(key)


def hand_over(event: events.Key, target: Widget) -> None:
    """Queue a copy of `event` for `target` (behind the keys already queued for it)."""
    target.post_message(events.Key(event.key, event.character))


class OrderedKeys(_WidgetMixin):
    """A mixin for focusable widgets, before their Textual base: every key handled here,
    in order (see the module)."""

    async def on_key(self, event: events.Key) -> None:
        focused = self.screen.focused if self.is_attached else None
        if focused is not None and focused is not self:
            event.stop()
            event.prevent_default()
            hand_over(event, focused)
            return
        if await run_key_binding(self, event.key):
            event.stop()
            event.prevent_default()
            return
        if event.is_printable and await self.unbound_character(event):
            event.stop()
            event.prevent_default()

    async def unbound_character(self, event: events.Key) -> bool:
        """A printable key no binding took: True when handled here (default: not, so the
        widget's own handling, e.g. an Input's insert, takes it)."""
        return False
