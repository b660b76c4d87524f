"""The transcript's header line: what the screen shows above the rows, worded as elsewhere.

No Textual or Rich import: the screen calls this with what its workers loaded.
"""

from __future__ import annotations

from datetime import datetime

from zero_tui.store import Metadata
from zero_tui.store.usage import Tokens
from zero_tui.text.labels import compact_count, event_count_label, time_label
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
) -> str:
    """`id  ·  ● running …  ·  model · provider  ·  14 shown · 24 in the log  ·  tokens
    20.6k in (18.6k cached) · 507 out  ·  kind  ·  cwd  ·  updated …`.

    `shown` is the number of events of the compaction-aware view, None while the whole log
    is still being indexed. `running`: where an agent is writing the session now
    (agent.running's `describe()`), None when nothing is. `tokens`: the session's usage
    events added up (None while they are read; no fact when the session has none). The
    time is local, as in the picker.
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
    if meta.session_kind:
        facts.append(sanitize_line(meta.session_kind))
    if meta.cwd:
        facts.append(home_relative(sanitize_line(meta.cwd)))
    when = time_label(meta.updated_at, now, now.tzinfo) or sanitize_line(meta.updated_at)
    facts.append("updated " + when)
    return FACT_SEPARATOR.join(facts)
