"""The store's file-change notification, in a process of its own: `python -I watch_child.py ROOT`.

watchfiles adds an inotify watch on every session folder as it starts, in Rust, holding
the GIL all along: 114 ms on 10,000 sessions, during which no other thread of the app
runs (its start, or the first keys, would stall). Here it holds this process's GIL only.
Only the standard library and watchfiles are imported.

Out, on stdout, records each ended by a NUL: `\\x03` once the watch is in place; the paths
of a batch of changes, one record each, and an empty record ending the batch; `\\x02` when
the store folder itself went away (removed or renamed: another may be in its place), or
`\\x01` and a reason when notification fails (either ends the process). It ends when its
stdin closes: the app stopped watching, or ended.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path
from typing import BinaryIO

FAILED = b"\x01"
STORE_REMOVED = b"\x02"
READY = b"\x03"
END = b"\0"
DEBOUNCE_MS = 150  # changes this close together arrive as one batch
DELETED = 3  # watchfiles' Change.deleted, as its Rust backend reports it


def watch(root: Path, out: BinaryIO, stop: threading.Event) -> int:
    """Write `root`'s changes to `out` until `stop`; the exit status. Through watchfiles'
    Rust backend, as `watchfiles.watch` uses it, so as to say when the watch is in place."""
    try:
        from watchfiles._rust_notify import RustNotify
    except ImportError:
        out.write(FAILED + b"watchfiles is not installed" + END)
        return 1
    try:
        # paths, debug, force polling, poll delay (ms), recursive, ignore permission denied
        with RustNotify([str(root)], False, False, 50, True, True) as notify:
            out.write(READY + END)
            out.flush()
            while True:
                changes = notify.watch(DEBOUNCE_MS, 50, 1000, stop)
                if changes in ("stop", "signal"):
                    return 0
                if not root.is_dir() or _root_went(root, changes):
                    out.write(STORE_REMOVED + END)
                    return 0
                if isinstance(changes, set) and changes:
                    out.write(b"".join(os.fsencode(path) + END for _kind, path in changes) + END)
                    out.flush()
    except Exception as error:  # the watch limit, a vanished root: the app polls instead
        reason = " ".join(str(error).split()) or type(error).__name__
        out.write(FAILED + reason.encode("utf-8", "replace") + END)
        return 1


def _root_went(root: Path, changes: object) -> bool:
    """Whether the watched folder itself was removed or renamed away: the watch stays on it,
    wherever it went, even when another folder is already in its place (`rm -rf` and `mkdir`
    may even give the new one the old inode number)."""
    where = str(root)
    return isinstance(changes, set) and any(
        kind == DELETED and path == where for kind, path in changes
    )


def main() -> int:
    stop = threading.Event()

    def stop_at_end_of_input() -> None:
        while sys.stdin.buffer.read(4096):
            pass
        stop.set()

    threading.Thread(target=stop_at_end_of_input, daemon=True).start()
    try:
        return watch(Path(sys.argv[1]), sys.stdout.buffer, stop)
    except BrokenPipeError:  # the app is gone
        return 0
    finally:
        with contextlib.suppress(BrokenPipeError):
            sys.stdout.buffer.flush()


if __name__ == "__main__":
    sys.exit(main())
