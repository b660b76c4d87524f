"""The footer's keys, made once per set of commands and shown or hidden in place.

Textual's `Footer` recomposes (a `FooterKey` mounted, styled and laid out per key) each time
a screen's bindings are refreshed, which Textual does on every focus change and a widget
may do on every keystroke. `SteadyFooter` makes a `FooterKey` for every binding the screen
could show, available or not, and when only their availability changes (the picker's first
query key offers Esc, a query matching nothing takes the row's keys away) it hides, shows
or dims those keys in place. Only another set of commands (the focus on another widget, a
keymap change) recomposes it, once for all the changes made before it runs (a screen's
focus lands on one widget, then on another, as it opens).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

Layout = tuple[tuple[str, Binding, str, str], ...]  # (key, binding, key display, tooltip)


class SteadyFooter(Footer):
    """A `Footer` that recomposes only when the set of commands it may show changes."""

    DEFAULT_CSS = """
    SteadyFooter FooterKey.-unavailable {
        display: none;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self._layout: Layout | None = None  # None: composed as `Footer` composes
        self._recompose_due = False  # a recompose is due: it reads the bindings then

    def possible_keys(self, screen: Screen[object]) -> Layout:
        """Every key the footer may show on `screen`, in the binding chain's order (a key
        bound twice, once each), the command palette's last, as `Footer.compose` puts it."""
        palette = self.app.COMMAND_PALETTE_BINDING if self.show_command_palette else None
        keys = []
        last = []
        for _, bindings in screen._modal_binding_chain:
            for key, binding in bindings:
                entry = (key, binding, self.app.get_key_display(binding), binding.tooltip)
                if key == palette:
                    last.append(entry)
                elif binding.show:
                    keys.append(entry)
        return tuple(keys + last[:1])

    def shown(self, active: dict[str, ActiveBinding], layout: Layout) -> list[bool]:
        """Which keys of `layout` the footer shows with `active` bindings: the binding
        active for its key, an action's first key only (as `Footer.compose` does)."""
        actions: set[str] = set()
        shown = []
        for key, binding, _, _ in layout:
            entry = active.get(key)
            visible = (
                entry is not None and entry.binding is binding and binding.action not in actions
            )
            if visible and key != self.app.COMMAND_PALETTE_BINDING:
                actions.add(binding.action)
            shown.append(visible)
        return shown

    def footer_shows(self, active: dict[str, ActiveBinding]) -> list[Binding]:
        """The bindings `Footer.compose` makes keys of, in its order."""
        palette = self.app.COMMAND_PALETTE_BINDING if self.show_command_palette else None
        actions: set[str] = set()
        bindings = []
        for key, (_, binding, _, _) in active.items():
            if key != palette and binding.show and binding.action not in actions:
                actions.add(binding.action)
                bindings.append(binding)
        if palette is not None and palette in active:
            bindings.append(active[palette].binding)
        return bindings

    def compose(self) -> ComposeResult:
        if self._layout is None:
            yield from super().compose()
            return
        palette = self.app.COMMAND_PALETTE_BINDING
        active = self.screen.active_bindings
        shown = self.shown(active, self._layout)
        for (key, binding, key_display, tooltip), on in zip(self._layout, shown, strict=True):
            if key != palette:
                # Made as `_show_available` would leave it, and compact as the footer is: a
                # key restyled after it mounts is styled again, its two parts with it.
                footer_key = FooterKey(
                    binding.key,
                    key_display,
                    binding.description,
                    binding.action,
                    disabled=on and not active[key].enabled,
                    tooltip=tooltip,
                    classes="" if on else "-unavailable",
                )
                footer_key.set_reactive(FooterKey.compact, self.compact)
                yield footer_key.data_bind(compact=Footer.compact)
            elif self.app.ENABLE_COMMAND_PALETTE:
                yield FooterKey(
                    binding.key,
                    key_display,
                    binding.description,
                    binding.action,
                    classes="-command-palette",
                    tooltip=binding.tooltip or binding.description,
                )

    def _show_available(self, screen: Screen[object]) -> bool:
        """Hide, show and dim the keys made for what `screen` offers now; False when the
        keys made cannot show it as `Footer` would (then it is recomposed)."""
        layout = self._layout or ()
        active = screen.active_bindings
        shown = self.shown(active, layout)
        visible = [entry[1] for entry, on in zip(layout, shown, strict=True) if on]
        keys = list(self.query_children(FooterKey))
        if len(keys) != len(layout) or visible != self.footer_shows(active):
            return False
        for footer_key, (key, _, _, _), on in zip(keys, layout, shown, strict=True):
            disabled = on and not active[key].enabled
            footer_key.set_class(not on, "-unavailable")
            footer_key.set_class(disabled, "-disabled")
            footer_key._disabled = disabled
        return True

    def bindings_changed(self, screen: Screen[object]) -> None:
        if not (screen.app.app_focus and self.is_attached and screen is self.screen):
            super().bindings_changed(screen)
            return
        self._bindings_ready = True
        if not self._recompose_due and not self._shows(screen, self._wanted_layout(screen)):
            self._recompose_due = True
            self.call_after_refresh(self._recompose_then_show, screen)

    def _wanted_layout(self, screen: Screen[object]) -> Layout | None:
        """The keys to make for `screen`; None when some are grouped (made as `Footer`
        makes them)."""
        layout = self.possible_keys(screen)
        return None if any(binding.group is not None for _, binding, _, _ in layout) else layout

    def _shows(self, screen: Screen[object], wanted: Layout | None) -> bool:
        """Whether the keys made (for `self._layout`) show what `screen` offers now (its
        `wanted` layout), once hidden, shown or dimmed in place; False when only new keys
        can."""
        return wanted is not None and wanted == self._layout and self._show_available(screen)

    async def _recompose_then_show(self, screen: Screen[object]) -> None:
        # Bindings that change again and again as a screen opens (its focus, then the
        # widget it settles on) make one set of keys, for the bindings as they are now.
        if self.is_attached:
            wanted = self._wanted_layout(screen)
            if not self._shows(screen, wanted):
                self._layout = wanted
                await self.recompose()
                # The bindings may have changed again as the keys mounted: shown as they are.
                if self._layout is not None and not self._show_available(screen):
                    self._layout = None  # shown as `Footer` shows it
                    await self.recompose()
        self._recompose_due = False
