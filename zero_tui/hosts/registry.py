"""The hosts: `hosts.json` in zero-tui's config directory, written atomically, and each
host's mirror and sync state under zero-tui's cache (`hosts/<name>/store`, `state.json`).

A name becomes a path part, so it is checked: letters, digits, `.`, `_` and `-`, starting
with a letter or digit, at most 64 characters, and neither `all` nor `local` (the CLI's
words)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from zero_tui.atomic import write_atomic
from zero_tui.paths import default_cache_dir, default_config_dir

SYNC_SECONDS_VARIABLE = "ZERO_TUI_SYNC_SECONDS"
DEFAULT_SYNC_SECONDS = 60
HOSTS_FILE = "hosts.json"
STATE_FILE = "state.json"
RESERVED_NAMES = frozenset({"all", "local"})
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class HostError(Exception):
    """A host or its sync failed; `str()` is the one line the CLI shows."""


class SyncStopped(HostError):
    """A sync stopped before its end because its caller asked (the app quits): the mirror
    keeps what rsync wrote so far, the host's state what the last sync left."""


def never() -> bool:
    """A `stop` callable for a sync nobody stops (the command line: ctrl+c stops it)."""
    return False


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name) or name.lower() in RESERVED_NAMES:
        raise HostError(
            f"bad host name {name!r}: letters, digits, '.', '_' and '-', "
            "at most 64, not 'all' or 'local'"
        )
    return name


@dataclass(frozen=True)
class Host:
    """A host as added: its name, what `ssh` takes (an alias or user@host), the store's
    path on it, and whether a `zero` answered there when it was added."""

    name: str
    target: str
    store: str
    has_zero: bool = True


@dataclass
class SyncState:
    """What the last sync of a host left: when it last succeeded (ISO 8601, UTC), how many
    sessions the mirror holds, and the last failure since (empty when it succeeded)."""

    last_sync: str = ""
    sessions: int = 0
    error: str = ""
    error_at: str = ""
    stats: dict[str, int] = field(default_factory=dict)

    @property
    def state(self) -> str:
        if self.error:
            return "failing"
        return "synced" if self.last_sync else "never synced"


@dataclass(frozen=True, slots=True)
class SessionRef:
    """A session and the host whose store holds it (`host` None: this machine's). Session
    ids are unique within a store only: two hosts may hold the same id."""

    host: str | None
    session_id: str

    @property
    def key(self) -> str:
        """One string per session across the hosts: its id here, `HOST/ID` on a host."""
        return self.session_id if self.host is None else f"{self.host}/{self.session_id}"


def host_tag(host: str | None) -> str:
    """How a row names its host: `@NAME` ("" for this machine's)."""
    return f"@{host}" if host else ""


def sync_interval(environment: Mapping[str, str]) -> float:
    """Seconds between the picker's background syncs of its hosts: `$ZERO_TUI_SYNC_SECONDS`,
    60 by default; 0 syncs only at start and on ctrl+r."""
    try:
        return max(0.0, float(environment.get(SYNC_SECONDS_VARIABLE, "").strip()))
    except ValueError:
        return DEFAULT_SYNC_SECONDS


def hosts_file() -> Path:
    return default_config_dir() / HOSTS_FILE


def host_dir(name: str) -> Path:
    return default_cache_dir() / "hosts" / check_name(name)


def mirror_root(name: str) -> Path:
    """Where the host's store is mirrored: read by the same code as a local store."""
    return host_dir(name) / "store"


def load_hosts() -> dict[str, Host]:
    """The hosts added, by name; none when the file is missing."""
    try:
        raw = json.loads(hosts_file().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise HostError(f"cannot read {hosts_file()}: {error}") from None
    hosts: dict[str, Host] = {}
    for entry in raw.get("hosts", []) if isinstance(raw, dict) else []:
        try:
            host = Host(
                name=check_name(str(entry["name"])),
                target=str(entry["target"]),
                store=str(entry["store"]),
                has_zero=bool(entry.get("has_zero", True)),
            )
        except (KeyError, TypeError, HostError):
            continue  # an entry edited by hand into nonsense is skipped, not fatal
        hosts[host.name] = host
    return hosts


def save_hosts(hosts: dict[str, Host]) -> None:
    path = hosts_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"hosts": [asdict(host) for host in sorted(hosts.values(), key=lambda h: h.name)]}
    write_atomic(str(path), (json.dumps(body, indent=2) + "\n").encode())


def named_hosts(names: list[str]) -> list[Host]:
    """The hosts `names` name, in that order; `all` is every host. HostError names the
    first unknown one."""
    hosts = load_hosts()
    chosen: dict[str, Host] = {}
    for name in names:
        if name == "all":
            chosen.update(hosts)
            continue
        if name not in hosts:
            known = ", ".join(sorted(hosts)) or "none yet: zero-tui hosts add NAME TARGET"
            raise HostError(f"no host named {name!r} (hosts: {known})")
        chosen[name] = hosts[name]
    return list(chosen.values())


def load_state(name: str) -> SyncState:
    try:
        raw: Any = json.loads((host_dir(name) / STATE_FILE).read_text(encoding="utf-8"))
        return SyncState(
            last_sync=str(raw.get("last_sync", "")),
            sessions=int(raw.get("sessions", 0)),
            error=str(raw.get("error", "")),
            error_at=str(raw.get("error_at", "")),
            stats={str(key): int(value) for key, value in dict(raw.get("stats", {})).items()},
        )
    except (OSError, ValueError, TypeError, AttributeError):
        return SyncState()


def save_state(name: str, state: SyncState) -> None:
    directory = host_dir(name)
    directory.mkdir(parents=True, exist_ok=True)
    body = json.dumps(asdict(state), indent=2) + "\n"
    write_atomic(str(directory / STATE_FILE), body.encode(), durable=False)
