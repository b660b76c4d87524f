"""The `ssh_host` fixture: a real sshd on 127.0.0.1 (benchmarks/local_sshd.py) for the
test, stopped after it. Skips only where sshd, ssh, ssh-keygen or rsync cannot be found."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.local_sshd import SshHost, free_port, missing_tools

__all__ = ["SshHost", "free_port", "ssh_host"]


@pytest.fixture
def ssh_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SshHost]:
    missing = missing_tools()
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (openssh-server, openssh-client, rsync)")
    host = SshHost(tmp_path / "ssh")
    host.start()
    monkeypatch.setenv("ZERO_TUI_SSH_CONFIG", str(host.config))
    try:
        yield host
    finally:
        host.stop()
