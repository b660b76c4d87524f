"""Hosts benchmark: a host's store mirrored over ssh, against plain rsync of the same tree.

A real sshd on 127.0.0.1 (benchmarks/local_sshd.py) serves a generated store of N sessions;
measured in one run:

- the first sync of it (`zero-tui sync`'s code: one ControlMaster connection, the probe,
  rsync) against `rsync -a` of the same tree over the same ssh (the better of two runs);
- an incremental sync after one session gains 10 events: its time (against `rsync -a`
  of the same change onto a copy), and the bytes rsync sent as data (`--stats`' literal
  data) against the bytes appended;
- `zero-tui search --host devbox --all` a common word over the mirror (the median of the
  warm runs, after one that builds the mirror's index);
- the picker's first rows with three hosts of N sessions each (`--host` three mirrors of
  that store, synced again in the background at start, as `zero-tui --host all` does)
  beside a local store of N, warm, against the local store alone (benchmarks.picker_bench:
  a fresh process each run, until every host's rows are in); and `search --host all
  --all` across the three mirrors and the local store.

    python -m benchmarks.hosts_bench [--sessions 10000] [--events 40] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.local_sshd import SshHost, missing_tools
from benchmarks.picker_bench import time_to_first_rows
from benchmarks.store_bench import _zero_tui_command, generate_store, print_figures, wall_time
from zero_tui.hosts.mirror import sync_host
from zero_tui.hosts.registry import Host, mirror_root, save_hosts
from zero_tui.paths import CACHE_DIR_VARIABLE, CONFIG_DIR_VARIABLE
from zero_tui.store import SessionStore
from zero_tui.store.store import EVENTS_FILE

SEARCH_WORD = "handler"


def run(sessions: int, events: int, workspaces: int, repeats: int) -> dict[str, Any] | None:
    """The figures, or None where sshd or rsync is missing."""
    if missing_tools():
        return None
    with tempfile.TemporaryDirectory(prefix="zero-tui-hosts-bench-") as temp:
        work = Path(temp)
        server = SshHost(work / "ssh")
        saved = {name: os.environ.get(name) for name in _VARIABLES}
        os.environ.update(
            ZERO_TUI_SSH_CONFIG=str(server.config),
            **{CACHE_DIR_VARIABLE: str(work / "cache"), CONFIG_DIR_VARIABLE: str(work / "cfg")},
        )
        server.start()
        try:
            return _measure(server, work, sessions, events, workspaces, repeats)
        finally:
            server.stop()
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


_VARIABLES = ("ZERO_TUI_SSH_CONFIG", CACHE_DIR_VARIABLE, CONFIG_DIR_VARIABLE)


def _measure(
    server: SshHost, work: Path, sessions: int, events: int, workspaces: int, repeats: int
) -> dict[str, Any]:
    shutil.rmtree(server.store)
    workspace = generate_store(server.store, sessions, events, workspaces)[0]
    session_id = next(SessionStore(server.store).iter_session_dirs())
    host = Host("devbox", server.alias, str(server.store))
    save_hosts({host.name: host})
    ssh = f"ssh -F {server.config}"
    baselines = []
    plain = ["rsync", "-a", "-e", ssh, f"{server.alias}:{server.store}/"]
    for attempt in range(2):
        destination = work / f"plain-{attempt}"
        baselines.append(wall_time([*plain, f"{destination}/"]))
        if attempt == 0:
            shutil.rmtree(destination)
    started = time.perf_counter()
    first = sync_host(host)
    first_s = time.perf_counter() - started
    log = server.store / session_id / EVENTS_FILE
    before = log.stat().st_size
    SessionStore(server.store).append_events(
        session_id,
        [("message", {"role": "user", "content": f"one more question {n}"}) for n in range(10)],
    )
    appended = log.stat().st_size - before
    started = time.perf_counter()
    incremental = sync_host(host)
    incremental_s = time.perf_counter() - started
    plain_incremental_s = wall_time([*plain, f"{work / 'plain-1'}/"])
    assert (mirror_root(host.name) / session_id / EVENTS_FILE).stat().st_size == log.stat().st_size
    local = work / "local-store"  # empty: the figure is the mirror's
    local.mkdir()
    search = [*_zero_tui_command(), "search", "--store", str(local), "--host", "devbox"]
    search += ["--all", SEARCH_WORD]
    search_cold_s = wall_time(search)
    search_s = statistics.median(wall_time(search) for _ in range(max(1, repeats)))
    baseline_s = min(baselines)
    three = _three_hosts(server, work, workspace, repeats)
    return {
        **three,
        "sessions": sessions,
        "first_sync_s": first_s,
        "plain_rsync_s": baseline_s,
        "first_sync_ratio": first_s / baseline_s,
        "first_sync_sessions": first.sessions,
        "incremental_sync_s": incremental_s,
        "plain_incremental_s": plain_incremental_s,
        "appended_bytes": appended,
        "incremental_literal_bytes": incremental.stats.get("literal_data", 0),
        "incremental_bytes_ratio": incremental.stats.get("literal_data", 0) / appended,
        "incremental_received_bytes": incremental.stats.get("total_bytes_received", 0),
        "search_cold_s": search_cold_s,
        "search_s": search_s,
    }


THREE_HOSTS = ("devbox", "ci", "lab")


def _three_hosts(server: SshHost, work: Path, workspace: str, repeats: int) -> dict[str, float]:
    """The picker and a search over three hosts' mirrors of the store and a local copy."""
    for name in THREE_HOSTS[1:]:
        shutil.copytree(mirror_root("devbox"), mirror_root(name), symlinks=True)
    save_hosts({name: Host(name, server.alias, str(server.store)) for name in THREE_HOSTS})
    local = work / "picker-local"
    shutil.copytree(server.store, local, symlinks=True)
    cache = work / "cache"  # the mirrors' cache too: each one's catalog is built there
    time_to_first_rows(local, workspace, cache, settle=True)  # warm: the catalogs and heads
    time_to_first_rows(local, workspace, cache, settle=True, hosts=THREE_HOSTS)
    alone: list[float] = []
    hosted: list[float] = []
    for _ in range(max(1, repeats)):  # interleaved, so both see the same machine load
        alone.append(time_to_first_rows(local, workspace, cache, settle=True))
        hosted.append(time_to_first_rows(local, workspace, cache, settle=True, hosts=THREE_HOSTS))
    search = [*_zero_tui_command(), "search", "--store", str(local), "--host", "all"]
    search += ["--all", SEARCH_WORD]
    wall_time(search)  # builds every mirror's index
    search_all_s = statistics.median(wall_time(search) for _ in range(max(1, repeats)))
    return {
        "picker_local_first_rows_s": statistics.median(alone),
        "picker_three_hosts_first_rows_s": statistics.median(hosted),
        "picker_three_hosts_ratio": statistics.median(hosted) / statistics.median(alone),
        "search_three_hosts_s": search_all_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hosts_bench")
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=40)
    parser.add_argument("--workspaces", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    figures = run(args.sessions, args.events, args.workspaces, args.repeats)
    if figures is None:
        print("needs sshd, ssh, ssh-keygen and rsync: " + ", ".join(missing_tools()))
        return
    print_figures(figures)


if __name__ == "__main__":
    main()
