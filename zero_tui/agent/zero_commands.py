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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zero_tui.agent.engine import AgentUnavailable, agent_environment, find_agent
from zero_tui.store import SessionStore

COMMAND_TIMEOUT = 60.0


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
        try:
            done = subprocess.run(
                [binary, *arguments],
                cwd=neutral,
                env=environ,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ZeroCommandError(
                f"`zero {arguments[0]}` did not answer in {timeout:g}s"
            ) from None
        except OSError as error:
            raise ZeroCommandError(f"could not run {binary}: {error.strerror}") from None
    if done.returncode != 0:
        raise ZeroCommandError(_last_line(done.stderr) or f"zero exited with {done.returncode}")
    return done.stdout.decode("utf-8", "replace")


def _last_line(stderr: bytes) -> str:
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
