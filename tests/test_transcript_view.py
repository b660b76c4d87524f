"""The transcript view on its own (Pilot): how rows of a session are drawn."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import Any, ClassVar

from conftest import EventSpec, StoreBuilder, assistant, user
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from zero_tui.store import SessionStore
from zero_tui.transcript.log_index import LogIndex
from zero_tui.ui.app import css_paths
from zero_tui.ui.widgets.transcript_view import TranscriptView

SIZE = (100, 40)


class ViewApp(App[None]):
    """One TranscriptView showing one session's whole log."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [path for path in css_paths() if path.exists()]

    def __init__(self, store: SessionStore, session_id: str) -> None:
        super().__init__()
        self.index = LogIndex.open(store.events_path(session_id), session_id)

    def compose(self) -> ComposeResult:
        yield TranscriptView()

    def on_mount(self) -> None:
        self.query_one(TranscriptView).set_source(self.index, self.index.rehydrated_order(), [])

    def on_unmount(self) -> None:
        self.index.close()


def view_text(pilot: Pilot[Any]) -> str:
    view = pilot.app.query_one(TranscriptView)
    return "\n".join(view.render_line(y).text.rstrip() for y in range(view.size.height))


async def shown(
    make_store: Callable[..., StoreBuilder], events: Sequence[EventSpec]
) -> tuple[ViewApp, str]:
    builder = make_store()
    builder.add("s1", events=list(events))
    app = ViewApp(builder.store, "s1")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        return app, view_text(pilot)


async def test_html_in_an_answer_shows_literally(
    make_store: Callable[..., StoreBuilder],
) -> None:
    _, text = await shown(
        make_store,
        [
            user("show it"),
            assistant("verbatim: <script>alert(1)</script>"),
            assistant("<div>\nblock html\n</div>\n\nand **bold** and `<b>code</b>`"),
        ],
    )
    assert "verbatim: <script>alert(1)</script>" in text
    assert "<div>" in text
    assert "block html" in text
    assert "</div>" in text
    # Markdown itself still renders: emphasis markers and backticks are gone
    assert "and bold and <b>code</b>" in text
    assert "**" not in text


async def test_a_collapsed_tool_card_shows_its_first_output_lines_as_lines(
    make_store: Callable[..., StoreBuilder],
) -> None:
    diff = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-old\n+new\n context"
    _, text = await shown(
        make_store,
        [
            user("patch it"),
            ("tool_call", {"id": "c1", "name": "edit", "arguments": '{"path":"app.py"}'}),
            ("tool_result", {"toolCallId": "c1", "name": "edit", "output": diff}),
        ],
    )
    lines = [line.strip() for line in text.splitlines()]
    start = lines.index("--- a/app.py")
    assert lines[start : start + 4] == [
        "--- a/app.py",
        "+++ b/app.py",
        "@@ -1,2 +1,2 @@",
        "… 3 more lines",
    ]
    assert "-old" not in lines  # collapsed: only the first lines


async def test_one_hidden_line_is_one_more_line(make_store: Callable[..., StoreBuilder]) -> None:
    _, text = await shown(
        make_store,
        [
            user("list it"),
            ("tool_call", {"id": "c1", "name": "exec_command", "arguments": '{"cmd":"ls"}'}),
            ("tool_result", {"toolCallId": "c1", "name": "exec_command", "output": "a\nb\nc\nd"}),
        ],
    )
    assert "… 1 more line" in text
    assert "more lines" not in text
