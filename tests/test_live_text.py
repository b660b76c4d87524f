"""Streamed answer text cut into Markdown pages (issue 18, item 9): `agent.live_text`."""

from __future__ import annotations

import random

import pytest
from markdown_it import MarkdownIt

from zero_tui.agent.live_text import HARD_LIMIT, PAGE_CHARS, LiveText


def streamed(text: str, pieces: int = 1, **limits: int) -> LiveText:
    live = LiveText(**limits)
    for start in range(0, len(text), pieces):
        live.append(text[start : start + pieces])
    return live


def whole(live: LiveText) -> str:
    return "".join(live.pages) + live.tail


def blocks(markdown: str) -> list[tuple[str, str]]:
    """The top-level blocks Markdown makes of `markdown`: (type, content)."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [(token.type, token.content) for token in tokens if token.level == 0 and token.content]


@pytest.mark.parametrize("pieces", [1, 7, 1000])
def test_pages_end_between_paragraphs_and_add_up_to_the_text(pieces: int) -> None:
    rng = random.Random(5)
    text = "".join(
        rng.choice(["word ", "word\n", "\n\n", "# head\n", "- item\n"]) for _ in range(20_000)
    )
    live = streamed(text, pieces)
    assert whole(live) == text
    assert live.length == len(text)
    assert len(live.pages) > 10
    for page in live.pages:
        assert page.endswith("\n\n")  # a blank line: where one block ends
        assert len(page) < PAGE_CHARS + 200


def test_each_page_renders_alone_as_within_the_whole() -> None:
    paragraphs = [f"Paragraph {n} says *something* about `code`." for n in range(300)]
    text = "\n\n".join(paragraphs) + "\n"
    live = streamed(text, 3)
    rendered = [block for page in [*live.pages, live.tail] for block in blocks(page)]
    assert rendered == blocks(text)


def test_a_blank_line_inside_a_code_fence_is_no_page_break() -> None:
    code = "".join(f"    line {n}\n\n" for n in range(400))  # blank lines in the code
    text = "Before.\n\n```python\n" + code + "```\n\nAfter.\n"
    live = streamed(text, 5)
    assert whole(live).replace("```\n```python\n", "") == text  # closed, opened again
    for page in live.pages:
        assert page.count("```") % 2 == 0, "a page closes the fences it opens"
    rendered = [block for page in [*live.pages, live.tail] for block in blocks(page)]
    code_blocks = [content for kind, content in rendered if kind == "fence"]
    assert "".join(code_blocks) == code  # the code, cut in pages, all in code blocks


def test_a_long_paragraph_with_no_break_is_cut_at_a_newline() -> None:
    text = "".join(f"line {n} of one paragraph\n" for n in range(1000))
    live = streamed(text)
    assert whole(live) == text
    for page in live.pages:
        assert page.endswith("\n")
        assert len(page) < HARD_LIMIT + len("line 999 of one paragraph\n")


def test_one_line_longer_than_the_limit_is_cut_where_it_is() -> None:
    live = streamed("x" * 10_001)
    assert [len(page) for page in live.pages] == [HARD_LIMIT, HARD_LIMIT]
    assert live.tail == "x" * (10_001 - 2 * HARD_LIMIT)


def test_the_work_per_character_does_not_grow_with_the_answer() -> None:
    """Each append looks at what arrived (and at most a page more when one settles)."""
    calls = 0
    original = LiveText._settle

    def counting(self: LiveText, offset: int, open_fence: str | None) -> None:
        nonlocal calls
        calls += len(self.tail)
        original(self, offset, open_fence)

    LiveText._settle = counting  # type: ignore[method-assign]
    try:
        for size in (50_000, 200_000):
            calls = 0
            live = streamed("".join("\n\n" if n % 50 == 49 else "x" for n in range(size)))
            assert calls <= 2 * size  # the joins a settle makes, in all
            assert len(live.tail) < PAGE_CHARS + 100
    finally:
        LiveText._settle = original  # type: ignore[method-assign]
