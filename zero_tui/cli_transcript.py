"""The `show`, `export` and `usage` subcommands: a session's transcript and its tokens.

Imported by `zero_tui.cli` only when one of them runs (see its `implemented_in`), so that a
`sessions` or a `search` starts without the renderers and the exporters.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, TextIO

from zero_tui.atomic import AtomicWriteError, DestinationExists
from zero_tui.cli import (
    EXIT_DATA_ERROR,
    EXIT_OK,
    PROG,
    UsageError,
    _session_store,
    _store,
    _table,
    _workspace,
)
from zero_tui.store import SessionStore
from zero_tui.store.resumable import resolve_session
from zero_tui.store.session_flags import flag_facts, parent_tags, read_flags
from zero_tui.store.workspace import workspace_matches
from zero_tui.text.labels import counted
from zero_tui.text.sanitize import escape_json_controls, sanitize_line
from zero_tui.transcript.export import (
    ExportResult,
    display_rows,
    export_session,
    export_to_stream,
    json_pieces,
    open_session,
)
from zero_tui.transcript.export_formats import ExportFormatError
from zero_tui.transcript.render_text import iter_transcript_text
from zero_tui.transcript.usage_report import usage_report

if TYPE_CHECKING:
    from zero_tui.store.token_counts import Tokens


def cmd_show(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:

    # streamed from the log, one event at a time: memory stays flat whatever its length
    store, session_id = _session_store(args)
    usage = None if args.json else _session_tokens(store, session_id)
    with open_session(store, session_id, raw=args.raw) as source:
        if source.fallback is not None:
            err.write(f"{PROG}: {sanitize_line(f'showing the raw log: {source.fallback}')}\n")
        if args.json:
            out.writelines(json_pieces(source.events()))
        else:
            rows = display_rows(source.events())
            book = read_flags(store.root)
            if book.warning:
                err.write(f"{PROG}: {sanitize_line(book.warning)}\n")
            text = iter_transcript_text(
                source.meta,
                rows,
                usage=usage,
                kept=flag_facts(book.of(session_id)),
                parent_note=parent_tags(book, source.meta.parent_session_id),
            )
            out.writelines(text)
    return EXIT_OK


def _session_tokens(store: SessionStore, session_id: str) -> Tokens | None:
    """One session's tokens as `sessions --json` counts them (remembered in the catalog);
    None when its log cannot be read."""
    from zero_tui.picker.session_usage import session_usage
    from zero_tui.search.catalog import SessionCatalog

    with SessionCatalog(store) as catalog:
        return session_usage(catalog, [session_id]).get(session_id)


def cmd_export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:

    store, session_id = _session_store(args)
    to_stdout = args.output == "-"
    result: ExportResult
    try:
        if to_stdout:
            out.flush()
            result = export_to_stream(
                store, session_id, out.buffer, fmt=args.format, redact=args.redact
            )
        else:
            result = export_session(
                store,
                session_id,
                fmt=args.format,
                path=args.output,
                workspace=_workspace(args),
                now=datetime.now().astimezone(),
                force=args.force,
                redact=args.redact,
            )
    except ExportFormatError as error:
        raise UsageError(str(error)) from None
    except DestinationExists as error:
        where = sanitize_line(error.path)
        err.write(f"{PROG}: {where} already exists; --force replaces it\n")
        return EXIT_DATA_ERROR
    except AtomicWriteError as error:
        err.write(f"{PROG}: {sanitize_line(str(error))}\n")
        return EXIT_DATA_ERROR
    if result.notice:
        err.write(f"{PROG}: {sanitize_line(result.notice)}\n")
    if result.redacted is not None:
        err.write(f"{PROG}: redacted: {result.redacted.note()}\n")
    if not to_stdout:
        out.write(f"wrote transcript to {sanitize_line(result.path)}\n")
    return EXIT_OK


def _usage_since(args: argparse.Namespace) -> str:
    """Zero's cutoff: --since wins; --days N is today (UTC) and the N-1 days before."""
    if args.since is not None:
        try:
            datetime.strptime(args.since, "%Y-%m-%d")
        except ValueError:
            raise UsageError(f"--since wants a day as YYYY-MM-DD, not {args.since!r}") from None
        return str(args.since)
    if args.days is not None:
        if args.days < 0:
            raise UsageError("--days wants a number of days, 0 or more")
        if args.days > 0:
            return (datetime.now(UTC) - timedelta(days=args.days - 1)).strftime("%Y-%m-%d")
    return ""


def cmd_usage(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from zero_tui.agent.zero_commands import estimate_cost  # the agent engine: only here

    store = _store(args)
    since = _usage_since(args)
    workspace = _workspace(args)
    if args.session is not None:
        session_id, meta = resolve_session(store, args.session, workspace)
        sessions = [meta]
        scope = f"session {session_id}"
    else:
        sessions = store.list()
        if not args.all:
            sessions = [meta for meta in sessions if workspace_matches(meta.cwd, workspace)]
        scope = "every workspace" if args.all else workspace or "this workspace"
    report = usage_report(store, sessions, since=since)
    estimate = estimate_cost(
        store,
        report.total,
        since=since,
        session_id=sessions[0].session_id if args.session is not None else "",
        every_workspace=args.all,
    )
    cost = estimate.cost
    cost_note = estimate.note + (": --session or --all" if estimate.out_of_scope else "")
    for skipped in report.skipped:
        err.write(f"{PROG}: {sanitize_line(skipped.reason)}: not counted\n")
    if args.json:
        document: dict[str, Any] = {
            "scope": scope,
            "since": since or None,
            "sessions": report.sessions,
            "total": report.total.to_json(),
            "days": [{"date": day, **t.to_json()} for day, t in sorted(report.by_day.items())],
            "models": _ranked(report.by_model, "model"),
            "workspaces": _ranked(report.by_workspace, "cwd"),
            "topSessions": _ranked(report.by_session, "sessionId")[:20],
            "estimatedCost": None
            if cost is None
            else {"total": cost.total, "days": cost.by_day, "source": "zero usage report"},
            "skipped": [
                {"sessionId": item.session_id, "reason": item.reason} for item in report.skipped
            ],
        }
        out.write(escape_json_controls(json.dumps(document, ensure_ascii=False, indent=2)) + "\n")
        return EXIT_OK
    where = f"since {since}" if since else "all time"
    out.write(f"usage in {sanitize_line(scope)}, {where}: {counted(report.sessions, 'session')}\n")

    def figures(tokens: Tokens) -> list[str]:
        return [
            f"{tokens.requests:,}",
            f"{tokens.input:,}",
            f"{tokens.cached:,}",
            f"{tokens.output:,}",
            f"{tokens.total:,}",
        ]

    numbers = ["REQUESTS", "INPUT", "CACHED", "OUTPUT", "TOTAL"]
    for title, rows in (
        ("DAY (UTC)", sorted(report.by_day.items())),
        ("MODEL", sorted(report.by_model.items(), key=lambda item: -item[1].total)),
        ("WORKSPACE", sorted(report.by_workspace.items(), key=lambda item: -item[1].total)),
    ):
        if not rows:
            continue
        out.write("\n")
        table = [[sanitize_line(name) or "-", *figures(tokens)] for name, tokens in rows]
        table.append(["total", *figures(report.total)])
        lines = _table([title, *numbers], table, right=numbers)
        out.writelines(line + "\n" for line in lines)
    if cost is not None and cost.total:
        out.write(f"\nestimated cost (Zero's estimate, zero usage report): ${cost.total:.4f}\n")
    elif cost is not None:
        out.write("\nestimated cost: none (Zero's price table knows none of these models)\n")
    if cost_note:
        err.write(f"{PROG}: {sanitize_line(cost_note)}\n")
    return EXIT_OK


def _ranked(buckets: dict[str, Any], key: str) -> list[dict[str, Any]]:
    ordered = sorted(buckets.items(), key=lambda item: (-item[1].total, item[0]))
    return [{key: name, **tokens.to_json()} for name, tokens in ordered]
