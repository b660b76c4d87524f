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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from zero_tui.paths import CACHE_DIR_VARIABLE
from zero_tui.store import Event, Metadata, SessionStore
from zero_tui.store.gojson import encode_string, marshal
from zero_tui.store.models import Goal

WORKSPACE_NAMES = ("webapp", "cli-tool", "infra")
MISSING_WORKSPACE_NAME = "legacy-api"  # recorded in one session, never created on disk
HOSTILE_TITLE = "[bold]not markup[/bold]"
DEMO_MODEL = ("claude-sonnet-4-5", "anthropic")  # (model id, provider) unless a session says
HOSTILE_ANSWER = (
    "Here is the colour code you asked about: \x1b[31mred text\x1b[0m.\n\n"
    "And the snippet from the bug report, verbatim: <script>alert(1)</script>\n\n"
    "Rich markup such as [bold red]this[/bold red] and [link=https://example.com]links[/link] "
    "is plain text here."
)
NO_PROGRESS_ANSWER = (
    "Agent stopped after 3 turns with no output (no visible text and no tool calls) to avoid "
    "consuming tokens without making progress."
)


@dataclass(frozen=True, slots=True)
class DemoStore:
    """What `build_demo_store` wrote. `workspaces[0]` is the default workspace."""

    root: Path
    workspaces: tuple[Path, ...]
    session_ids: tuple[str, ...]
    compacted_session_id: str
    fork_parent_session_id: str
    fork_session_id: str
    specialist_parent_session_id: str
    child_session_id: str
    hostile_session_id: str
    empty_run_session_ids: tuple[str, ...]

    @property
    def default_workspace(self) -> Path:
        return self.workspaces[0]


class _DemoClock:
    """Returns the current demo time and moves it on a few seconds per reading."""

    def __init__(self, start: datetime, step_seconds: int = 4) -> None:
        self.current = start
        self.step = timedelta(seconds=step_seconds)

    def __call__(self) -> datetime:
        moment = self.current
        self.current += self.step
        return moment


class RawJSON:
    """Already-encoded JSON nested inside `_struct` (kept byte for byte)."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw


def _struct(*pairs: tuple[str, object]) -> bytes:
    """A JSON object in the given key order (Go struct payloads are not key-sorted)."""
    members = [encode_string(key) + ":" + _encode(value) for key, value in pairs]
    return ("{" + ",".join(members) + "}").encode("utf-8")


def _encode(value: object) -> str:
    if isinstance(value, RawJSON):
        return value.raw.decode("utf-8")
    if isinstance(value, list) and any(isinstance(item, RawJSON) for item in value):
        return "[" + ",".join(_encode(item) for item in value) + "]"
    return marshal(value).decode("utf-8")


def _arguments(**arguments: object) -> str:
    return marshal(arguments).decode("utf-8")


@dataclass
class _Run:
    """Buffers one run's events like Zero's TUI: the user message goes first, alone."""

    writer: _SessionWriter
    pending: list[tuple[str, object]] = field(default_factory=list)

    def usage(self, prompt: int, completion: int, cached: int = 0) -> _Run:
        payload: dict[str, object] = {
            "completionTokens": completion,
            "promptTokens": prompt,
            "totalTokens": prompt + completion,
        }
        if cached:
            payload["cachedInputTokens"] = cached
        self.pending.append(("provider_usage", payload))
        return self

    def tool(
        self,
        name: str,
        arguments: str,
        output: str,
        *,
        status: str = "ok",
        preview: str = "",
        changed_files: Sequence[str] = (),
        meta: dict[str, str] | None = None,
        permission: str = "",
    ) -> _Run:
        call_id = self.writer.next_call_id()
        self.pending.append(("tool_call", {"arguments": arguments, "id": call_id, "name": name}))
        if permission:
            self.pending.extend(self.writer.permission_events(call_id, name, permission))
        result: dict[str, object] = {
            "name": name,
            "output": output,
            "status": status,
            "toolCallId": call_id,
        }
        if preview:
            result["displayPreview"] = preview
        if changed_files:
            result["changedFiles"] = list(changed_files)
        if meta:
            result["meta"] = meta
        self.pending.append(("tool_result", result))
        return self

    def event(self, event_type: str, payload: object) -> _Run:
        self.pending.append((event_type, payload))
        return self

    def answer(self, text: str) -> list[Event]:
        self.pending.append(("message", {"content": text, "role": "assistant"}))
        return self.finish()

    def fail(self, message: str) -> list[Event]:
        self.pending.append(("error", {"message": message}))
        return self.finish()

    def finish(self) -> list[Event]:
        events = self.writer.append(self.pending)
        self.pending = []
        return events


class _SessionWriter:
    def __init__(self, demo: _DemoBuilder, meta: Metadata, index: int) -> None:
        self.demo = demo
        self.meta = meta
        self.index = index
        self.call_count = 0
        self.events: list[Event] = []

    @property
    def session_id(self) -> str:
        return self.meta.session_id

    def next_call_id(self) -> str:
        self.call_count += 1
        return f"toolu_{self.index:02d}{self.call_count:02d}"

    def append(self, events: Sequence[tuple[str, object]]) -> list[Event]:
        if not events:
            return []
        written = self.demo.store.append_events(self.session_id, list(events))
        self.events.extend(written)
        return written

    def user(self, text: str, *, attachments: dict[str, int] | None = None) -> _Run:
        payload: dict[str, object] = {"content": text, "role": "user"}
        if attachments:
            payload["attachments"] = attachments
        self.append([("message", payload)])
        self.demo.clock.current += timedelta(seconds=20)
        return _Run(self)

    def wait(self, minutes: float) -> None:
        self.demo.clock.current += timedelta(minutes=minutes)

    def permission_events(self, call_id: str, name: str, action: str) -> list[tuple[str, object]]:
        scope = {"bash": "rm -rf build/ .cache/", "edit_file": "src/server.ts"}.get(name, ".")
        side_effect = "shell" if name == "bash" else "write"
        level = "high" if name == "bash" else "medium"
        risk = _struct(
            ("level", level),
            ("categories", [side_effect]),
            ("reason", f"{level} risk: {side_effect}"),
        )
        reason = "Runs a shell command" if name == "bash" else "Edits a workspace file"
        request = _struct(
            ("toolCallId", call_id),
            ("name", name),
            ("action", "prompt"),
            ("permission", "prompt"),
            ("permissionMode", "ask"),
            ("sideEffect", side_effect),
            ("reason", reason),
            ("scope", scope),
            ("risk", RawJSON(risk)),
            ("availableDecisions", ["allow", "allow_for_session", "always_allow", "deny"]),
        )
        decision_pairs: list[tuple[str, object]] = [
            ("toolCallId", call_id),
            ("name", name),
            ("action", action),
            ("decisionAction", action),
            ("permission", "prompt"),
        ]
        if action == "allow":
            decision_pairs.append(("permissionGranted", True))
        decision_pairs += [
            ("permissionMode", "ask"),
            ("sideEffect", side_effect),
            ("reason", reason),
            ("scope", scope),
            ("decisionReason", "approved in TUI" if action == "allow" else "denied in TUI"),
            ("risk", RawJSON(risk)),
        ]
        return [
            ("permission_request", request),
            ("permission_decision", _struct(*decision_pairs)),
        ]


class _DemoBuilder:
    def __init__(self, root: Path, now: datetime) -> None:
        self.now = now
        self.clock = _DemoClock(now)
        self.store = SessionStore(root, clock=self.clock)
        self.session_ids: list[str] = []
        self.writers: list[_SessionWriter] = []

    def session(
        self,
        started: datetime,
        title: str,
        cwd: Path | str,
        *,
        model_id: str = DEMO_MODEL[0],
        provider: str = DEMO_MODEL[1],
        goal: Goal | None = None,
    ) -> _SessionWriter:
        self.clock.current = started
        meta = self.store.create(
            title=title, cwd=str(cwd), model_id=model_id, provider=provider, goal=goal
        )
        return self.writer(meta)

    def writer(self, meta: Metadata) -> _SessionWriter:
        """The writer of a session just created in the demo store."""
        writer = _SessionWriter(self, meta, len(self.writers) + 1)
        self.session_ids.append(meta.session_id)
        self.writers.append(writer)
        return writer


def _long_markdown_answer() -> str:
    return """I added a token-bucket rate limiter as Express middleware. Summary first, details
below.

## What changed

| File | Change |
| --- | --- |
| `src/middleware/rateLimit.ts` | new: token bucket per client key |
| `src/server.ts` | mounts the limiter before the API router |
| `src/config.ts` | `RATE_LIMIT_RPS` and `RATE_LIMIT_BURST` settings |
| `test/rateLimit.test.ts` | 6 new tests |

## How it works

1. Each client key (API key, else the remote address) owns a bucket of `burst` tokens.
2. Tokens refill continuously at `rps` per second; a request takes one token.
3. With no token left the request gets **429 Too Many Requests** and a `Retry-After` header.

```ts
export function rateLimit({ rps, burst }: RateLimitOptions): RequestHandler {
  const buckets = new Map<string, Bucket>();
  return (req, res, next) => {
    const key = req.header("x-api-key") ?? req.ip ?? "anonymous";
    const bucket = refill(buckets.get(key) ?? { tokens: burst, at: Date.now() }, rps, burst);
    if (bucket.tokens < 1) {
      res.setHeader("Retry-After", Math.ceil((1 - bucket.tokens) / rps).toString());
      res.status(429).json({ error: "rate limit exceeded" });
      return;
    }
    buckets.set(key, { ...bucket, tokens: bucket.tokens - 1 });
    next();
  };
}
```

## Notes

- The buckets live in memory, so limits are per process. Behind several replicas you want a
  shared store (Redis `INCR` + `EXPIRE` is the usual choice).
- Health checks (`/healthz`) are exempt.
- `npm test` passes: **48 passed**, 0 failed.

```bash
RATE_LIMIT_RPS=5 RATE_LIMIT_BURST=10 npm run dev
```
"""


_GREP_OUTPUT = "\n".join(
    f"src/{path}:{line}:    const session = await getSession(req);"
    for path, line in [
        ("routes/users.ts", 14),
        ("routes/users.ts", 52),
        ("routes/orders.ts", 9),
        ("routes/orders.ts", 88),
        ("routes/orders.ts", 131),
        ("routes/admin.ts", 21),
        ("routes/admin.ts", 77),
        ("routes/billing.ts", 30),
        ("routes/billing.ts", 64),
        ("routes/reports.ts", 18),
        ("routes/reports.ts", 45),
        ("routes/search.ts", 12),
        ("middleware/auth.ts", 40),
        ("middleware/audit.ts", 16),
        ("jobs/nightly.ts", 23),
        ("jobs/cleanup.ts", 11),
    ]
)

_FAILING_TEST_OUTPUT = """> webapp@1.4.0 test
> vitest run

 ✓ test/date.test.ts (4 tests) 12ms
 ✓ test/users.test.ts (11 tests) 48ms
 > test/rateLimit.test.ts (6 tests | 2 failed) 31ms
   x allows a burst of requests
   x refills tokens over time
     → expected 200 to be 429

 FAIL  test/rateLimit.test.ts > allows a burst of requests
AssertionError: expected 429 to be 200 // Object.is equality
 > test/rateLimit.test.ts:22:31

 Test Files  1 failed | 2 passed (3)
      Tests  2 failed | 19 passed (21)
   Duration  1.21s"""

_FILLER_TOPICS: tuple[tuple[str, str, str, str, str], ...] = (
    # (workspace, prompt, tool, tool argument, answer)
    (
        "webapp",
        "Why does the login page flash unstyled content on first load?",
        "read_file",
        "src/pages/login.tsx",
        "The stylesheet is injected after hydration. Move the `<link>` into `_document.tsx` "
        "so it ships with the server-rendered HTML.",
    ),
    (
        "webapp",
        "Bump the Node version in CI to 22",
        "edit_file",
        ".github/workflows/ci.yml",
        "Done: `node-version: 22` in both jobs, and the cache key now includes the version.",
    ),
    (
        "webapp",
        "Find where we still use the deprecated moment.js",
        "grep",
        'from "moment"',
        "Three files still import moment:\n\n- `src/utils/format.ts`\n- `src/pages/reports.tsx`\n"
        "- `src/jobs/nightly.ts`\n\nAll three only format dates; `Intl.DateTimeFormat` covers it.",
    ),
    (
        "webapp",
        "Add an index for orders.created_at",
        "edit_file",
        "migrations/0042_orders_created_at.sql",
        "Added migration `0042` with `CREATE INDEX CONCURRENTLY orders_created_at_idx`.",
    ),
    (
        "webapp",
        "What does the /api/health endpoint check?",
        "read_file",
        "src/routes/health.ts",
        "It pings Postgres (`SELECT 1`) and Redis (`PING`) with a 500 ms timeout each and "
        "returns 503 if either fails.",
    ),
    (
        "webapp",
        "Make the users table sortable by email",
        "edit_file",
        "src/components/UsersTable.tsx",
        "The email column header is now a sort button; sorting is done server-side via "
        "`?sort=email`.",
    ),
    (
        "webapp",
        "Run the linter and fix what it reports",
        "bash",
        "npm run lint -- --fix",
        "ESLint fixed 14 problems automatically; 2 remain (unused variables in test helpers), "
        "which I removed by hand.",
    ),
    (
        "webapp",
        "Explain the difference between our two session stores",
        "grep",
        "SessionStore",
        "`MemorySessionStore` is used in tests only; production uses `RedisSessionStore`, "
        "which adds TTL refresh on every request.",
    ),
    (
        "cli-tool",
        "Add a --version flag",
        "edit_file",
        "cmd/root.go",
        "Added `--version`, printing the version injected by `-ldflags` at build time.",
    ),
    (
        "cli-tool",
        "Why is `tool sync` so slow on large directories?",
        "read_file",
        "internal/sync/walk.go",
        "It stats every file twice: once in `walk` and again in `hashFile`. Passing the "
        "`fs.FileInfo` through halves the syscalls.",
    ),
    (
        "cli-tool",
        "Write release notes for v0.9.0",
        "bash",
        "git log --oneline v0.8.0..HEAD",
        "## v0.9.0\n\n- `--version` flag\n- faster `sync` on large trees\n- fixed a panic on "
        "empty config files",
    ),
    (
        "cli-tool",
        "Add shell completion for zsh",
        "edit_file",
        "cmd/completion.go",
        "`tool completion zsh` now prints the script; install it with "
        '`tool completion zsh > "${fpath[1]}/_tool"`.',
    ),
    (
        "cli-tool",
        "Handle SIGINT gracefully during uploads",
        "read_file",
        "internal/upload/upload.go",
        "Uploads now run under a `signal.NotifyContext`; on Ctrl+C the current part finishes "
        "and the multipart upload is aborted cleanly.",
    ),
    (
        "infra",
        "Why did the last terraform plan want to replace the database?",
        "bash",
        "terraform plan -target=module.db",
        "The `engine_version` changed from `15.4` to `15`; pin it back to `15.4` to avoid a "
        "replacement.",
    ),
    (
        "infra",
        "Add resource limits to the api deployment",
        "edit_file",
        "k8s/api/deployment.yaml",
        "Set requests `cpu: 250m, memory: 256Mi` and limits `cpu: 1, memory: 512Mi`.",
    ),
    (
        "infra",
        "List the S3 buckets without encryption",
        "grep",
        "server_side_encryption_configuration",
        "Two buckets lack encryption: `logs-archive` and `tmp-exports`.",
    ),
    (
        "infra",
        "Rotate the staging TLS certificate",
        "bash",
        "kubectl -n staging get certificate",
        "cert-manager renewed `staging-tls`; the new certificate is valid until next quarter.",
    ),
    (
        "infra",
        "Explain the network policy for the payments namespace",
        "read_file",
        "k8s/payments/networkpolicy.yaml",
        "Ingress is allowed only from the `api` namespace on port 8443; egress only to the "
        "database CIDR and the payment provider's IP range.",
    ),
    (
        "webapp",
        "Speed up the dashboard query",
        "read_file",
        "src/queries/dashboard.sql",
        "The query scanned `events` without a date bound. Adding `WHERE created_at > now() - "
        "interval '30 days'` brings it from 2.1 s to 40 ms.",
    ),
    (
        "webapp",
        "Translate the error messages to German",
        "edit_file",
        "src/i18n/de.json",
        "Added 37 German strings; the two plural forms use ICU syntax.",
    ),
    (
        "cli-tool",
        "Add a config file option",
        "edit_file",
        "internal/config/config.go",
        "`--config PATH` now overrides the default `~/.config/tool/config.toml`.",
    ),
    (
        "infra",
        "Add an alert for high error rates",
        "edit_file",
        "monitoring/alerts.yaml",
        "New alert `ApiErrorRateHigh`: 5xx rate above 2% for 10 minutes pages on-call.",
    ),
)


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
    demo = _DemoBuilder(root, moment)

    def ago(days: float = 0, hours: float = 0, minutes: float = 0) -> datetime:
        return moment - timedelta(days=days, hours=hours, minutes=minutes)

    # Filler sessions, oldest first: one per topic, spread over the last three months.
    for index, (workspace_name, prompt, tool, argument, answer) in enumerate(_FILLER_TOPICS):
        started = ago(days=95 - index * 4, hours=(index * 5) % 9)
        model = ("gpt-5", "openai") if index % 3 == 0 else DEMO_MODEL
        writer = demo.session(
            started, prompt, by_name[workspace_name], model_id=model[0], provider=model[1]
        )
        _filler_run(writer, prompt, tool, argument, answer)

    compacted = _compacted_session(demo, ago(days=12, hours=3), webapp)
    fork_parent = _rate_limit_session(demo, ago(days=6, hours=2), webapp)
    fork = _fork_session(demo, ago(days=5, hours=1), fork_parent)
    specialist_parent, child = _specialist_sessions(demo, ago(days=3, hours=4), webapp)
    _ask_user_session(demo, ago(days=2, hours=6), cli_tool)
    _goal_session(demo, ago(days=2, hours=1), infra)
    _permission_denied_session(demo, ago(days=1, hours=5), webapp)
    _provider_error_session(demo, ago(days=1, hours=2), cli_tool)
    hostile = _hostile_session(demo, ago(hours=9), webapp)
    _peer_session(demo, ago(days=20), projects / MISSING_WORKSPACE_NAME)
    empty_runs = _empty_runs(demo, moment, webapp, infra)
    _date_parser_session(demo, ago(minutes=25), webapp)

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


def _filler_run(writer: _SessionWriter, prompt: str, tool: str, argument: str, answer: str) -> None:
    run = writer.user(prompt).usage(5200, 140, cached=4096)
    if tool == "bash":
        output = f"$ {argument}\n" + "\n".join(f"  step {n}: ok" for n in range(1, 9))
        run.tool(tool, _arguments(command=argument), output, meta={"exit_code": "0"})
    elif tool == "grep":
        output = "\n".join(f"src/file{n}.ts:{n * 7}: {argument}" for n in range(1, 4))
        run.tool(tool, _arguments(path="src", pattern=argument), output)
    elif tool == "edit_file":
        preview = f"--- a/{argument}\n+++ b/{argument}\n@@ -1,3 +1,3 @@\n-old line\n+new line"
        run.tool(
            tool,
            _arguments(path=argument, old_string="old line", new_string="new line"),
            f"Successfully edited {argument} (replaced 1 occurrence).",
            preview=preview,
            changed_files=[argument],
        )
    else:
        run.tool(tool, _arguments(path=argument), f"// {argument}\nexport {{}};\n")
    run.usage(5600, 260, cached=5120).answer(answer)


def _date_parser_session(demo: _DemoBuilder, started: datetime, cwd: Path) -> str:
    writer = demo.session(started, "Fix the date parser test", cwd)
    run = writer.user("The date parser test in src/utils/date.test.ts is failing, can you fix it?")
    run.usage(6120, 142, cached=5888)
    run.tool(
        "read_file",
        _arguments(path="src/utils/date.ts"),
        "export function parseDate(s: string): Date {\n"
        '  return parse(s, "yyyy-dd-MM", new Date());\n}\n',
    )
    run.usage(6410, 188, cached=6016)
    run.tool(
        "edit_file",
        _arguments(path="src/utils/date.ts", old_string="yyyy-dd-MM", new_string="yyyy-MM-dd"),
        "Successfully edited src/utils/date.ts (replaced 1 occurrence).",
        preview="--- a/src/utils/date.ts\n+++ b/src/utils/date.ts\n@@ -2,1 +2,1 @@\n"
        '-  return parse(s, "yyyy-dd-MM", new Date());\n'
        '+  return parse(s, "yyyy-MM-dd", new Date());',
        changed_files=["src/utils/date.ts"],
        permission="allow",
    )
    run.tool(
        "bash",
        _arguments(command="npm test -- date"),
        " ✓ test/date.test.ts (4 tests) 12ms\n\n"
        " Test Files  1 passed (1)\n      Tests  4 passed (4)",
        meta={"exit_code": "0"},
    )
    run.usage(6830, 97, cached=6656).answer(
        "Fixed: `parseDate` used the pattern `yyyy-dd-MM` (day before month). It now uses "
        "`yyyy-MM-dd` and `npm test -- date` passes."
    )
    return writer.session_id


def _rate_limit_session(demo: _DemoBuilder, started: datetime, cwd: Path) -> _SessionWriter:
    writer = demo.session(started, "Add rate limiting middleware to the API", cwd)
    run = writer.user(
        "Add rate limiting middleware to the API: 5 requests per second per API key, "
        "burst of 10. Tests too."
    )
    run.usage(7021, 233, cached=6784)
    run.tool("grep", _arguments(path="src", pattern="getSession\\(req\\)"), _GREP_OUTPUT)
    run.tool("read_file", _arguments(path="src/server.ts"), _SERVER_TS)
    run.tool(
        "write_file",
        _arguments(path="src/middleware/rateLimit.ts", content="…"),
        "Created src/middleware/rateLimit.ts (41 lines).",
        changed_files=["src/middleware/rateLimit.ts"],
    )
    run.tool(
        "bash",
        _arguments(command="npm test"),
        _FAILING_TEST_OUTPUT,
        status="error",
        meta={"exit_code": "1"},
    )
    run.usage(8120, 310, cached=7168)
    run.tool(
        "edit_file",
        _arguments(path="src/middleware/rateLimit.ts", old_string="<", new_string="<="),
        "Successfully edited src/middleware/rateLimit.ts (replaced 1 occurrence).",
        preview="--- a/src/middleware/rateLimit.ts\n+++ b/src/middleware/rateLimit.ts\n"
        "@@ -18,1 +18,1 @@\n-    if (bucket.tokens <= 0) {\n+    if (bucket.tokens < 1) {",
        changed_files=["src/middleware/rateLimit.ts"],
    )
    run.tool(
        "bash",
        _arguments(command="npm test"),
        " Test Files  3 passed (3)\n      Tests  48 passed (48)\n   Duration  1.18s",
        meta={"exit_code": "0"},
    )
    run.usage(8600, 720, cached=8064).answer(_long_markdown_answer())
    writer.wait(6)
    run = writer.user("Should the limit apply to /healthz too?").usage(9100, 80, cached=8960)
    run.answer("No — health checks are exempt, so load balancers never see a 429.")
    return writer


_SERVER_TS = "\n".join(
    [
        'import express from "express";',
        'import { apiRouter } from "./routes";',
        'import { config } from "./config";',
        "",
        "const app = express();",
        "app.use(express.json());",
        'app.get("/healthz", (_req, res) => res.send("ok"));',
        'app.use("/api", apiRouter);',
        "",
        "app.listen(config.port, () => {",
        "  console.log(`listening on ${config.port}`);",
        "});",
    ]
)


def _compacted_session(demo: _DemoBuilder, started: datetime, cwd: Path) -> str:
    writer = demo.session(
        started, "Refactor the auth module", cwd, model_id="gpt-5", provider="openai"
    )
    prompts = [
        (
            "Map out how authentication works today.",
            "Sessions live in Redis; `requireUser` "
            "reads the cookie, loads the session and attaches `req.user`.",
        ),
        (
            "Split token parsing out of requireUser.",
            "Moved parsing into `parseSessionToken` with its own tests.",
        ),
        (
            "Now replace the callback-style Redis calls with async/await.",
            "Converted all 11 "
            "call sites; the error handling is now a single try/catch in the middleware.",
        ),
        (
            "Add refresh-token rotation.",
            "Refresh tokens are now single-use: each refresh "
            "issues a new pair and revokes the old one.",
        ),
    ]
    for prompt, answer in prompts:
        run = writer.user(prompt).usage(4000, 200, cached=3072)
        run.tool(
            "read_file",
            _arguments(path="src/middleware/auth.ts"),
            "export async function requireUser() {}\n",
        )
        run.answer(answer)
        writer.wait(4)
    preserve_last = 10
    compactable = writer.events[:-preserve_last]
    preserved = writer.events[-preserve_last:]

    def refs(events: Sequence[Event]) -> list[RawJSON]:
        return [
            RawJSON(
                _struct(
                    ("id", event.id),
                    ("sequence", event.sequence),
                    ("type", event.type),
                    ("createdAt", event.created_at),
                )
            )
            for event in events
        ]

    summary = (
        "Earlier in this session: mapped the auth flow (Redis-backed sessions, `requireUser` "
        "middleware), split token parsing into `parseSessionToken` with tests, and converted "
        "the callback-style Redis calls to async/await."
    )
    payload = _struct(
        ("summary", summary),
        ("preserveLast", preserve_last),
        ("compactableCount", len(compactable)),
        ("preservedCount", len(preserved)),
        ("compactedThroughEventId", compactable[-1].id),
        ("compactedThroughSequence", compactable[-1].sequence),
        ("compactableEvents", refs(compactable)),
        ("preservedEvents", refs(preserved)),
        ("promptChars", 3184),
    )
    writer.append([("session_compaction", payload)])
    writer.wait(2)
    run = writer.user("Summarise what we changed so far for the PR description.")
    run.usage(2600, 300).answer(
        "### Auth refactor\n\n- token parsing extracted into `parseSessionToken`\n"
        "- async/await Redis access\n- single-use refresh tokens (rotation on every refresh)"
    )
    return writer.session_id


def _fork_session(demo: _DemoBuilder, started: datetime, parent: _SessionWriter) -> str:
    demo.clock.current = started
    parent_meta = demo.store.get(parent.session_id)
    assert parent_meta is not None
    parent_events = demo.store.read_events(parent.session_id)
    last = parent_events[-1]
    meta = demo.store.create(
        title=f"{parent_meta.title} (fork)",
        session_kind="fork",
        cwd=parent_meta.cwd,
        model_id=parent_meta.model_id,
        provider=parent_meta.provider,
        parent_session_id=parent_meta.session_id,
        root_session_id=parent_meta.root_session_id or parent_meta.session_id,
        forked_from_event_id=last.id,
        forked_from_sequence=last.sequence,
    )
    writer = demo.writer(meta)
    copied: list[tuple[str, object]] = [
        (event.type, event.payload_raw) for event in parent_events if event.type != "provider_usage"
    ]
    writer.append(copied)
    marker = {
        "copiedEventCount": len(copied),
        "forkedFromEventId": last.id,
        "forkedFromSequence": last.sequence,
        "parentEventCount": parent_meta.event_count,
        "parentSessionId": parent_meta.session_id,
    }
    writer.append([("session_fork", marker)])
    writer.wait(3)
    run = writer.user("Try a Redis-backed limiter instead of the in-memory one.")
    run.usage(9800, 420, cached=9216)
    run.tool(
        "edit_file",
        _arguments(path="src/middleware/rateLimit.ts", old_string="new Map", new_string="redis"),
        "Successfully edited src/middleware/rateLimit.ts (replaced 1 occurrence).",
        changed_files=["src/middleware/rateLimit.ts"],
    )
    run.answer(
        "Switched the buckets to Redis (`INCR` + `PEXPIRE` in a `MULTI`), so the limit now holds "
        "across replicas."
    )
    return meta.session_id


def _specialist_sessions(demo: _DemoBuilder, started: datetime, cwd: Path) -> tuple[str, str]:
    parent = demo.session(started, "Explain the payment flow end to end", cwd)
    parent.user("Explain the payment flow end to end. Use the explorer agent.")
    task_call_id = parent.next_call_id()
    child_started = demo.clock.current + timedelta(seconds=5)
    demo.clock.current = child_started
    child_meta = demo.store.create(
        title="explorer: map the payment flow",
        cwd=str(cwd),
        model_id=DEMO_MODEL[0],
        provider=DEMO_MODEL[1],
        session_kind="child",
        tag="specialist",
        depth=1,
        parent_session_id=parent.session_id,
        root_session_id=parent.session_id,
        agent_name="explorer",
        task_id="task-payments-1",
        spawned_from_event_id=task_call_id,
    )
    child = demo.writer(child_meta)
    run = child.user("Map the payment flow: entry points, provider calls, webhooks.")
    run.usage(3000, 120)
    run.tool(
        "grep",
        _arguments(path="src", pattern="stripe\\."),
        "src/payments/charge.ts:12: stripe.paymentIntents.create(\n"
        "src/payments/webhook.ts:8: stripe.webhooks.constructEvent(",
    )
    run.tool(
        "read_file",
        _arguments(path="src/payments/webhook.ts"),
        "export async function handleWebhook(req, res) { /* … */ }\n",
    )
    run.usage(3900, 480).answer(
        "1. `POST /api/checkout` → `createCharge` creates a PaymentIntent.\n"
        "2. The client confirms it with Stripe.js.\n"
        "3. Stripe calls `POST /webhooks/stripe`; `handleWebhook` verifies the signature and "
        "marks the order paid."
    )
    demo.clock.current = child_started - timedelta(seconds=2)
    common: dict[str, object] = {
        "background": False,
        "childSessionId": child.session_id,
        "description": "Map the payment flow",
        "mode": "foreground",
        "source": "specialist",
        "specialist": "explorer",
        "taskId": "task-payments-1",
        "toolCallId": task_call_id,
    }
    parent.append([("specialist_start", common)])
    demo.clock.current += timedelta(minutes=1)
    rollup = dict(common, completionTokens=600, promptTokens=6900, totalTokens=7500, usageEvents=2)
    stop = dict(common, exitCode=0, runId="run-1", status="success", usageRolledUp=True)
    parent.append([("provider_usage", rollup), ("specialist_stop", stop)])
    run = _Run(parent).usage(5000, 90)
    run.event(
        "tool_call",
        {
            "arguments": _arguments(
                agent="explorer",
                description="Map the payment flow",
                prompt="Map the payment flow: entry points, provider calls, webhooks.",
            ),
            "id": task_call_id,
            "name": "Task",
        },
    )
    run.event(
        "tool_result",
        {
            "name": "Task",
            "output": "explorer finished: 3-step flow mapped.",
            "status": "ok",
            "toolCallId": task_call_id,
        },
    )
    run.usage(5600, 380).answer(
        "The explorer mapped it: checkout creates a Stripe PaymentIntent, the browser confirms "
        "it, and the signed webhook marks the order paid. The weak spot is that the webhook "
        "handler is not idempotent — a retried event charges fulfilment twice."
    )
    return parent.session_id, child.session_id


def _ask_user_session(demo: _DemoBuilder, started: datetime, cwd: Path) -> str:
    writer = demo.session(started, "Add persistent storage", cwd)
    run = writer.user("Add persistent storage for the sync state.").usage(3100, 90)
    question_id = writer.next_call_id()
    run.event(
        "message",
        {
            "header": "Storage backend",
            "questions": [
                {"options": ["SQLite", "BoltDB", "JSON file"], "question": "Which backend?"},
                {"question": "Where should the file live?"},
            ],
            "role": "ask_user",
            "toolCallId": question_id,
        },
    )
    run.event(
        "message",
        {"answers": ["SQLite", ""], "role": "ask_user_answers", "toolCallId": question_id},
    )
    run.tool(
        "edit_file",
        _arguments(
            path="internal/state/store.go", old_string="map[string]Entry", new_string="*sql.DB"
        ),
        "Successfully edited internal/state/store.go (replaced 1 occurrence).",
        changed_files=["internal/state/store.go", "go.mod"],
    )
    run.usage(4400, 350).answer(
        "Sync state now lives in SQLite at `$XDG_STATE_HOME/tool/state.db` (you skipped the "
        "location question, so I used the XDG default). `modernc.org/sqlite` keeps the build "
        "CGO-free."
    )
    return writer.session_id


def _goal_session(demo: _DemoBuilder, started: datetime, cwd: Path) -> str:
    stamp = started.strftime("%Y-%m-%dT%H:%M:%SZ")
    goal = Goal(
        objective="Get the staging cluster to zero failing health checks",
        status="active",
        continuation_limit=20,
        created_at=stamp,
        updated_at=stamp,
    )
    writer = demo.session(started, "Fix failing staging health checks", cwd, goal=goal)
    goal_payload = _struct(
        ("objective", goal.objective),
        ("status", goal.status),
        ("continuationLimit", goal.continuation_limit),
        ("createdAt", goal.created_at),
        ("updatedAt", goal.updated_at),
    )
    writer.append([("goal_created", goal_payload)])
    run = writer.user("/goal Get the staging cluster to zero failing health checks")
    run.tool(
        "bash",
        _arguments(command="kubectl -n staging get pods"),
        "NAME                   READY   STATUS             RESTARTS\n"
        "api-7d9f8c6b5-x2k4q    0/1     CrashLoopBackOff   12\n"
        "web-5f6d7c8b9-p9r2s    1/1     Running            0",
        meta={"exit_code": "0"},
    )
    run.usage(3500, 150).answer("The api pod crash-loops: it cannot reach Redis (`ECONNREFUSED`).")
    writer.wait(1)
    run = _Run(writer).event(
        "message",
        {
            "content": "Continue working toward the goal: "
            "Get the staging cluster to zero failing health checks",
            "role": "goal",
        },
    )
    run.tool(
        "edit_file",
        _arguments(
            path="k8s/staging/api.yaml", old_string="redis:6379", new_string="redis-master:6379"
        ),
        "Successfully edited k8s/staging/api.yaml (replaced 1 occurrence).",
        changed_files=["k8s/staging/api.yaml"],
    )
    run.usage(3900, 170).answer(
        "Pointed the api at `redis-master`; after a rollout all pods are healthy."
    )
    return writer.session_id


def _permission_denied_session(demo: _DemoBuilder, started: datetime, cwd: Path) -> str:
    writer = demo.session(started, "Clean up the build cache", cwd)
    run = writer.user("The build is picking up stale files. Clean up the build cache.")
    run.usage(2900, 60)
    run.tool(
        "bash",
        _arguments(command="rm -rf build/ .cache/"),
        "permission denied: the user declined to run this command",
        status="error",
        permission="deny",
    )
    run.usage(3100, 120).answer(
        "Understood, I did not delete anything. To clear only the bundler cache run "
        "`npm run clean`, which removes `.cache/` but keeps `build/`."
    )
    return writer.session_id


def _provider_error_session(demo: _DemoBuilder, started: datetime, cwd: Path) -> str:
    writer = demo.session(
        started, "Profile the sync command", cwd, model_id="gpt-5", provider="openai"
    )
    run = writer.user("Profile `tool sync` on the big fixture and tell me where the time goes.")
    run.usage(2000, 40).fail("provider error: 429 Too Many Requests: rate limit reached for gpt-5")
    writer.wait(3)
    run = writer.user("Try again please.").usage(2100, 90)
    run.tool(
        "bash",
        _arguments(command="go test -run XXX -bench Sync -cpuprofile cpu.out ./internal/sync"),
        "BenchmarkSync-8   \t      12\t  98231455 ns/op\nPASS\n"
        "ok  \texample.com/tool/internal/sync\t2.391s",
        meta={"exit_code": "0"},
    )
    run.usage(2900, 260).answer(
        "62% of the time is in `hashFile` (SHA-256 over every file). Hashing only files whose "
        "size or mtime changed cuts a no-op sync from 98 ms to 11 ms."
    )
    return writer.session_id


def _hostile_session(demo: _DemoBuilder, started: datetime, cwd: Path) -> str:
    writer = demo.session(started, "placeholder", cwd)
    run = writer.user("Show me what [red]this[/red] looks like\x07 and print \x1b]0;pwned\x07.")
    run.usage(1200, 80).answer(HOSTILE_ANSWER)
    demo.store.update_title(writer.session_id, HOSTILE_TITLE)
    return writer.session_id


def _peer_session(demo: _DemoBuilder, started: datetime, cwd: Path) -> str:
    writer = demo.session(started, "Migrate the legacy API to v2 routes", cwd)
    run = writer.user("Migrate the legacy /v1 routes to /v2.").usage(2000, 100)
    run.answer("Added `/v2` aliases for all 23 routes; `/v1` now sends a `Deprecation` header.")
    writer.append(
        [
            (
                "message",
                {
                    "content": "<cross-session-message>Please keep /v1/status alive"
                    "</cross-session-message>",
                    "displayContent": "Please keep /v1/status alive until the mobile app ships.",
                    "from": "Mobile [a1b2c3d4]",
                    "messageId": "msg-1",
                    "origin": "cross_session",
                    "role": "user",
                },
            )
        ]
    )
    run = _Run(writer).usage(2300, 60)
    run.answer("Noted — `/v1/status` stays without the deprecation header.")
    return writer.session_id


def _empty_runs(demo: _DemoBuilder, now: datetime, webapp: Path, infra: Path) -> tuple[str, ...]:
    ids: list[str] = []
    only_prompt = demo.session(now - timedelta(days=4), "Explain the Makefile", webapp)
    only_prompt.user("Explain the Makefile")
    ids.append(only_prompt.session_id)
    failed = demo.session(now - timedelta(days=1, hours=8), "Upgrade React to 19", webapp)
    failed.user("Upgrade React to 19").usage(900, 0).fail(
        "provider error: connection reset by peer"
    )
    ids.append(failed.session_id)
    stalled = demo.session(now - timedelta(hours=30), "Tidy up the terraform modules", infra)
    stalled.user("Tidy up the terraform modules").usage(1500, 0).answer(NO_PROGRESS_ANSWER)
    ids.append(stalled.session_id)
    never_started = demo.session(now - timedelta(hours=4), "", webapp)
    ids.append(never_started.session_id)
    return tuple(ids)
