"""DynamoDB Streams records -> indexer.refresh, per user (functions/indexer).

Only the keys matter (the stream view is KEYS_ONLY-compatible): refresh re-reads the items, so a
batch may hold duplicates or out-of-order records. A user whose refresh fails reports its records'
sequence numbers as batch item failures; with bisect-on-error the rest of the batch still lands
and the poison records end in the DLQ after the retries.

The same records keep the literal indexes (literal_store.refresh) in step; a user whose literal
refresh fails reports its records as failures too (a retry re-reads the keys, so repeating the AI
refresh for them is harmless).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from aws_lambda_powertools import Logger

from ..kernel.context import Services
from .indexer import refresh
from .literal_store import refresh as refresh_literal
from .searchables import Searchables, searchables_of

log = Logger(child=True)  # inherits the function's service (lambda_entry / mesq serve)


def _user_and_key(searchables: Searchables, record: Mapping[str, Any]) -> tuple[str, str] | None:
    keys = record.get("dynamodb", {}).get("Keys", {})
    pk, sk = keys.get("pk", {}).get("S"), keys.get("sk", {}).get("S")
    if not isinstance(pk, str) or not isinstance(sk, str):
        return None
    user = searchables.owner(pk, sk)
    return None if user is None else (user, sk)


def handle_records(services: Services, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Returns the Lambda partial-batch answer `{"batchItemFailures": [...]}`."""
    by_user: dict[str, list[tuple[str, str]]] = defaultdict(list)
    searchables = searchables_of(services)
    for record in records:
        found = _user_and_key(searchables, record)
        if found is not None:
            by_user[found[0]].append((found[1], str(record.get("dynamodb", {}).get("SequenceNumber", ""))))
    failures: list[dict[str, str]] = []
    for user, changes in by_user.items():
        sort_keys = [sort_key for sort_key, _ in changes]
        failed = False
        for update in (refresh, refresh_literal):
            try:
                update(services, user, sort_keys)
            except Exception:
                log.exception("search indexer: %s failed for a user", update.__module__)
                failed = True
        if failed:
            failures += [{"itemIdentifier": sequence} for _, sequence in changes]
    return {"batchItemFailures": failures}
