"""A real OpenSSH server on 127.0.0.1, for the hosts tests and the hosts benchmark:
Debian's `sshd` with a generated host key and user key, a private ssh config
(`ZERO_TUI_SSH_CONFIG`) that knows the host key from a written known_hosts
(StrictHostKeyChecking yes), and a "remote" home with its own Zero store, given to the same
account by `environment=` in authorized_keys (PermitUserEnvironment). Only 127.0.0.1."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

SSHD = "/usr/sbin/sshd"
ALIAS = "devbox"
READY_LIMIT = 20.0  # a bound on waiting for the port, never a sleep


def missing_tools() -> list[str]:
    missing = [] if os.access(SSHD, os.X_OK) else [SSHD]
    return missing + [name for name in ("ssh", "ssh-keygen", "rsync") if not shutil.which(name)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _keygen(path: Path) -> None:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
        check=True,
        stdin=subprocess.DEVNULL,
    )


class SshHost:
    """One sshd on 127.0.0.1; `alias` is the Host the config names, `home` the remote home,
    `store` its Zero store (`home/.local/share/zero/sessions`, created empty)."""

    def __init__(self, base: Path, *, zero_on_path: bool = True) -> None:
        self.base = base
        self.port = free_port()
        self.alias = ALIAS
        self.home = base / "remote-home"
        self.store = self.home / ".local" / "share" / "zero" / "sessions"
        self.store.mkdir(parents=True)
        self.bin = base / "remote-bin"
        self.bin.mkdir()
        self.host_key = base / "ssh_host_ed25519_key"
        self.user_key = base / "id_ed25519"
        self.known_hosts = base / "known_hosts"
        self.config = base / "ssh_config"
        self.sshd_config = base / "sshd_config"
        self.log = base / "sshd.log"
        self.process: subprocess.Popen[bytes] | None = None
        _keygen(self.host_key)
        _keygen(self.user_key)
        if zero_on_path:
            self.install_zero()
        path = f"{self.bin}:/usr/local/bin:/usr/bin:/bin"
        options = ",".join(
            f'environment="{name}={value}"'
            for name, value in (("HOME", self.home), ("PATH", path), ("XDG_DATA_HOME", ""))
        )
        public = self.user_key.with_suffix(".pub").read_text().strip()
        authorized = base / "authorized_keys"
        authorized.write_text(f"{options} {public}\n")
        authorized.chmod(0o600)
        self.sshd_config.write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {self.host_key}\n"
            f"AuthorizedKeysFile {authorized}\nPidFile {base / 'sshd.pid'}\n"
            "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
            "PermitUserEnvironment yes\nSubsystem sftp internal-sftp\n"
        )
        self.write_known_hosts()
        self.write_config()

    def install_zero(self) -> None:
        """A `zero` on the remote PATH (the hosts code only asks whether one is there)."""
        zero = self.bin / "zero"
        zero.write_text("#!/bin/sh\necho 'zero v0.8.0'\n")
        zero.chmod(0o755)

    def remove_zero(self) -> None:
        (self.bin / "zero").unlink(missing_ok=True)

    def write_known_hosts(self) -> None:
        key = self.host_key.with_suffix(".pub").read_text().split()
        self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {key[0]} {key[1]}\n")

    def write_config(self, others: dict[str, int] | None = None) -> None:
        """The config: `alias` on sshd's port, and each of `others` (an alias: its port)
        with the same user, key and known_hosts."""
        ports = {self.alias: self.port, **(others or {})}
        self.config.write_text(
            "".join(
                f"Host {alias}\n  HostName 127.0.0.1\n  Port {port}\n  User root\n"
                f"  HostKeyAlias [127.0.0.1]:{self.port}\n"
                f"  IdentityFile {self.user_key}\n  IdentitiesOnly yes\n"
                f"  UserKnownHostsFile {self.known_hosts}\n  GlobalKnownHostsFile /dev/null\n"
                "  StrictHostKeyChecking yes\n  UpdateHostKeys no\n  LogLevel ERROR\n"
                for alias, port in ports.items()
            )
        )

    def start(self) -> None:
        with contextlib.suppress(OSError):  # sshd's privilege separation directory
            Path("/run/sshd").mkdir(exist_ok=True)
        self.process = subprocess.Popen(
            [SSHD, "-D", "-f", str(self.sshd_config), "-E", str(self.log)],
            stdin=subprocess.DEVNULL,
        )
        limit = time.monotonic() + READY_LIMIT
        while time.monotonic() < limit:
            if self.process.poll() is not None:
                log = self.log.read_text() if self.log.exists() else ""
                raise RuntimeError(f"sshd exited: {log}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                    if conn.recv(4).startswith(b"SSH"):
                        return
            except OSError:
                time.sleep(0.02)  # polling the port until sshd listens
        raise RuntimeError("sshd did not listen")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait()
        self.process = None

    def regenerate_host_key(self) -> None:
        """A new host key on the same port (the known_hosts keeps the old one)."""
        self.stop()
        for path in (self.host_key, self.host_key.with_suffix(".pub")):
            path.unlink()
        _keygen(self.host_key)
        self.start()

    def environment(self) -> dict[str, str]:
        return {"ZERO_TUI_SSH_CONFIG": str(self.config)}
