"""The `zero-tui` command: the TUI by default, and scriptable subcommands on the same layers.

Textual is imported only when the TUI starts, so the subcommands stay quick and
usable without a terminal.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import time
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, TypeVar

from zero_tui import __version__
from zero_tui.agent.running import running_sessions
from zero_tui.host_commands import (
    ListedSession,
    StoreOfHost,
    add_host_arguments,
    add_host_option,
    add_owner_host_option,
    never_synced,
    stores_for,
)
from zero_tui.hosts.registry import HostError, SessionRef, host_tag, named_hosts
from zero_tui.json_output import (
    summary_lines,
    write_json_array,
    write_json_lines,
)
from zero_tui.store import SessionStore
from zero_tui.store.errors import StoreError
from zero_tui.store.gotext import equal_fold, trim_space
from zero_tui.store.resumable import (
    ResumeList,
    filter_resumable,
    resolve_session,
)
from zero_tui.store.session_flags import (
    NO_FLAGS,
    PIN_MARK,
    FlagBook,
    kept_view,
    read_flags,
    tag_words,
)
from zero_tui.store.workspace import resolve_workspace
from zero_tui.text.labels import counted, display_title, parse_rfc3339, time_label
from zero_tui.text.sanitize import sanitize_line
from zero_tui.transcript.export_formats import EXPORT_FORMATS

if TYPE_CHECKING:
    from zero_tui.search.catalog import SessionCatalog
    from zero_tui.search.query import Query, SearchHit, SearchResult, TextMatches
    from zero_tui.search.scoped import ScopedMatches
    from zero_tui.store.models import Metadata
    from zero_tui.store.token_counts import Tokens

PROG = "zero-tui"
Answer = TypeVar("Answer")
EXIT_OK = 0
EXIT_DATA_ERROR = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad command-line usage: one line on stderr, exit 2."""


# Marks a word that starts with "-" (`-webhook`, an exclusion) while argparse reads the line,
# so that it is taken as a word, never as an unknown option. No one types it.
_DASH_WORD = "\ufdd0"
_NEGATIVE_NUMBER = re.compile(r"-\d+$|-\d*\.\d+$")


class _Parser(argparse.ArgumentParser):
    """argparse's, its errors raised as UsageError. With `dash_words`, a word of its words
    positional (`nargs="+"`) may start with "-" (`search payment -webhook`): an argument
    that is none of its options, nor an option's value, is a word wherever it stands."""

    def __init__(self, *args: Any, dash_words: bool = False, **kwargs: Any) -> None:
        self._dash_words = dash_words
        self._words_dest: str | None = None
        self._options: set[str] = set()  # every option string
        self._valued: set[str] = set()  # the options that take a value
        super().__init__(*args, **kwargs)

    def add_argument(self, *names: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*names, **kwargs)
        if action.option_strings:
            self._options.update(action.option_strings)
            if action.nargs != 0:  # not a flag (store_true, help, version)
                self._valued.update(action.option_strings)
        elif action.nargs in ("+", "*"):
            self._words_dest = action.dest
        return action

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        dest = self._words_dest
        if not self._dash_words or dest is None or args is None:
            return super().parse_known_args(args, namespace)
        parsed, extras = super().parse_known_args(self._mark_dash_words(args), namespace)
        # A word after an option (`payment --json webhook`) is left over by argparse.
        words = [*(getattr(parsed, dest, None) or []), *(e for e in extras if _is_word(e))]
        setattr(parsed, dest, [word.removeprefix(_DASH_WORD) for word in words])
        return parsed, [extra for extra in extras if not _is_word(extra)]

    def _mark_dash_words(self, args: Sequence[str]) -> list[str]:
        marked: list[str] = []
        value_next = False
        for position, arg in enumerate(args):
            if arg == "--":
                # what follows is words: "--" itself is not one
                return marked + [_DASH_WORD + word for word in args[position + 1 :]]
            word = (
                not value_next
                and arg.startswith("-")
                and not arg.startswith("--")
                and arg not in self._options
                and not _NEGATIVE_NUMBER.match(arg)
            )
            marked.append(_DASH_WORD + arg if word else arg)
            value_next = not word and self._takes_value(arg)
        return marked

    def _takes_value(self, arg: str) -> bool:
        """Whether `arg` is an option whose value is the next argument (`--limit 5`, also
        abbreviated as argparse allows: `--lim 5`)."""
        if arg in self._valued:
            return True
        if not arg.startswith("--") or "=" in arg:
            return False
        matches = [option for option in self._options if option.startswith(arg)]
        return len(matches) == 1 and matches[0] in self._valued

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _is_word(arg: str) -> bool:
    return arg.startswith(_DASH_WORD) or not arg.startswith("-")


def _common_options(parser: argparse.ArgumentParser, *, at_top: bool) -> None:
    # `--store` and `--cwd` are accepted before or after the subcommand; SUPPRESS keeps a
    # value given before the subcommand from being reset by the subparser's default.
    default: Any = None if at_top else argparse.SUPPRESS
    parser.add_argument(
        "--store",
        metavar="DIR",
        default=default,
        help="session store root (default: Zero's, $XDG_DATA_HOME/zero/sessions)",
    )
    parser.add_argument(
        "--cwd",
        metavar="DIR",
        default=default,
        help="workspace to scope to (default: the shell's working directory; need not exist)",
    )


Command = Callable[[argparse.Namespace, TextIO, TextIO], int]


def implemented_in(module: str, name: str) -> Command:
    """A subcommand whose code is the function `name` of `module`, imported when it runs, as
    pip's command registry does: `sessions` and `search`, which a user runs many times a
    day, start without the transcript renderers, the exporters and the store's repairs."""

    def command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
        implementation: Command = getattr(importlib.import_module(module), name)
        return implementation(args, out, err)

    return command


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Browse, search, resume, read and export the sessions of the Zero agent.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    _common_options(parser, at_top=True)
    parser.add_argument("--all", action="store_true", help="list every workspace's sessions")
    parser.add_argument(
        "--resume",
        metavar="ID",
        help="open a session's transcript: an id, a unique prefix of one, or 'latest'",
    )
    parser.add_argument(
        "--demo", action="store_true", help="write a sample store to a temp dir and open it"
    )
    add_host_option(parser)
    commands = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    sessions = commands.add_parser("sessions", help="the resume picker's list")
    _common_options(sessions, at_top=False)
    sessions.set_defaults(func=cmd_sessions)
    sessions.add_argument("--all", action="store_true", help="every workspace")
    sessions.add_argument(
        "--include-empty", action="store_true", help="also sessions with no answer or tool use"
    )
    sessions.add_argument("--json", action="store_true", help="print a JSON array")
    sessions.add_argument("--pinned", action="store_true", help="only the pinned sessions")
    sessions.add_argument(
        "--tag", metavar="NAME", action="append", default=[], help="only those tagged NAME"
    )
    sessions.add_argument(
        "--archived", action="store_true", help="only the archived sessions (else left out)"
    )
    add_host_option(sessions)

    show = commands.add_parser("show", help="a session's events, compaction-aware")
    _common_options(show, at_top=False)
    show.set_defaults(func=implemented_in("zero_tui.cli_transcript", "cmd_show"))
    show.add_argument("session_id", metavar="ID", help="an id, a unique prefix of one, or latest")
    show.add_argument("--raw", action="store_true", help="the raw log, without rehydration")
    show.add_argument("--json", action="store_true", help="print a JSON array of events")
    add_host_option(show)

    export = commands.add_parser("export", help="write a session's transcript to a file")
    _common_options(export, at_top=False)
    export.set_defaults(func=implemented_in("zero_tui.cli_transcript", "cmd_export"))
    export.add_argument("session_id", metavar="ID", help="an id, a unique prefix of one, or latest")
    export.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="file to write (a folder: the default name in it), or - for stdout; relative "
        "to --cwd (default: zero-transcript-<time>.<ext> there)",
    )
    add_host_option(export)
    export.add_argument(
        "--force", action="store_true", help="replace PATH if it exists (else: refused)"
    )
    export.add_argument(
        "--format",
        choices=EXPORT_FORMATS,
        help="txt (Zero's), md, json or html (default: from PATH's extension; none means txt)",
    )
    export.add_argument(
        "--redact",
        action="store_true",
        help="mask secrets (API keys, tokens, passwords: Zero's rules) and write your home "
        "folder as ~; the file says how many values it masked",
    )
    keys = commands.add_parser(
        "keys", help="every command's binding id, its keys (yours from config.toml) and where"
    )
    keys.set_defaults(func=implemented_in("zero_tui.cli_keys", "cmd_keys"))
    keys.add_argument("--json", action="store_true", help="print a JSON array")
    check = commands.add_parser(
        "check", help="a health report of the store (or one session); --repair fixes the safe"
    )
    _common_options(check, at_top=False)
    check.set_defaults(func=implemented_in("zero_tui.cli_maintenance", "cmd_check"))
    check.add_argument(
        "session_id",
        metavar="ID",
        nargs="?",
        help="only this session: an id, a unique prefix of one, or latest",
    )
    check.add_argument(
        "--repair",
        action="store_true",
        help="cut torn tails, resync metadata counters, remove leftover temp files "
        "(a copy of each changed file is saved beside it)",
    )
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    fork = commands.add_parser(
        "fork", help="a new session holding a session's events up to one of them"
    )
    _common_options(fork, at_top=False)
    fork.set_defaults(func=implemented_in("zero_tui.cli_maintenance", "cmd_fork"))
    fork.add_argument("session_id", metavar="ID", help="an id, a unique prefix of one, or latest")
    fork.add_argument(
        "--at", metavar="SEQUENCE", type=int, help="the last event to keep (default: the last)"
    )
    fork.add_argument("--title", metavar="T", default="", help="default: '<title> (fork)'")
    fork.add_argument("--json", action="store_true", help="print the new session as JSON")
    add_owner_host_option(fork)

    rewind = commands.add_parser(
        "rewind", help="drop a session's events after one of them, through Zero's own rewind"
    )
    _common_options(rewind, at_top=False)
    rewind.set_defaults(func=implemented_in("zero_tui.cli_maintenance", "cmd_rewind"))
    rewind.add_argument("session_id", metavar="ID", help="an id, a unique prefix of one, or latest")
    rewind.add_argument(
        "--at", metavar="SEQUENCE", type=int, required=True, help="the last event to keep"
    )
    rewind.add_argument("--yes", action="store_true", help="do not ask (needed without a tty)")
    add_owner_host_option(rewind)

    usage = commands.add_parser(
        "usage", help="tokens used, per day, model and workspace (Zero's cost estimate too)"
    )
    _common_options(usage, at_top=False)
    usage.set_defaults(func=implemented_in("zero_tui.cli_transcript", "cmd_usage"))
    usage.add_argument("--days", metavar="N", type=int, help="the last N days (UTC), today too")
    usage.add_argument("--since", metavar="DATE", help="from this UTC day on (YYYY-MM-DD)")
    usage.add_argument("--session", metavar="ID", help="one session (an id, a prefix, latest)")
    usage.add_argument("--all", action="store_true", help="every workspace")
    usage.add_argument("--json", action="store_true", help="print a JSON object")

    delete = commands.add_parser(
        "delete", help="move sessions to zero-tui's trash (zero-tui restore brings them back)"
    )
    _common_options(delete, at_top=False)
    delete.set_defaults(func=implemented_in("zero_tui.cli_maintenance", "cmd_delete"))
    delete.add_argument("session_ids", metavar="ID", nargs="+", help="ids, unique prefixes")
    delete.add_argument("--yes", action="store_true", help="do not ask (needed without a tty)")
    add_owner_host_option(delete)

    trash = commands.add_parser("trash", help="the sessions in the trash; --empty removes them")
    _common_options(trash, at_top=False)
    trash.set_defaults(func=implemented_in("zero_tui.cli_maintenance", "cmd_trash"))
    trash.add_argument("--json", action="store_true", help="print a JSON array")
    trash.add_argument("--empty", action="store_true", help="remove them for good")
    trash.add_argument(
        "--older-than",
        metavar="DAYS",
        type=float,
        help="with --empty: only those trashed more than DAYS ago",
    )

    restore = commands.add_parser("restore", help="move sessions back from the trash")
    _common_options(restore, at_top=False)
    restore.set_defaults(func=implemented_in("zero_tui.cli_maintenance", "cmd_restore"))
    restore.add_argument("session_ids", metavar="ID", nargs="+", help="ids, unique prefixes")

    _add_flag_commands(commands)
    search = commands.add_parser(
        "search",
        dash_words=True,
        help="find sessions by what was said in them",
        description=(
            'Words must all match (any order); "exact phrase"; -word excludes; filters: '
            "title: model: provider: (substrings), id: (prefix), after:/before:YYYY-MM-DD, "
            "tag:NAME, is:pinned, is:archived."
        ),
    )
    _common_options(search, at_top=False)
    search.set_defaults(func=cmd_search)
    search.add_argument("query", metavar="QUERY", nargs="+", help="the query (words are joined)")
    search.add_argument("--all", action="store_true", help="every workspace")
    search.add_argument(
        "--include-empty", action="store_true", help="also sessions with no answer or tool use"
    )
    search.add_argument("--limit", metavar="N", type=int, default=None, help="at most N (50)")
    search.add_argument("--json", action="store_true", help="print a JSON array, best first")
    add_host_option(search)
    add_host_arguments(commands)
    return parser


def _add_flag_commands(commands: Any) -> None:
    """pin, unpin, tag, archive, unarchive: zero-tui's own marks (`cli_flags`)."""
    helps = {
        "pin": "pin sessions: listed first, marked " + PIN_MARK,
        "unpin": "unpin sessions",
        "tag": "tag sessions: tag ID... +NAME -NAME (no change: print their tags)",
        "archive": "hide sessions from the list (kept and resumable by id)",
        "unarchive": "list archived sessions again",
    }
    for name, text in helps.items():
        command = commands.add_parser(name, help=text, dash_words=name == "tag")
        _common_options(command, at_top=False)
        command.set_defaults(func=implemented_in("zero_tui.cli_flags", f"cmd_{name}"))
        words = "ids, unique prefixes" + (", then +NAME to add, -NAME to remove" * (name == "tag"))
        command.add_argument("session_ids", metavar="ID", nargs="+", help=words)


def _store(args: argparse.Namespace) -> SessionStore:
    """The store `--store` names (which must exist), else Zero's default (which may not yet)."""

    explicit = getattr(args, "store", None)
    if explicit is not None and not Path(explicit).is_dir():
        raise StoreError(f"no session store at {explicit}")
    return SessionStore(explicit)


def _workspace(args: argparse.Namespace) -> str:
    return resolve_workspace(getattr(args, "cwd", None))


def hidden_summary(
    shown: int, other_workspace: int, empty_runs: int, *, about: str = "", archived: int = 0
) -> str:
    """`N shown` and what is hidden, each hidden count after `about` ("about " when it is
    the index's count)."""
    parts = [f"{shown:,} shown"]
    if archived:
        parts.append(f"{archived:,} archived not shown (--archived)")
    if other_workspace:
        parts.append(f"{about}{other_workspace:,} in other workspaces (--all)")
    if empty_runs:
        noun = "empty run" if empty_runs == 1 else "empty runs"
        parts.append(f"{about}{empty_runs:,} {noun} (--include-empty)")
    return " · ".join(parts)


def _hidden_matches(other_workspace: int, empty_runs: int, *, about: str = "") -> str:
    return hidden_summary(0, other_workspace, empty_runs, about=about).partition(" · ")[2]


def unreadable_notice(count: int) -> str:
    noun = "session" if count == 1 else "sessions"
    return f"{count:,} unreadable {noun} not listed (see {PROG} check)"


MODEL_COLUMN_LIMIT = 24


def _table(
    header: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[str] = ()
) -> list[str]:
    """Rows under a header, each column as wide as its widest cell (the last one is not
    padded); the columns named in `right` are aligned to the right."""
    table = [header, *rows]
    widths = [max(len(row[column]) for row in table) for column in range(len(header))]
    lines = []
    for row in table:
        cells = [
            cell.rjust(width) if name in right else cell.ljust(width)
            for cell, width, name in zip(row[:-1], widths, header, strict=False)
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return lines


def cmd_sessions(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from zero_tui.search.catalog import SessionCatalog  # 19 ms: not for --help, hosts, …

    store = _store(args)
    workspace = _workspace(args)
    stores = stores_for(args, store)
    if len(stores) > 1:
        return _sessions_of_hosts(args, stores, workspace, out, err)
    # closing the catalog writes the verdicts found
    with SessionCatalog(store) as catalog:
        listing, usage = _listing(args, store, workspace, catalog)
        listing.sessions, archived = _by_flags(args, store, listing.sessions, err)
        if catalog.unreadable:
            err.write(f"{PROG}: {unreadable_notice(len(catalog.unreadable))}\n")
        return _print_listing(args, store, workspace, listing, usage, out, err, archived)


def _by_flags(
    args: argparse.Namespace, store: SessionStore, sessions: list[Metadata], err: TextIO
) -> tuple[list[Metadata], int]:
    """The sessions `sessions` shows by their pins, tags and archive (`kept_view`), and how
    many archived ones it leaves out; `args.kept` keeps each shown row's flags (by
    `id(meta)`: a host's session may have this machine's id)."""
    book = read_flags(store.root)
    if book.warning:
        err.write(f"{PROG}: {sanitize_line(book.warning)}\n")
    shown, hidden = kept_view(
        sessions, book, pinned=args.pinned, tags=args.tag, archived=args.archived
    )
    args.kept = getattr(args, "kept", {})
    args.kept.update((id(meta), book.of(meta.session_id)) for meta in shown)
    return shown, hidden


def _sessions_of_hosts(
    args: argparse.Namespace,
    stores: list[StoreOfHost],
    workspace: str,
    out: TextIO,
    err: TextIO,
) -> int:
    """`sessions` over this machine's store and the mirrors `--host` names, newest first,
    each host's rows tagged (`@NAME`, `"host"`); a host's workspace is the same path."""
    from zero_tui.search.catalog import SessionCatalog

    merged = ResumeList()
    listed: list[ListedSession] = []
    usage: dict[str, Tokens] = {}
    running: set[str] = set()
    unreadable = 0
    archived = 0
    for entry in stores:
        with SessionCatalog(entry.store) as catalog:
            listing, found_usage = _listing(args, entry.store, workspace, catalog)
            unreadable += len(catalog.unreadable)
        listing.sessions, hidden = _by_flags(args, entry.store, listing.sessions, err)
        archived += hidden
        merged.other_workspace += listing.other_workspace
        merged.empty_runs += listing.empty_runs
        listed.extend(ListedSession(entry.host, meta) for meta in listing.sessions)
        usage.update({SessionRef(entry.host, sid).key: n for sid, n in found_usage.items()})
        if entry.host is None:
            running.update(running_sessions(entry.store, listing.sessions))
    listed.sort(key=lambda item: _instant(item.meta.updated_at), reverse=True)
    listed.sort(key=lambda item: not args.kept[id(item.meta)].pinned)
    merged.sessions = [item.meta for item in listed]
    if unreadable:
        err.write(f"{PROG}: {unreadable_notice(unreadable)}\n")
    for name in never_synced(stores):
        err.write(f"{PROG}: {name}: never synced (zero-tui sync {name})\n")
    if args.json:
        lines = []
        for item in listed:
            meta, key = item.meta, item.ref.key
            tokens = {meta.session_id: usage[key]} if key in usage else {}
            book = FlagBook({meta.session_id: args.kept[id(meta)]})
            line = summary_lines([meta], running if item.host is None else (), tokens, book)[0]
            host = json.dumps(item.host, ensure_ascii=False)
            lines.append(line[:-1] + ', "host": ' + host + "}")
        write_json_lines(lines, out)
        return EXIT_OK
    return _print_rows(args, merged, listed, running, out, err, workspace, archived=archived)


def _listing(
    args: argparse.Namespace, store: SessionStore, workspace: str, catalog: SessionCatalog
) -> tuple[ResumeList, dict[str, Tokens]]:
    """The sessions `sessions` lists, and with --json their tokens."""

    # a cold catalog counts the tokens of a JSON listing in the same read of each log
    sessions = catalog.refresh(with_verdicts=not args.include_empty, with_tokens=args.json)
    verdicts: dict[str, bool] = {}
    if not args.include_empty:  # every verdict at once (a cold catalog finds them all)
        verdicts = catalog.find_verdicts(
            [
                meta.session_id
                for meta in sessions
                if meta.is_resumable_kind and meta.event_count > 0
            ]
        )

    def has_content(session_id: str) -> bool:
        found = verdicts.get(session_id)
        return catalog.has_content(session_id) if found is None else found

    listing = filter_resumable(
        store,
        workspace,
        all_workspaces=args.all,
        include_empty=args.include_empty,
        sessions=sessions,
        content_check=has_content,
    )
    if not args.json:
        return listing, {}
    from zero_tui.picker.session_usage import session_usage  # the catalog's: 19 ms

    return listing, session_usage(catalog, [meta.session_id for meta in listing.sessions])


def _print_listing(
    args: argparse.Namespace,
    store: SessionStore,
    workspace: str,
    listing: ResumeList,
    usage: dict[str, Tokens],
    out: TextIO,
    err: TextIO,
    archived: int,
) -> int:

    running = running_sessions(store, listing.sessions)
    if args.json:
        book = FlagBook({meta.session_id: args.kept[id(meta)] for meta in listing.sessions})
        write_json_lines(summary_lines(listing.sessions, running, usage, book), out)
        return EXIT_OK
    if not store.root.is_dir():
        root = sanitize_line(str(store.root))
        err.write(f"no sessions yet (Zero's store {root} does not exist yet)\n")
        return EXIT_OK
    listed = [ListedSession(None, meta) for meta in listing.sessions]
    return _print_rows(
        args, listing, listed, running, out, err, workspace, store, archived=archived
    )


def _print_rows(
    args: argparse.Namespace,
    listing: ResumeList,
    listed: list[ListedSession],
    running: Container[str],
    out: TextIO,
    err: TextIO,
    workspace: str,
    store: SessionStore | None = None,
    *,
    archived: int = 0,
) -> int:
    """The table of `sessions`: `listed`, `listing`'s sessions each with its host (only
    this machine's sessions can be running here)."""

    now = datetime.now(UTC)
    header = ["UPDATED", "EVENTS", "MODEL", "ID", *(["WORKSPACE"] if args.all else []), "TITLE"]
    rows = []
    shown_running = 0
    for item in listed:
        meta = item.meta
        model = sanitize_line(meta.model_id) or "-"
        if len(model) > MODEL_COLUMN_LIMIT:
            model = model[: MODEL_COLUMN_LIMIT - 1] + "…"
        is_running = item.host is None and meta.session_id in running
        shown_running += is_running
        marker = "● " if is_running else ""
        marker += "⑂ " if meta.session_kind == "fork" else ""
        marker += _host_tag(item.host)
        kept = args.kept.get(id(meta), NO_FLAGS)
        marker = (PIN_MARK + " " if kept.pinned else "") + marker
        row = [
            time_label(meta.updated_at, now) or "-",
            str(meta.event_count),
            model,
            sanitize_line(meta.session_id),
        ]
        if args.all:
            row.append(sanitize_line(meta.cwd) or "(no workspace)")
        row.append(marker + sanitize_line(display_title(meta.title)) + tag_words(kept.tags))
        rows.append(row)
    out.writelines(line + "\n" for line in _table(header, rows, right=["EVENTS"]))
    if not listing.sessions:
        where = sanitize_line(workspace) or "this workspace"
        within = f" in {sanitize_line(str(store.root))}" if store is not None else ""
        err.write(f"no sessions for {where}{within}\n")
    summary = hidden_summary(
        len(listing.sessions), listing.other_workspace, listing.empty_runs, archived=archived
    )
    if shown_running:
        summary += f" · {shown_running:,} running (●)"
    err.write(summary + "\n")
    return EXIT_OK


def _named_session(store: SessionStore, args: argparse.Namespace) -> str:
    """The id of the session ID names: an id, a unique prefix of one, or `latest` (the
    catalog's first row for the workspace, as the picker lists it)."""
    return _resolved(store, args)[0]


def _resolved(store: SessionStore, args: argparse.Namespace) -> tuple[str, Metadata]:
    if not equal_fold(trim_space(args.session_id), "latest"):
        return resolve_session(store, args.session_id, _workspace(args))
    from zero_tui.search.catalog import SessionCatalog  # 19 ms

    with SessionCatalog(store) as catalog:
        return resolve_session(store, args.session_id, _workspace(args), catalog)


def _session_store(args: argparse.Namespace) -> tuple[SessionStore, str]:
    """The store holding the session ID names, and its id: this machine's, or with
    `--host` the mirror of the one host that has it (`latest`: the newest of theirs)."""

    store = _store(args)
    mirrors = stores_for(args, store)[1:]
    if not mirrors:
        return store, _named_session(store, args)
    found: list[tuple[str, SessionStore, str, Metadata]] = []
    problems: list[str] = []
    for entry in mirrors:
        assert entry.host is not None
        try:
            session_id, meta = _resolved(entry.store, args)
        except StoreError as error:
            problems.append(f"{entry.host}: {error}")
            continue
        found.append((entry.host, entry.store, session_id, meta))
    if not found:
        raise StoreError("; ".join(problems))
    if len(found) > 1 and not equal_fold(trim_space(args.session_id), "latest"):
        names = ", ".join(host for host, *_rest in found)
        raise StoreError(f"{args.session_id} names sessions on {names}: give one --host")
    found.sort(key=lambda item: _instant(item[3].updated_at), reverse=True)
    return found[0][1], found[0][2]


class _IndexProgress:
    """`sessions done / total` on stderr, once building has taken longer than a second."""

    DELAY = 1.0

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.started = time.monotonic()
        self.shown = False
        self.last = 0.0
        self.live = err.isatty()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        early = now - self.started < self.DELAY or (self.shown and now - self.last < 0.25)
        if early and not (self.shown and done == total):
            return
        if not self.live:
            if not self.shown:
                self.err.write(f"{PROG}: indexing {counted(total, 'session')} for search…\n")
            self.shown = True
            return
        self.err.write(f"\r{PROG}: indexing sessions {done:,}/{total:,}…")
        if done == total:
            self.err.write("\n")
        self.err.flush()
        self.shown = True
        self.last = now


def cmd_search(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from zero_tui.search.query import DEFAULT_LIMIT, QueryError, parse_query

    text = " ".join(args.query)
    limit = DEFAULT_LIMIT if args.limit is None else args.limit
    if limit <= 0:
        raise UsageError("--limit wants a positive number")
    try:
        query = parse_query(text)
    except QueryError as error:
        raise UsageError(str(error)) from None
    if query.is_empty:
        raise UsageError("search needs words or filters to look for")
    for notice in query.notices:
        err.write(f"{PROG}: {sanitize_line(notice)}\n")

    workspace = _workspace(args)
    stores = stores_for(args, _store(args))
    for name in never_synced(stores):
        err.write(f"{PROG}: {name}: never synced (zero-tui sync {name})\n")
    found = [_search_store(args, query, entry, workspace, limit, err) for entry in stores]
    hits = _newest_first(
        [
            (entry.host, hit)
            for entry, one in zip(stores, found, strict=True)
            for hit in one.result.hits
        ],
        limit,
    )
    matched = sum(one.matched for one in found)
    hidden = [sum(one.hidden[0] for one in found), sum(one.hidden[1] for one in found)]
    exact = all(one.exact for one in found)
    answered = all(one.answered for one in found)
    for one in found:
        for notice in one.result.notices[len(query.notices) :]:
            err.write(f"{PROG}: {sanitize_line(notice)}\n")
    unreadable = sum(one.unreadable for one in found)
    if unreadable:
        err.write(f"{PROG}: {unreadable_notice(unreadable)}\n")
    tagged = len(stores) > 1
    if args.json:
        write_json_array([_with_host(hit.to_json(), host, tagged) for host, hit in hits], out)
    else:
        now = datetime.now(UTC)
        for host, hit in hits:
            meta = hit.session
            when = time_label(meta.updated_at, now) or ""
            title = _host_tag(host) + sanitize_line(display_title(meta.title))
            line = f"{when:<12}  {meta.session_id}  {title}"
            if args.all:
                line += f"  ({sanitize_line(meta.cwd) or 'no workspace'})"
            out.write(line + "\n")
            if hit.sequence is not None:
                where = f"#{hit.sequence} {hit.role}"
                if hit.compacted:
                    where += f", compacted (opens at the summary, #{hit.open_sequence})"
                out.write(f"    {where}: {sanitize_line(hit.snippet.text)}\n")
    about = "" if exact else "about "
    counted = not (args.json and answered)  # --json tells its hits only
    if counted and (hidden[0] or hidden[1]):
        err.write(f"{PROG}: matching but not listed: {_hidden_matches(*hidden, about=about)}\n")
    if not hits:
        where = "any workspace" if args.all else sanitize_line(workspace or "this workspace")
        err.write(f"{PROG}: no sessions match in {where}\n")
        return EXIT_DATA_ERROR
    if matched > len(hits) and not args.json:
        err.write(f"{PROG}: {len(hits)} of {about}{matched:,} shown (--limit)\n")
    return EXIT_OK


@dataclass(frozen=True)
class _StoreSearch:
    """One store's part of a search: its hits, how many matched, what its scope hid."""

    result: SearchResult
    matched: int
    hidden: tuple[int, int]
    exact: bool
    answered: bool  # by the index (then --json tells its hits only)
    unreadable: int


def _search_store(
    args: argparse.Namespace,
    query: Query,
    entry: StoreOfHost,
    workspace: str,
    limit: int,
    err: TextIO,
) -> _StoreSearch:
    from zero_tui.search.catalog import SessionCatalog
    from zero_tui.search.query import search
    from zero_tui.search.scoped import ListingScope, scoped_matches

    store = entry.store
    query = query.with_flags(read_flags(store.root))  # tag:, is:pinned
    hidden = [0, 0]  # matching sessions in other workspaces, matching empty runs
    exact = True  # the counts are the files' (else the index's)
    with SessionCatalog(store) as catalog:

        def in_scope(sessions: list[Metadata]) -> list[Metadata]:
            listing = filter_resumable(
                store,
                workspace,
                all_workspaces=args.all,
                include_empty=args.include_empty,
                sessions=[meta for meta in sessions if query.keeps(meta)],
                content_check=catalog.has_content,
            )
            hidden[0] += listing.other_workspace
            hidden[1] += listing.empty_runs
            return listing.sessions

        scope = ListingScope(workspace, args.all, args.include_empty)

        def answer(matches: TextMatches) -> tuple[SearchResult, ScopedMatches]:
            found = scoped_matches(catalog, query, matches, scope, enough=limit)
            return search(catalog, query, found.sessions, limit=limit, matches=matches), found

        answered = _answer_from_fresh_text(catalog, query, err, answer) if query.terms else None
        if answered is not None:
            result, found = answered
            matched, hidden[:], exact = (
                found.matched,
                [found.other_workspace, found.empty_runs],
                found.exact,
            )
        else:
            sessions = in_scope(catalog.refresh())
            if query.has_text and not query.terms:
                catalog.update_content(
                    [meta.session_id for meta in sessions], progress=_IndexProgress(err)
                )
            result = search(catalog, query, sessions, limit=limit)
            matched = result.matched
    return _StoreSearch(
        result,
        matched,
        (hidden[0], hidden[1]),
        exact,
        answered is not None,
        len(catalog.unreadable),
    )


def _newest_first(
    tagged: list[tuple[str | None, SearchHit]], limit: int
) -> list[tuple[str | None, SearchHit]]:
    """One store's hits as its search ordered them; several stores' merged newest first."""
    if len({host for host, _hit in tagged}) > 1:
        tagged.sort(key=lambda item: _instant(item[1].session.updated_at), reverse=True)
    return tagged[:limit]


def _instant(text: str) -> datetime:
    """When an updatedAt is (hosts write in their own zones); unreadable ones sort last."""

    return parse_rfc3339(text) or datetime.min.replace(tzinfo=UTC)


def _host_tag(host: str | None) -> str:
    return f"{host_tag(host)} " if host else ""


def _with_host(item: dict[str, Any], host: str | None, tagged: bool) -> dict[str, Any]:
    """A JSON item with `"host"` (null for this machine's) once `--host` is given."""
    return {**item, "host": host} if tagged else item


def _answer_from_fresh_text(
    catalog: SessionCatalog,
    query: Query,
    err: TextIO,
    answer: Callable[[TextMatches], Answer],
) -> Answer | None:
    """`answer` of the sessions whose text matches, once every changed log is indexed (a
    new session's, an appended one's) and the metadata of their sessions read again (Zero
    rewrites it after every append): as recent as the files; None when the index cannot
    say which sessions match.

    Every log is compared with the index in a thread while the index is asked, and
    answered, as it stands: when no log changed (most runs), that answer stands."""
    from zero_tui.search.query import matching_sessions

    catalog.revalidate()
    # The index as this answer reads it: another process may index the logs meanwhile (a
    # first search beside another, on a fresh cache), and then this one finds none changed.
    asked_of = catalog.database.version()
    catalog.check_logs_in_background()
    matches = matching_sessions(catalog, query)
    answered = None if matches is None else answer(matches)
    report = catalog.update_content(progress=_IndexProgress(err))
    if catalog.busy:
        err.write(
            f"{PROG}: the search index is busy (another process is writing it): "
            "searching every log instead, which takes longer\n"
        )
        catalog.use_private_index()
        catalog.revalidate()
        report = catalog.update_content(progress=_IndexProgress(err))
    elif not report.changed and catalog.database.version() == asked_of:
        return answered
    keys = catalog.session_keys()
    catalog.sessions_with_keys(keys[name] for name in report.changed if name in keys)
    matches = matching_sessions(catalog, query)
    return None if matches is None else answer(matches)


def run_tui(args: argparse.Namespace) -> int:
    """The app (Textual is imported here: a subcommand never waits for it)."""
    from zero_tui.preferences import load_preferences, remembered_theme  # the app's alone
    from zero_tui.ui.app import run_app, run_demo  # Textual: 315 ms, the app's alone

    preferences, remembered = load_preferences(), remembered_theme()  # the user's keys, theme
    if args.demo:
        return run_demo(
            all_workspaces=args.all,
            resume=args.resume,
            preferences=preferences,
            remembered=remembered,
        )
    store = getattr(args, "store", None)
    _store(args)  # an explicit store must exist
    hosts = named_hosts(args.host)  # an unknown name is said before the app starts
    return run_app(
        store_root=Path(store) if store else None,
        cwd=_workspace(args),
        all_workspaces=args.all,
        resume=args.resume,
        hosts=hosts,
        preferences=preferences,
        remembered=remembered,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run zero-tui with `argv` (default: the command line's arguments); the exit code."""
    return _main(argv)


def run() -> NoReturn:
    """The `zero-tui` script: `main`, then the interpreter's normal exit."""
    sys.exit(_main(None))


def _main(argv: Sequence[str] | None) -> int:
    """The exit code of `zero-tui ARGV`."""
    out, err = sys.stdout, sys.stderr
    try:
        args = build_parser().parse_args(argv)
    except UsageError as error:
        err.write(f"{PROG}: {sanitize_line(str(error))} (see {PROG} --help)\n")
        return EXIT_USAGE
    try:
        if args.command is None:
            return run_tui(args)
        command: Command = args.func
        code = command(args, out, err)
        out.flush()  # here, so that a reader gone away is the BrokenPipeError below
        return code
    except UsageError as error:
        err.write(f"{PROG}: {sanitize_line(str(error))} (see {PROG} --help)\n")
        return EXIT_USAGE
    except (StoreError, HostError) as error:
        err.write(f"{PROG}: {sanitize_line(str(error))}\n")
        return EXIT_DATA_ERROR
    except BrokenPipeError:
        # the reader (`| head`) went away: not an error worth a traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except OSError as error:  # what no layer worded: still one line, never a traceback
        where = f": {error.filename}" if error.filename else ""
        reason = error.strerror or str(error)
        err.write(f"{PROG}: {sanitize_line(f'{reason}{where}')}\n")
        return EXIT_DATA_ERROR
    except KeyboardInterrupt:
        return 130
