"""The height of a line-API view's content, changed without a layout of the screen unless
the view's scrollbar comes or goes.

Textual's `virtual_size` asks for a layout of the whole screen at every change (a reactive
with `layout=True`): at every key of a query for the session list, at every highlighted
row for the preview. Only a scrollbar that comes or goes changes what the layout places
(the width of the lines); otherwise the new height is kept without one, the scrollbar told
its new length (unless it has no thumb before or after: nothing of it changes), and the
view scrolled back within the content if it now ends above. The view's lines are the
caller's to redraw: only those whose content changed.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widget import Widget


def set_virtual_height(view: ScrollView, lines: int) -> None:
    """Make `view`'s content `lines` high; a layout only when its scrollbar comes or goes.
    Redraws none of the view's lines (a scroll back redraws them all)."""
    size = Size(view.virtual_size.width, lines)
    if size == view.virtual_size:
        return
    height = view.container_size.height
    shown_before = _scrollbar_shown(view, view.virtual_size.height, height)
    if not height or shown_before != _scrollbar_shown(view, lines, height):
        view.virtual_size = size
        return
    view.set_reactive(Widget.virtual_size, size)
    if view.show_vertical_scrollbar:
        bar = view.vertical_scrollbar
        # no thumb before nor after (both fit the window): nothing of the bar to redraw
        if max(lines, bar.window_virtual_size) > bar.window_size:
            bar.window_virtual_size = lines
    if view.scroll_y > view.max_scroll_y:
        view.scroll_to(y=view.max_scroll_y, animate=False)


def _scrollbar_shown(view: ScrollView, lines: int, height: int) -> bool:
    """Whether `view` shows its vertical scrollbar for content `lines` high, as Textual
    decides it from `overflow-y`."""
    overflow = view.styles.overflow_y
    return overflow == "scroll" or (overflow == "auto" and lines > height)
