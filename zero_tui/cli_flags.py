"""The `pin`, `unpin`, `tag`, `archive` and `unarchive` subcommands: zero-tui's own marks on
sessions (`store.session_flags`), never a change to Zero's files.

Every id is resolved first (an id, a unique prefix, `latest`), as the other commands do:
one that names nothing changes nothing at all. Imported by `zero_tui.cli` only when one of
them runs (see its `implemented_in`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from typing import TextIO

from zero_tui.cli import EXIT_OK, PROG, UsageError, _store, _workspace
from zero_tui.store.resumable import resolve_session
from zero_tui.store.session_flags import (
    SessionFlags,
    parse_tag_changes,
    read_flags,
    update_flags,
)
from zero_tui.text.sanitize import sanitize_line

Change = Callable[[SessionFlags], SessionFlags]


def _apply(
    args: argparse.Namespace, arguments: list[str], change: Change, done: str, out: TextIO
) -> int:
    store = _store(args)
    named = list(
        dict.fromkeys(resolve_session(store, arg, _workspace(args))[0] for arg in arguments)
    )
    book = update_flags(store.root, named, change)
    for session_id in named:
        tags = book.of(session_id).tags
        said = f" (tags: {', '.join(tags)})" if tags and done == "tagged" else ""
        out.write(sanitize_line(f"{done} {session_id}{said}") + "\n")
    return EXIT_OK


def cmd_pin(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return _apply(args, args.session_ids, lambda f: replace(f, pinned=True), "pinned", out)


def cmd_unpin(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return _apply(args, args.session_ids, lambda f: replace(f, pinned=False), "unpinned", out)


def cmd_archive(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    code = _apply(args, args.session_ids, lambda f: replace(f, archived=True), "archived", out)
    err.write(f"{PROG}: archived sessions are left out of the list (sessions --archived)\n")
    return code


def cmd_unarchive(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return _apply(args, args.session_ids, lambda f: replace(f, archived=False), "unarchived", out)


def cmd_tag(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """`tag ID... +NAME -NAME`: the words with a sign are the changes, the others ids; with
    no change, each session's tags."""
    ids = [word for word in args.session_ids if word[:1] not in ("+", "-")]
    changes = [word for word in args.session_ids if word[:1] in ("+", "-")]
    if not ids:
        raise UsageError("tag wants session ids before +NAME / -NAME")
    try:
        added, removed = parse_tag_changes(changes)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if changes:
        return _apply(args, ids, lambda f: f.with_tags(added, removed), "tagged", out)
    store = _store(args)
    book = read_flags(store.root)
    if book.warning:
        err.write(f"{PROG}: {sanitize_line(book.warning)}\n")
    for argument in ids:
        session_id = resolve_session(store, argument, _workspace(args))[0]
        tags = ", ".join(book.of(session_id).tags) or "(no tags)"
        out.write(sanitize_line(f"{session_id}: {tags}") + "\n")
    return EXIT_OK
