"""Reading change records without an index entry of their own (records.py): the user's timeline
between two ids, a record's chain, the windows of a session, a run or an actor, and the indexes
that records written before (and account imports) still carry, merged newest first.

- The timeline is the user's `CHANGE#` range: ids start with their microsecond, so a time window
  is a sort-key range.
- A record's chain: the record's item names its newest changes (`recentChanges`) and each change
  the ones before it of the same record (`priors`), LINKS of them: a reader fetches LINKS changes
  a round trip. The item is found through the key each domain
  registers for its kinds (`register_record_key`: memos/changes.py, todos/changes.py). A link
  must name a change of the same record, made no later than the one before it: one that names
  another record's change or a later one ends the walk, one already read is passed over (a forged
  link cannot loop or wander into another record's history). A record whose item is gone (deleted for good)
  has no chain: its changes are read from the timeline.
- A session's or run's window: from the microsecond its id starts with to its `lastAt` in the
  session log + sessions.TAIL (a run that is no session of its own, one call's writes: its start
  + TAIL).
- An actor's windows: its sessions' windows from the log, joined where they overlap, plus the
  session its pointer names now.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator
from datetime import timedelta
from itertools import groupby

from ..kernel.keys import user_partition
from ..kernel.ports.storage import Item, ItemStore, Key
from .records import CHANGE_PREFIX, TIME_DIGITS, change_key, links, record_partition, shifted, started
from .sessions import LOG_PREFIX, TAIL, log_key

#: Items one timeline query reads.
CHUNK = 100
_TAIL_US = int(TAIL / timedelta(microseconds=1))

KeyOf = Callable[[str, str], Key]
#: kind -> the key of a record's item from (user id, record id); filled by the domains at import.
_RECORD_KEYS: dict[str, KeyOf] = {}


def register_record_key(kind: str, key_of: KeyOf) -> None:
    """Where a record of `kind` keeps its item (the head of its chain)."""
    _RECORD_KEYS[kind] = key_of


def newest_first(
    items: ItemStore, partition: str, index: str | None, prefix: str, low: str | None, high: str | None
) -> Iterator[Item]:
    """A query's items, newest first, from `high` (exclusive) down to `low` (inclusive)."""
    after = None
    while True:
        page = items.query(
            partition,
            index=index,
            start=None if low is None else prefix + low,
            end=None if high is None else prefix + high,
            prefix=prefix or None,
            descending=True,
            limit=CHUNK,
            after=after,
        )
        yield from page.items
        if page.next_key is None:
            return
        after = page.next_key


def between(items: ItemStore, user_id: str, low: str | None, high: str | None) -> Iterator[Item]:
    """The user's change records with ids in [low, high), newest first."""
    return newest_first(items, user_partition(user_id), None, CHANGE_PREFIX, low, high)


def merged(streams: Iterable[Iterable[Item]]) -> Iterator[Item]:
    """Newest-first streams as one, each change once."""
    joined = heapq.merge(*streams, key=lambda item: str(item["id"]), reverse=True)
    for _ident, same in groupby(joined, key=lambda item: str(item["id"])):
        yield next(same)


def _clamped(low: str | None, high: str | None, begin: str, end: str | None) -> tuple[str, str | None] | None:
    """[low, high) within [begin, end), or None when they do not meet."""
    lower = begin if low is None else max(low, begin)
    upper = end if high is None else (high if end is None else min(high, end))
    return None if upper is not None and upper <= lower else (lower, upper)


# -- a record's history --------------------------------------------------------------------------


def record_changes(
    items: ItemStore, user_id: str, record_id: str, kind: str | None, low: str | None, high: str | None
) -> Iterator[Item]:
    """A record's changes, newest first: its chain (or, its item gone, the timeline), merged with
    what the by-record index holds of records written before the chain."""
    kinds = [kind] if kind in _RECORD_KEYS else list(_RECORD_KEYS)
    keys = list(dict.fromkeys(_RECORD_KEYS[name](user_id, record_id) for name in kinds if name in _RECORD_KEYS))
    found = items.batch_get(keys) if keys else []
    streams: list[Iterable[Item]] = [
        newest_first(items, record_partition(user_id, record_id), "gsi2", "", low, high),
    ]
    if found:
        streams += [_walked(items, user_id, record_id, links(item.get("recentChanges")), low, high) for item in found]
    else:
        streams.append(item for item in between(items, user_id, low, high) if _of_record(item, record_id))
    return merged(streams)


def record_history(items: ItemStore, user_id: str, record_id: str, recent: list[str]) -> list[Item]:
    """Every kept change of a record whose item names `recent` as its newest changes, oldest
    first (a trim's and a purge's reading of it)."""
    streams: list[Iterable[Item]] = [newest_first(items, record_partition(user_id, record_id), "gsi2", "", None, None)]
    streams.append(_walked(items, user_id, record_id, recent, None, None))
    return list(merged(streams))[::-1]


def _of_record(item: Item, record_id: str) -> bool:
    record = item.get("record")
    return isinstance(record, dict) and record.get("id") == record_id


def _walked(
    items: ItemStore, user_id: str, record_id: str, recent: list[str], low: str | None, high: str | None
) -> Iterator[Item]:
    """Along the chain from `recent` (the record item's newest changes), newest first, LINKS
    changes a round trip: the oldest of each batch names the LINKS before it (`priors`). A link
    must name a change of the same record made no later than the one before it (two changes of
    one write can share a microsecond, so their ids' random tails may sort either way) and not
    seen yet: a forged or broken chain ends, never loops."""
    frontier, newer, seen = recent, "", set()
    while frontier:
        batch = [ident for ident in frontier if ident not in seen]
        if not batch:
            return
        fetched = {str(item["id"]): item for item in items.batch_get([change_key(user_id, i) for i in batch])}
        for ident in batch:
            item = fetched.get(ident)
            if item is None or not _of_record(item, record_id):
                return  # expired, trimmed or forged: the chain ends here
            if newer and ident[:TIME_DIGITS] > newer[:TIME_DIGITS]:
                return
            if low is not None and ident < low:
                return
            if high is None or ident < high:
                yield item
            seen.add(ident)
            newer = ident
        frontier = links(fetched[batch[-1]].get("priors"))


# -- sessions, runs and actors -------------------------------------------------------------------


def window_end(items: ItemStore, user_id: str, ident: str, begin: str) -> str:
    """Where a session's or run's changes end at the latest (exclusive): its logged `lastAt` +
    TAIL, else its start + TAIL (a run within one call, or a session whose log was never set)."""
    logged = items.get(log_key(user_id, ident))
    return _end(begin, None if logged is None else logged.get("lastAt"))


def _end(begin: str, last_at: object) -> str:
    last = last_at if isinstance(last_at, str) and len(last_at) == len(begin) and last_at.isdigit() else begin
    return shifted(max(last, begin), _TAIL_US)


def window_changes(
    items: ItemStore, user_id: str, name: str, ident: str, low: str | None, high: str | None
) -> Iterator[Item]:
    """The changes of a session or run (`name`: sessionId or runId) whose id carries its start,
    newest first."""
    begin = started(ident)
    assert begin is not None
    bounds = _clamped(low, high, begin, window_end(items, user_id, ident, begin))
    if bounds is None:
        return iter(())
    return (item for item in between(items, user_id, *bounds) if item.get(name) == ident)


def actor_windows(items: ItemStore, user_id: str, actor: str, current: str | None) -> list[tuple[str, str]]:
    """The time ranges [start, end) in which `actor` (a bare credential) wrote, newest first,
    joined where they overlap: its logged sessions and runs, and `current`, the session its
    pointer names (in case its log was never set)."""
    spans: list[tuple[str, str]] = []
    logged: set[str] = set()
    for entry in newest_first(items, user_partition(user_id), None, LOG_PREFIX, None, None):
        session_id = str(entry.get("sessionId", ""))
        begin = started(session_id)
        if begin is None or entry.get("actor") != actor:
            continue
        spans.append((begin, _end(begin, entry.get("lastAt"))))
        logged.add(session_id)
    if current is not None and current not in logged and (begin := started(current)) is not None:
        spans.append((begin, window_end(items, user_id, current, begin)))
    joined: list[tuple[str, str]] = []
    for begin, end in sorted(spans, reverse=True, key=lambda span: span[1]):
        if joined and end >= joined[-1][0]:
            joined[-1] = (min(begin, joined[-1][0]), joined[-1][1])
        else:
            joined.append((begin, end))
    return joined


def actor_changes(
    items: ItemStore, user_id: str, spans: list[tuple[str, str]], low: str | None, high: str | None
) -> Iterator[Item]:
    """The timeline within `spans` (newest first), between `low` and `high`; the caller keeps
    the actor's."""
    for begin, end in spans:
        bounds = _clamped(low, high, begin, end)
        if bounds is not None:
            yield from between(items, user_id, *bounds)
