"""Which sessions belong to the current workspace (tui-behaviour §1.2, design §3.1)."""

from __future__ import annotations

import os
from functools import lru_cache

from zero_tui.store.gotext import clean_path, trim_space

_WINDOWS = os.name == "nt"


def current_workspace() -> str:
    """The working directory as the shell spells it (Go's os.Getwd: $PWD when it names `.`)."""
    pwd = os.environ.get("PWD", "")
    if pwd and os.path.isabs(pwd):
        try:
            if os.path.samefile(pwd, "."):
                return pwd
        except OSError:
            pass
    try:
        return os.getcwd()
    except OSError:
        return pwd


def resolve_workspace(given: str | None) -> str:
    """A --cwd value made absolute (lexically: the directory need not exist), else the shell's."""
    if given is None:
        return current_workspace()
    text = trim_space(given)
    if not text:
        return ""
    if not os.path.isabs(text):
        text = os.path.join(current_workspace(), text)
    return clean_path(text, windows=_WINDOWS)


def _comparable(path: str) -> str:
    cleaned = clean_path(path, windows=_WINDOWS)
    return cleaned.lower() if _WINDOWS else cleaned


@lru_cache(maxsize=4096)
def _directory_identity(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino)


def workspace_matches(session_cwd: str, workspace: str, *, same_directory: bool = True) -> bool:
    """Go's sessionMatchesWorkspace, widened (design §3.1) to the same directory on disk.

    An empty cwd on either side matches; a relative stored cwd never matches a real
    workspace. With same_directory=False this is exactly Zero's HEAD rule.
    """
    session = trim_space(session_cwd)
    current = trim_space(workspace)
    if not session or not current:
        return True
    if _comparable(session) == _comparable(current):
        return True
    if not same_directory or not os.path.isabs(session) or not os.path.isabs(current):
        return False
    session_id = _directory_identity(clean_path(session, windows=_WINDOWS))
    return session_id is not None and session_id == _directory_identity(
        clean_path(current, windows=_WINDOWS)
    )


def forget_directory_identities() -> None:
    """Drop cached stat results (a long-running UI calls this before each rescan)."""
    _directory_identity.cache_clear()
