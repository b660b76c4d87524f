"""Where Zero keeps its sessions when no store is named (store-format §1): a module of its
own, so that finding the root does not load the store."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from zero_tui.store.gotext import clean_path, trim_space


def default_root(env: Mapping[str, str] | None = None) -> Path:
    """Zero's DefaultRoot: $XDG_DATA_HOME/zero/sessions, else $HOME/.local/share/zero/sessions.

    Zero's rule on every platform, not platformdirs' (zero_tui.paths): the Go agent writes
    here, and on macOS platformdirs' data dir would be ~/Library/Application Support.
    """
    environ = os.environ if env is None else env
    data_home = trim_space(environ.get("XDG_DATA_HOME", ""))
    home = trim_space(environ.get("HOME", ""))
    if not home:
        try:
            import pwd

            home = pwd.getpwuid(os.getuid()).pw_dir
        except (ImportError, KeyError, OSError):
            home = ""
    base = data_home or os.path.join(home, ".local", "share")
    return Path(clean_path(os.path.join(base, "zero", "sessions")))


def store_root(given: str | os.PathLike[str] | None) -> Path:
    """The root a `SessionStore(given)` reads: `given` stripped, else (None or blank) Zero's
    default root."""
    text = trim_space(os.fspath(given)) if given is not None else ""
    return Path(text) if text else default_root()


def store_key(root: str | os.PathLike[str]) -> str:
    """A short name for a store in zero-tui's own folders (its trash, its run registry):
    from the resolved path, so that every spelling of one store (a symlink, `..`) is one
    key."""
    return hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()[:20]


def typed_store_key(root: str | os.PathLike[str]) -> str:
    """The key of the store's path as typed (absolute, unresolved): what keyed the trash
    before `store_key`, still read so that nothing trashed then goes missing."""
    return hashlib.sha256(os.fsencode(os.path.abspath(root))).hexdigest()[:20]
