"""Sessions: which of an actor's changes belong together ("what did my agent do today?").

A session is one actor's run of writes with no gap longer than the deployment's
`session_gap_minutes` (15 by default, `MESQ_SESSION_GAP_MINUTES`), or one run that is a session of
its own: a `run_code` run, an import (their principal carries the run's id), a batch call and an
`undo_changes` call. Every change record carries its `sessionId`, set when `change_op` builds it,
so it is written in the write's own transaction (docs/decisions.md, "Agent sessions").

- A run's session id is its runId (`list_changes {runId}` and `{sessionId}` find the same records).
- Otherwise the actor's session pointer decides: one item per credential, `U#<user>` /
  `CHANGESESSION#<credential>` with `sessionId` and `lastAt`. A write within the gap of `lastAt`
  continues that session; a later one starts the next, whose id is *derived* from what was read
  (the credential, the previous session and its `lastAt`, and which gap-long stretch after it
  `now` falls in), never drawn at random: two writes of one agent racing past the gap read the
  same pointer and so land in the same new session, with no condition on the write itself and
  nothing for it to conflict on. The pointer is moved after the write's commit (a conditional
  update on the `lastAt` it read; losing that race means another write moved it, which is as
  good), and only when it must: a new session, or a `lastAt` older than `REFRESH`. A pointer that
  fails to move (a crash between the commit and it) leaves the next write to derive the same id.
- `lastAt` moves at most once per REFRESH, so a session ends after between `gap` and
  `gap + REFRESH` without writes. A process remembers the pointer it last read or moved for
  REFRESH (`_SEEN`), so a burst of writes reads it once.
- A session's id starts with the microsecond it began at the earliest (17 digits, as change ids
  start: the start of the gap-long stretch `now` falls in, which racing writers compute alike; a
  run's id starts with the run's own start), and the session log says when it last wrote: one
  item per session or run, `U#<user>` / `SESSIONLOG#<sessionId>` with the actor's credential and
  `lastAt`, set after the write's commit at most once per REFRESH per process (`_logged`). A
  change record has no index entry (records.py), so a session's, run's or actor's changes are
  read from the user's timeline between a session's start and its `lastAt` + TAIL
  (history/reads.py). TAIL covers what a process writes without logging again (REFRESH) and the
  rest of the call that logged (a call lasts at most 15 minutes: Lambda's limit).
"""

from __future__ import annotations

import base64
import hashlib
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial

from ..kernel.context import Call
from ..kernel.keys import user_partition
from ..kernel.ports.storage import Condition, ConditionFailed, ItemStore, Key, StoreError, Update
from ..kernel.timestamps import format_timestamp, utc_now
from .records import bare_credential, epoch, time_prefix

POINTER_PREFIX = "CHANGESESSION#"
LOG_PREFIX = "SESSIONLOG#"
#: How long after its logged `lastAt` a session or run may still have written (see above).
TAIL = timedelta(minutes=20)
#: How stale a pointer's `lastAt` may get before a write moves it (the gap's resolution; a
#: quarter of the gap when that is shorter).
REFRESH = timedelta(seconds=60)
#: Operations each call of which is a session of its own (besides the runs a principal carries).
_OWN_SESSION_OPERATIONS = frozenset({"undo_changes"})
_OWN_SESSION_PREFIX = "batch_"


@dataclass(frozen=True)
class _Seen:
    session_id: str
    last_at: datetime


#: Per store, (user, credential) -> the pointer this process last read or moved; trusted for
#: REFRESH. Per store: a process holding two (a test run, the bench, an import into another
#: deployment) must never continue one store's session in another's.
_SEEN: weakref.WeakKeyDictionary[ItemStore, dict[tuple[str, str], _Seen]] = weakref.WeakKeyDictionary()
_SEEN_KEPT = 4096
#: Per store, (user, session) -> when this process last logged it (the session log, above).
_LOGGED: weakref.WeakKeyDictionary[ItemStore, dict[tuple[str, str], datetime]] = weakref.WeakKeyDictionary()


def pointer_key(user_id: str, credential_id: str) -> Key:
    return (user_partition(user_id), POINTER_PREFIX + bare_credential(credential_id))


def is_own_session(call: Call) -> bool:
    """Whether every write of this call (or of the run it belongs to) is one session by itself."""
    operation = call.operation_id
    return (
        call.principal.run_id is not None
        or operation in _OWN_SESSION_OPERATIONS
        or operation.startswith(_OWN_SESSION_PREFIX)
    )


def log_key(user_id: str, session_id: str) -> Key:
    return (user_partition(user_id), LOG_PREFIX + session_id)


def session_of(call: Call, now: datetime) -> str:
    """The session of the change records `call` writes at `now`, decided at its first record and
    then kept on `call.recorded` (every record of one call is in one session); logged after the
    write commits when this process has not logged it within REFRESH."""
    recorded = call.recorded
    if recorded.session_id is None:
        recorded.session_id = call.run_id if is_own_session(call) else _continued(call, now)
        _log(call, recorded.session_id, now)
    return recorded.session_id


def _log(call: Call, session_id: str, now: datetime) -> None:
    items, user_id = call.services.items, call.principal.user_id
    logged = _logged_in(items)
    last = logged.get((user_id, session_id))
    if last is not None and timedelta(0) <= now - last < REFRESH:
        return
    entry = {
        "sessionId": session_id,
        "actor": bare_credential(call.principal.credential_id),
        "lastAt": time_prefix(now),
        "ttl": epoch(now + timedelta(days=call.services.deployment.history_days) + TAIL),
    }
    call.recorded.after_commit(partial(_write_log, items, Update(key=log_key(user_id, session_id), set=entry)))
    if len(logged) >= _SEEN_KEPT:
        logged.clear()
    logged[(user_id, session_id)] = now


def _write_log(items: ItemStore, entry: Update) -> None:
    """The session log's entry set after the write committed; a store failing leaves the last
    one (the reads' TAIL covers a missed minute, docs/decisions.md)."""
    try:
        items.update(entry)
    except StoreError:
        return


def current_session(call: Call) -> str:
    """The session the caller's next write goes to (get_context): its run's, else the one the
    pointer names while it is live, else the one a write now would start. Writes nothing."""
    if is_own_session(call):
        return call.run_id
    now = utc_now()
    user_id, credential_id = call.principal.user_id, call.principal.credential_id
    pointer = call.services.items.get(pointer_key(user_id, credential_id))
    return _decide(user_id, credential_id, pointer, now, _gap(call))[0]


def _gap(call: Call) -> timedelta:
    return timedelta(minutes=call.services.deployment.session_gap_minutes)


def _continued(call: Call, now: datetime) -> str:
    user_id, credential_id = call.principal.user_id, call.principal.credential_id
    gap = _gap(call)
    refresh = min(REFRESH, gap / 4)
    items = call.services.items
    seen = _seen_in(items).get((user_id, credential_id))
    if seen is not None and timedelta(0) <= now - seen.last_at < refresh:
        return seen.session_id
    key = pointer_key(user_id, credential_id)
    pointer = items.get(key)
    session_id, last_at = _decide(user_id, credential_id, pointer, now, gap)
    if pointer is not None and session_id == pointer["sessionId"] and now - last_at < refresh:
        _remember(items, user_id, credential_id, session_id, last_at)
    else:
        condition = Condition(equals={"lastAt": pointer["lastAt"]}) if pointer is not None else Condition(exists=False)
        move = Update(key=key, set={"sessionId": session_id, "lastAt": format_timestamp(now)}, condition=condition)
        call.recorded.after_commit(partial(_move, items, move, user_id, credential_id, session_id, now))
    return session_id


def _decide(
    user_id: str, credential_id: str, pointer: dict[str, object] | None, now: datetime, gap: timedelta
) -> tuple[str, datetime]:
    """(the session a write at `now` belongs to, the pointer's `lastAt` or `now`)."""
    if pointer is None:
        stretch = int(now.timestamp() // gap.total_seconds())
        begun = datetime.fromtimestamp(stretch * gap.total_seconds(), UTC)
        return _derived(user_id, credential_id, "", "", stretch, begun), now
    previous, last_text = str(pointer["sessionId"]), str(pointer["lastAt"])
    last_at = datetime.fromisoformat(last_text.replace("Z", "+00:00"))
    idle = now - last_at
    if idle <= gap:
        return previous, last_at
    stretch = int((idle - gap).total_seconds() // gap.total_seconds())
    return _derived(user_id, credential_id, previous, last_text, stretch, last_at + gap * (stretch + 1)), now


def _derived(user_id: str, credential_id: str, previous: str, last_at: str, stretch: int, begun: datetime) -> str:
    """A session id from what every racing writer reads alike: the start of the stretch `now`
    falls in (no write of the session is older) and 12 URL-safe characters."""
    seed = "\x1f".join((user_id, credential_id, previous, last_at, str(stretch))).encode("utf-8")
    return time_prefix(begun) + base64.urlsafe_b64encode(hashlib.sha256(seed).digest()[:9]).decode("ascii")


def _move(items: ItemStore, move: Update, user_id: str, credential_id: str, session_id: str, now: datetime) -> None:
    """The pointer moved on after the write committed. Another write having moved it first (the
    condition) or the store failing leaves it as it is: the next write reads it and derives the
    same session."""
    try:
        items.update(move)
    except ConditionFailed:
        _seen_in(items).pop((user_id, credential_id), None)
        return
    except StoreError:
        return
    _remember(items, user_id, credential_id, session_id, now)


def _logged_in(items: ItemStore) -> dict[tuple[str, str], datetime]:
    """This process's memory of when it last logged each (user, session) of `items`."""
    try:
        return _LOGGED.setdefault(items, {})
    except TypeError:
        return {}


def _seen_in(items: ItemStore) -> dict[tuple[str, str], _Seen]:
    """This process's memory of `items`' pointers (a fresh, unkept one for a store that cannot
    be a weak key: nothing is remembered for it, every write reads its pointer)."""
    try:
        return _SEEN.setdefault(items, {})
    except TypeError:
        return {}


def _remember(items: ItemStore, user_id: str, credential_id: str, session_id: str, last_at: datetime) -> None:
    seen = _seen_in(items)
    if len(seen) >= _SEEN_KEPT:
        seen.clear()
    seen[(user_id, credential_id)] = _Seen(session_id, last_at)
