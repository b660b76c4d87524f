"""The run in flight, under the transcript: the prompt, then what the agent streams.

Answer text is Markdown, drawn as the stored answer is (`LiteralMarkdown`), in pages:
`agent.live_text` cuts the streamed text into settled pages, each drawn once, and a tail
drawn again as it grows, so a frame costs what arrived, not the whole answer. While it
streams, a long answer shows its last LIVE_WINDOW_PAGES pages under a count of the
characters above them (the rows show all of it once stored). Reasoning is dim and kept
apart (its last REASONING_CHARS); tool calls are cards drawn as the stored ones
(`tool_card`), filled in by their results; warnings and errors are their own lines.
`show(turn)` brings the widgets up to date with the turn model (zero_tui.agent.turn)
incrementally: only what changed is touched.

When the run ends the screen drops all of it and shows the rows rebuilt from the store,
so what stays on screen is what was stored; a cancelled run's partial answer, which Zero
never stores, stays under them, marked, until the rows are next rebuilt
(`keep_cancelled_answer`).

Session text is data: it is sanitised, and HTML in Markdown shows as text.
"""

from __future__ import annotations

from collections import deque
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from zero_tui.agent.live_approval import live_approval
from zero_tui.agent.live_text import LiveText
from zero_tui.agent.turn import Block, ReasoningBlock, TextBlock, ToolBlock, TurnModel
from zero_tui.text.sanitize import sanitize_text
from zero_tui.transcript.rows import streamed_tool_row
from zero_tui.ui.widgets.row_painter import USER_MARKER, LiteralMarkdown
from zero_tui.ui.widgets.tool_card import tool_card

LIVE_WINDOW_PAGES = 6  # pages of a streaming answer kept on screen (LiveText.PAGE_CHARS each)
REASONING_CHARS = 4_000  # of a reasoning block, the last ones shown
DENIED_NOTE = "needs approval: denied (zero exec cannot ask)"
CANCELLED_NOTE = (
    "■ Cancelled while answering: the text below was streamed but is not stored (Zero "
    "stores no partial answer); it stays here until the rows are rebuilt."
)


class LiveToolCard(Widget):
    """A tool call as it runs, drawn by `tool_card` as the stored call and result are."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "transcript--tool",
        "transcript--tool-ok",
        "transcript--tool-error",
        "transcript--output",
        "transcript--dim",
        "transcript--permission",
    }

    DEFAULT_CSS = """
    LiveToolCard { height: auto; }
    """

    def __init__(self, block: ToolBlock) -> None:
        super().__init__(classes="live-tool")
        self.block = block
        self._drawn = self._signature()

    def _signature(self) -> tuple[object, ...]:
        block = self.block
        return (block.result, block.permission)

    def catch_up(self) -> None:
        """Redraw when the result (or a permission) came since the last draw."""
        if (signature := self._signature()) != self._drawn:
            self._drawn = signature
            self.refresh(layout=True)

    def _style(self, part: str) -> Style:
        return self.get_component_rich_style(f"transcript--{part}")

    def render(self) -> RenderableType:
        call, result = self.block.call, self.block.result
        row = streamed_tool_row(
            call.name,
            call.call_id,
            call.args,
            result_status=result.status if result is not None else None,
            output=result.output if result is not None else "",
            changed_files=result.changed_files if result is not None else (),
        )
        row.approval = live_approval(self.block)
        card = tool_card(
            row, style=self._style, pending=result is None, approval_note=" (once the run ends)"
        )
        permission = self.block.permission
        if permission is not None and permission.kind == "request" and row.approval is None:
            return Group(card, Text("  " + DENIED_NOTE, style=self._style("permission")))
        return card

    def plain(self) -> str:
        """What the card says, as text (for tests)."""

        def lines(renderable: RenderableType) -> list[str]:
            if isinstance(renderable, Group):
                return [line for part in renderable.renderables for line in lines(part)]
            return [renderable.plain] if isinstance(renderable, Text) else []

        return "\n".join(lines(self.render()))


class MarkdownPage(Widget):
    """Markdown drawn by Rich once per width (and per text), its lines kept: a layout
    asks its height and a frame its lines without drawing it again."""

    DEFAULT_CSS = """
    MarkdownPage { height: auto; }
    """

    def __init__(self, text: str = "", *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._text = text
        self._drawn: tuple[str, int, Style] | None = None
        self._strips: list[Strip] = []

    @property
    def text(self) -> str:
        return self._text

    def set_text(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self.refresh(layout=True)

    def _strips_at(self, width: int) -> list[Strip]:
        style = self.rich_style
        if self._drawn != (self._text, width, style):
            self._drawn = (self._text, width, style)
            if not self._text.strip() or width <= 0:
                self._strips = []
            else:
                console = self.app.console
                options = console.options.update_width(width).update(highlight=False)
                lines = console.render_lines(
                    LiteralMarkdown(self._text), options, style=style, pad=True
                )
                self._strips = [Strip(line, width) for line in lines]
        return self._strips

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._strips_at(width))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        strips = self._strips_at(width)
        return strips[y] if 0 <= y < len(strips) else Strip.blank(width, self.rich_style)


class LiveTextView(Vertical):
    """One streamed text block: its settled pages, each drawn once, and its tail."""

    DEFAULT_CSS = """
    LiveTextView {
        height: auto;
        & > .live-earlier { color: $text-muted; text-style: italic; display: none; }
    }
    """

    def __init__(self) -> None:
        super().__init__(classes="live-text")
        self._text = LiveText()
        self._generation = -1
        self._pages_taken = 0
        self._pages: deque[MarkdownPage] = deque()  # the pages on screen
        self._earlier = 0  # characters of pages no longer on screen
        self._earlier_line = Static(Content(""), classes="live-earlier")
        self._tail = MarkdownPage(classes="live-tail")

    def compose(self) -> ComposeResult:
        yield self._earlier_line
        yield self._tail

    async def catch_up(self, block: TextBlock) -> None:
        if block.generation != self._generation:  # `final` replaced what was streamed
            self._generation = block.generation
            await self.remove_children(list(self._pages))
            self._text, self._pages_taken, self._earlier = LiveText(), 0, 0
            self._pages.clear()
        self._text.append(block.read_new())
        pages = self._text.pages
        fresh = pages[self._pages_taken :]
        self._pages_taken = len(pages)
        skipped = fresh[:-LIVE_WINDOW_PAGES]  # more than a window at once: never drawn
        self._earlier += sum(len(page) for page in skipped)
        mounted = [
            MarkdownPage(sanitize_text(page), classes="live-page") for page in fresh[len(skipped) :]
        ]
        if mounted:
            self._pages.extend(mounted)
            await self.mount_all(mounted, before=self._tail)
        dropped = []
        while len(self._pages) > LIVE_WINDOW_PAGES:
            page = self._pages.popleft()
            self._earlier += len(page.text)
            dropped.append(page)
        if dropped:
            await self.remove_children(dropped)
        if self._earlier:
            self._earlier_line.update(
                Content(
                    f"… {self._earlier:,} characters above (all of them in the rows, once stored)"
                )
            )
            self._earlier_line.display = True
        self._tail.set_text(sanitize_text(self._text.tail))

    @property
    def taken(self) -> int:
        """Characters of the block taken in (and drawn, or counted above the window)."""
        return self._text.length

    def shown_text(self) -> str:
        """The text on screen (pages and tail), sanitised as drawn."""
        return "".join(page.text for page in self._pages) + self._tail.text


class LiveReasoning(Static):
    """A reasoning block: its last REASONING_CHARS, dim."""

    def __init__(self) -> None:
        super().__init__(Content(""), classes="live-reasoning")
        self._shown = ""
        self._cut = False

    def catch_up(self, block: ReasoningBlock) -> None:
        new = block.read_new()
        if not new:
            return
        shown = self._shown + new
        if len(shown) > REASONING_CHARS:
            shown, self._cut = shown[-REASONING_CHARS:], True
        self._shown = shown
        self.update(Content(("…" if self._cut else "") + sanitize_text(shown.strip())))

    def shown_text(self) -> str:
        return sanitize_text(self._shown.strip())


_View = LiveTextView | LiveReasoning | LiveToolCard | Static


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
        & > .live-text { margin: 1 0 0 0; }
        & > .live-warning { color: $warning; margin: 1 0 0 0; }
        & > .live-error { color: $error; margin: 1 0 0 0; }
        & > .live-cancelled { color: $warning; margin: 1 0 0 0; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._views: list[_View] = []
        self.prompt = ""
        self.kept = False  # a cancelled run's partial answer is what is shown

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    def start(self, prompt: str) -> None:
        """A new run: the prompt as the user row at once, nothing streamed yet (not awaited:
        Enter must show the prompt in the same frame)."""
        self._views = []
        self.kept = False
        self.remove_children()
        self.prompt = prompt
        user_row = Content(USER_MARKER + sanitize_text(prompt))
        self.mount(Static(user_row, classes="live-user"))
        self.add_class("-shown")
        self.anchor()

    async def clear(self) -> None:
        self._views = []
        self.prompt = ""
        self.kept = False
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
        view: _View
        if isinstance(block, TextBlock):
            view = LiveTextView()
        elif isinstance(block, ReasoningBlock):
            view = LiveReasoning()
        elif isinstance(block, ToolBlock):
            view = LiveToolCard(block)
        else:
            marker = "✖ " if block.severity == "error" else "⚠ "
            view = Static(
                Content(marker + sanitize_text(block.text)), classes=f"live-{block.severity}"
            )
        await self.mount(view)
        await self._update(view, block)
        return view

    async def _update(self, view: _View, block: Block) -> None:
        if isinstance(view, LiveTextView) and isinstance(block, TextBlock):
            await view.catch_up(block)
        elif isinstance(view, LiveReasoning) and isinstance(block, ReasoningBlock):
            view.catch_up(block)
        elif isinstance(view, LiveToolCard) and isinstance(block, ToolBlock):
            view.block = block
            view.catch_up()

    async def keep_cancelled_answer(self) -> bool:
        """After a cancelled run, once the stored rows are shown: keep only the text
        streamed since the last tool card (the partial answer Zero does not store), under
        a line saying so. False when there is none (then clear())."""
        last_tool = max(
            (i for i, view in enumerate(self._views) if isinstance(view, LiveToolCard)),
            default=-1,
        )
        partial = [
            view
            for view in self._views[last_tool + 1 :]
            if isinstance(view, LiveTextView) and view.shown_text().strip()
        ]
        if not partial:
            return False
        await self.remove_children([child for child in self.children if child not in partial])
        await self.mount(Static(Content(CANCELLED_NOTE), classes="live-cancelled"), before=0)
        self._views = list(partial)
        self.prompt = ""
        self.kept = True
        return True

    def blocks_text(self) -> str:
        """What the live turn shows, as plain text (for tests and the status line)."""
        parts = [self.prompt] if self.prompt else []
        for view in self._views:
            if isinstance(view, LiveTextView | LiveReasoning):
                parts.append(view.shown_text())
            elif isinstance(view, LiveToolCard):
                parts.append(view.plain())
            else:
                parts.append(str(view.visual))
        return "\n".join(parts)
