"""The `fork`, `rewind`, `delete`, `trash`, `restore` and `check` subcommands: changing the
store. With `--host`, a session of that host: rewound through Zero's own command there,
and a fork or a delete refused (Zero has no command for them).

Imported by `zero_tui.cli` only when one of them runs (see its `implemented_in`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from zero_tui.agent.guarded_delete import delete_session
from zero_tui.agent.running import refusal_while_written
from zero_tui.agent.zero_commands import ZeroCommandError, rewind, rewind_plan
from zero_tui.cli import (
    EXIT_DATA_ERROR,
    EXIT_OK,
    PROG,
    UsageError,
    _named_session,
    _session_store,
    _store,
    _table,
    _workspace,
)
from zero_tui.hosts.registry import HostError, named_hosts
from zero_tui.json_output import session_summary, write_json_array
from zero_tui.remote.host_sessions import (
    host_of_store,
    plan_rewind_on_host,
    refusal,
    rewind_on_host,
)
from zero_tui.store import SessionStore
from zero_tui.store.check import check_store, repair_store
from zero_tui.store.errors import StoreError
from zero_tui.store.fork import fork_session
from zero_tui.store.resumable import resolve_session_dir
from zero_tui.store.trash import empty_trash, find_trashed, restore, trash_contents
from zero_tui.text.labels import counted
from zero_tui.text.sanitize import escape_json_controls, sanitize_line


def _refused_on_host(args: argparse.Namespace, operation: str) -> None:
    """HostError (one line) for `operation` on a session `--host` names a host of."""
    if args.host:
        store, _session_id = _session_store(args)
        host = host_of_store(store)
        if host is not None:
            raise HostError(refusal(operation, host.name))


def cmd_fork(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    _refused_on_host(args, "fork")
    store = _store(args)
    parent = _named_session(store, args)
    refusal = refusal_while_written(store, parent, "not forking", by_log=False)
    fork = fork_session(store, parent, at_sequence=args.at, title=args.title, refuse=refusal)
    if args.json:
        out.write(escape_json_controls(json.dumps(session_summary(fork), ensure_ascii=False)))
        out.write("\n")
    else:
        at = f"#{fork.forked_from_sequence}" if fork.forked_from_sequence else "its start"
        out.write(f"forked {sanitize_line(parent)} at {at} into {fork.session_id}\n")
    return EXIT_OK


def cmd_delete(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.host:
        named_hosts(args.host)  # an unknown name is said as such
        raise HostError(refusal("delete", ", ".join(args.host)))
    store = _store(args)
    named = [
        resolve_session_dir(store, argument, _workspace(args)) for argument in args.session_ids
    ]
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError("delete asks first: pass --yes when there is no terminal to ask")
        listed = ", ".join(sanitize_line(session_id) for session_id in named)
        err.write(f"move {listed} to the trash? [y/N] ")
        err.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            err.write("nothing deleted\n")
            return EXIT_DATA_ERROR
    code = EXIT_OK
    for session_id in named:
        outcome = delete_session(store, session_id)
        if outcome.ok:
            out.write(sanitize_line(outcome.message) + "\n")
        else:
            err.write(f"{PROG}: {sanitize_line(outcome.message)}\n")
            code = EXIT_DATA_ERROR
    return code


def cmd_rewind(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Zero's plan, shown and confirmed, then Zero's rewind: on this machine, or on the
    host `--host` names (its mirror synced after)."""
    store, session_id = _session_store(args)
    host = host_of_store(store) if args.host else None
    try:
        if host is not None:
            plan = plan_rewind_on_host(host, session_id, args.at)
        else:
            busy = _rewind_refusal(store, session_id)
            if busy is not None:
                raise StoreError(busy)
            plan = rewind_plan(store, session_id, args.at)
    except ZeroCommandError as error:
        raise StoreError(str(error)) from None
    where = f" on {host.name}" if host is not None else ""
    kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(plan.dropped_types.items()))
    err.write(
        f"rewind {sanitize_line(session_id)}{where} to #{plan.target_sequence}: keeps "
        f"{counted(plan.kept, 'event')}, drops {plan.dropped}"
        + (f" ({kinds})" if kinds else "")
        + "\n"
    )
    for change in plan.files:
        err.write(f"  {change.action} {sanitize_line(change.path)}\n")
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError("rewind asks first: pass --yes when there is no terminal to ask")
        err.write("rewind? [y/N] ")
        err.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            err.write("nothing rewound\n")
            return EXIT_DATA_ERROR
    try:
        if host is not None:
            result, resync_problem = rewind_on_host(host, session_id, args.at)
            if resync_problem:
                err.write(f"{PROG}: {sanitize_line(resync_problem)}\n")
        else:
            busy = _rewind_refusal(store, session_id)  # again: time passed while asking
            if busy is not None:
                raise StoreError(busy)
            result = rewind(store, session_id, args.at)
    except ZeroCommandError as error:
        raise StoreError(str(error)) from None
    out.write(
        f"rewound {sanitize_line(session_id)}{where} to #{result.target_sequence}: "
        f"{result.restored} file(s) restored, {result.deleted} deleted, "
        f"{result.skipped} skipped\n"
    )
    return EXIT_OK


def _rewind_refusal(store: SessionStore, session_id: str) -> str | None:
    with store.locked(session_id):
        return refusal_while_written(store, session_id, "not rewinding")()


def cmd_trash(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    store = _store(args)
    if args.older_than is not None and not args.empty:
        raise UsageError("--older-than goes with --empty")
    if args.empty:
        removed = empty_trash(store, older_than_days=args.older_than)
        noun = "session" if len(removed) == 1 else "sessions"
        out.write(f"removed {len(removed):,} {noun} from the trash for good\n")
        return EXIT_OK
    contents = trash_contents(store)
    items = contents.items
    err.writelines(sanitize_line(damaged.describe()) + "\n" for damaged in contents.damaged)
    if args.json:
        write_json_array([item.to_json() for item in items], out)
        return EXIT_OK
    rows = [
        [
            item.trashed_at or "-",
            sanitize_line(item.session_id),
            sanitize_line(item.cwd) or "(no workspace)",
            sanitize_line(item.title) or "untitled",
        ]
        for item in items
    ]
    out.writelines(line + "\n" for line in _table(["TRASHED", "ID", "WORKSPACE", "TITLE"], rows))
    noun = "session" if len(items) == 1 else "sessions"
    err.write(f"{len(items):,} {noun} in the trash (zero-tui restore ID; trash --empty)\n")
    return EXIT_OK


def cmd_restore(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:

    store = _store(args)
    code = EXIT_OK
    for argument in args.session_ids:
        try:
            item = find_trashed(store, argument)
            restore(store, item)
        except StoreError as error:
            err.write(f"{PROG}: {sanitize_line(str(error))}\n")
            code = EXIT_DATA_ERROR
            continue
        out.write(f"restored {sanitize_line(item.session_id)}\n")
    return code


def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from zero_tui.search.catalog import SessionCatalog

    store = _store(args)
    session_id = None
    if args.session_id is not None:
        with SessionCatalog(store) as catalog:  # opened only for `latest`
            session_id = resolve_session_dir(store, args.session_id, _workspace(args), catalog)
    report = (repair_store if args.repair else check_store)(store, session_id)
    if args.json:
        document = {
            "root": str(report.root),
            "sessionId": session_id,  # the full id of the session named (null: the store)
            "sessionsChecked": report.sessions_checked,
            "healthy": report.healthy,
            "findings": [
                {
                    "sessionId": f.session_id,
                    "path": f.path,
                    "line": f.line,
                    "kind": f.kind,
                    "message": f.message,
                    "repairable": f.repairable,
                }
                for f in report.findings
            ],
            "repairs": [
                {"sessionId": r.session_id, "path": r.path, "action": r.action, "backup": r.backup}
                for r in report.repairs
            ],
        }
        out.write(escape_json_controls(json.dumps(document, ensure_ascii=False, indent=2)))
        out.write("\n")
        return EXIT_OK if report.healthy else EXIT_DATA_ERROR
    for repair in report.repairs:
        saved = f" (copy saved as {repair.backup})" if repair.backup else ""
        out.write(sanitize_line(f"repaired {repair.path}: {repair.action}{saved}") + "\n")
    for finding in report.findings:
        out.write(sanitize_line(f"{finding.where}: {finding.message}") + "\n")
    checked = f"{report.sessions_checked:,} session" + ("" if report.sessions_checked == 1 else "s")
    if session_id is not None:  # named by a prefix or `latest`: say which, as `show` does
        checked = sanitize_line(f"session {session_id}")
    if report.healthy:
        out.write(f"checked {checked}: healthy\n")
        return EXIT_OK
    problems = len(report.findings)
    noun = "problem" if problems == 1 else "problems"
    repairable = sum(1 for f in report.findings if f.repairable)
    if args.repair:
        out.write(f"checked {checked}: {problems:,} {noun} left for a person\n")
    elif repairable:
        out.write(
            f"checked {checked}: {problems:,} {noun}, {repairable:,} of them safe to repair "
            f"({PROG} check --repair)\n"
        )
    else:
        out.write(f"checked {checked}: {problems:,} {noun}, none safe to repair automatically\n")
    return EXIT_DATA_ERROR
