"""The run in flight, under the transcript: the prompt, then what the agent streams.

Answer text is Markdown, streamed (`Markdown.get_stream`); reasoning is dim and kept
apart; tool calls appear as they happen and are filled in by their results; warnings and
errors are their own lines. `show(turn)` brings the widgets up to date with the turn model
(zero_tui.agent.turn) incrementally: only what changed is touched, and a text block only
gets its new characters. When the run ends the screen drops all of it and shows the rows
rebuilt from the store, so what stays on screen is what was stored.

Session text is data: it is sanitised, and HTML in Markdown shows as text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from zero_tui.agent import Block, NoticeBlock, ReasoningBlock, TextBlock, ToolBlock, TurnModel
from zero_tui.agent.live_approval import live_approval
from zero_tui.commands import REGISTRY, Context
from zero_tui.text.sanitize import sanitize_line, sanitize_text
from zero_tui.transcript.denied_calls import approval_hint
from zero_tui.transcript.markdown_parser import markdown_parser
from zero_tui.ui.widgets.transcript_view import USER_MARKER

TOOL_OUTPUT_LINES = 4
ARGS_PREVIEW_CHARS = 120


def tool_summary(block: ToolBlock) -> Content:
    """`▸ read_file  {"path": "a.go"}  ok` and the first lines of the output."""
    call, result = block.call, block.result
    args = ""
    if call.args is not None:
        args = call.args if isinstance(call.args, str) else json.dumps(call.args)
    parts: list[tuple[str, str] | str] = [("▸ ", "bold"), (sanitize_line(call.name), "bold")]
    if args:
        shown = sanitize_line(args)
        if len(shown) > ARGS_PREVIEW_CHARS:
            shown = shown[: ARGS_PREVIEW_CHARS - 1] + "…"
        parts += ["  ", (shown, "dim")]
    if block.permission is not None and block.permission.kind == "request":
        parts += ["  ", ("needs approval: denied (zero exec cannot ask)", "$warning")]
    if result is None:
        parts += ["  ", ("running…", "italic dim")]
        return Content.assemble(*parts)
    status_style = "$success" if result.status == "ok" else "$error"
    parts += ["  ", (sanitize_line(result.status or "done"), status_style)]
    ask = live_approval(block)
    if ask is not None:  # what was asked, and the ways forward (once the run is over)
        hint = approval_hint(ask, REGISTRY.key_for("approve", Context.TRANSCRIPT))
        parts += ["\n  ", ("⚑ approval required: ", "$warning"), sanitize_line(ask.describe())]
        parts += ["\n    ", (sanitize_line(hint) + " (once the run ends)", "dim")]
        return Content.assemble(*parts)
    output = result.summary or result.output
    lines = sanitize_text(output).splitlines()
    for line in lines[:TOOL_OUTPUT_LINES]:
        parts += ["\n  ", (line, "dim")]
    if len(lines) > TOOL_OUTPUT_LINES:
        parts += ["\n  ", (f"… {len(lines) - TOOL_OUTPUT_LINES} more lines", "dim italic")]
    return Content.assemble(*parts)


@dataclass
class _TextView:
    widget: Markdown
    stream: MarkdownStream
    shown: str = ""


_View = _TextView | Static


class LiveTurn(VerticalScroll, can_focus=False):
    """The live turn's widgets (hidden while no run is shown)."""

    DEFAULT_CSS = """
    LiveTurn {
        display: none;
        height: auto;
        max-height: 70vh;  /* of the screen (a percentage would be of the agent pane) */
        padding: 0 1 0 2;
        &.-shown { display: block; }
        & > .live-user { color: $primary; text-style: bold; margin: 1 0 1 0; }
        & > .live-reasoning { color: $text-muted; text-style: italic; }
        & > .live-tool { margin: 1 0 0 0; }
        & > .live-warning { color: $warning; margin: 1 0 0 0; }
        & > .live-error { color: $error; margin: 1 0 0 0; }
        & > Markdown { margin: 0; padding: 0; background: transparent; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._views: list[_View] = []
        self.prompt = ""

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    def start(self, prompt: str) -> None:
        """A new run: the prompt as the user row at once, nothing streamed yet (not awaited:
        Enter must show the prompt in the same frame)."""
        self._drop_views()
        self.remove_children()
        self.prompt = prompt
        user_row = Content(USER_MARKER + sanitize_text(prompt))
        self.mount(Static(user_row, classes="live-user"))
        self.add_class("-shown")
        self.anchor()

    def _drop_views(self) -> None:
        for view in self._views:
            if isinstance(view, _TextView):
                self.run_worker(view.stream.stop(), group="live-streams")
        self._views = []

    async def clear(self) -> None:
        for view in self._views:
            if isinstance(view, _TextView):
                await view.stream.stop()
        self._views = []
        self.prompt = ""
        await self.remove_children()
        self.remove_class("-shown")

    async def show(self, turn: TurnModel) -> None:
        """Bring the widgets up to `turn` (blocks are only ever appended or changed)."""
        for position, block in enumerate(turn.blocks):
            if position < len(self._views):
                await self._update(self._views[position], block)
            else:
                self._views.append(await self._create(block))

    async def _create(self, block: Block) -> _View:
        if isinstance(block, TextBlock):
            widget = Markdown(parser_factory=markdown_parser)
            await self.mount(widget)
            view = _TextView(widget, Markdown.get_stream(widget))
            await self._update(view, block)
            return view
        static = Static(self._content(block), classes=self._block_classes(block))
        await self.mount(static)
        return static

    async def _update(self, view: _View, block: Block) -> None:
        if isinstance(view, _TextView):
            if not isinstance(block, TextBlock):
                return
            text = sanitize_text(block.text)
            if text == view.shown:
                return
            if text.startswith(view.shown):
                await view.stream.write(text[len(view.shown) :])
            else:  # `final` replaced what was streamed
                await view.stream.stop()
                await view.widget.update(text)
                view.stream = Markdown.get_stream(view.widget)
            view.shown = text
        elif not isinstance(block, TextBlock):
            view.update(self._content(block))

    @staticmethod
    def _content(block: Block) -> Content:
        if isinstance(block, ToolBlock):
            return tool_summary(block)
        if isinstance(block, ReasoningBlock):
            return Content(sanitize_text(block.text.strip()))
        if isinstance(block, NoticeBlock):
            marker = "✖ " if block.severity == "error" else "⚠ "
            return Content(marker + sanitize_text(block.text))
        return Content(sanitize_text(block.text))

    @staticmethod
    def _block_classes(block: Block) -> str:
        if isinstance(block, ToolBlock):
            return "live-tool"
        if isinstance(block, ReasoningBlock):
            return "live-reasoning"
        if isinstance(block, NoticeBlock):
            return f"live-{block.severity}"
        return ""

    def blocks_text(self) -> str:
        """What the live turn shows, as plain text (for tests and the status line)."""
        parts = [self.prompt]
        for view in self._views:
            if isinstance(view, _TextView):
                parts.append(view.shown)
            else:
                parts.append(str(view.visual))
        return "\n".join(parts)
