"""`mesq repair-imports`: remove what imports before the rebuilt records (records.py) could leave
behind, once (docs/ops.md "Repairing imports").

An archive import used to write each record's attributes as given, index keys included, into
the importer's partition: an entry of the upload sweep's `UPLOADS`, of a reminder bucket, of the
user directory, of another user's inbox, history or timeline index. Every such entry is an item
of some user's own partition, of a kind an archive carries. So the repair walks each user's
partition (every user the directory lists, and the owner of every directory entry that is not a
username claim) and, for each item of an imported kind:

- a record that `records.rebuild` accepts gets exactly the keys, `userId`, `ttl` and attachment
  path the rebuild derives, when it carries others (its other attributes are kept as they are);
- a record the rebuild refuses (a bad timestamp, a foreign attachment path, ...) keeps its
  attributes but loses every index key, so no index (its owner's or anyone's) lists it: it is
  reported by key, for the owner or an operator to look at;
- a reminder index entry is put back to what its task gives (or deleted);

then the user's counters are recomputed (counters.py). Re-running finds nothing to change.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from aws_lambda_powertools import Logger

from ..auth.user_zone import configured_zone
from ..auth.users import DIRECTORY_INDEX, DIRECTORY_PARTITION, _is_claim
from ..kernel.keys import partition_owner, user_partition
from ..kernel.ports.storage import Condition, Item, ItemStore, Update
from ..store.paging import walk
from ..todos import keys as todo_keys
from ..todos.reminder_schedule import INDEX_PREFIX
from .counters import rebuild_counters
from .format import ArchiveError, exported
from .records import derived, rebuild, reminder_entry

logger = Logger(child=True)

#: The attributes a rebuild owns: an item that carries other values of these is rewritten.
OWNED = ("gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "userId", "ttl", "path")
_INDEX_KEYS = ("gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk")


@dataclass
class RepairReport:
    user_id: str
    items: int = 0
    rekeyed: list[str] = field(default_factory=list)
    unindexed: list[str] = field(default_factory=list)
    reminders: int = 0


def users_to_repair(items: ItemStore) -> list[str]:
    """Every user the directory lists, and the owner of every entry of it that is no claim."""
    found: dict[str, None] = {}
    for entry in walk(items, DIRECTORY_PARTITION, index=DIRECTORY_INDEX):
        owner = str(entry["userId"]) if _is_claim(entry) else partition_owner(str(entry.get("pk", "")))
        if owner:
            found.setdefault(owner)
    return list(found)


def _fix(items: ItemStore, item: Item, user_id: str, report: RepairReport, dry_run: bool) -> None:
    key = (str(item["pk"]), str(item["sk"]))
    try:
        expected = rebuild(item, user_id, key[1][:80])
    except ArchiveError as refused:
        if any(name in item for name in _INDEX_KEYS):
            report.unindexed.append(f"{key[1][:80]}: {refused.message}")
            if not dry_run:
                removed = tuple(name for name in _INDEX_KEYS if name in item)
                items.update(Update(key, remove=removed, condition=Condition(exists=True)))
        return
    assert expected is not None
    if all(item.get(name) == expected.get(name) for name in OWNED):
        return
    report.rekeyed.append(key[1][:80])
    if dry_run:
        return
    stale = tuple(name for name in OWNED if name in item and name not in expected)
    fresh = {name: expected[name] for name in OWNED if name in expected and item.get(name) != expected[name]}
    items.update(Update(key, set=fresh, remove=stale, condition=Condition(exists=True)))


def _reminders(items: ItemStore, user_id: str, report: RepairReport, dry_run: bool) -> None:
    partition, now, zone = user_partition(user_id), datetime.now(UTC), configured_zone(items, user_id)
    tasks = {str(task["id"]): task for task in _tasks(items, partition)}
    for entry in walk(items, partition, prefix=INDEX_PREFIX):
        task = tasks.get(str(entry["sk"]).removeprefix(INDEX_PREFIX))
        expected = reminder_entry(task, user_id, now, zone) if task is not None else None
        if expected == {name: entry[name] for name in entry}:
            continue
        report.reminders += 1
        if dry_run:
            continue
        if expected is None:
            items.delete((str(entry["pk"]), str(entry["sk"])))
        else:
            items.put(expected)


def _tasks(items: ItemStore, partition: str) -> Iterator[Item]:
    return walk(items, partition, prefix=todo_keys.KIND_PREFIX["task"])


def repair_account(items: ItemStore, user_id: str, *, dry_run: bool = False) -> RepairReport:
    report = RepairReport(user_id)
    for item in walk(items, user_partition(user_id)):
        report.items += 1
        sk = str(item["sk"])
        if exported(sk) and not derived(sk):
            _fix(items, item, user_id, report, dry_run)
    _reminders(items, user_id, report, dry_run)
    if not dry_run:
        rebuild_counters(items, user_id)
    for line in report.unindexed:
        logger.warning("repair-imports: record taken out of every index", extra={"user": user_id, "record": line})
    return report


def repair(items: ItemStore, user_ids: Iterable[str], *, dry_run: bool = False) -> Iterator[RepairReport]:
    for user_id in user_ids:
        yield repair_account(items, user_id, dry_run=dry_run)


__all__ = ["RepairReport", "repair", "repair_account", "users_to_repair"]
