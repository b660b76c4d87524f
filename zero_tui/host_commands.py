"""The command line's `hosts` and `sync`, and the stores `--host` adds to `sessions`,
`search`, `show` and `export` (each host's mirror, read as a local store)."""

from __future__ import annotations

import argparse
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from zero_tui.hosts.registry import (
    Host,
    HostError,
    SessionRef,
    check_name,
    host_dir,
    load_hosts,
    load_state,
    mirror_root,
    named_hosts,
    save_hosts,
)
from zero_tui.json_output import write_json_array
from zero_tui.store import SessionStore
from zero_tui.text.labels import counted
from zero_tui.text.sanitize import sanitize_line

if TYPE_CHECKING:
    from zero_tui.store.models import Metadata

PROG = "zero-tui"


@dataclass(frozen=True)
class StoreOfHost:
    """A store to read and the host it mirrors (None: this machine's own)."""

    host: str | None
    store: SessionStore


@dataclass(frozen=True, slots=True)
class ListedSession:
    """A session `sessions` lists, with the host whose store holds it (None: this one's)."""

    host: str | None
    meta: Metadata

    @property
    def ref(self) -> SessionRef:
        return SessionRef(self.host, self.meta.session_id)


def add_host_arguments(commands: argparse._SubParsersAction[Any]) -> None:
    hosts = commands.add_parser("hosts", help="other machines whose sessions are mirrored")
    actions = hosts.add_subparsers(dest="hosts_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add a host (asks it over ssh where its store is)")
    add.add_argument("name", metavar="NAME", help="a short name: letters, digits, . _ -")
    add.add_argument("target", metavar="TARGET", help="what ssh takes: an alias or user@host")
    add.add_argument(
        "--store", metavar="PATH", help="the store's path there (default: Zero's, asked)"
    )
    listing = actions.add_parser("list", help="each host, its last sync, sessions and state")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    remove = actions.add_parser("remove", help="forget a host and remove its mirror")
    remove.add_argument("name", metavar="NAME")
    hosts.set_defaults(func=cmd_hosts)
    sync = commands.add_parser("sync", help="bring the hosts' mirrors up to date")
    sync.add_argument("names", metavar="NAME", nargs="*", help="default: every host")
    sync.set_defaults(func=cmd_sync)


def add_host_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        metavar="NAME",
        action="append",
        default=[],
        help="also this host's mirrored sessions (repeatable; 'all': every host)",
    )


def add_owner_host_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        metavar="NAME",
        action="append",
        default=[],
        help="a session of this host (read in its mirror; changed only through Zero there)",
    )


def cmd_hosts(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        if args.hosts_command == "add":
            return _add(args, out, err)
        if args.hosts_command == "remove":
            return _remove(args.name, out)
        return _list(args, out)
    except HostError as error:
        err.write(f"{PROG}: {sanitize_line(str(error))}\n")
        return 1


def _add(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from zero_tui.hosts.mirror import probe, store_problem  # 14 ms of every command
    from zero_tui.hosts.ssh_link import SshLink

    name = check_name(args.name)
    hosts = load_hosts()
    if name in hosts:
        raise HostError(f"a host named {name!r} exists (zero-tui hosts remove {name} first)")
    with SshLink(name, args.target) as link:
        facts = probe(link, args.store)
    host = Host(name=name, target=args.target, store=facts.store, has_zero=facts.has_zero)
    hosts[name] = host
    save_hosts(hosts)
    out.write(f"added {name}: {sanitize_line(f'{args.target}:{facts.store}')}\n")
    problem = store_problem(host, facts)
    if problem:
        err.write(f"{PROG}: {sanitize_line(problem)}\n")
    if not facts.has_zero:
        err.write(f"{PROG}: {name}: no zero on its PATH; its sessions can be browsed only\n")
    out.write(f"next: zero-tui sync {name}\n")
    return 0


def _remove(name: str, out: TextIO) -> int:
    from zero_tui.search.database import catalog_path  # the catalog: sqlite3, hashlib

    hosts = load_hosts()
    if check_name(name) not in hosts:
        raise HostError(f"no host named {name!r}")
    del hosts[name]
    save_hosts(hosts)
    catalog = catalog_path(mirror_root(name))
    for suffix in ("", "-wal", "-shm", "-journal"):
        catalog.with_name(catalog.name + suffix).unlink(missing_ok=True)
    shutil.rmtree(host_dir(name), ignore_errors=True)
    out.write(f"removed {name} and its mirror\n")
    return 0


def _list(args: argparse.Namespace, out: TextIO) -> int:
    listed = [(host, load_state(host.name)) for host in load_hosts().values()]
    if args.json:
        rows = [
            {
                "name": host.name,
                "target": host.target,
                "store": host.store,
                "zero": host.has_zero,
                "lastSync": state.last_sync or None,
                "sessions": state.sessions,
                "state": state.state,
                "error": state.error or None,
            }
            for host, state in listed
        ]
        write_json_array(rows, out)
        return 0
    if not listed:
        out.write("no hosts yet: zero-tui hosts add NAME TARGET\n")
    for host, state in listed:
        synced = state.last_sync or "never"
        line = f"{host.name}  {host.target}:{host.store}  synced {synced}"
        line += f"  {counted(state.sessions, 'session')}  {state.state}"
        if not host.has_zero:
            line += " (browse only: no zero there)"
        out.write(sanitize_line(line) + "\n")
        if state.error:
            out.write(f"    {sanitize_line(state.error)}\n")
    return 0


def cmd_sync(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Each host in turn; a failing host is one line and never stops the others."""
    from zero_tui.hosts.mirror import sync_host  # 8 ms of every other command

    try:
        hosts = named_hosts(args.names or ["all"])
    except HostError as error:
        err.write(f"{PROG}: {sanitize_line(str(error))}\n")
        return 1
    if not hosts:
        err.write(f"{PROG}: no hosts yet: zero-tui hosts add NAME TARGET\n")
        return 1
    failed = 0
    for host in hosts:
        try:
            report = sync_host(host)
        except HostError as error:
            err.write(f"{PROG}: {sanitize_line(str(error))}\n")
            failed += 1
            continue
        received = report.stats.get("total_bytes_received", 0)
        out.write(
            f"{host.name}: {counted(report.sessions, 'session')}, {received:,} bytes received\n"
        )
    return 1 if failed else 0


def stores_for(args: argparse.Namespace, local: SessionStore) -> list[StoreOfHost]:
    """This machine's store, then the mirror of each host `--host` names (HostError for an
    unknown name). A host never synced has an empty mirror: read, and said on stderr."""
    names: list[str] = getattr(args, "host", None) or []
    stores = [StoreOfHost(None, local)]
    for host in named_hosts(names):
        stores.append(StoreOfHost(host.name, SessionStore(mirror_root(host.name))))
    return stores


def never_synced(stores: list[StoreOfHost]) -> list[str]:
    return [entry.host for entry in stores if entry.host and not entry.store.root.is_dir()]
