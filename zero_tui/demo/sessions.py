"""The demo store's sessions: each function writes one kind of session Zero writes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

from zero_tui.demo.builder import (
    DEMO_MODEL,
    HOSTILE_ANSWER,
    HOSTILE_TITLE,
    NO_PROGRESS_ANSWER,
    DemoBuilder,
    RawJSON,
    RunWriter,
    SessionWriter,
    struct_json,
    tool_arguments,
)
from zero_tui.store import Event
from zero_tui.store.models import Goal


def long_markdown_answer() -> str:
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

FILLER_TOPICS: tuple[tuple[str, str, str, str, str], ...] = (
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


def filler_run(writer: SessionWriter, prompt: str, tool: str, argument: str, answer: str) -> None:
    run = writer.user(prompt).usage(5200, 140, cached=4096)
    if tool == "bash":
        output = f"$ {argument}\n" + "\n".join(f"  step {n}: ok" for n in range(1, 9))
        run.tool(tool, tool_arguments(command=argument), output, meta={"exit_code": "0"})
    elif tool == "grep":
        output = "\n".join(f"src/file{n}.ts:{n * 7}: {argument}" for n in range(1, 4))
        run.tool(tool, tool_arguments(path="src", pattern=argument), output)
    elif tool == "edit_file":
        preview = f"--- a/{argument}\n+++ b/{argument}\n@@ -1,3 +1,3 @@\n-old line\n+new line"
        run.tool(
            tool,
            tool_arguments(path=argument, old_string="old line", new_string="new line"),
            f"Successfully edited {argument} (replaced 1 occurrence).",
            preview=preview,
            changed_files=[argument],
        )
    else:
        run.tool(tool, tool_arguments(path=argument), f"// {argument}\nexport {{}};\n")
    run.usage(5600, 260, cached=5120).answer(answer)


def date_parser_session(demo: DemoBuilder, started: datetime, cwd: Path) -> str:
    writer = demo.session(started, "Fix the date parser test", cwd)
    run = writer.user("The date parser test in src/utils/date.test.ts is failing, can you fix it?")
    run.usage(6120, 142, cached=5888)
    run.tool(
        "read_file",
        tool_arguments(path="src/utils/date.ts"),
        "export function parseDate(s: string): Date {\n"
        '  return parse(s, "yyyy-dd-MM", new Date());\n}\n',
    )
    run.usage(6410, 188, cached=6016)
    run.tool(
        "edit_file",
        tool_arguments(path="src/utils/date.ts", old_string="yyyy-dd-MM", new_string="yyyy-MM-dd"),
        "Successfully edited src/utils/date.ts (replaced 1 occurrence).",
        preview="--- a/src/utils/date.ts\n+++ b/src/utils/date.ts\n@@ -2,1 +2,1 @@\n"
        '-  return parse(s, "yyyy-dd-MM", new Date());\n'
        '+  return parse(s, "yyyy-MM-dd", new Date());',
        changed_files=["src/utils/date.ts"],
        permission="allow",
    )
    run.tool(
        "bash",
        tool_arguments(command="npm test -- date"),
        " ✓ test/date.test.ts (4 tests) 12ms\n\n"
        " Test Files  1 passed (1)\n      Tests  4 passed (4)",
        meta={"exit_code": "0"},
    )
    run.usage(6830, 97, cached=6656).answer(
        "Fixed: `parseDate` used the pattern `yyyy-dd-MM` (day before month). It now uses "
        "`yyyy-MM-dd` and `npm test -- date` passes."
    )
    return writer.session_id


def rate_limit_session(demo: DemoBuilder, started: datetime, cwd: Path) -> SessionWriter:
    writer = demo.session(started, "Add rate limiting middleware to the API", cwd)
    run = writer.user(
        "Add rate limiting middleware to the API: 5 requests per second per API key, "
        "burst of 10. Tests too."
    )
    run.usage(7021, 233, cached=6784)
    run.tool("grep", tool_arguments(path="src", pattern="getSession\\(req\\)"), _GREP_OUTPUT)
    run.tool("read_file", tool_arguments(path="src/server.ts"), _SERVER_TS)
    run.tool(
        "write_file",
        tool_arguments(path="src/middleware/rateLimit.ts", content="…"),
        "Created src/middleware/rateLimit.ts (41 lines).",
        changed_files=["src/middleware/rateLimit.ts"],
    )
    run.tool(
        "bash",
        tool_arguments(command="npm test"),
        _FAILING_TEST_OUTPUT,
        status="error",
        meta={"exit_code": "1"},
    )
    run.usage(8120, 310, cached=7168)
    run.tool(
        "edit_file",
        tool_arguments(path="src/middleware/rateLimit.ts", old_string="<", new_string="<="),
        "Successfully edited src/middleware/rateLimit.ts (replaced 1 occurrence).",
        preview="--- a/src/middleware/rateLimit.ts\n+++ b/src/middleware/rateLimit.ts\n"
        "@@ -18,1 +18,1 @@\n-    if (bucket.tokens <= 0) {\n+    if (bucket.tokens < 1) {",
        changed_files=["src/middleware/rateLimit.ts"],
    )
    run.tool(
        "bash",
        tool_arguments(command="npm test"),
        " Test Files  3 passed (3)\n      Tests  48 passed (48)\n   Duration  1.18s",
        meta={"exit_code": "0"},
    )
    run.usage(8600, 720, cached=8064).answer(long_markdown_answer())
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


def compacted_session(demo: DemoBuilder, started: datetime, cwd: Path) -> str:
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
            tool_arguments(path="src/middleware/auth.ts"),
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
                struct_json(
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
    payload = struct_json(
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


def fork_session(demo: DemoBuilder, started: datetime, parent: SessionWriter) -> str:
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
        tool_arguments(
            path="src/middleware/rateLimit.ts", old_string="new Map", new_string="redis"
        ),
        "Successfully edited src/middleware/rateLimit.ts (replaced 1 occurrence).",
        changed_files=["src/middleware/rateLimit.ts"],
    )
    run.answer(
        "Switched the buckets to Redis (`INCR` + `PEXPIRE` in a `MULTI`), so the limit now holds "
        "across replicas."
    )
    return meta.session_id


def specialist_sessions(demo: DemoBuilder, started: datetime, cwd: Path) -> tuple[str, str]:
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
        tool_arguments(path="src", pattern="stripe\\."),
        "src/payments/charge.ts:12: stripe.paymentIntents.create(\n"
        "src/payments/webhook.ts:8: stripe.webhooks.constructEvent(",
    )
    run.tool(
        "read_file",
        tool_arguments(path="src/payments/webhook.ts"),
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
    run = RunWriter(parent).usage(5000, 90)
    run.event(
        "tool_call",
        {
            "arguments": tool_arguments(
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


def ask_user_session(demo: DemoBuilder, started: datetime, cwd: Path) -> str:
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
        tool_arguments(
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


def goal_session(demo: DemoBuilder, started: datetime, cwd: Path) -> str:
    stamp = started.strftime("%Y-%m-%dT%H:%M:%SZ")
    goal = Goal(
        objective="Get the staging cluster to zero failing health checks",
        status="active",
        continuation_limit=20,
        created_at=stamp,
        updated_at=stamp,
    )
    writer = demo.session(started, "Fix failing staging health checks", cwd, goal=goal)
    goal_payload = struct_json(
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
        tool_arguments(command="kubectl -n staging get pods"),
        "NAME                   READY   STATUS             RESTARTS\n"
        "api-7d9f8c6b5-x2k4q    0/1     CrashLoopBackOff   12\n"
        "web-5f6d7c8b9-p9r2s    1/1     Running            0",
        meta={"exit_code": "0"},
    )
    run.usage(3500, 150).answer("The api pod crash-loops: it cannot reach Redis (`ECONNREFUSED`).")
    writer.wait(1)
    run = RunWriter(writer).event(
        "message",
        {
            "content": "Continue working toward the goal: "
            "Get the staging cluster to zero failing health checks",
            "role": "goal",
        },
    )
    run.tool(
        "edit_file",
        tool_arguments(
            path="k8s/staging/api.yaml", old_string="redis:6379", new_string="redis-master:6379"
        ),
        "Successfully edited k8s/staging/api.yaml (replaced 1 occurrence).",
        changed_files=["k8s/staging/api.yaml"],
    )
    run.usage(3900, 170).answer(
        "Pointed the api at `redis-master`; after a rollout all pods are healthy."
    )
    return writer.session_id


def permission_denied_session(demo: DemoBuilder, started: datetime, cwd: Path) -> str:
    writer = demo.session(started, "Clean up the build cache", cwd)
    run = writer.user("The build is picking up stale files. Clean up the build cache.")
    run.usage(2900, 60)
    run.tool(
        "bash",
        tool_arguments(command="rm -rf build/ .cache/"),
        "permission denied: the user declined to run this command",
        status="error",
        permission="deny",
    )
    run.usage(3100, 120).answer(
        "Understood, I did not delete anything. To clear only the bundler cache run "
        "`npm run clean`, which removes `.cache/` but keeps `build/`."
    )
    return writer.session_id


def provider_error_session(demo: DemoBuilder, started: datetime, cwd: Path) -> str:
    writer = demo.session(
        started, "Profile the sync command", cwd, model_id="gpt-5", provider="openai"
    )
    run = writer.user("Profile `tool sync` on the big fixture and tell me where the time goes.")
    run.usage(2000, 40).fail("provider error: 429 Too Many Requests: rate limit reached for gpt-5")
    writer.wait(3)
    run = writer.user("Try again please.").usage(2100, 90)
    run.tool(
        "bash",
        tool_arguments(command="go test -run XXX -bench Sync -cpuprofile cpu.out ./internal/sync"),
        "BenchmarkSync-8   \t      12\t  98231455 ns/op\nPASS\n"
        "ok  \texample.com/tool/internal/sync\t2.391s",
        meta={"exit_code": "0"},
    )
    run.usage(2900, 260).answer(
        "62% of the time is in `hashFile` (SHA-256 over every file). Hashing only files whose "
        "size or mtime changed cuts a no-op sync from 98 ms to 11 ms."
    )
    return writer.session_id


def hostile_session(demo: DemoBuilder, started: datetime, cwd: Path) -> str:
    writer = demo.session(started, "placeholder", cwd)
    run = writer.user("Show me what [red]this[/red] looks like\x07 and print \x1b]0;pwned\x07.")
    run.usage(1200, 80).answer(HOSTILE_ANSWER)
    demo.store.update_title(writer.session_id, HOSTILE_TITLE)
    return writer.session_id


def peer_session(demo: DemoBuilder, started: datetime, cwd: Path) -> str:
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
    run = RunWriter(writer).usage(2300, 60)
    run.answer("Noted — `/v1/status` stays without the deprecation header.")
    return writer.session_id


def empty_run_sessions(
    demo: DemoBuilder, now: datetime, webapp: Path, infra: Path
) -> tuple[str, ...]:
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
