"""The one Markdown parser configuration of session text (transcript, live turn, /copy)."""

from __future__ import annotations

from zero_tui.transcript.answers import code_blocks
from zero_tui.transcript.markdown_parser import markdown_parser


def test_raw_html_is_text_and_tables_and_strikethrough_are_on() -> None:
    html = markdown_parser().render(
        "<script>alert(1)</script>\n\n~~gone~~ see https://example.com\n\n| a |\n|---|\n| b |\n"
    )
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>" not in html
    assert "<s>gone</s>" in html
    assert 'href="https://example.com"' not in html  # no linkify: a bare URL stays text
    assert "<table>" in html
    assert "<td>b</td>" in html


def test_each_call_gives_a_parser_of_its_own() -> None:
    first, second = markdown_parser(), markdown_parser()
    assert first is not second
    assert first.get_active_rules() == second.get_active_rules()


def test_copy_finds_the_code_blocks_the_transcript_shows_inside_html() -> None:
    # with raw HTML on, `<div>` would open an HTML block that swallows the fence
    answer = "<div>\n```py\nprint(1)\n```\n</div>\n"
    assert [(block.language, block.text) for block in code_blocks(answer)] == [("py", "print(1)\n")]


def test_the_transcript_view_parses_with_it() -> None:
    from zero_tui.ui.widgets.row_painter import LiteralMarkdown

    parser = LiteralMarkdown._parser
    assert parser.get_active_rules() == markdown_parser().get_active_rules()
    assert parser.options["html"] is False
