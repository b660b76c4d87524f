"""Runs inside a tmux (or screen) pane for the clipboard end-to-end tests.

    python clipboard_helper.py TEXT_FILE RESULT_FILE [MODE]

Reads the text (UTF-8) from TEXT_FILE, calls `copy_text` as the app does, with the escape
sequences written to this process's own terminal (standard output, the pane's tty), and
writes the `CopyResult` as JSON to RESULT_FILE (atomically, so the test can poll for it).
The system clipboard always fails here, as on a headless host: the test is about the
terminal and tmux routes. MODE `sequences` makes `tmux load-buffer` fail as if tmux were
too old or missing, so the escape-sequence fallback is what reaches tmux.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from zero_tui.clipboard import NO_TOOL, NativeClipboardUnavailable, copy_text


def write_terminal(data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(sys.stdout.fileno(), view) :]


def no_native(text: str) -> None:
    raise NativeClipboardUnavailable(NO_TOOL)


def without_load_buffer(args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    if list(args[:2]) == ["tmux", "load-buffer"]:
        raise FileNotFoundError("tmux")
    result: subprocess.CompletedProcess[bytes] = subprocess.run(args, **kwargs)
    return result


def main(argv: list[str]) -> int:
    text_file, result_file = Path(argv[0]), Path(argv[1])
    mode = argv[2] if len(argv) > 2 else "tmux"
    text = text_file.read_bytes().decode("utf-8")
    run = without_load_buffer if mode == "sequences" else subprocess.run
    result = copy_text(text, write_terminal=write_terminal, run=run, native_copy=no_native)
    partial = result_file.with_name(result_file.name + ".partial")
    partial.write_text(json.dumps(result.__dict__), encoding="utf-8")
    partial.replace(result_file)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
