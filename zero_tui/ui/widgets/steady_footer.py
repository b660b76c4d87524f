"""The footer's keys, rebuilt only when the keys it shows change.

Textual's `Footer` recomposes (a `FooterKey` mounted, styled and laid out per key) each time
a screen's bindings are refreshed, which Textual does on every focus change and a widget
may do on every keystroke. `SteadyFooter` compares what it would show with what it shows,
and leaves the footer as it is when they are the same.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class SteadyFooter(Footer):
    """A `Footer` that recomposes only when the keys it would show differ."""

    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple[object, ...] | None = None

    def shown_keys(self, screen: Screen[object]) -> tuple[object, ...]:
        """What `Footer.compose` reads of the screen's bindings, in its order."""
        palette = self.app.COMMAND_PALETTE_BINDING if self.show_command_palette else None
        return tuple(
            (key, binding, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in screen.active_bindings.items()
            if binding.show or key == palette
        )

    def bindings_changed(self, screen: Screen[object]) -> None:
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            shown = self.shown_keys(screen)
            if shown == self._shown:
                return
            self._shown = shown
        super().bindings_changed(screen)
