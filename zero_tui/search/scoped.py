"""A content search over what `sessions` lists: the matches ranked and counted in the index,
and only the best of them looked at again.

`zero-tui search` shows the best few of the sessions whose text matches, among those
`zero-tui sessions` lists (one workspace or all; empty runs or not). Every log has been
checked first (the caller's `update_content`), so the text and the resumable verdicts are
the files'. The matches are then sorted out and counted from the catalog, without a look
at their metadata files: the sessions a listing leaves out are few (of another kind,
empty runs, other workspaces), so they are what is read, and the rest is set arithmetic.
They are ranked (`TextMatches.tiers`, then Zero's order, from an index of the catalog);
only the best, a batch at a time until there are enough, are looked at again
(`sessions_with_keys`: their metadata read again if it changed, dropped when gone or
unreadable) and filtered as `sessions` filters them. The counts over the others are the
index's: a title or model changed since it was last read, or a metadata file broken since,
is not seen in them (`exact` says so). A query matching few sessions (`VERIFY_ALL`) has
them all looked at again and counted exactly.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from zero_tui.search.catalog import SessionCatalog
from zero_tui.search.metadata_cache import RankingRow
from zero_tui.search.query import Query, TextMatches
from zero_tui.store import Metadata
from zero_tui.store.models import RESUMABLE_KINDS
from zero_tui.store.resumable import ResumeList, filter_resumable, log_is_missing
from zero_tui.store.store import sort_sessions
from zero_tui.store.workspace import forget_directory_identities, workspace_matches

VERIFY_ALL = 1_000  # matches looked at again all at once, and counted exactly
LOAD_BATCH = 128  # the first batch of the best matches looked at again


@dataclass(frozen=True, slots=True)
class ListingScope:
    """The sessions `zero-tui sessions` would list (its --cwd, --all and --include-empty)."""

    workspace: str
    all_workspaces: bool = False
    include_empty: bool = False


@dataclass(frozen=True, slots=True)
class ScopedMatches:
    """The matching sessions in a listing's scope."""

    sessions: list[Metadata]  # looked at again, in Zero's order: at least the best ones
    matched: int  # every match in the scope
    other_workspace: int  # the matches --all would add
    empty_runs: int  # the matches --include-empty would add
    exact: bool  # every session counted was looked at again (else the counts are the index's)


def scoped_matches(
    catalog: SessionCatalog,
    query: Query,
    matches: TextMatches,
    scope: ListingScope,
    *,
    enough: int,
) -> ScopedMatches:
    """The sessions of `scope` that `matches` holds and `query`'s filters keep, looked at
    again until `enough` of the best are (`search` then ranks them as over every match),
    with the counts of every match."""
    if len(matches.keys) <= VERIFY_ALL:
        listing = _listed(catalog, query, scope, catalog.sessions_with_keys(matches.keys))
        return ScopedMatches(
            listing.sessions,
            len(listing.sessions),
            listing.other_workspace,
            listing.empty_runs,
            True,
        )
    forget_directory_identities()
    counted = (
        _Counted.by_rows(catalog, query, scope, matches.keys)
        if query.filters
        else _Counted.by_exceptions(catalog, scope, matches.keys)
    )
    ranked = _Ranked(catalog.metadata.keys_in_zero_order(), counted.in_scope, matches)
    matched, other_workspace, empty_runs = (
        len(counted.in_scope),
        counted.other_workspace,
        counted.empty,
    )
    # rows the catalog cannot sort out (an ill-typed value) are looked at with the first batch
    keys = sorted(counted.unsorted)
    kept: list[Metadata] = []
    batch = max(LOAD_BATCH, 2 * enough)
    while len(kept) < enough:
        keys += ranked.next(batch)
        if not keys:
            break
        batch *= 2  # a narrow scope keeps few: look further each time
        listing = _listed(catalog, query, scope, catalog.sessions_with_keys(keys))
        kept += listing.sessions
        # what the index counted in the scope, replaced by what the files say
        matched += len(listing.sessions) - sum(key in counted.in_scope for key in keys)
        other_workspace += listing.other_workspace
        empty_runs += listing.empty_runs
        keys = []
    return ScopedMatches(sort_sessions(kept), matched, other_workspace, empty_runs, False)


def _listed(
    catalog: SessionCatalog, query: Query, scope: ListingScope, sessions: list[Metadata]
) -> ResumeList:
    """`filter_resumable` over `sessions`, each verdict checked against its log as it is."""
    return filter_resumable(
        catalog.store,
        scope.workspace,
        all_workspaces=scope.all_workspaces,
        include_empty=scope.include_empty,
        sessions=[meta for meta in sessions if query.keeps(meta)],
        content_check=catalog.has_content,
    )


@dataclass(slots=True)
class _Counted:
    """The matches sorted out as `filter_resumable` would, from what the catalog remembers."""

    in_scope: set[int] = field(default_factory=set)
    other_workspace: int = 0
    empty: int = 0
    unsorted: set[int] = field(default_factory=set)  # ill-typed in the catalog

    @classmethod
    def by_exceptions(
        cls, catalog: SessionCatalog, scope: ListingScope, keys: frozenset[int]
    ) -> _Counted:
        """From the few sessions a listing may leave out, and the workspace's keys: every
        other match is listed."""
        exceptions, unsorted = catalog.metadata.listing_exceptions()
        left_out: set[int] = set()
        empty: set[int] = set()
        for key, row in exceptions.items():
            if key not in keys:
                continue
            if row.session_kind not in RESUMABLE_KINDS:
                left_out.add(key)
            elif not scope.include_empty and _empty(catalog, row):
                empty.add(key)
        unsorted &= keys
        candidates = set(keys) - left_out - unsorted
        counted = cls(unsorted=unsorted)
        if scope.all_workspaces:
            counted.in_scope = candidates - empty
            counted.empty = len(empty)
            return counted
        here = catalog.metadata.keys_in_workspace(scope.workspace)
        counted.in_scope = (candidates & here) - empty
        counted.other_workspace = len((candidates - here) - empty)
        counted.empty = len(empty & here)
        return counted

    @classmethod
    def by_rows(
        cls, catalog: SessionCatalog, query: Query, scope: ListingScope, keys: frozenset[int]
    ) -> _Counted:
        """From every matching row, for a query whose filters read the metadata."""
        rows = catalog.metadata.ranking_rows(filtered=True)
        counted = cls(unsorted=set(keys - rows.keys()))
        workspaces: dict[str, bool] = {}
        for key in keys:
            row = rows.get(key)
            if row is None or not query.keeps(row) or row.session_kind not in RESUMABLE_KINDS:
                continue
            elsewhere = False
            if not scope.all_workspaces:
                known = workspaces.get(row.cwd)
                if known is None:
                    known = workspaces[row.cwd] = not workspace_matches(row.cwd, scope.workspace)
                elsewhere = known
            empty = not scope.include_empty and _empty(catalog, row)
            if elsewhere and empty:
                continue  # only --all and --include-empty together would list it
            if elsewhere:
                counted.other_workspace += 1
            elif empty:
                counted.empty += 1
            else:
                counted.in_scope.add(key)
        return counted


def _empty(catalog: SessionCatalog, row: RankingRow) -> bool:
    """An empty run, as `filter_resumable` has it: no events, or a log without resumable
    content (by the verdict resting on the log as indexed, else found now) that is there
    (a file at its last check, which every log has just had, else looked for)."""
    if row.event_count <= 0:
        return True
    verdict = row.verdict
    if verdict is None:
        verdict = catalog.has_content(row.session_id)
    if verdict:
        return False
    return row.log_seen == 1 or not log_is_missing(catalog.store, row.session_id)


class _Ranked:
    """The keys of a scope's matches, best first (by `matches.tiers`, then in `order`: Zero's
    order), read from `order` only as far as they are asked for."""

    def __init__(self, order: Iterable[int], in_scope: set[int], matches: TextMatches) -> None:
        self._order = iter(order)
        self._tiers = [in_scope & tier for tier in matches.tiers]
        self._tiers.append(in_scope.difference(*self._tiers))
        self._found: list[list[int]] = [[] for _ in self._tiers]
        self._given = 0

    def next(self, count: int) -> list[int]:
        """The next `count` keys (fewer at the end)."""
        wanted = self._given + count
        while self._ready() < wanted:
            key = next(self._order, None)
            if key is None:
                break
            for tier, found in zip(self._tiers, self._found, strict=True):
                if key in tier:
                    found.append(key)
                    break
        ranked = [key for found in self._found for key in found]
        # keys `order` lacks (the catalog changed under it) come last
        if len(ranked) < wanted and self._ready() < wanted:
            seen = set(ranked)
            ranked += sorted(key for tier in self._tiers for key in tier if key not in seen)
        given, self._given = self._given, min(wanted, len(ranked))
        return ranked[given : self._given]

    def _ready(self) -> int:
        """How many keys are known to lead the ranking: every tier found whole, then the
        first of the first tier not yet whole."""
        ready = 0
        for tier, found in zip(self._tiers, self._found, strict=True):
            ready += len(found)
            if len(found) < len(tier):
                break
        return ready
