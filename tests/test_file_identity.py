"""A file's identity by its stat: the one-tuple comparison a refresh makes for every
unchanged session says what `same_file` says (issue 19: the index update's budget)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zero_tui.search import metadata_cache
from zero_tui.search.catalog import SessionCatalog
from zero_tui.search.file_identity import RACY_NS, identity_of, same_file, trusted_identity
from zero_tui.store import SessionStore

_numbers = st.integers(0, 3) | st.integers(0, 2**64)


def fake_stat(ino: int, size: int, mtime: int, ctime: int) -> os.stat_result:
    info = SimpleNamespace(st_ino=ino, st_size=size, st_mtime_ns=mtime, st_ctime_ns=ctime)
    return cast(os.stat_result, info)


@st.composite
def remembered_keys(draw: st.DrawFn, info: tuple[int, int, int, int]) -> object:
    canonical = ":".join(map(str, info))
    return draw(
        st.sampled_from(
            [
                canonical,
                "0" + canonical,
                canonical + ":1",
                canonical.rsplit(":", 1)[0],
                canonical.replace(":", ": ", 1),
                "-0:" + canonical.split(":", 1)[1],
                canonical.encode(),
                None,
            ]
        )
        | st.text(alphabet="0123456789:-+ _", max_size=30)
        | st.tuples(_numbers, _numbers, _numbers, _numbers).map(lambda t: ":".join(map(str, t)))
    )


@given(data=st.data(), info=st.tuples(_numbers, _numbers, _numbers, _numbers))
def test_the_trusted_identity_says_what_same_file_says(
    data: st.DataObject, info: tuple[int, int, int, int]
) -> None:
    remembered = data.draw(remembered_keys(info))
    changed = max(info[2], info[3])
    checked_ns = data.draw(
        st.sampled_from([changed + RACY_NS - 1, changed + RACY_NS, changed, 0])
        | st.integers(0, 2**64)
        | st.just("not a time")
    )
    stat = fake_stat(*info)
    identity = trusted_identity(remembered, checked_ns)
    if identity is not None:
        assert (identity_of(stat) == identity) == same_file(stat, remembered, checked_ns)
    else:  # the caller then asks `same_file` itself; a stat alone never says "same"
        assert identity_of(stat) != identity


def test_a_refresh_lists_what_it_listed_with_every_file_looked_at_in_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionStore(tmp_path / "sessions")
    for name in ("a", "b", "c", "d", "e"):
        store.create(name, title=name, cwd="/w")
        store.append_events(name, [("message", {"role": "user", "content": "hi"})])
    fast = SessionCatalog(store, tmp_path / "fast")
    full = SessionCatalog(store, tmp_path / "full")
    checked: list[str] = []
    real_check = metadata_cache.MetadataCache._check_metadata

    def counted(self: metadata_cache.MetadataCache, name: str, *args: Any, **kw: Any) -> Any:
        checked.append(name)
        return real_check(self, name, *args, **kw)

    monkeypatch.setattr(metadata_cache.MetadataCache, "_check_metadata", counted)
    now = [time.time_ns()]
    monkeypatch.setattr(time, "time_ns", lambda: now[0])

    def listing(catalog: SessionCatalog) -> tuple[list[object], list[str]]:
        sessions = catalog.refresh()
        unreadable = [item.session_dir.name for item in catalog.unreadable]
        return [meta.to_dict() for meta in sessions], unreadable

    def compare() -> list[str]:
        """The two listings, equal; the sessions the fast one looked at in full."""
        with monkeypatch.context() as slow:  # no identity is ever trusted: `same_file` says
            slow.setattr(metadata_cache, "identity_of", lambda info: ())
            expected = listing(full)
        checked.clear()
        assert listing(fast) == expected
        return sorted(checked)

    assert compare() == ["a", "b", "c", "d", "e"]  # new: read
    assert compare() == ["a", "b", "c", "d", "e"]  # racy: looked at again
    now[0] += 10 * RACY_NS
    assert compare() == ["a", "b", "c", "d", "e"]  # checked long after: settled
    assert compare() == []
    store.append_events("a", [("message", {"role": "user", "content": "more"})])
    store.metadata_path("b").unlink()
    store.metadata_path("c").write_bytes(b"{not json")
    store.create("f", title="f", cwd="/w")
    assert compare() == ["a", "b", "c", "f"]
    now[0] += 10 * RACY_NS
    compare()
    os.utime(store.metadata_path("d"), ns=(1, 1))  # same bytes, other times
    assert compare() == ["b", "c", "d"]  # the unreadable are looked at every time
    now[0] += 10 * RACY_NS
    compare()
    assert compare() == ["b", "c"]
