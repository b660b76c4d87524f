"""Every module of `zero_tui` has a name of its own: a reader who meets `usage` or
`session_tokens` in a traceback or an import knows which file it is (issue 27)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "zero_tui"


def test_no_two_modules_share_a_name() -> None:
    names = Counter(path.stem for path in PACKAGE_DIR.rglob("*.py") if path.name != "__init__.py")
    assert [name for name, count in names.items() if count > 1] == []
