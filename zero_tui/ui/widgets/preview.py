"""The picker's preview pane: the highlighted session's header and its last exchanges.

The text arrives as `PreviewData` built in a thread worker; here it only becomes `Content`
assembled from plain strings, so nothing in a session is ever read as markup.
"""

from __future__ import annotations

from rich.style import Style
from textual.cache import LRUCache
from textual.content import Content, Span
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual

from zero_tui.agent.running import Running
from zero_tui.picker.hint_keys import DEFAULT_HINT_KEYS
from zero_tui.picker.preview_data import PreviewData, PreviewExchange
from zero_tui.store.session_flags import NO_FLAGS, PIN_MARK, SessionFlags
from zero_tui.store.token_counts import Tokens
from zero_tui.transcript.header import token_facts
from zero_tui.ui.widgets.virtual_height import set_virtual_height

MAX_EXCHANGE_LINES = 12
MAX_EXCHANGE_CHARS = 1200

_ROLE_NAMES = {"user": "you", "assistant": "zero", "tool": "tool", "system": "note"}


def _excerpt(text: str) -> str:
    if len(text) > MAX_EXCHANGE_CHARS:
        text = text[:MAX_EXCHANGE_CHARS].rstrip() + " …"
    lines = text.split("\n")
    if len(lines) > MAX_EXCHANGE_LINES:
        lines = [*lines[:MAX_EXCHANGE_LINES], "…"]
    return "\n".join(lines)


def _field(name: str, value: str) -> Content:
    return Content.assemble((f"{name:<11}", "$text-muted"), value or "—", "\n")


def _exchange(exchange: PreviewExchange) -> Content:
    role = _ROLE_NAMES.get(exchange.role, exchange.role)
    role_style = {
        "user": "bold $accent",
        "assistant": "bold $success",
        "tool": "$text-muted",
        "system": "$text-muted",
    }.get(exchange.role, "bold")
    if exchange.role == "tool":
        return Content.assemble(("· ", role_style), (exchange.text, role_style), "\n")
    return Content.assemble((f"{role}:", role_style), "\n", _excerpt(exchange.text), "\n\n")


def running_line(running: Running) -> Content:
    """The preview's word on a session an agent is writing now, and where it runs."""
    return Content.assemble(
        (f"{'status':<11}", "$text-muted"),
        ("● running", "bold $text-success"),
        f" {running.describe()}",
        "\n",
    )


def tokens_line(tokens: Tokens) -> str:
    """`20.6k in (18.6k cached) · 507 out`, the transcript header's words."""
    if not tokens.requests:
        return "none recorded"
    return token_facts(tokens).removeprefix("tokens ")


def preview_content(
    preview: PreviewData,
    running: Running | None = None,
    tokens: Tokens | None = None,
    kept: tuple[SessionFlags, str] = (NO_FLAGS, ""),
    archive_key: str = DEFAULT_HINT_KEYS.archived,
) -> Content:
    """The preview's text; `tokens`: the session's usage (None: not known yet); `kept`:
    its pins and tags, and its fork parent's tags (` (tags: work)`); `archive_key`: the key
    that shows the archive, as the user moved it."""
    flags, parent_note = kept
    parts: list[Content | str | tuple[str, str]] = [
        (preview.title, "bold"),
        "\n\n",
    ]
    if running is not None:
        parts.append(running_line(running))
    parts += [
        _field("id", preview.session_id),
        _field("workspace", preview.workspace),
        _field(
            "model",
            " · ".join(part for part in (preview.model, preview.provider) if part),
        ),
        _field("created", preview.created),
        _field("updated", preview.updated),
        _field("events", preview.events_label),
    ]
    if tokens is not None:
        parts.append(_field("tokens", tokens_line(tokens)))
    if preview.kind:
        parts.append(_field("kind", preview.kind))
    if preview.lineage:
        parts.append(_field("lineage", preview.lineage + parent_note))
    if flags.pinned or flags.archived:
        parts.append(_field("kept", " · ".join(_kept_words(flags, archive_key))))
    if flags.tags:
        parts.append(_field("tags", " ".join(f"#{tag}" for tag in flags.tags)))
    parts.append("\n")
    if preview.error:
        parts.append(Content.assemble((preview.error, "$text-error"), "\n\n"))
    if preview.exchanges:
        parts.extend(_exchange(exchange) for exchange in preview.exchanges)
    elif not preview.error:
        parts.append(("no messages yet", "$text-muted"))
    return Content.assemble(*parts)


def _kept_words(flags: SessionFlags, archive_key: str) -> list[str]:
    words = [f"{PIN_MARK} pinned"] if flags.pinned else []
    return words + ([f"archived ({archive_key} shows the archive)"] if flags.archived else [])


class SessionPreview(ScrollView, can_focus=False):
    """Shows one session; `show` swaps its text (placeholder text while loading).

    A line-API view: a new text is cut into lines at the view's width and drawn line by
    line; its height changes with no layout of the screen (see virtual_height.py). Its
    scrollbar is always there, its track the pane's colour: a text that fits shows none
    and lays nothing out, where one that came and went laid out the screen at every ↓."""

    DEFAULT_CSS = """
    SessionPreview {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-background: $background;
        scrollbar-background-hover: $background;
        scrollbar-background-active: $background;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._content = Content("")
        self._lines: list[Strip] = []
        self._lines_width = -1  # the width the lines were cut at (-1: not cut yet)
        self._cuts: LRUCache[tuple[str, tuple[Span, ...], int], list[Strip]] = LRUCache(32)
        self._base_style = Style()
        self._blank = Strip.blank(0)

    _preview: PreviewData | None = None
    _shown_running: Running | None = None
    _shown_tokens: Tokens | None = None
    _shown_kept: tuple[SessionFlags, str] = (NO_FLAGS, "")
    archive_key = DEFAULT_HINT_KEYS.archived  # the key that shows the archive

    def show(
        self,
        preview: PreviewData,
        running: Running | None = None,
        tokens: Tokens | None = None,
        kept: tuple[SessionFlags, str] = (NO_FLAGS, ""),
    ) -> None:
        self._preview, self._shown_running, self._shown_tokens = preview, running, tokens
        self._shown_kept = kept
        self._redraw()
        self.scroll_to(y=0, animate=False)

    def show_running(self, running: Running | None) -> None:
        """Say (or stop saying) that the session shown runs now, in place."""
        if running != self._shown_running and self._preview is not None:
            self._shown_running = running
            self._redraw()

    def show_tokens(self, tokens: Tokens | None) -> None:
        """Say the shown session's tokens (None: not known), in place."""
        if tokens != self._shown_tokens and self._preview is not None:
            self._shown_tokens = tokens
            self._redraw()

    def show_flags(self, flags: SessionFlags, parent_note: str) -> None:
        """Say the shown session's pins and tags (and its parent's tags), in place."""
        if (flags, parent_note) != self._shown_kept and self._preview is not None:
            self._shown_kept = (flags, parent_note)
            self._redraw()

    def _redraw(self) -> None:
        if self._preview is not None:
            self._set_content(
                preview_content(
                    self._preview,
                    self._shown_running,
                    self._shown_tokens,
                    self._shown_kept,
                    self.archive_key,
                )
            )

    def show_message(self, message: str) -> None:
        self._preview = None
        self._set_content(Content.styled(message, "$text-muted"))
        self.scroll_to(y=0, animate=False)

    def _set_content(self, content: Content) -> None:
        if content.is_same(self._content) and self._lines_width != -1:
            return  # the same text (no row highlighted after each key): nothing to redraw
        drawn, drawn_width = self._lines, self._lines_width
        self._content = content
        self._lines_width = -1
        self._cut_lines()
        if self._lines_width == -1 or self._lines_width != drawn_width or self.scroll_y:
            self.refresh()  # cut at another width, or scrolled: every line changes
            return
        blank = self._blank
        for y in range(self.scrollable_content_region.height):
            before = drawn[y] if y < len(drawn) else blank
            after = self._lines[y] if y < len(self._lines) else blank
            if before != after:  # the fields' names, the rules, the blank end: drawn once
                self.refresh_line(y)

    def _cut_lines(self) -> None:
        """Cut the text into the lines drawn, at the view's width (none before it has one);
        a text cut before (the highlight back on a row) is not cut again."""
        width = self.scrollable_content_region.width
        if width <= 0 or width == self._lines_width:
            return
        self._lines_width = width
        self._base_style = self.rich_style
        content = self._content
        key = (content.plain, tuple(content.spans), width)
        lines = self._cuts.get(key)
        if lines is None:
            strips = Visual.to_strips(self, content, width, None, self.visual_style)
            lines = [strip.extend_cell_length(width, self._base_style) for strip in strips]
            self._cuts[key] = lines
        self._lines = lines
        self._blank = Strip.blank(width, self._base_style)
        set_virtual_height(self, len(lines))

    def on_resize(self) -> None:
        self._cut_lines()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cuts.clear()  # the theme's colours: cut again when next drawn
        self._lines_width = -1

    def render_line(self, y: int) -> Strip:
        if self._lines_width == -1:
            self._cut_lines()
        line = round(self.scroll_y) + y
        if line < len(self._lines):
            return self._lines[line]
        return self._blank

    @property
    def text(self) -> str:
        """The plain text shown (for tests)."""
        return self._content.plain
