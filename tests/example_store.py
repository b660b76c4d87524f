"""The Go-written example store in ../shared, copied before use (shared/ is read-only).

`copy_example_store(tmp_path)` and `load_expected()` skip the calling test cleanly when
the shared reference folder is not beside the repository.
"""

from __future__ import annotations

import json
import os
import shutil
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
EXAMPLE_STORE = SHARED / "examples" / "store-basic-chat"
EXPECTED_FILE = SHARED / "examples" / "store-basic-chat.expected.json"


def shared_available() -> bool:
    return EXAMPLE_STORE.is_dir() and EXPECTED_FILE.is_file()


def _skip_without_shared() -> None:
    if not shared_available():
        pytest.skip("the shared reference folder (../shared) is not available")


def copy_example_store(tmp_path: Path) -> Path:
    """A writable copy of the example store root under tmp_path (never the original)."""
    _skip_without_shared()
    root = tmp_path / EXAMPLE_STORE.name
    shutil.copytree(EXAMPLE_STORE, root)
    # shared/ may be laid out without write bits: give the copy Zero's own modes back
    for directory, _subdirs, files in os.walk(root):
        os.chmod(directory, 0o700)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o600)
    return root


@lru_cache(maxsize=1)
def _expected() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXPECTED_FILE.read_text(encoding="utf-8"))
    return data


def load_expected() -> dict[str, Any]:
    """What Zero's Go reader returned for the example store (store-basic-chat.expected.json)."""
    _skip_without_shared()
    return _expected()
