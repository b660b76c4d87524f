"""The picker's preview pane: the highlighted session's header and its last exchanges.

The text arrives as `PreviewData` built in a thread worker; here it only becomes `Content`
assembled from plain strings, so nothing in a session is ever read as markup.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from zero_tui.agent.running import Running
from zero_tui.picker.preview_data import PreviewData, PreviewExchange
from zero_tui.store.session_flags import NO_FLAGS, PIN_MARK, SessionFlags
from zero_tui.store.token_counts import Tokens
from zero_tui.transcript.header import token_facts

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
) -> Content:
    """The preview's text; `tokens`: the session's usage (None: not known yet); `kept`:
    its pins and tags, and its fork parent's tags (` (tags: work)`)."""
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
        parts.append(_field("kept", " · ".join(_kept_words(flags))))
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


def _kept_words(flags: SessionFlags) -> list[str]:
    words = [f"{PIN_MARK} pinned"] if flags.pinned else []
    return words + (["archived (alt+h shows the archive)"] if flags.archived else [])


class SessionPreview(VerticalScroll, can_focus=False):
    """Shows one session; `show` swaps its text (placeholder text while loading)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = Static(id="preview-text", markup=False)  # held: see ui/mounting.py

    def compose(self) -> ComposeResult:
        yield self._text

    _preview: PreviewData | None = None
    _shown_running: Running | None = None
    _shown_tokens: Tokens | None = None
    _shown_kept: tuple[SessionFlags, str] = (NO_FLAGS, "")

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
        self.scroll_home(animate=False)

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
            content = preview_content(
                self._preview, self._shown_running, self._shown_tokens, self._shown_kept
            )
            self._text.update(content)

    def show_message(self, message: str) -> None:
        self._preview = None
        self._text.update(Content.styled(message, "$text-muted"))
        self.scroll_home(animate=False)

    @property
    def text(self) -> str:
        """The plain text shown (for tests)."""
        content = self._text.visual
        return str(content)
