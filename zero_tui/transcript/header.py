"""The transcript's header line: what the screen shows above the rows, worded as elsewhere.

No Textual or Rich import: the screen calls this with what its workers loaded.
"""

from __future__ import annotations

from datetime import datetime

from zero_tui.store import Metadata
from zero_tui.store.token_counts import Tokens
from zero_tui.text.cells import cell_width
from zero_tui.text.labels import compact_count, event_count_label, middle_cut, time_label
from zero_tui.text.sanitize import home_relative, sanitize_line

FACT_SEPARATOR = "  ·  "


RUNNING_MARK = "●"


def token_facts(tokens: Tokens) -> str:
    """`tokens 20.6k in (18.6k cached) · 507 out`: a session's usage at a glance (input
    includes the cached tokens, as Zero counts it)."""
    cached = f" ({compact_count(tokens.cached)} cached)" if tokens.cached else ""
    return f"tokens {compact_count(tokens.input)} in{cached} · {compact_count(tokens.output)} out"


def header_facts(
    session_id: str,
    meta: Metadata | None,
    shown: int | None,
    now: datetime,
    *,
    running: str | None = None,
    tokens: Tokens | None = None,
    width: int | None = None,
) -> str:
    """`id  ·  ● running …  ·  model · provider  ·  14 shown · 24 in the log  ·  tokens
    20.6k in (18.6k cached) · 507 out  ·  kind  ·  cwd  ·  updated …`.

    `shown` is the number of events of the compaction-aware view, None while the whole log
    is still being indexed. `running`: where an agent is writing the session now
    (agent.running's `describe()`), None when nothing is. `tokens`: the session's usage
    events added up (None while they are read; no fact when the session has none). The
    time is local, as in the picker. `width`: the line's cells; the model and provider are
    cut first, then the id, so the events and tokens stay on it (the line's ellipsis cuts
    what follows them).
    """
    facts = [sanitize_line(session_id)]
    if running is not None:
        facts.append(f"{RUNNING_MARK} running {sanitize_line(running)}")
    if meta is None:
        return FACT_SEPARATOR.join(facts)
    model = " · ".join(sanitize_line(part) for part in (meta.model_id, meta.provider) if part)
    count = event_count_label(shown, meta.event_count) if shown is not None else None
    facts += [model or "no model", count or "loading earlier events…"]
    if tokens is not None and tokens.requests:
        facts.append(token_facts(tokens))
    if width is not None:
        model_at = len(facts) - (3 if tokens is not None and tokens.requests else 2)
        facts = _fit(facts, model_at, width)
    if meta.session_kind:
        facts.append(sanitize_line(meta.session_kind))
    if meta.cwd:
        facts.append(home_relative(sanitize_line(meta.cwd)))
    when = time_label(meta.updated_at, now, now.tzinfo) or sanitize_line(meta.updated_at)
    facts.append("updated " + when)
    return FACT_SEPARATOR.join(facts)


ID_CELLS_KEPT = 16  # a session id is cut in its middle to no fewer cells than this


def _fit(facts: list[str], model_at: int, width: int) -> list[str]:
    """The facts so far (the id to the tokens) in `width` cells, and one more for the
    ellipsis of the line that goes on: the model's fact is cut at its end, or dropped, then
    the id is cut in its middle."""
    over = cell_width(FACT_SEPARATOR.join(facts)) - (width - 1)
    if over <= 0:
        return facts
    model = facts[model_at]
    if over >= cell_width(model) - 1:
        del facts[model_at]
        over -= cell_width(model) + len(FACT_SEPARATOR)
    else:
        facts[model_at] = _end_cut(model, cell_width(model) - over - 1) + "…"
        over = 0
    if over > 0:
        session_id = facts[0]
        facts[0] = middle_cut(session_id, max(len(session_id) - over, ID_CELLS_KEPT))
    return facts


def _end_cut(text: str, cells: int) -> str:
    cut = ""
    for char in text:
        if cell_width(cut + char) > cells:
            break
        cut += char
    return cut.rstrip()
