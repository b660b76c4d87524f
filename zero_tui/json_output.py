"""The command line's JSON output: arrays with one compact object a line (readable,
greppable), and a session as scripts see it (`sessions --json`).

Encoded by json's C encoder, made once; a listing of 10,000 sessions writes each line from
one template of its keys. Every control character is escaped (json leaves DEL and C1 raw).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Container, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from zero_tui.store.session_flags import EMPTY_BOOK, NO_FLAGS, FlagBook, SessionFlags
from zero_tui.text.sanitize import escape_json_controls

if TYPE_CHECKING:
    from zero_tui.store.models import Metadata
    from zero_tui.store.token_counts import Tokens


def _compact_encoder() -> Callable[[object], str]:
    """json's C encoder itself, made once (`JSONEncoder.encode` makes one for every item),
    with no check for cycles (items are JSON values built here): a fifth of a 10,000-line
    listing's encoding."""
    encoder = json.JSONEncoder(ensure_ascii=False, check_circular=False)
    make = json.encoder.c_make_encoder  # type: ignore[attr-defined]
    if make is None:  # an interpreter without the C encoder
        return encoder.encode
    encode = make(
        None, encoder.default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True
    )
    return lambda value: "".join(encode(value, 0))


encode_json = _compact_encoder()


def write_json_array(items: Sequence[object], out: TextIO) -> None:
    """A JSON array with one compact object per line: readable, greppable, and encoded by
    json's C encoder (an indented dump falls back to the pure-Python one, 5x slower)."""
    write_json_lines(list(map(encode_json, items)), out)


def write_json_lines(lines: Sequence[str], out: TextIO) -> None:
    """`write_json_array` of items already encoded, a line each. Every control character
    is escaped (json leaves DEL and C1 raw)."""
    body = ",\n".join(lines)
    out.write("[\n" + escape_json_controls(body) + ("\n]\n" if lines else "]\n"))


_SUMMARY_FIELDS = (
    ("sessionId", "session_id"),
    ("title", "title"),
    ("cwd", "cwd"),
    ("createdAt", "created_at"),
    ("updatedAt", "updated_at"),
    ("eventCount", "event_count"),
    ("lastEventType", "last_event_type"),
    ("modelId", "model_id"),
    ("provider", "provider"),
    ("sessionKind", "session_kind"),
    ("parentSessionId", "parent_session_id"),
)
"""The stable JSON shape of one session for scripts (then `running`, `usage`, and zero-tui's
own `pinned`, `archived` and `tags`)."""


def session_summary(
    meta: Metadata,
    *,
    running: bool = False,
    usage: dict[str, int] | None = None,
    flags: SessionFlags = NO_FLAGS,
) -> dict[str, Any]:
    """One session as `sessions --json` gives it; `usage`: its token totals (null when its
    log cannot be read)."""
    summary: dict[str, Any] = {key: getattr(meta, field) for key, field in _SUMMARY_FIELDS}
    summary["running"] = running
    summary["usage"] = usage
    summary.update(flags.to_json())
    return summary


def summary_lines(
    sessions: Sequence[Metadata],
    running: Container[str],
    usage: Mapping[str, Tokens],
    book: FlagBook = EMPTY_BOOK,
) -> list[str]:
    """`session_summary` of each session as JSON text, as `encode_json` writes it: the
    keys written once, only the values encoded, each as its type is (a third of a
    10,000-line listing's time); a session with a value neither a string nor an int (none
    comes from Go's rules) is encoded whole."""
    usage_texts: dict[tuple[int, ...], str] = {}
    bare = encode_json(NO_FLAGS.to_json())[1:-1]
    lines: list[str] = []
    for meta in sessions:
        flags = book.sessions.get(meta.session_id)
        flags_text = bare if flags is None else encode_json(flags.to_json())[1:-1]
        tokens = usage.get(meta.session_id)
        usage_text = "null"
        if tokens is not None:
            figures = tokens.figures()
            usage_text = usage_texts.get(figures) or usage_texts.setdefault(
                figures, encode_json(tokens.to_json())
            )
        is_running = meta.session_id in running
        try:
            values = [
                _encode_text(value) if type(value) is str else _json_int(value)
                for value in _summary_values(meta)
            ]
            head = _SUMMARY_HEAD % tuple(values)
        except TypeError:
            figures_json = None if tokens is None else tokens.to_json()
            whole = session_summary(
                meta, running=is_running, usage=figures_json, flags=flags or NO_FLAGS
            )
            lines.append(encode_json(whole))
            continue
        state = "true" if is_running else "false"
        lines.append(f'{head}, "running": {state}, "usage": {usage_text}, {flags_text}}}')
    return lines


def _json_int(value: object) -> str:
    if type(value) is not int:
        raise TypeError("not an int")
    return int.__repr__(value)


_summary_values = operator.attrgetter(*(field for _, field in _SUMMARY_FIELDS))
_encode_text = json.encoder.encode_basestring
_SUMMARY_HEAD = "".join(  # the keys, each before a slot for its value's text
    ("{" if number == 0 else ", ") + _encode_text(key) + ": %s"
    for number, (key, _) in enumerate(_SUMMARY_FIELDS)
)
