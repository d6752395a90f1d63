"""DynamoDB Streams records -> indexer.refresh, per user, and the AI index build queue's messages
-> build steps (functions/indexer).

Only the keys matter (the stream view is KEYS_ONLY-compatible): refresh re-reads the items, so a
batch may hold duplicates or out-of-order records. A user whose refresh fails reports its records'
sequence numbers as batch item failures; with bisect-on-error the rest of the batch still lands
and the poison records end in the DLQ after the retries.

The same records keep the literal indexes (literal_store.refresh) in step; a user whose literal
refresh fails reports its records as failures too (a retry re-reads the keys, so repeating the AI
refresh for them is harmless).
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aws_lambda_powertools import Logger

from ..kernel.context import Services
from . import build
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


#: A build step starts only with this much of the invocation left (a step: ~2 s of work; the
#: segment and state writes after it; the margin covers a slow step).
STEP_MARGIN_SECONDS = 20.0
#: How long an invocation's claim on a build lasts past its own deadline, should it die.
CLAIM_SECONDS = 30.0


def handle_records(
    services: Services, records: Sequence[Mapping[str, Any]], seconds_left: Callable[[], float] = lambda: 60.0
) -> dict[str, Any]:
    """Returns the Lambda partial-batch answer `{"batchItemFailures": [...]}`. Records from the
    build queue (SQS) run builds; stream records refresh, then run what a refresh started."""
    if records and all(record.get("eventSource") == "aws:sqs" for record in records):
        return handle_build_requests(services, records, seconds_left)
    answer = _refresh_records(services, records)
    searchables = searchables_of(services)
    for user in {found[0] for record in records if (found := _user_and_key(searchables, record)) is not None}:
        if build.state(services, user) is not None:
            _run_build_or_queue_it(services, user, seconds_left)
    return answer


def _run_build_or_queue_it(services: Services, user_id: str, seconds_left: Callable[[], float]) -> None:
    """A build that fails after the records' refreshes is queued again, not raised: raising would
    fail the stream's whole batch, replayed every time until the retry limit parks every user's
    records in the DLQ; the build queue retries it alone (and has its own DLQ)."""
    try:
        run_build(services, user_id, seconds_left)
    except Exception:
        log.exception("search indexer: a build after the stream's refresh failed; queued again")
        services.search.request_build(user_id, again=True)


def handle_build_requests(
    services: Services, records: Sequence[Mapping[str, Any]], seconds_left: Callable[[], float]
) -> dict[str, Any]:
    """`{"build": <user id>}` messages: each user's build, started if it is due, run for the
    rest of the invocation (its claim keeps a second invocation off it)."""
    failures: list[dict[str, str]] = []
    for record in records:
        try:
            user = str(json.loads(record.get("body") or "{}")["build"])
            if build.state(services, user) is None and build.needed(services, user) is not None:
                build.start(services, user)
            run_build(services, user, seconds_left)
        except Exception:
            log.exception("search indexer: a build request failed")
            failures.append({"itemIdentifier": str(record.get("messageId", ""))})
    return {"batchItemFailures": failures}


def run_build(services: Services, user_id: str, seconds_left: Callable[[], float]) -> None:
    """Steps of the user's build while the invocation has time; what is left is queued again."""
    owner = uuid.uuid4().hex
    if not build.claim(services, user_id, owner, seconds_left() + CLAIM_SECONDS):
        return  # another invocation runs it (or it is done)
    try:
        while seconds_left() > STEP_MARGIN_SECONDS:
            if build.step(services, user_id).done:
                return
    finally:
        build.release(services, user_id, owner)
    services.search.request_build(user_id, again=True)


def _refresh_records(services: Services, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
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
