"""zero-tui's own directories, with their environment overrides (no Textual import).

The cache (the catalog and the picker's remembered first rows) is
`$ZERO_TUI_CACHE_DIR`, else `$XDG_CACHE_HOME/zero-tui`, else the platform's user cache
directory: `~/.cache/zero-tui` on Linux, and platformdirs' answer elsewhere
(`~/Library/Caches/zero-tui` on macOS, `%LOCALAPPDATA%\\zero-tui\\Cache` on Windows). Both
variables are stripped of surrounding whitespace, and a relative value is used as given
(relative to the working directory), as before platformdirs, which would ignore it.

Linux's default is the XDG one written out, not asked of platformdirs: its answer is the
same for a usable HOME, but it would treat an empty or relative HOME differently from how
zero-tui always has, and importing it costs the subcommands that never load Textual about
4 ms (Textual imports it anyway).

Zero's session store is not here: its root follows Zero's own rule, byte for byte as the Go
agent computes it (`zero_tui.store.default_root`), which is not platformdirs' on macOS.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "zero-tui"
CACHE_DIR_VARIABLE = "ZERO_TUI_CACHE_DIR"
DATA_DIR_VARIABLE = "ZERO_TUI_DATA_DIR"
CONFIG_DIR_VARIABLE = "ZERO_TUI_CONFIG_DIR"


def default_cache_dir() -> Path:
    """Where zero-tui keeps what it can rebuild from the store (see the module docstring)."""
    return _user_dir(CACHE_DIR_VARIABLE, "XDG_CACHE_HOME", (".cache",), "user_cache_dir")


def default_data_dir() -> Path:
    """Where zero-tui keeps what it cannot rebuild (the trash): `$ZERO_TUI_DATA_DIR`, else
    `$XDG_DATA_HOME/zero-tui`, else `~/.local/share/zero-tui` on Linux and platformdirs'
    user data directory elsewhere."""
    return _user_dir(DATA_DIR_VARIABLE, "XDG_DATA_HOME", (".local", "share"), "user_data_dir")


def default_config_dir() -> Path:
    """Where zero-tui keeps what the user set up (the hosts): `$ZERO_TUI_CONFIG_DIR`, else
    `$XDG_CONFIG_HOME/zero-tui`, else `~/.config/zero-tui` on Linux and platformdirs' user
    config directory elsewhere."""
    return _user_dir(CONFIG_DIR_VARIABLE, "XDG_CONFIG_HOME", (".config",), "user_config_dir")


def _user_dir(override: str, xdg: str, linux_home_parts: tuple[str, ...], platform: str) -> Path:
    """`$override` as given, else `$xdg/zero-tui`, else `~/<linux_home_parts>/zero-tui` on
    Linux, else platformdirs' `platform` function's answer."""
    given = os.environ.get(override, "").strip()
    if given:
        return Path(given)
    xdg_home = os.environ.get(xdg, "").strip()
    if xdg_home:
        return Path(xdg_home) / APP_NAME
    if sys.platform == "linux":
        return Path.home().joinpath(*linux_home_parts, APP_NAME)
    import platformdirs  # here, not at the top: see the module docstring

    return Path(getattr(platformdirs, platform)(APP_NAME, appauthor=False))
