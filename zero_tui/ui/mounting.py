"""Whether a mounting widget's tree is there to use.

A widget removed while it mounts (the app quits as a screen opens, as a burst of keys
can make it) gets its children dropped by Textual before they mount, and its mount
handler still runs. So a widget updates the children it composes through references it
holds (never `query_one` in a handler that can run then), and a screen asks `composed()`
before its mount handler queries its tree or starts work.
"""

from __future__ import annotations

from textual.widget import Widget


def composed(widget: Widget) -> bool:
    """`widget` mounts into an app that is not quitting: the tree it composed is there."""
    return widget.is_attached
