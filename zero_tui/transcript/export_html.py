"""The html export: one self-contained page (design §3.6).

Inline CSS only — no script, no font, no image, nothing fetched — and a Content Security
Policy that forbids all of it anyway. Every piece of session text is escaped; answers and
summaries (Markdown) are rendered by markdown-it-py with raw HTML disabled, so `<script>` in
them is shown as text, and Markdown images become plain links so that opening the file
fetches nothing. Tool calls sit in `<details>` blocks, which open without JavaScript.
Print CSS: light colours only, no shadows, page breaks avoided inside cards, and tool cards
printed expanded (`::details-content` shown) so their output is on paper too.

No Textual or Rich import here (markdown-it-py is a plain library).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from html import escape
from typing import Literal, assert_never, get_args

from markdown_it_pyrs import MarkdownIt as FastMarkdownIt

from zero_tui.store import Metadata
from zero_tui.store.gotext import trim_space
from zero_tui.text.sanitize import sanitize_line, sanitize_text
from zero_tui.transcript.export_parts import session_facts, tool_view, turn_excerpt
from zero_tui.transcript.row_model import Row, RowKind

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'"

STYLE = """
:root {
  --bg: #f4f5f7; --card: #ffffff; --text: #1f2328; --muted: #5f6b78; --border: #d6dbe1;
  --code-bg: #f2f4f7; --user: #0969da; --zero: #1a7f37; --error: #c62828;
  --summary: #7c4dcc; --note-bg: #fff8db; --note-border: #c99a00;
  --ok-bg: #dcf5e3; --ok-text: #1a7f37; --bad-bg: #fde7e7; --bad-text: #b42318;
}
@media screen and (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1217; --card: #171b22; --text: #e4e8ee; --muted: #97a1ad; --border: #2d333c;
    --code-bg: #11151b; --user: #58a6ff; --zero: #3fb950; --error: #ff7b72;
    --summary: #b392f0; --note-bg: #2b2412; --note-border: #9e7a12;
    --ok-bg: #12301d; --ok-text: #56d364; --bad-bg: #3a1717; --bad-text: #ff9492;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 15px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
    sans-serif;
}
main { max-width: 920px; margin: 0 auto; padding: 32px 24px 56px; }
code, pre, .mono {
  font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono",
    monospace;
}
header.session {
  background: var(--card); border: 1px solid var(--border); border-radius: 10px;
  padding: 18px 22px; margin-bottom: 8px;
}
header.session .app { color: var(--muted); font-size: 12px; letter-spacing: .08em;
  text-transform: uppercase; margin-bottom: 4px; }
h1 { font-size: 24px; line-height: 1.3; margin: 0 0 12px; overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 18px;
  margin: 0; font-size: 13.5px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.notice { background: var(--note-bg); border: 1px solid var(--note-border);
  border-left-width: 4px; border-radius: 8px; padding: 8px 14px; margin: 14px 0;
  font-size: 14px; overflow-wrap: anywhere; }
section.turn { margin-top: 30px; }
h2.turn-title { font-size: 13px; font-weight: 600; color: var(--muted); margin: 0 0 10px;
  padding-bottom: 6px; border-bottom: 1px solid var(--border); overflow-wrap: anywhere; }
h2.turn-title .no { text-transform: uppercase; letter-spacing: .08em; margin-right: 8px;
  color: var(--text); }
.card { background: var(--card); border: 1px solid var(--border); border-left-width: 4px;
  border-radius: 8px; padding: 10px 16px 12px; margin: 10px 0; }
.card > .who { font-size: 12px; font-weight: 700; letter-spacing: .08em;
  text-transform: uppercase; margin-bottom: 4px; }
.card.user { border-left-color: var(--user); } .card.user > .who { color: var(--user); }
.card.assistant { border-left-color: var(--zero); }
.card.assistant > .who { color: var(--zero); }
.card.error { border-left-color: var(--error); } .card.error > .who { color: var(--error); }
.card.summary { border-left-color: var(--summary); }
.card.summary > .who { color: var(--summary); }
.card.system { background: transparent; border-style: dashed; border-left-style: solid;
  color: var(--muted); font-size: 14px; }
.plain { white-space: pre-wrap; overflow-wrap: anywhere; }
.attachments { color: var(--muted); font-size: 13px; margin-top: 6px; }
.event { color: var(--muted); font-size: 13.5px; margin: 6px 0 6px 2px;
  overflow-wrap: anywhere; }
.event .label { font-weight: 600; color: var(--text); }
.event .detail { white-space: pre-wrap; }
.md > :first-child { margin-top: 0; } .md > :last-child { margin-bottom: 0; }
.md p, .md ul, .md ol, .md blockquote, .md table, .md pre { margin: 8px 0; }
.md ul, .md ol { padding-left: 26px; }
.md blockquote { margin-left: 0; padding: 0 12px; border-left: 3px solid var(--border);
  color: var(--muted); }
.md h1, .md h2, .md h3, .md h4, .md h5, .md h6 { font-size: 16px; margin: 14px 0 6px; }
.md h1 { font-size: 19px; } .md h2 { font-size: 17px; }
.md table { border-collapse: collapse; display: block; overflow-x: auto; }
.md th, .md td { border: 1px solid var(--border); padding: 4px 10px; }
.md a { color: var(--user); overflow-wrap: anywhere; }
.md hr { border: 0; border-top: 1px solid var(--border); }
code { background: var(--code-bg); border-radius: 4px; padding: .1em .35em;
  font-size: .88em; overflow-wrap: anywhere; }
pre { background: var(--code-bg); border: 1px solid var(--border); border-radius: 6px;
  padding: 10px 12px; overflow-x: auto; font-size: 12.5px; line-height: 1.5;
  tab-size: 4; }
pre code { background: none; padding: 0; font-size: inherit; overflow-wrap: normal; }
details.tool { background: var(--card); border: 1px solid var(--border); border-radius: 8px;
  margin: 8px 0; }
details.tool > summary { cursor: pointer; padding: 7px 12px; font-size: 13.5px;
  overflow-wrap: anywhere; }
details.tool > summary .name { font-weight: 700; }
details.tool > summary code { font-size: 12.5px; }
details.tool[open] > summary { border-bottom: 1px solid var(--border); }
.tool-body { padding: 4px 14px 10px; }
.tool-body .part { font-size: 12px; font-weight: 700; color: var(--muted);
  text-transform: uppercase; letter-spacing: .06em; margin: 10px 0 4px; }
.tool-body pre { margin: 0; }
.tool-body .arg { font-size: 13px; margin: 8px 0 2px; overflow-wrap: anywhere; }
.tool-body .arg .key { font-weight: 600; color: var(--muted); margin-right: 4px; }
.tool-body .files { font-size: 13px; margin-top: 8px; }
.status { display: inline-block; border-radius: 999px; padding: 0 8px; font-size: 12px;
  font-weight: 600; background: var(--ok-bg); color: var(--ok-text); margin-left: 6px; }
.status.bad { background: var(--bad-bg); color: var(--bad-text); }
.status.none { background: var(--code-bg); color: var(--muted); }
.empty { color: var(--muted); font-style: italic; font-size: 13px; }
footer { color: var(--muted); font-size: 12px; text-align: center; margin-top: 40px; }
@media print {
  :root {
    --bg: #fff; --card: #fff; --text: #000; --muted: #444; --border: #bbb;
    --code-bg: #f5f5f5; --user: #0550ae; --zero: #116329; --error: #a40e26;
    --summary: #6639ba; --note-bg: #fff; --note-border: #9a6700;
    --ok-bg: #fff; --ok-text: #116329; --bad-bg: #fff; --bad-text: #a40e26;
  }
  @page { margin: 16mm 14mm; }
  body { background: #fff; color: #000; font-size: 10.5pt; }
  main { max-width: none; padding: 0; }
  header.session, .card, details.tool, .notice, .event, pre { break-inside: avoid; }
  h2.turn-title { break-after: avoid; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; overflow: visible; }
  .status { border: 1px solid currentColor; }
  details.tool > summary { cursor: auto; list-style: none; }
  details.tool > summary::-webkit-details-marker { display: none; }
  details.tool::details-content { content-visibility: visible; display: block; }
  .md a { color: inherit; }
}
""".strip()


# markdown-it.rs (markdown-it-pyrs), with what markdown-it-py's "commonmark" preset enables
# (raw HTML off) plus tables and strikethrough: the same HTML as markdown-it-py for real
# answers, ~50x faster (a property test in tests/test_export.py compares the two).
MarkdownRule = Literal[
    "blockquote",
    "code",
    "fence",
    "heading",
    "hr",
    "lheading",
    "list",
    "paragraph",
    "reference",
    "autolink",
    "backticks",
    "emphasis",
    "entity",
    "escape",
    "image",
    "link",
    "newline",
    "table",
    "strikethrough",
]
MARKDOWN_RULES: tuple[MarkdownRule, ...] = get_args(MarkdownRule)

_RENDERED_IMAGE = re.compile(r'<img src="([^"]*)" alt="([^"]*)"(?: title="[^"]*")? />')


def _image_as_link(match: re.Match[str]) -> str:
    """A Markdown image, as a link: opening the export must fetch nothing."""
    source, alt = match.group(1), match.group(2)
    return f'<a class="image-link" href="{source}">[image: {alt or source}]</a>'


@lru_cache(maxsize=1)
def markdown_renderer() -> FastMarkdownIt:
    renderer = FastMarkdownIt("zero")
    renderer.enable_many(list(MARKDOWN_RULES))
    return renderer


def markdown_html(text: str) -> str:
    """CommonMark HTML of `text`, raw HTML escaped, images as links, unsafe links refused."""
    return _RENDERED_IMAGE.sub(_image_as_link, markdown_renderer().render(text))


# Text with none of these characters, no indented or space-ended line and no line that
# starts with "1." or "1)", is plain paragraphs to CommonMark: it renders the same without
# the parser, ~50x faster (checked against markdown-it in the tests).
_MARKDOWN_SYNTAX = re.compile(
    r"[\\`*_\[\]<>#+\-=|~!&\t\r\x00]|^[^\S\n]|[^\S\n]$|^[0-9]{1,9}[.)]", re.MULTILINE
)
_BLANK_LINES = re.compile(r"\n{2,}")


def plain_paragraphs(text: str) -> str | None:
    """CommonMark's HTML for text with no Markdown syntax in it, or None when it has some."""
    if _MARKDOWN_SYNTAX.search(text):
        return None
    paragraphs = _BLANK_LINES.split(text.strip("\n"))
    return "".join(
        "<p>" + paragraph.replace('"', "&quot;") + "</p>\n" for paragraph in paragraphs if paragraph
    )


@lru_cache(maxsize=512)
def render_markdown(text: str) -> str:
    """Session Markdown as HTML: raw HTML escaped, unsafe link schemes refused; plain text
    skips the parser (`plain_paragraphs`)."""
    clean = sanitize_text(text)
    plain = plain_paragraphs(clean)
    if plain is not None:
        return plain
    return markdown_html(clean)


def _e(text: str) -> str:
    return escape(sanitize_text(text), quote=True)


def _e_line(text: str) -> str:
    return escape(sanitize_line(text), quote=True)


def _plain(text: str) -> str:
    return f'<div class="plain">{_e(text.strip(chr(10)))}</div>'


def _status_badge(status: str, failed: bool) -> str:
    css = "bad" if failed else ("none" if status == "no result" else "ok")
    return f'<span class="status {css}">{_e_line(status)}</span>'


def _tool(row: Row) -> str:
    view = tool_view(row)
    summary = f'<span class="name">{_e_line(view.name)}</span>'
    if view.target:
        summary += f" <code>{_e_line(view.target)}</code>"
    if view.secondary:
        summary += f" <code>{_e_line(view.secondary)}</code>"
    summary += _status_badge(view.status, view.failed)
    body: list[str] = []
    if view.arguments:
        body.append(
            f'<div class="part">Arguments</div><pre><code>{_e(view.arguments)}</code></pre>'
        )
    for name, value in view.argument_fields:
        if "\n" in value:
            text = _e(value.rstrip("\n"))
            body.append(f'<div class="part">{_e_line(name)}</div><pre><code>{text}</code></pre>')
        else:
            body.append(
                f'<div class="arg"><span class="key">{_e_line(name)}</span> '
                f"<code>{_e_line(value)}</code></div>"
            )
    if row.kind is RowKind.TOOL_RESULT:
        label = "Diff" if view.output_is_diff else "Output"
        if trim_space(view.output):
            text = _e(view.output.rstrip("\n"))
            body.append(f'<div class="part">{label}</div><pre><code>{text}</code></pre>')
        else:
            body.append('<div class="empty">no output</div>')
    if view.changed_files:
        files = ", ".join(f"<code>{_e_line(path)}</code>" for path in view.changed_files)
        body.append(f'<div class="files">Changed files: {files}</div>')
    body += [f'<div class="empty">{_e_line(note)}</div>' for note in view.notes]
    return (
        f'<details class="tool"><summary>{summary}</summary>'
        f'<div class="tool-body">{"".join(body)}</div></details>\n'
    )


def _card(css: str, who: str, inner: str) -> str:
    return f'<article class="card {css}"><div class="who">{who}</div>{inner}</article>\n'


def html_row(row: Row) -> str:
    match row.kind:
        case RowKind.USER:
            inner = _plain(row.text)
            if not row.attachments.empty:
                inner += f'<div class="attachments">{_e_line(row.attachments.label())}</div>'
            return _card("user", "You", inner)
        case RowKind.ASSISTANT:
            return _card("assistant", "Zero", f'<div class="md">{render_markdown(row.text)}</div>')
        case RowKind.ERROR:
            return _card("error", "Error", _plain(row.text))
        case RowKind.TOOL_CALL | RowKind.TOOL_RESULT:
            return _tool(row)
        case RowKind.SUMMARY:
            inner = f'<div class="md">{render_markdown(row.text)}</div>'
            return _card("summary", "Summary of the earlier conversation", inner)
        case RowKind.SYSTEM | RowKind.FORK | RowKind.PEER | RowKind.CARD:
            if not trim_space(sanitize_text(row.text)):
                return ""
            return _card("system", "Note", _plain(row.text))
        case RowKind.WELCOME | RowKind.PERMISSION | RowKind.ASK_USER | RowKind.SPECIALIST:
            return _event(row)
        case _:
            assert_never(row.kind)


def _event(row: Row) -> str:
    """A label line, then the details (a permission's decision, the questions asked…)."""
    if not trim_space(sanitize_text(row.text)):
        return ""
    detail = ""
    text = row.detail
    if trim_space(text):
        detail = f'<div class="detail">{_e(text.strip(chr(10)))}</div>'
    label = f'<span class="label">{_e_line(row.text)}</span>'
    return f'<div class="event {row.kind.value}">{label}{detail}</div>\n'


def html_pieces(
    meta: Metadata,
    event_count: int,
    rows: Sequence[Row],
    notice: str | None,
    redaction: str | None = None,
) -> Iterator[str]:
    title = trim_space(meta.title) or "untitled"
    yield (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{_e_line(title)} — Zero transcript</title>\n"
        f"<style>\n{STYLE}\n</style>\n</head>\n<body>\n<main>\n"
    )
    facts = "".join(
        f"<dt>{fact.label}</dt><dd>"
        + (f"<code>{_e_line(fact.value)}</code>" if fact.code else _e_line(fact.value))
        + "</dd>"
        for fact in session_facts(meta, event_count)
    )
    yield (
        '<header class="session"><div class="app">Zero session transcript</div>'
        f'<h1>{_e_line(title)}</h1><dl class="facts">{facts}</dl></header>\n'
    )
    if redaction:
        note = f"<strong>Redacted:</strong> {_e_line(redaction)}"
        yield f'<div class="notice redaction">{note}</div>\n'
    if notice:
        yield f'<div class="notice"><strong>Note:</strong> {_e_line(notice)}</div>\n'
    yield '<section class="turn preamble">\n'
    for row in rows:
        if row.kind is RowKind.USER:
            excerpt = turn_excerpt(row.text)
            heading = f'<span class="no">Turn {row.turn}</span>{_e_line(excerpt)}'
            yield (
                f'</section>\n<section class="turn" id="turn-{row.turn}">\n'
                f'<h2 class="turn-title">{heading}</h2>\n'
            )
        yield html_row(row)
    yield (
        "</section>\n<footer>Exported from Zero session "
        f"<code>{_e_line(meta.session_id)}</code> by zero-tui</footer>\n"
        "</main>\n</body>\n</html>\n"
    )
