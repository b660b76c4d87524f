"""The demo store's writer: sessions written through `SessionStore` on a moving clock.

Everything is written through `SessionStore` (create, append_events, update_title) with a
clock that the builder moves, so sessions spread over the last months and today, and the
result is deterministic for a given `now`. The workspaces are real directories under
`root.parent / "projects"` so workspace identity (same directory) works on them.

No Textual or Rich import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

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


class DemoClock:
    """Returns the current demo time and moves it on a few seconds per reading."""

    def __init__(self, start: datetime, step_seconds: int = 4) -> None:
        self.current = start
        self.step = timedelta(seconds=step_seconds)

    def __call__(self) -> datetime:
        moment = self.current
        self.current += self.step
        return moment


class RawJSON:
    """Already-encoded JSON nested inside `struct_json` (kept byte for byte)."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw


def struct_json(*pairs: tuple[str, object]) -> bytes:
    """A JSON object in the given key order (Go struct payloads are not key-sorted)."""
    members = [encode_string(key) + ":" + encode_member(value) for key, value in pairs]
    return ("{" + ",".join(members) + "}").encode("utf-8")


def encode_member(value: object) -> str:
    if isinstance(value, RawJSON):
        return value.raw.decode("utf-8")
    if isinstance(value, list) and any(isinstance(item, RawJSON) for item in value):
        return "[" + ",".join(encode_member(item) for item in value) + "]"
    return marshal(value).decode("utf-8")


def tool_arguments(**arguments: object) -> str:
    return marshal(arguments).decode("utf-8")


@dataclass
class RunWriter:
    """Buffers one run's events like Zero's TUI: the user message goes first, alone."""

    writer: SessionWriter
    pending: list[tuple[str, object]] = field(default_factory=list)

    def usage(self, prompt: int, completion: int, cached: int = 0) -> RunWriter:
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
    ) -> RunWriter:
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

    def event(self, event_type: str, payload: object) -> RunWriter:
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


class SessionWriter:
    def __init__(self, demo: DemoBuilder, meta: Metadata, index: int) -> None:
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

    def user(self, text: str, *, attachments: dict[str, int] | None = None) -> RunWriter:
        payload: dict[str, object] = {"content": text, "role": "user"}
        if attachments:
            payload["attachments"] = attachments
        self.append([("message", payload)])
        self.demo.clock.current += timedelta(seconds=20)
        return RunWriter(self)

    def wait(self, minutes: float) -> None:
        self.demo.clock.current += timedelta(minutes=minutes)

    def permission_events(self, call_id: str, name: str, action: str) -> list[tuple[str, object]]:
        scope = {"bash": "rm -rf build/ .cache/", "edit_file": "src/server.ts"}.get(name, ".")
        side_effect = "shell" if name == "bash" else "write"
        level = "high" if name == "bash" else "medium"
        risk = struct_json(
            ("level", level),
            ("categories", [side_effect]),
            ("reason", f"{level} risk: {side_effect}"),
        )
        reason = "Runs a shell command" if name == "bash" else "Edits a workspace file"
        request = struct_json(
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
            ("permission_decision", struct_json(*decision_pairs)),
        ]


class DemoBuilder:
    def __init__(self, root: Path, now: datetime) -> None:
        self.now = now
        self.clock = DemoClock(now)
        self.store = SessionStore(root, clock=self.clock)
        self.session_ids: list[str] = []
        self.writers: list[SessionWriter] = []

    def session(
        self,
        started: datetime,
        title: str,
        cwd: Path | str,
        *,
        model_id: str = DEMO_MODEL[0],
        provider: str = DEMO_MODEL[1],
        goal: Goal | None = None,
    ) -> SessionWriter:
        self.clock.current = started
        meta = self.store.create(
            title=title, cwd=str(cwd), model_id=model_id, provider=provider, goal=goal
        )
        return self.writer(meta)

    def writer(self, meta: Metadata) -> SessionWriter:
        """The writer of a session just created in the demo store."""
        writer = SessionWriter(self, meta, len(self.writers) + 1)
        self.session_ids.append(meta.session_id)
        self.writers.append(writer)
        return writer
