"""zero-tui's cache directory and its overrides (zero_tui.paths)."""

from __future__ import annotations

import sys
from pathlib import Path

import platformdirs
import pytest

from zero_tui.paths import CACHE_DIR_VARIABLE, default_cache_dir


@pytest.fixture
def no_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No cache variable set (conftest sets one for every test); HOME is a temp dir."""
    monkeypatch.delenv(CACHE_DIR_VARIABLE, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def test_the_zero_tui_variable_wins_and_is_stripped(
    no_overrides: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg/cache")
    monkeypatch.setenv(CACHE_DIR_VARIABLE, "  /private/cache \n")
    assert default_cache_dir() == Path("/private/cache")  # no zero-tui appended: it is the dir


def test_a_blank_zero_tui_variable_is_unset(
    no_overrides: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_DIR_VARIABLE, " \t")
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg/cache")
    assert default_cache_dir() == Path("/xdg/cache/zero-tui")


@pytest.mark.parametrize(
    ("xdg_cache_home", "expected"),
    [
        ("/xdg/cache", "/xdg/cache/zero-tui"),
        ("/xdg/cache/", "/xdg/cache/zero-tui"),
        ("  /xdg/cache  ", "/xdg/cache/zero-tui"),  # stripped, not ignored
        ("relative/cache", "relative/cache/zero-tui"),  # used as given, not ignored
    ],
)
def test_xdg_cache_home_is_used_as_before(
    no_overrides: Path, monkeypatch: pytest.MonkeyPatch, xdg_cache_home: str, expected: str
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", xdg_cache_home)
    assert default_cache_dir() == Path(expected)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG default is Linux's")
@pytest.mark.parametrize("xdg_cache_home", [None, "", "   "])
def test_without_overrides_linux_uses_the_home_cache(
    no_overrides: Path, monkeypatch: pytest.MonkeyPatch, xdg_cache_home: str | None
) -> None:
    if xdg_cache_home is not None:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg_cache_home)
    assert default_cache_dir() == no_overrides / ".cache" / "zero-tui"


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_without_overrides_other_platforms_ask_platformdirs(
    no_overrides: Path, monkeypatch: pytest.MonkeyPatch, platform: str
) -> None:
    asked: list[tuple[str, object]] = []

    def user_cache_dir(appname: str, appauthor: object) -> str:
        asked.append((appname, appauthor))
        return str(no_overrides / "platform-cache" / appname)

    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(platformdirs, "user_cache_dir", user_cache_dir)
    assert default_cache_dir() == no_overrides / "platform-cache" / "zero-tui"
    assert asked == [("zero-tui", False)]


@pytest.mark.skipif(sys.platform != "darwin", reason="macOS's own cache location")
def test_without_overrides_macos_uses_library_caches(no_overrides: Path) -> None:
    assert default_cache_dir() == no_overrides / "Library" / "Caches" / "zero-tui"


def test_asking_creates_nothing(no_overrides: Path) -> None:
    default_cache_dir()
    assert list(no_overrides.iterdir()) == []


def test_the_config_dir_follows_the_same_rule(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Where the hosts are kept: the zero-tui variable, then XDG's, then ~/.config."""
    from zero_tui.paths import CONFIG_DIR_VARIABLE, default_config_dir

    monkeypatch.setenv(CONFIG_DIR_VARIABLE, " mine ")
    assert default_config_dir() == Path("mine")
    monkeypatch.delenv(CONFIG_DIR_VARIABLE)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert default_config_dir() == tmp_path / "xdg" / "zero-tui"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(sys, "platform", "linux")
    assert default_config_dir() == tmp_path / ".config" / "zero-tui"
