"""The import journal: one item per archive imported into an account, so an import cut short
(a crash, `kill -9`, a lost connection) is finished by running it again, whatever was written
to the account in between (docs/archive.md "Import").

Item: pk `U#<user>`, sk `IMPORT#<sha256 of records.jsonl>` (never exported), with the source
owner, `phase` (`writing`, then `done`), `startedAt`, `finishedAt`, the counts of the last run and
the account's own zone before the first run (`accountZone`, when it had one).
It is written before the first blob or record, so:

- no journal: nothing of this archive was written; the import checks the account is empty
  (importer.py) as before;
- a journal: an earlier run of this same archive started; the rerun skips that check (the
  account's records are this archive's, and whatever its owner wrote since), writes what is
  missing (Puts conditioned on absence: a record written since is kept), and rebuilds the
  counters from the records (counters.py), so they are exact even after writes in between.
"""

from __future__ import annotations

from typing import Any

from ..kernel.keys import user_partition
from ..kernel.ports.storage import Condition, ConditionFailed, Item, ItemStore, Key, Update

PREFIX = "IMPORT#"


def journal_key(user_id: str, digest: str) -> Key:
    return (user_partition(user_id), PREFIX + digest)


def read(items: ItemStore, user_id: str, digest: str) -> Item | None:
    return items.get(journal_key(user_id, digest))


def begin(items: ItemStore, user_id: str, digest: str, owner: str, now: str, account_zone: str | None = None) -> bool:
    """Record that this archive's import starts; True when an earlier run had started it.
    `account_zone`: the account's own zone before the first run, which a rerun keeps (the first
    run may have removed the settings item holding it: archive/preferences.py)."""
    pk, sk = journal_key(user_id, digest)
    started: Item = {"pk": pk, "sk": sk, "owner": owner, "phase": "writing", "startedAt": now}
    if account_zone is not None:
        started["accountZone"] = account_zone
    try:
        items.put(started, Condition(exists=False))
    except ConditionFailed:
        items.update(Update(journal_key(user_id, digest), set={"phase": "writing", "resumedAt": now}))
        return True
    return False


def finish(items: ItemStore, user_id: str, digest: str, now: str, counts: dict[str, Any]) -> None:
    items.update(Update(journal_key(user_id, digest), set={"phase": "done", "finishedAt": now, "counts": counts}))


__all__ = ["PREFIX", "begin", "finish", "journal_key", "read"]
