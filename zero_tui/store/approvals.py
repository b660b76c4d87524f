"""A tool call Zero's sandbox stopped for want of an approval, and the ways forward.

`zero exec` can answer no permission prompt (zero-exec §2.2): at `--auto low` or `medium`
a prompt-gated call ends with the tool result `Error: Sandbox approval required for
<tool>: <reason>`, and the permission event beside it carries the risk (level, categories,
reason). `approval_ask` reads those into one value for the denied tool card, and says
which way forward Zero would honour (internal/sandbox/engine.go, in its order):

* **allow and retry** — the same prompt again, this run only, with `--auto high` (Zero's
  unsafe mode grants every prompt). A shell command that needs the network is *blocked*
  even then, so no retry is offered for it;
* **always allow** — Zero's persistent grant, `zero sandbox grants allow <tool>`. Zero
  checks network, destructive-command and escalation prompts before any grant, so a grant
  is offered only for what it can allow, and only for one of Zero's own tools (`is_zero_tool`):
  the name comes from the session's text, and `-h` there would make Zero print its help.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_REQUIRED = re.compile(
    r"^(?:Error: )?Sandbox approval required for (?P<tool>[A-Za-z0-9._-]+): (?P<reason>.*)\Z",
    re.S,
)
_NO_GRANT_CATEGORIES = frozenset({"network", "destructive", "escalation"})

ZERO_TOOLS = frozenset(
    {
        # Zero v0.8.0's built-in tools (internal/tools, swarm, specialist, specmode, plugins)
        *("apply_patch", "ask_user", "bash", "capture_artifact", "create_goal"),
        *("desktop_action", "desktop_snapshot", "desktop_windows", "edit_file"),
        *("escalate_model", "exec_command", "get_goal", "glob", "grep", "list_directory"),
        *("list_sessions", "lsp_navigate", "read_file", "read_minified_file"),
        *("request_permissions", "send_message", "skill", "terminal_session", "tool_search"),
        *("update_goal", "update_plan", "view_image", "web_fetch", "web_search"),
        *("write_file", "write_stdin", "submit_spec"),
        *("browser_action", "browser_click", "browser_connect", "browser_install"),
        *("browser_launch", "browser_open", "browser_press", "browser_snapshot", "browser_type"),
        *("swarm_collect", "swarm_handoff", "swarm_inbox", "swarm_schedule", "swarm_send"),
        *("swarm_spawn", "swarm_status"),
        *("GenerateSpecialist", "Task", "TaskOutput", "TaskStop"),
    }
)
_MCP_TOOL = re.compile(r"mcp_[a-z0-9_]+")  # Zero's name for a server's tool: mcp_<server>_<tool>


def is_zero_tool(name: str) -> bool:
    """Whether `name` is one of Zero's tools: a built-in one, or an MCP server's as Zero
    names them. Never a flag or a word Zero's command line would take for one."""
    return name in ZERO_TOOLS or _MCP_TOOL.fullmatch(name) is not None


_SUBJECT_KEYS = ("cmd", "command", "path", "file_path", "url", "pattern")


@dataclass(frozen=True, slots=True)
class ApprovalAsk:
    """What was asked and could not be answered: the tool, its command or path, Zero's
    risk (level and categories) and reason, and which ways forward Zero would honour."""

    tool: str
    subject: str
    risk_level: str
    categories: tuple[str, ...]
    reason: str
    retry_helps: bool
    grant_helps: bool

    def describe(self) -> str:
        """`exec_command: rm -rf build — critical risk (destructive, shell): …` on one line."""
        what = f"{self.tool}: {self.subject}" if self.subject else self.tool
        risk = f"{self.risk_level} risk" if self.risk_level else "a risk"
        if self.categories:
            risk += f" ({', '.join(self.categories)})"
        return f"{what} — {risk}: {self.reason}" if self.reason else f"{what} — {risk}"


def approval_ask(
    tool: str,
    arguments: object,
    output: str,
    *,
    risk_level: str = "",
    categories: tuple[str, ...] = (),
    reason: str = "",
) -> ApprovalAsk | None:
    """The approval a tool result asked for, or None when the result is not Zero's
    `Sandbox approval required` (a block, an ordinary error, a success, or one that names
    another tool than `tool`, the one called)."""
    match = _REQUIRED.match(output.strip())
    if match is None:
        return None
    said = reason or match.group("reason").strip()
    network = "network" in categories or "network access" in said
    named = match.group("tool")
    if tool and named != tool:
        return None  # Zero names the tool that was called: this text is not Zero's
    return ApprovalAsk(
        tool=named,
        subject=subject_of(arguments),
        risk_level=risk_level,
        categories=categories,
        reason=said,
        retry_helps=not network,
        grant_helps=is_zero_tool(named)
        and not (_NO_GRANT_CATEGORIES & set(categories))
        and not network
        and "destructive" not in said
        and "escalat" not in said,
    )


def subject_of(arguments: object) -> str:
    """The command, path or address a tool call was about, from its decoded arguments."""
    if not isinstance(arguments, Mapping):
        return ""
    for key in _SUBJECT_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
        if isinstance(value, list) and all(isinstance(part, str) for part in value) and value:
            return " ".join(value)
    return ""
