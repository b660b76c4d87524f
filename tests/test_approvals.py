"""A denied tool call and the ways forward Zero would honour (issue 20, part 5)."""

from __future__ import annotations

from zero_tui.store.approvals import approval_ask, is_zero_tool, subject_of
from zero_tui.transcript.denied_calls import ways_forward, why_no_grant

PLAIN = (
    "Error: Sandbox approval required for exec_command: Shell commands can read, write, "
    "or execute programs."
)


def test_a_plain_shell_prompt_can_be_retried_or_granted() -> None:
    ask = approval_ask(
        "exec_command",
        {"cmd": "ls  -la"},
        PLAIN,
        risk_level="high",
        categories=("shell",),
    )
    assert ask is not None
    assert (ask.tool, ask.subject, ask.retry_helps, ask.grant_helps) == (
        "exec_command",
        "ls -la",
        True,
        True,
    )
    assert ask.describe() == (
        "exec_command: ls -la — high risk (shell): Shell commands can read, write, or "
        "execute programs."
    )


def test_a_destructive_command_is_retried_but_never_granted() -> None:
    output = (
        "Error: Sandbox approval required for exec_command: destructive shell command "
        "requires approval"
    )
    ask = approval_ask(
        "exec_command",
        {"cmd": "rm -rf build"},
        output,
        risk_level="critical",
        categories=("destructive", "shell"),
        reason="destructive shell command requires approval",
    )
    assert ask is not None
    assert (ask.retry_helps, ask.grant_helps) == (True, False)


def test_network_access_is_neither_retried_nor_granted() -> None:
    output = "Error: Sandbox approval required for exec_command: network access requires approval"
    ask = approval_ask("exec_command", {"cmd": "curl https://example.com"}, output)
    assert ask is not None
    assert (ask.retry_helps, ask.grant_helps) == (False, False)


def test_what_is_not_an_approval() -> None:
    assert approval_ask("exec_command", {}, "total 0\n") is None
    blocked = "Sandbox block [network] for exec_command: network access requires approval"
    assert approval_ask("exec_command", {}, blocked) is None
    assert approval_ask("exec_command", {}, "Error: no such file") is None


def test_the_subject_of_a_call() -> None:
    assert subject_of({"path": "src/a.py", "content": "x"}) == "src/a.py"
    assert subject_of({"command": ["git", "status"]}) == "git status"
    assert subject_of("not arguments") == ""
    assert subject_of({"other": 1}) == ""


# --- issue 25, item 10: a hostile stored denial --------------------------------------------

HOSTILE = "Error: Sandbox approval required for -h: Shell commands can read, write, or execute."


def test_a_denial_naming_no_tool_of_zero_s_offers_no_grant() -> None:
    """`/approve` offered "always allow -h"; Zero printed its help, exited 0, and zero-tui
    reported a grant that did not exist."""
    for name in ("-h", "--help", "help", "--json", "my.plugin-tool"):
        output = HOSTILE.replace("-h", name, 1)
        ask = approval_ask(name, {"cmd": "ls"}, output)
        assert ask is not None
        assert (ask.tool, ask.grant_helps) == (name, False)
        assert ways_forward(ask) == ["allow and retry"]
        assert why_no_grant(ask).startswith(f"{name} is not one of Zero's tools")


def test_a_result_that_names_another_tool_than_the_call_is_not_zero_s() -> None:
    assert approval_ask("exec_command", {}, HOSTILE) is None
    assert approval_ask("-h", {}, PLAIN) is None


def test_zero_s_own_tools_are_granted() -> None:
    for name in ("exec_command", "write_file", "apply_patch", "mcp_github_create_issue"):
        ask = approval_ask(name, {}, PLAIN.replace("exec_command", name, 1))
        assert ask is not None
        assert ask.grant_helps, name
    assert is_zero_tool("bash")
    assert not is_zero_tool("-h")
    assert not is_zero_tool("mcp_-h")
