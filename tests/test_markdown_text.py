"""Session Markdown as plain text for the picker's preview (issue 25, item 21)."""

from __future__ import annotations

from zero_tui.transcript.markdown_text import markdown_as_text


def test_marks_go_and_the_words_stay() -> None:
    markdown = "## Answer 17\n\nhello **there**, `code` and [a link](https://x.example)"
    assert markdown_as_text(markdown) == "Answer 17\n\nhello there, code and a link"


def test_lists_keep_a_bullet_or_their_number_and_fences_their_code() -> None:
    markdown = "Steps:\n\n1. build\n2. test\n   - unit\n\n```sh\nmake\n```\n\n---\nend"
    assert markdown_as_text(markdown) == (
        "Steps:\n\n1. build\n2. test\n  • unit\n\nmake\n\n—\n\nend"
    )


def test_text_that_is_no_markdown_is_left_as_it_is() -> None:
    assert markdown_as_text("[link=x]y[/link] <b>raw</b>") == "[link=x]y[/link] <b>raw</b>"
    assert markdown_as_text("") == ""
