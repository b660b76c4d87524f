"""Zero's own commands, where zero-tui defers to Zero: the cost estimate of `zero usage
report`, the plan and the act of `zero sessions rewind`, and `zero sandbox grants`.

Each runs the agent binary (`$ZERO_BIN`, else `zero` on PATH) on the store's data
(`XDG_DATA_HOME` such that Zero's root is the store), with a timeout, stdin closed and its
output captured, and turns its answer into a value or one line saying what went wrong
(`ZeroCommandError`). Nothing here guesses what Zero would have said.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zero_tui.agent.engine import AgentUnavailable, agent_environment, find_agent
from zero_tui.store import SessionStore
from zero_tui.store.approvals import is_zero_tool
from zero_tui.store.token_counts import Tokens

COMMAND_TIMEOUT = 60.0

ZeroRunner = Callable[[Sequence[str]], str]
"""Runs `zero ARGUMENTS` somewhere (this machine by default, a host over ssh) and returns
its stdout; ZeroCommandError when it could not run or said no."""


class ZeroCommandError(Exception):
    """Zero's command could not run or said no: the message is one line for the user."""


def run_zero(
    store: SessionStore,
    arguments: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = COMMAND_TIMEOUT,
) -> str:
    """Run `zero ARGUMENTS` on `store`; its stdout. ZeroCommandError for a missing agent, a
    store Zero cannot be pointed at, a time-out, or a non-zero exit (Zero's last stderr
    line, `[zero] ` dropped)."""
    environ = dict(os.environ if env is None else env)
    try:
        binary = find_agent(environ)
        environ = agent_environment(store.root, environ)
    except AgentUnavailable as error:
        raise ZeroCommandError(str(error)) from None
    # a neutral folder: `usage report` looks at the git diff of its working directory
    with tempfile.TemporaryDirectory(prefix="zero-tui-") as neutral:
        done = run_captured(
            [binary, *arguments], f"`zero {arguments[0]}`", timeout, cwd=neutral, env=environ
        )
    if done.returncode != 0:
        raise ZeroCommandError(
            last_stderr_line(done.stderr) or f"zero exited with {done.returncode}"
        )
    return done.stdout.decode("utf-8", "replace")


def run_captured(
    argv: list[str],
    what: str,
    timeout: float,
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`argv` run with stdin closed and its output captured; ZeroCommandError when it
    could not start or did not answer within `timeout` (`what` names it)."""
    try:
        return subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ZeroCommandError(f"{what} did not answer in {timeout:g}s") from None
    except OSError as error:
        raise ZeroCommandError(f"could not run {argv[0]}: {error.strerror}") from None


def _runner(store: SessionStore, run: ZeroRunner | None) -> ZeroRunner:
    return run if run is not None else lambda arguments: run_zero(store, arguments)


def last_stderr_line(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return ""
    return lines[-1].removeprefix("[zero] ")


def _json_of(output: str, what: str) -> Any:
    try:
        return json.loads(output)
    except ValueError:
        raise ZeroCommandError(f"`zero {what}` did not answer in JSON") from None


# --- usage ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ZeroCost:
    """Zero's own cost estimate (`zero usage report --json`): total and per UTC day, in
    USD, 0 for models its price table does not know."""

    total: float
    by_day: dict[str, float]
    total_tokens: int  # Zero's token total, to say when it and ours disagree


def zero_cost(store: SessionStore, *, since: str = "", session_id: str = "") -> ZeroCost:
    """Ask Zero for its estimate over every session (or one), from `since` (UTC day)."""
    arguments = ["usage", "report", "--json"]
    if since:
        arguments += ["--since", since]
    if session_id:
        arguments += ["--session", session_id]
    report = _json_of(run_zero(store, arguments), "usage report")
    try:
        total = report["total"]
        by_day = {str(b["date"]): float(b["totalCost"]) for b in report.get("buckets") or []}
        return ZeroCost(float(total["totalCost"]), by_day, int(total["totalTokens"]))
    except (KeyError, TypeError, ValueError):
        raise ZeroCommandError("`zero usage report` answered in an unknown shape") from None


# --- rewind -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FileChange:
    """What a rewind does to one workspace file: `restore` its earlier content, `delete`
    it (it did not exist then), or `skipped` (Zero could not keep a copy)."""

    path: str
    action: str


@dataclass(frozen=True, slots=True)
class RewindPlan:
    """Zero's plan (`zero sessions rewind-plan ID --sequence N --json`), and the files the
    rewind would touch (from the checkpoints it drops, as Zero's restore takes them)."""

    session_id: str
    target_sequence: int
    kept: int
    dropped: int
    dropped_types: dict[str, int]
    files: tuple[FileChange, ...]


def rewind_plan(
    store: SessionStore, session_id: str, sequence: int, *, run: ZeroRunner | None = None
) -> RewindPlan:
    """Ask Zero what rewinding `session_id` to `sequence` would keep and drop (`run`: where
    Zero runs; `store` is read for the checkpoints)."""
    arguments = ["sessions", "rewind-plan", session_id, "--sequence", str(sequence), "--json"]
    answer = _json_of(_runner(store, run)(arguments), "sessions rewind-plan")
    try:
        dropped_events = answer["droppedEvents"] or []
        types: dict[str, int] = {}
        for event in dropped_events:
            types[str(event["type"])] = types.get(str(event["type"]), 0) + 1
        target = int(answer["targetSequence"])
        return RewindPlan(
            str(answer["sessionId"]),
            target,
            int(answer["keptCount"]),
            int(answer["droppedCount"]),
            types,
            tuple(_files_restored(store, session_id, target)),
        )
    except (KeyError, TypeError, ValueError):
        raise ZeroCommandError("`zero sessions rewind-plan` answered in an unknown shape") from None


def _files_restored(store: SessionStore, session_id: str, target: int) -> list[FileChange]:
    """The workspace files a rewind to `target` touches: the entries of the checkpoints after
    it, oldest first, the first entry of each path winning (Zero's restore, §10.6)."""
    seen: dict[str, FileChange] = {}
    for event in store.read_events(session_id):
        if event.type != "session_checkpoint" or event.sequence <= target:
            continue
        payload = event.payload
        files = payload.get("files") if isinstance(payload, dict) else None
        for entry in files if isinstance(files, list) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
                continue
            path = entry["path"]
            if path in seen:
                continue
            if entry.get("skipped") is True:
                action = "skipped"
            elif entry.get("absent") is True:
                action = "delete"
            else:
                action = "restore"
            seen[path] = FileChange(path, action)
    return list(seen.values())


@dataclass(frozen=True, slots=True)
class RewindResult:
    restored: int
    deleted: int
    skipped: int
    target_sequence: int


def rewind(
    store: SessionStore, session_id: str, sequence: int, *, run: ZeroRunner | None = None
) -> RewindResult:
    """Rewind through Zero's own `zero sessions rewind` (the caller has shown the plan and
    had it confirmed, and made sure no agent runs the session)."""
    arguments = ["sessions", "rewind", session_id, "--sequence", str(sequence), "--json"]
    answer = _json_of(_runner(store, run)(arguments), "sessions rewind")
    try:
        return RewindResult(
            int(answer["filesRestored"]),
            int(answer["filesDeleted"]),
            len(answer.get("skipped") or []),
            int(answer["targetSequence"]),
        )
    except (KeyError, TypeError, ValueError):
        raise ZeroCommandError("`zero sessions rewind` answered in an unknown shape") from None


# --- sandbox grants ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Grant:
    """One of Zero's persistent sandbox grants (`zero sandbox grants list --json`)."""

    tool: str
    scope: str  # "" for the whole tool, else a path
    decision: str  # "allow" or "deny"
    approved_at: str

    def describe(self) -> str:
        return f"{self.tool} ({self.scope or 'every call'}) [{self.decision}]"


def grants(store: SessionStore, *, run: ZeroRunner | None = None) -> list[Grant]:
    answer = _json_of(
        _runner(store, run)(["sandbox", "grants", "list", "--json"]), "sandbox grants"
    )
    try:
        return [
            Grant(
                str(item["toolName"]),
                str(item.get("scope") or ""),
                str(item["decision"]),
                str(item.get("approvedAt") or ""),
            )
            for item in answer.get("grants") or []
        ]
    except (KeyError, TypeError, AttributeError):
        raise ZeroCommandError("`zero sandbox grants list` answered in an unknown shape") from None


def allow_always(
    store: SessionStore, tool: str, *, path: str = "", run: ZeroRunner | None = None
) -> None:
    """`zero sandbox grants allow TOOL [--path PATH]`: Zero's own persistent grant, for one
    of Zero's tools only, and said done only once Zero lists it (`grants`).

    The name is checked, not put after `--`: Zero 0.8.0's grants parser takes every word
    that starts with `-` for a flag, `--` included (`unknown sandbox grants flag "--"`), and
    `-h` or `help` for its help, which it prints with exit status 0."""
    if not is_zero_tool(tool):
        raise ZeroCommandError(f"{tool!r} is not one of Zero's tools: no grant was asked for")
    arguments = ["sandbox", "grants", "allow", tool]
    if path:
        arguments += ["--path", path]
    _runner(store, run)([*arguments, "--reason", "allowed from zero-tui"])
    scope = os.path.abspath(path) if path else ""
    if not any(
        grant.tool == tool and grant.scope == scope and grant.decision == "allow"
        for grant in grants(store, run=run)
    ):
        raise ZeroCommandError(
            f"`zero sandbox grants allow {tool}` ended without an error, but Zero lists no "
            f"such grant: {tool} is not allowed"
        )


def revoke(
    store: SessionStore, tool: str, *, path: str = "", run: ZeroRunner | None = None
) -> None:
    """`zero sandbox grants revoke TOOL [--path PATH]`."""
    arguments = ["sandbox", "grants", "revoke", tool]
    if path:
        arguments += ["--path", path]
    _runner(store, run)(arguments)


@dataclass(frozen=True, slots=True)
class CostEstimate:
    """Zero's own cost estimate for usage zero-tui counted, or why there is none (`note`;
    `out_of_scope`: Zero's report covers one session or every workspace, not one
    workspace). A note may come with an estimate: Zero counted other figures."""

    cost: ZeroCost | None
    note: str = ""
    out_of_scope: bool = False


def estimate_cost(
    store: SessionStore,
    total: Tokens,
    *,
    since: str,
    session_id: str = "",
    every_workspace: bool,
) -> CostEstimate:
    """Ask `zero usage report` for its estimate of the usage `total` counts (blocking: it
    runs Zero). Never zero-tui's own prices."""
    if not session_id and not every_workspace:
        return CostEstimate(
            None, "Zero's cost estimate covers a session or every workspace", out_of_scope=True
        )
    if not total.requests:
        return CostEstimate(None)
    try:
        cost = zero_cost(store, since=since, session_id=session_id)
    except ZeroCommandError as error:
        return CostEstimate(None, f"no cost estimate: {error}")
    if cost.total_tokens != total.total:
        return CostEstimate(
            cost,
            f"Zero counted {cost.total_tokens:,} tokens where zero-tui counts "
            f"{total.total:,}: the store changed between the two reads?",
        )
    return CostEstimate(cost)
