"""A realistic sample store for demos, screenshots and tests.

Everything is written through `SessionStore` (create, append_events, update_title) with a
clock that the builder moves, so sessions spread over the last months and today, and the
result is deterministic for a given `now`. The workspaces are real directories under
`root.parent / "projects"` so workspace identity (same directory) works on them.

No Textual or Rich import.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from zero_tui.demo.builder import (
    DEMO_MODEL,
    HOSTILE_TITLE,
    MISSING_WORKSPACE_NAME,
    WORKSPACE_NAMES,
    DemoBuilder,
    DemoStore,
)
from zero_tui.demo.sessions import (
    FILLER_TOPICS,
    ask_user_session,
    compacted_session,
    date_parser_session,
    empty_run_sessions,
    filler_run,
    fork_session,
    goal_session,
    hostile_session,
    peer_session,
    permission_denied_session,
    provider_error_session,
    rate_limit_session,
    specialist_sessions,
)
from zero_tui.paths import CACHE_DIR_VARIABLE

__all__ = [
    "HOSTILE_TITLE",
    "DemoStore",
    "build_demo_store",
    "demo_environment",
    "demo_sessions_root",
]


def demo_sessions_root(directory: Path) -> Path:
    """Where the demo's store goes in its temp dir: Zero's own layout, `<data>/zero/sessions`,
    so that the agent can continue a demo session (run with XDG_DATA_HOME=`directory`)."""
    return directory / "zero" / "sessions"


def build_demo_store(root: Path, *, now: datetime | None = None) -> DemoStore:
    """Write the sample store under `root` (its workspaces under `root.parent/"projects"`)."""
    moment = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
    projects = root.parent / "projects"
    workspaces = tuple(projects / name for name in WORKSPACE_NAMES)
    for directory in workspaces:
        directory.mkdir(parents=True, exist_ok=True)
    by_name = dict(zip(WORKSPACE_NAMES, workspaces, strict=True))
    webapp, cli_tool, infra = workspaces
    demo = DemoBuilder(root, moment)

    def ago(days: float = 0, hours: float = 0, minutes: float = 0) -> datetime:
        return moment - timedelta(days=days, hours=hours, minutes=minutes)

    # Filler sessions, oldest first: one per topic, spread over the last three months.
    for index, (workspace_name, prompt, tool, argument, answer) in enumerate(FILLER_TOPICS):
        started = ago(days=95 - index * 4, hours=(index * 5) % 9)
        model = ("gpt-5", "openai") if index % 3 == 0 else DEMO_MODEL
        writer = demo.session(
            started, prompt, by_name[workspace_name], model_id=model[0], provider=model[1]
        )
        filler_run(writer, prompt, tool, argument, answer)

    compacted = compacted_session(demo, ago(days=12, hours=3), webapp)
    fork_parent = rate_limit_session(demo, ago(days=6, hours=2), webapp)
    fork = fork_session(demo, ago(days=5, hours=1), fork_parent)
    specialist_parent, child = specialist_sessions(demo, ago(days=3, hours=4), webapp)
    ask_user_session(demo, ago(days=2, hours=6), cli_tool)
    goal_session(demo, ago(days=2, hours=1), infra)
    permission_denied_session(demo, ago(days=1, hours=5), webapp)
    provider_error_session(demo, ago(days=1, hours=2), cli_tool)
    hostile = hostile_session(demo, ago(hours=9), webapp)
    peer_session(demo, ago(days=20), projects / MISSING_WORKSPACE_NAME)
    empty_runs = empty_run_sessions(demo, moment, webapp, infra)
    date_parser_session(demo, ago(minutes=25), webapp)

    return DemoStore(
        root=root,
        workspaces=workspaces,
        session_ids=tuple(demo.session_ids),
        compacted_session_id=compacted,
        fork_parent_session_id=fork_parent.session_id,
        fork_session_id=fork,
        specialist_parent_session_id=specialist_parent,
        child_session_id=child,
        hostile_session_id=hostile,
        empty_run_session_ids=empty_runs,
    )


@contextmanager
def demo_environment(*, now: datetime | None = None) -> Iterator[DemoStore]:
    """The sample store in a private temp dir, for as long as the `with` block runs.

    The temp dir holds the store, its workspaces and zero-tui's cache (the catalog and the
    picker's remembered first rows: `ZERO_TUI_CACHE_DIR` points there meanwhile), so the
    demo leaves nothing behind in the user's cache pointing at a deleted directory.
    """
    directory = Path(tempfile.mkdtemp(prefix="zero-tui-demo-"))
    previous = os.environ.get(CACHE_DIR_VARIABLE)
    os.environ[CACHE_DIR_VARIABLE] = str(directory / "cache")
    try:
        yield build_demo_store(demo_sessions_root(directory), now=now)
    finally:
        if previous is None:
            os.environ.pop(CACHE_DIR_VARIABLE, None)
        else:
            os.environ[CACHE_DIR_VARIABLE] = previous
        shutil.rmtree(directory, ignore_errors=True)
