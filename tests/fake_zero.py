"""A fake `zero` for the tests: `python fake_zero.py exec ARGS…`, driven by the prompt text;
also `sessions rewind-plan|rewind` and `sandbox grants list|allow|revoke`, as Zero answers
them (a rewind restores no workspace file: the fake writes no checkpoint).

It follows zero-exec.md §1 to §4 byte for byte for what it supports: argv parsing (§1.1,
the flags a session-continuing client passes), usage errors (shape E on stdout in
stream-json mode, `[zero] …` on stderr otherwise), stream-json input (§3), output lines
built by Go's encoder (sorted keys, Go escaping) with one runId of the real shape, and
the store written through zero_tui.store in Zero's default root (one locked append per
event, in §4.2's order). Not supported: redaction, --fork, --file, images, checkpoints.
Unlike Go, a SIGINT during the interpreter's own start-up can end it with exit 1: tests
signal a run only once it has said something (a delta, or slow-start's stderr line).

The prompt picks the scenario (SCENARIOS); anything else streams a plain answer.
FAKE_ZERO_NOW (ISO 8601) fixes the timestamps it stores.
"""

from __future__ import annotations

import signal

# Go's default until exec installs its handler: a SIGINT kills the process. Set before the
# heavier imports, so that an early signal does not become a KeyboardInterrupt traceback.
signal.signal(signal.SIGINT, signal.SIG_DFL)

import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import secrets  # noqa: E402
import select  # noqa: E402
import shutil  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import replace  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import NoReturn  # noqa: E402

from zero_tui.store import (  # noqa: E402
    Event,
    Metadata,
    SessionStore,
    StoreError,
    default_root,
    gojson,
)
from zero_tui.store.gotext import collapse_space, trim_space, truncate_utf8  # noqa: E402

SCENARIOS: dict[str, str] = {
    "slow N": "N text deltas, 0.05 s apart, then the answer",
    "deltas N": "N one-character text deltas as fast as possible, then the answer",
    "deltas N R": "N one-character text deltas at R per second (e.g. 2000 200), then the answer",
    "paragraphs N": "N text deltas as fast as possible, every 50th a paragraph break; the answer",
    "think": "a reasoning delta, then a short answer",
    "busy FILE": "reasoning, text, read_file FILE and its result, more text, then hang",
    "tool read FILE": "interim text, tool_call read_file FILE, its tool_result, an answer",
    "crash": "one delta, then exit 1 with a panic line on stderr and no run_end",
    "garbage": "a non-JSON line and a schemaVersion 1 line among normal ones",
    "big": "one 5 MB text delta (and the same final answer)",
    "exit 2": "a usage error before run_start (shape E), exit 2",
    "exit 3": "a provider error after run_start, exit 3",
    "exit 4": "an answer judged incomplete, exit 4",
    "provider 401": "an auth error worded as Zero's openai provider does, exit 3",
    "provider 429": "a rate-limit error worded as Zero's openai provider does, exit 3",
    "provider unreachable": "Zero 0.8.0's message for a model server it cannot connect to, exit 3",
    "hang": "one delta, then wait for SIGINT/SIGTERM: interrupted, exit 130",
    "ignore-sigint": "says `child PID` and hangs ignoring SIGINT; its child shares the group",
    "slow-start": "says so on stderr, sleeps 30 s before run_start (a signal kills it outright)",
    "hold-stdout": "answers and exits 0, leaving a sleeper in a session of its own on its stdout",
    "lend-stdout": "sends its stdout and stderr to the socket $FAKE_ZERO_LEND_TO, answers, exits 0",
    "tree": "starts tools as Zero's bash does (own group; own session, detached) and says "
    "`tree ready`; SIGINT ends the run and leaves them behind",
    "tree deaf": "the same tools, then hangs ignoring SIGINT",
    "long-line": "100 MiB on one line; on SIGINT, a newline and the interrupted ending",
    "deny CMD": "exec_command CMD as Zero's sandbox judges it without bwrap: denied for want "
    "of an approval at --auto low/medium (unless a persistent grant allows a plain command), "
    "run at --auto high; a network command (curl, wget) is blocked even then. Never runs CMD",
    "vanish": "a delta, then its session directory removed (as by another process), more "
    "text, the answer, exit 0 and Zero's `session not fully recorded` warning on stderr",
    "replace": "a delta, then the session's log replaced by its first line (as a rewind "
    "elsewhere writes it), the answer",
    "stderr-note": "an answer, exit 0, and a notice on stderr (as Zero's for an ignored image)",
    "reconnect": "Zero's reasoning notices of two reconnects (1/4, 2/4), 1 s apart, then "
    "the answer",
    "quiet S": "nothing for S seconds after run_start (a rate limit Zero retries in "
    "silence), then the rate-limit error",
}
PLAIN_ANSWER = "You said: {prompt}"
PROVIDER = "openai"
DEFAULT_MODEL = "gpt-5"
EXIT_USAGE = 2
EXIT_PROVIDER = 3
EXIT_INCOMPLETE = 4
EXIT_INTERRUPTED = 130
OUTPUT_BUDGET = 10 * 1024
LONG_LINE_BYTES = 100 * 1024 * 1024
# A tool process that outlives the agent unless someone kills it; the workspace in its argv
# lets a test find it in /proc.
SLEEPER = "import time; time.sleep(378)"
DETACHED_SLEEPER = (
    "import os, sys\n"
    "if os.fork() == 0:\n"
    "    os.execv(sys.executable, [sys.executable, '-c', sys.argv[1], *sys.argv[2:]])\n"
)
PROMPT_REQUIRED = 'Prompt required. Use `zero exec "prompt"` or `zero exec --file prompt.txt`.'
AUTH_MESSAGE = (
    "auth error: your API key is missing or invalid — run `zero setup`, `zero auth openrouter` "
    "for OpenRouter, or set the provider's API key, then retry. (provider said: Incorrect API "
    "key provided: test-key. You can find your API key at https://platform.openai.com/account"
    "/api-keys.)"
)
RATE_LIMIT_MESSAGE = (
    "rate limit error: Rate limit reached for gpt-5 in organization org-test on tokens per "
    "min (TPM): Limit 30000, Used 30000, Requested 2480. Please try again in 4.96s."
)


UNREACHABLE_MESSAGE = (  # what the real Zero 0.8.0 said with nothing listening on the port
    "upstream unreachable: the model server could not connect to 127.0.0.1:9 (connection "
    "refused). The request never reached the model — this is a network failure between the "
    "model server and its upstream, not a model error. Verify the host is reachable from the "
    "machine running the model server (DNS/proxy/VPN/firewall); a local daemon proxying a "
    'cloud model — e.g. an Ollama daemon serving a "-cloud" model — must itself be able to '
    "reach the internet."
)


class UsageError(Exception):
    pass


# --- output -----------------------------------------------------------------------


class Output:
    def __init__(self, stream_json: bool) -> None:
        self.stream_json = stream_json
        moment = datetime.now(UTC)
        self.run_id = f"run_{moment.strftime('%Y%m%d%H%M%S')}_{secrets.token_hex(3)}"

    def write_raw(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(1, view)
            view = view[written:]

    def emit(self, event_type: str, **fields: object) -> None:
        fields = {key: value for key, value in fields.items() if value not in ("", None)}
        line = gojson.marshal(
            {**fields, "runId": self.run_id, "schemaVersion": 2, "type": event_type}
        )
        self.write_raw(line + b"\n")

    def fail(self, code: str, message: str, exit_code: int, status: str = "error") -> NoReturn:
        if self.stream_json:
            self.emit("error", code=code, message=message, recoverable=False)
            self.emit("run_end", exitCode=exit_code, status=status)
        else:
            sys.stderr.write(f"[zero] {message}\n")
            sys.stderr.flush()
        sys.exit(exit_code)


# --- argv (zero-exec §1.1) --------------------------------------------------------


def looks_like_option(value: str) -> bool:
    if not value.startswith("-"):
        return False
    try:
        float(value)
    except ValueError:
        return True
    return False


class Options:
    def __init__(self) -> None:
        self.output_format = "text"
        self.input_format = "text"
        self.resume: str | None = None
        self.resume_latest = False
        self.fork = ""
        self.cwd = ""
        self.model = ""
        self.auto = "low"
        self.init_session_id = ""
        self.session_title = ""
        self.max_turns = 0
        self.prompt_parts: list[str] = []
        self.help = False
        self.skip_permissions_unsafe = False


VALUE_FLAGS = {
    "-o": "output_format",
    "--output-format": "output_format",
    "-i": "input_format",
    "--input-format": "input_format",
    "--fork": "fork",
    "-C": "cwd",
    "--cwd": "cwd",
    "-m": "model",
    "--model": "model",
    "--auto": "auto",
    "--init-session-id": "init_session_id",
    "--session-title": "session_title",
    "--max-turns": "max_turns",
    "-p": "prompt",
    "--prompt": "prompt",
}
REQUIRED_INLINE = {"--init-session-id", "--session-title", "--max-turns"}
BOOLEAN_FLAGS = {"--no-completion-gate", "--no-notify", "--skip-permissions-unsafe"}


def set_value(options: Options, flag: str, value: str) -> None:
    name = VALUE_FLAGS[flag]
    if name == "output_format":
        lowered = value.lower()
        if lowered not in ("", "text", "json", "stream-json", "debug"):
            raise UsageError(
                f"invalid output format {gojson.encode_string(value)}. "
                "Expected text, json, stream-json, or debug."
            )
        options.output_format = "stream-json" if lowered == "debug" else lowered or "text"
    elif name == "input_format":
        lowered = value.lower()
        if lowered not in ("", "text", "stream-json"):
            raise UsageError(
                f"Invalid input format {gojson.encode_string(value)}. Expected text or stream-json."
            )
        options.input_format = lowered or "text"
    elif name == "max_turns":
        if not value:
            raise UsageError("--max-turns requires a value")
        if not re.fullmatch(r"[+-]?[0-9]+", value) or int(value) <= 0:
            raise UsageError(
                f"invalid --max-turns {gojson.encode_string(value)}. Expected a positive integer."
            )
        options.max_turns = int(value)
    elif name == "auto":
        options.auto = value
    elif name == "prompt":
        options.prompt_parts.append(value)
    else:
        setattr(options, name, value)


def parse_args(args: list[str], options: Options) -> None:
    """Fills `options` left to right; UsageError with exec's message on the first fault."""
    if not args:
        raise UsageError(PROMPT_REQUIRED)
    index = 0
    while index < len(args):
        arg = args[index]
        flag, has_inline, inline = arg.partition("=")
        if arg in ("-h", "--help", "help"):
            options.help = True
            return
        if arg == "--":
            options.prompt_parts.extend(args[index + 1 :])
            break
        if arg in BOOLEAN_FLAGS:
            options.skip_permissions_unsafe |= arg == "--skip-permissions-unsafe"
        elif arg == "--resume":
            following = args[index + 1] if index + 1 < len(args) else ""
            if following and not following.startswith("-") and trim_space(following):
                options.resume = trim_space(following)
                index += 1
            else:
                options.resume_latest = True
        elif flag == "--resume" and has_inline:
            value = trim_space(inline)
            options.resume, options.resume_latest = (value, False) if value else (None, True)
        elif arg in VALUE_FLAGS:
            following = trim_space(args[index + 1]) if index + 1 < len(args) else ""
            if not following or looks_like_option(following):
                raise UsageError(f"{arg} requires a value")
            if arg == "--auto" and following.lower() not in ("low", "medium", "high", "member"):
                raise UsageError(
                    f"Invalid autonomy level {gojson.encode_string(following)}. "
                    "Expected low, medium, or high."
                )
            set_value(options, arg, following)
            index += 1
        elif has_inline and flag in VALUE_FLAGS and (flag.startswith("--") or flag == "-p"):
            value = trim_space(inline)
            if flag in REQUIRED_INLINE and not value:
                raise UsageError(f"{flag} requires a value")
            set_value(options, flag, value)
        elif arg.startswith("-"):
            raise UsageError(f"unknown exec flag {gojson.encode_string(arg)}")
        else:
            options.prompt_parts.append(arg)
        index += 1
    joined = trim_space(" ".join(options.prompt_parts))
    if (options.resume or options.resume_latest) and options.fork:
        raise UsageError("Use either --resume or --fork, not both.")
    if options.init_session_id and (options.resume or options.resume_latest):
        raise UsageError("Use --init-session-id only when creating or forking a session.")
    if options.input_format == "stream-json" and joined:
        raise UsageError(
            "Stream-json input does not accept positional prompt text. Pipe JSONL or use --file."
        )
    if options.input_format != "stream-json" and not joined:
        raise UsageError(PROMPT_REQUIRED)


# --- stream-json input (zero-exec §3) ---------------------------------------------

INPUT_KEYS = {"schemaVersion", "type", "content"}


def read_stream_json_prompt(data: bytes) -> str:
    contents: list[str] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        line = trim_space(raw.decode("utf-8", errors="replace").removesuffix("\r"))
        if not line:
            continue

        def bad(why: str, line_number: int = number) -> UsageError:
            return UsageError(f"Invalid stream-json input at line {line_number}: {why}")

        try:
            event = gojson.loads(line)
        except gojson.GoJSONError:
            raise bad("expected a JSON object.") from None
        if not isinstance(event, dict):
            raise bad("expected a JSON object.")
        allowed = INPUT_KEYS | ({"role", "images"} if event.get("type") == "message" else set())
        for key in event:
            if key not in allowed:
                raise bad(f"unknown field {key}")
        if event.get("schemaVersion") != 2:
            raise bad("schemaVersion must be 2")
        content = event.get("content", "")
        if not isinstance(content, str):
            raise bad("expected a JSON object.")
        if not trim_space(content):
            raise bad("content is required")
        if event.get("type") not in ("prompt", "message"):
            raise bad("type must be prompt or message")
        if event.get("type") == "message" and event.get("role") != "user":
            raise bad("role must be user")
        contents.append(trim_space(content))
    if not contents:
        raise UsageError(
            "Stream-json input must include at least one prompt or user message event."
        )
    return "\n\n".join(contents)


# --- the run ----------------------------------------------------------------------


class Cancellation:
    """Set by the SIGINT/SIGTERM handler, waited for by the main thread. Not a
    threading.Event: its set() takes the lock its wait() holds for a moment, so a signal
    handled in that moment (in the same thread) would wait forever, and the run be killed.
    The pipe is the interpreter's signal wakeup fd, written by the C-level handler: a
    signal that lands after the flag is checked but before select() blocks (the Python
    handler only runs once select returns) still wakes the wait."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._set:  # the loop's jump back runs a pending Python handler
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                break
            ready, _, _ = select.select([self._read], [], [], remaining)
            if ready:
                os.read(self._read, 512)
        return self._set


class Run:
    def __init__(self, out: Output, store: SessionStore, session_id: str, prompt: str) -> None:
        self.out = out
        self.store = store
        self.session_id = session_id
        self.prompt = prompt
        self.cancelled = Cancellation()
        self.calls = 0
        self.unsafe = False
        self.record_error: str | None = None

    def record(self, event_type: str, payload: object) -> None:
        """One locked append; as Zero's recorder, the first failure stops recording and is
        said on stderr at exit."""
        if self.record_error is not None:
            return
        try:
            self.store.append_events(self.session_id, [(event_type, payload)])
        except (StoreError, OSError) as error:
            self.record_error = str(error)

    def exit(self, code: int) -> NoReturn:
        if self.record_error is not None:
            sys.stderr.write(f"[zero] WARNING: session not fully recorded: {self.record_error}\n")
            sys.stderr.flush()
        sys.exit(code)

    def on_signal(self, _signum: int, _frame: object) -> None:
        self.cancelled.set()
        # exec swallows later signals until it is done
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def install_handler(self) -> None:
        signal.signal(signal.SIGINT, self.on_signal)
        signal.signal(signal.SIGTERM, self.on_signal)

    def pause(self, seconds: float) -> None:
        if self.cancelled.wait(seconds):
            self.interrupted()

    def interrupted(self) -> NoReturn:
        self.out.emit(
            "error", code="interrupted", message="run cancelled by signal", recoverable=False
        )
        self.record("error", {"message": "interrupted"})
        self.out.emit("run_end", exitCode=EXIT_INTERRUPTED, status="interrupted")
        self.exit(EXIT_INTERRUPTED)

    def text(self, delta: str) -> None:
        self.out.emit("text", delta=delta)

    def usage(self, prompt_tokens: int, completion_tokens: int) -> None:
        total = prompt_tokens + completion_tokens
        fields = {
            "completionTokens": completion_tokens,
            "promptTokens": prompt_tokens,
            "totalTokens": total,
        }
        self.out.emit("usage", **fields)
        self.record("provider_usage", fields)

    def finish(self, answer: str) -> NoReturn:
        if self.cancelled.is_set():
            self.interrupted()
        self.record("message", {"content": answer, "role": "assistant"})
        self.out.emit("final", text=answer)
        self.out.emit("run_end", exitCode=0, status="success")
        self.exit(0)

    def provider_error(self, message: str) -> NoReturn:
        self.out.emit("error", code="provider_error", message=message, recoverable=False)
        self.record("error", {"message": message})
        self.out.emit("run_end", exitCode=EXIT_PROVIDER, status="error")
        self.exit(EXIT_PROVIDER)

    def stream(self, answer: str, pieces: int = 3, delay: float = 0.01) -> NoReturn:
        size = max(1, -(-len(answer) // pieces))
        for start in range(0, len(answer), size):
            self.text(answer[start : start + size])
            self.pause(delay)
        self.usage(len(self.prompt), len(answer))
        self.finish(answer)

    def read_file(self, path: str, workspace: str) -> None:
        self.calls += 1
        call_id = f"call_{self.calls}"
        arguments = gojson.marshal({"path": path})
        self.out.emit(
            "tool_call", args={"path": path}, id=call_id, name="read_file", sideEffect="read"
        )
        self.record(
            "tool_call", {"arguments": arguments.decode(), "id": call_id, "name": "read_file"}
        )
        try:
            with open(os.path.join(workspace, path), encoding="utf-8", errors="replace") as handle:
                content = handle.read()
            status, summary = "ok", f"Read {path} ({len(content.splitlines())} lines)."
        except OSError as error:
            content, status, summary = f"read {path}: {error.strerror}", "error", ""
        shown = truncate_utf8(content, OUTPUT_BUDGET)
        truncated = shown != content
        if truncated:
            shown += "\n[truncated]"
        display = {"kind": "file", "summary": summary} if summary else None
        self.out.emit(
            "tool_result",
            display=display,
            id=call_id,
            name="read_file",
            output=shown,
            status=status,
            truncated=truncated,
        )
        self.record(
            "tool_result",
            {"name": "read_file", "output": content, "status": status, "toolCallId": call_id},
        )

    def shell(self, command: str, *, unsafe: bool) -> bool:
        """exec_command `command`, judged as Zero's sandbox does with no native sandbox
        (zero-notes E): True when it (pretend-)ran. Nothing is executed."""
        self.calls += 1
        call_id = f"call_{self.calls}"
        arguments = {"cmd": command}
        self.out.emit(
            "tool_call", args=arguments, id=call_id, name="exec_command", sideEffect="shell"
        )
        self.record(
            "tool_call",
            {
                "arguments": gojson.marshal(arguments).decode(),
                "id": call_id,
                "name": "exec_command",
            },
        )
        words = command.split()
        network = bool(words) and words[0] in ("curl", "wget")
        destructive = command.startswith("rm -r")
        categories = ["network", "shell"] if network else ["shell"]
        if destructive:
            categories = ["destructive", "shell"]
        level = "critical" if network or destructive else "high"
        reason = ""
        if network:
            reason = "network access requires approval"
        elif destructive:
            reason = "destructive shell command requires approval"
        risk = {"categories": categories, "level": level, "reason": f"{level} risk: shell"}
        granted = not network and not destructive and grant_allows("exec_command")
        if unsafe and network:
            output = f"Error: Sandbox block [network] for exec_command: {reason}"
            self.tool_result(call_id, output, "error")
            return False
        if unsafe or granted:
            decision = {
                "action": "allow",
                "autonomy": "high" if unsafe else "low",
                "grantMatched": granted and not unsafe,
                "id": call_id,
                "name": "exec_command",
                "permissionGranted": True,
                "permissionMode": "unsafe" if unsafe else "auto",
                "risk": risk,
            }
            self.out.emit("permission_decision", **decision)
            stored = {key: value for key, value in decision.items() if key != "id"}
            self.record("permission_decision", {"toolCallId": call_id, **stored})
            self.tool_result(call_id, f"ran: {command}", "ok")
            return True
        request = {
            "action": "prompt",
            "autonomy": "low",
            "name": "exec_command",
            "permission": "prompt",
            "permissionMode": "auto",
            "reason": reason,
            "risk": risk,
            "sideEffect": "shell",
        }
        self.out.emit("permission_request", id=call_id, permissionGranted=False, **request)
        self.record(
            "permission_request",
            {
                "toolCallId": call_id,
                **{k: v for k, v in request.items() if v},
                "commandPrefix": words,
            },
        )
        said = reason or "Shell commands can read, write, or execute programs."
        self.tool_result(
            call_id, f"Error: Sandbox approval required for exec_command: {said}", "error"
        )
        return False

    def tool_result(self, call_id: str, output: str, status: str) -> None:
        self.out.emit(
            "tool_result",
            id=call_id,
            name="exec_command",
            output=output,
            status=status,
            truncated=False,
        )
        self.record(
            "tool_result",
            {"name": "exec_command", "output": output, "status": status, "toolCallId": call_id},
        )


def scenario(run: Run, workspace: str) -> NoReturn:
    prompt = run.prompt
    words = prompt.split()
    head = words[0] if words else ""
    count = int(words[1]) if len(words) == 2 and words[1].isdigit() else 0
    if head == "slow" and count:
        for index in range(count):
            run.text(f"chunk {index} ")
            run.pause(0.05)
        run.usage(10, count)
        run.finish("".join(f"chunk {index} " for index in range(count)))
    if head == "deltas" and count:
        for _ in range(count):
            run.text("x")
        run.usage(10, count)
        run.finish("x" * count)
    if head == "paragraphs" and count:
        pieces = ["\n\n" if index % 50 == 49 else "x" for index in range(count)]
        for piece in pieces:
            run.text(piece)
        run.usage(10, count)
        run.finish("".join(pieces))
    if head == "deltas" and len(words) == 3 and words[1].isdigit() and words[2].isdigit():
        total, rate = int(words[1]), max(1, int(words[2]))
        started = time.monotonic()
        for index in range(total):
            run.text("x")
            # paced on the clock, not by sleeping a fixed step: no drift over a long run
            run.pause(max(0.0, started + (index + 1) / rate - time.monotonic()))
        run.usage(10, total)
        run.finish("x" * total)
    if head == "deny" and len(words) > 1:
        command = prompt.split(maxsplit=1)[1]
        run.text("Let me run it.")
        run.usage(100, 10)
        ran = run.shell(command, unsafe=run.unsafe)
        run.stream(f"Ran `{command}`." if ran else f"I need your approval to run `{command}`.")
    if prompt == "think":
        run.out.emit("reasoning", delta="Thinking. ")
        run.stream("done", pieces=1)
    if head == "tool" and len(words) == 3 and words[1] == "read":
        run.text(f"Let me read {words[2]}.")
        run.usage(100, 10)
        run.read_file(words[2], workspace)
        run.stream(f"I read {words[2]}.", pieces=2)
    if prompt == "crash":
        run.text("about to crash")
        sys.stderr.write("panic: fake crash in the agent loop\n")
        sys.stderr.flush()
        os._exit(1)
    if prompt == "garbage":
        run.text("before ")
        run.out.write_raw(b"this is not json\n")
        run.out.write_raw(
            b'{"delta":"old","runId":"'
            + run.out.run_id.encode()
            + b'","schemaVersion":1,"type":"text"}\n'
        )
        run.text("after")
        run.usage(5, 2)
        run.finish("before after")
    if prompt == "big":
        big = "0123456789abcdef" * (5 * 1024 * 1024 // 16)
        run.text(big)
        run.usage(5, 1_000_000)
        run.finish(big)
    if prompt == "exit 3":
        run.text("partial ")
        run.provider_error("provider error: upstream failed (500 Internal Server Error)")
    if prompt == "provider 401":
        run.provider_error(AUTH_MESSAGE)
    if prompt == "provider 429":
        run.provider_error(RATE_LIMIT_MESSAGE)
    if prompt == "provider unreachable":
        run.provider_error(UNREACHABLE_MESSAGE)
    if prompt == "exit 4":
        answer = "I made a start."
        run.text(answer)
        run.usage(10, 4)
        run.record("message", {"content": answer, "role": "assistant"})
        run.out.emit("final", text=answer)
        run.out.emit("error", code="incomplete", message="plan items remain", recoverable=False)
        run.record("error", {"message": "incomplete: plan items remain"})
        run.out.emit("run_end", exitCode=EXIT_INCOMPLETE, status="incomplete")
        run.exit(EXIT_INCOMPLETE)
    if head == "busy" and len(words) == 2:
        # a run caught mid-answer: reasoning, a tool call and its result, text, then
        # nothing until SIGINT (for the snapshot of a run in flight)
        run.out.emit("reasoning", delta="Looking at how the parser is called.")
        run.text(f"Let me read **{words[1]}** first.")
        run.usage(2480, 41)
        run.read_file(words[1], workspace)
        run.text("The parser accepts `Z` but not `+02:00`; ")
        run.text("the fix is one layout string")
        run.cancelled.wait()
        run.interrupted()
    if prompt == "hang":
        run.text("waiting ")
        run.cancelled.wait()
        run.interrupted()
    if prompt == "hold-stdout":
        spawn_sleeper(workspace, start_new_session=True)
        run.stream("done, and something still holds my stdout")
    if prompt == "lend-stdout":
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as lender:
            lender.connect("\0" + os.environ["FAKE_ZERO_LEND_TO"])
            socket.send_fds(lender, [b"fds"], [1, 2])
            lender.recv(1)  # the test holds them now
        run.stream("done, and the test holds my stdout")
    if head == "tree" and words[1:] in ([], ["deaf"]):
        if words[1:] == ["deaf"]:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        spawn_sleeper(workspace, process_group=0)  # Zero's bash: Setpgid
        spawn_sleeper(workspace, start_new_session=True)
        detached = spawn_sleeper(workspace, start_new_session=True, detached=True)
        detached.wait()  # its child is an orphan now, in a session of its own
        run.text("tree ready")
        run.cancelled.wait()
        run.interrupted()
    if prompt == "long-line":
        chunk = b"x" * (1024 * 1024)
        for _ in range(LONG_LINE_BYTES // len(chunk)):
            if run.cancelled.is_set():
                run.out.write_raw(b"\n")
                run.interrupted()
            run.out.write_raw(chunk)
        run.out.write_raw(b"\n")
        run.finish("a long line")
    if prompt == "vanish":
        run.text("before ")
        run.pause(0.05)
        shutil.rmtree(run.store.session_dir(run.session_id))
        run.text("after")
        run.stream(" the end", pieces=1)
    if prompt == "replace":
        run.text("before ")
        run.pause(0.05)
        log = run.store.events_path(run.session_id)
        first = log.read_bytes().splitlines(keepends=True)[0]
        temporary = log.with_name("events.jsonl.tmp-1")
        temporary.write_bytes(first)
        os.replace(temporary, log)
        run.stream("after", pieces=1)
    if prompt == "stderr-note":
        sys.stderr.write("Model gpt-5 does not support image input; ignoring 1 image(s).\n")
        sys.stderr.flush()
        run.stream("done")
    if prompt == "reconnect":
        for attempt in (1, 2):
            run.out.emit("reasoning", delta=f"\n[connection lost — reconnecting {attempt}/4…]\n")
            run.pause(1.0)  # each notice is on screen long enough to be seen, under load too
        run.stream("connected")
    if head == "quiet" and count:
        run.pause(count)
        run.provider_error(RATE_LIMIT_MESSAGE)
    if prompt == "ignore-sigint":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        run.text(f"child {child.pid}")
        while True:
            time.sleep(60)
    run.stream(PLAIN_ANSWER.format(prompt=prompt))


def spawn_sleeper(
    workspace: str,
    *,
    start_new_session: bool = False,
    process_group: int | None = None,
    detached: bool = False,
) -> subprocess.Popen[bytes]:
    """A process that sleeps 378 s holding the agent's stdout and stderr; its argv ends
    with the workspace. `detached`: it forks the sleeper and exits, orphaning it."""
    argv = [sys.executable, "-c", SLEEPER, "sleeper", workspace]
    if detached:
        argv = [sys.executable, "-c", DETACHED_SLEEPER, SLEEPER, "sleeper", workspace]
    return subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        start_new_session=start_new_session,
        process_group=process_group,
    )


def session_title(prompt: str) -> str:
    return truncate_utf8(collapse_space(prompt), 80) or "Zero exec session"


def resume_target(options: Options, store: SessionStore) -> str | None:
    """The resume preflight (§1.4 step 4): the session to continue, None for a new one."""
    if options.resume_latest:
        latest = store.latest_resumable()
        if latest is None:
            raise UsageError("No Zero sessions available to resume.")
        return latest.session_id
    if options.resume is not None:
        try:
            meta: Metadata | None = store.get(options.resume)
        except StoreError as error:
            raise UsageError(str(error)) from None
        if meta is None:
            raise UsageError(f"Zero session not found: {options.resume}")
        if not meta.is_resumable_kind:
            raise UsageError(f"Zero session is not resumable: {options.resume}")
        return meta.session_id
    return None


def create_session(options: Options, store: SessionStore, prompt: str, workspace: str) -> str:
    if options.init_session_id and store.get(options.init_session_id) is not None:
        raise UsageError(f"zero session already exists: {options.init_session_id}")
    created = store.create(
        options.init_session_id or None,
        title=options.session_title or session_title(prompt),
        cwd=workspace,
        model_id=options.model or DEFAULT_MODEL,
        provider=PROVIDER,
    )
    return created.session_id


def store_clock() -> Callable[[], datetime] | None:
    """FAKE_ZERO_NOW (ISO 8601) fixes the store's timestamps, for snapshot tests."""
    fixed = os.environ.get("FAKE_ZERO_NOW")
    if not fixed:
        return None
    moment = datetime.fromisoformat(fixed)
    return lambda: moment


# --- `zero sessions rewind-plan|rewind` (zero-notes C) -----------------------------------


def app_error(message: str, code: int) -> int:
    sys.stderr.write(f"[zero] {message}\n")
    return code


def rewind_target(args: list[str]) -> tuple[str, int] | int:
    """(session id, --sequence) of a rewind command line, or the exit status of its error."""
    positional: list[str] = []
    sequence = ""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--sequence" and index + 1 < len(args):
            sequence, index = args[index + 1], index + 1
        elif arg.startswith("--sequence="):
            sequence = arg.partition("=")[2]
        elif arg == "--json":
            pass
        elif arg.startswith("-"):
            return app_error(f"unknown sessions flag {gojson.encode_string(arg)}", EXIT_USAGE)
        else:
            positional.append(arg)
        index += 1
    if len(positional) != 1:
        return app_error("usage: zero sessions rewind <id> --sequence N", EXIT_USAGE)
    if not sequence:
        return app_error("rewind target event id or sequence is required", 1)
    if not sequence.isdigit() or int(sequence) <= 0:
        return app_error(
            f"invalid --sequence {gojson.encode_string(sequence)}. Expected a positive integer.",
            EXIT_USAGE,
        )
    return positional[0], int(sequence)


def sessions_command(args: list[str]) -> int:
    if not args or args[0] not in ("rewind-plan", "rewind"):
        return app_error("fake zero: only `sessions rewind-plan|rewind` are supported", EXIT_USAGE)
    target = rewind_target(args[1:])
    if isinstance(target, int):
        return target
    session_id, sequence = target
    store = SessionStore(default_root(os.environ), clock=store_clock())
    try:
        events = store.read_events(session_id) if store.get(session_id) is not None else []
    except StoreError as error:
        return app_error(str(error), 1)
    if not events:
        return app_error(f"Zero session {session_id} has no events to rewind", 1)
    cut = next((i for i, event in enumerate(events) if event.sequence == sequence), None)
    if cut is None:
        return app_error(f"rewind target sequence {sequence} was not found", EXIT_USAGE)
    kept, dropped = events[: cut + 1], events[cut + 1 :]
    if args[0] == "rewind-plan":

        def brief(event: Event) -> dict[str, object]:
            return {
                "createdAt": event.created_at,
                "id": event.id,
                "sequence": event.sequence,
                "type": event.type,
            }

        plan = {
            "droppedCount": len(dropped),
            "droppedEvents": [brief(event) for event in dropped],
            "keepTarget": True,
            "keptCount": len(kept),
            "keptEvents": [brief(event) for event in kept],
            "lastKeptEventId": kept[-1].id,
            "sessionId": session_id,
            "targetEventId": events[cut].id,
            "targetSequence": sequence,
        }
        print(json.dumps(plan, indent=2, sort_keys=True))
        return 0
    with store.locked(session_id):
        path = store.events_path(session_id)
        data = path.read_bytes()
        lines = data.splitlines(keepends=True)
        temporary = path.with_name(path.name + ".rewind-tmp")
        temporary.write_bytes(b"".join(lines[: cut + 1]))
        os.replace(temporary, path)  # as Zero does: atomically
        meta = store.get(session_id)
        assert meta is not None
        store._write_metadata(session_id, replace(meta, event_count=len(kept)))
    report = {"filesDeleted": 0, "filesRestored": 0, "targetSequence": sequence}
    store.append_events(
        session_id, [("session_rewind", {"report": report, "targetSequence": sequence})]
    )
    print(json.dumps({**report, "skipped": []}, indent=2, sort_keys=True))
    return 0


# --- `zero sandbox grants list|allow|revoke` (zero-notes E) ------------------------------


def grants_path() -> Path:
    configured = os.environ.get("ZERO_SANDBOX_GRANTS_PATH")
    if configured:
        return Path(configured)
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.environ["HOME"], ".config")
    return Path(config) / "zero" / "sandbox-grants.json"


def read_grants() -> dict[str, list[dict[str, object]]]:
    try:
        state = json.loads(grants_path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    grants = state.get("grants") or {}
    return grants if isinstance(grants, dict) else {}


def write_grants(grants: dict[str, list[dict[str, object]]]) -> None:
    path = grants_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {"grants": grants, "policyVersion": 2, "schemaVersion": 3}
    path.write_text(json.dumps(state, indent=2), encoding="utf-8")


def grant_allows(tool: str) -> bool:
    """A tool-wide persistent allow grant for `tool`."""
    return any(
        grant.get("decision") == "allow" and not grant.get("scope")
        for grant in read_grants().get(tool, [])
    )


def grants_command(args: list[str]) -> int:
    action, rest = (args[0], args[1:]) if args else ("", [])
    options: dict[str, str] = {}
    positional: list[str] = []
    index = 0
    while index < len(rest):
        arg = rest[index]
        if arg in ("-h", "--help", "help"):  # as Zero 0.8.0: its help, exit status 0
            print(f"Usage:\n  zero sandbox grants {action} <tool> [flags]")
            return 0
        if arg in ("--path", "--reason") and index + 1 < len(rest):
            options[arg[2:]] = rest[index + 1]
            index += 1
        elif arg.startswith("-") and arg != "--json":  # `--` too
            return app_error(f"unknown sandbox grants flag {gojson.encode_string(arg)}", EXIT_USAGE)
        elif arg != "--json":
            positional.append(arg)
        index += 1
    grants = read_grants()
    if action == "list":
        listed = [grant for bucket in grants.values() for grant in bucket]
        print(json.dumps({"grants": listed}, indent=2))
        return 0
    if action not in ("allow", "revoke") or len(positional) != 1:
        return app_error("usage: zero sandbox grants list|allow|revoke <tool>", EXIT_USAGE)
    tool = positional[0]
    if not re.fullmatch(r"[A-Za-z0-9._-]+", tool):
        return app_error(f"invalid sandbox tool name {gojson.encode_string(tool)}", EXIT_USAGE)
    scope = os.path.abspath(options["path"]) if "path" in options else ""
    bucket = grants.get(tool, [])
    if action == "allow":
        grant: dict[str, object] = {"toolName": tool, "decision": "allow"}
        if scope:
            grant.update(scope=scope, scopeKind="file")
        if options.get("reason"):
            grant["reason"] = options["reason"]
        grant["approvedAt"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        grants[tool] = [g for g in bucket if g.get("scope", "") != scope] + [grant]
        write_grants(grants)
        print(f"Sandbox grant saved: {tool} [allow]")
        return 0
    kept = [g for g in bucket if scope and g.get("scope", "") != scope]
    if kept:
        grants[tool] = kept
    else:
        grants.pop(tool, None)
    write_grants(grants)
    print(f"Sandbox grants revoked: {len(bucket) - len(kept)}")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--version"]:
        print("zero fake")
        return 0
    if argv[:1] == ["sessions"]:
        return sessions_command(argv[1:])
    if argv[:2] == ["sandbox", "grants"]:
        return grants_command(argv[2:])
    if argv[:1] != ["exec"]:
        sys.stderr.write("fake zero: only `exec` is supported\n")
        return EXIT_USAGE
    options = Options()
    out = Output(False)
    try:
        try:
            parse_args(argv[1:], options)
        finally:
            out.stream_json = options.output_format == "stream-json"
        if options.help:
            print("Usage: zero exec [flags] [--] <prompt>")
            return 0
        workspace = os.path.abspath(options.cwd or os.getcwd())
        if not os.path.isdir(workspace):
            raise UsageError(f"cwd must be an existing directory: {workspace}")
        if options.auto.lower() not in ("", "low", "medium", "high", "member"):
            raise UsageError(
                f"Invalid autonomy level {gojson.encode_string(options.auto)}. "
                "Expected low, medium, or high."
            )
        store = SessionStore(default_root(os.environ), clock=store_clock())
        resumed = resume_target(options, store)
        if options.input_format == "stream-json":
            prompt = read_stream_json_prompt(sys.stdin.buffer.read())
        else:
            prompt = trim_space(" ".join(options.prompt_parts))
        if prompt == "exit 2":
            raise UsageError("fake zero: a usage error, as the prompt asked")
        if prompt == "slow-start":
            sys.stderr.write("fake zero: starting slowly\n")
            sys.stderr.flush()
            time.sleep(30)
        session_id = resumed or create_session(options, store, prompt, workspace)
    except UsageError as error:
        out.fail("usage_error", str(error), EXIT_USAGE)
    out.emit(
        "run_start",
        apiModel=options.model or DEFAULT_MODEL,
        cwd=workspace,
        model=options.model or DEFAULT_MODEL,
        provider=PROVIDER,
        sessionId=session_id,
    )
    if options.skip_permissions_unsafe or options.auto.lower() == "high":
        because = "--skip-permissions-unsafe" if options.skip_permissions_unsafe else "--auto high"
        out.emit(
            "warning",
            message=f"Unsafe permissions are active for this run because {because} was passed.",
        )
    run = Run(out, store, session_id, prompt)
    run.unsafe = options.skip_permissions_unsafe or options.auto.lower() == "high"
    run.record("message", {"content": prompt, "role": "user"})
    run.install_handler()
    scenario(run, workspace)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
