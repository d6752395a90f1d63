"""A permanently deleted record's history, deleted with it (the memo purge and emptying the
trash, `memos/purge.py`): every change record of the record (its chain from the changes its item
names last, and what the by-record index holds of older ones) goes, so nothing it said survives
in the history.

It runs right after the purge's own transaction, 100 deletes per transaction (a history may
hold more records than one transaction); a crash in between leaves records that only the
retention TTL removes (docs/decisions.md, history).
"""

from __future__ import annotations

from ..kernel.ports.storage import MAX_TRANSACTION_OPS, Delete, ItemStore, Key
from .timeline import record_history


def history_keys(items: ItemStore, user_id: str, record_id: str, recent: list[str]) -> list[Key]:
    """The table keys of every change record kept for one record (`recent`: its item's `recentChanges`)."""
    return [(str(entry["pk"]), str(entry["sk"])) for entry in record_history(items, user_id, record_id, recent)]


def forget_record(items: ItemStore, user_id: str, record_id: str, recent: list[str]) -> int:
    """Delete the record's history; returns how many change records went."""
    keys = history_keys(items, user_id, record_id, recent)
    for start in range(0, len(keys), MAX_TRANSACTION_OPS):
        items.transact([Delete(key) for key in keys[start : start + MAX_TRANSACTION_OPS]])
    return len(keys)
