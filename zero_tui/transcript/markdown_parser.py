"""How session Markdown is parsed wherever it is read: one parser configuration.

CommonMark with tables and strikethrough, raw HTML off: session text is data, so
`<script>` or `</details>` in an answer is shown as written, never taken as markup. The
transcript's stored rows, the live turn and /copy's code blocks all use `markdown_parser`;
the html export's markdown-it.rs renderer enables the same rules (a test in
tests/test_export.py compares the two). No Textual or Rich import here.
"""

from __future__ import annotations

from markdown_it import MarkdownIt


def markdown_parser() -> MarkdownIt:
    """A new parser: CommonMark + tables + strikethrough, raw HTML off."""
    return MarkdownIt("commonmark", {"html": False}).enable(["strikethrough", "table"])
