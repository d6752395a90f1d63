"""An import's report kept for its page (Settings → Import → the report at
`/settings/import/runs/{runId}`), in the user's partition under `IMPORT#<runId>` for
REPORT_DAYS (TTL), with what its undo did once it is undone. Its skipped and kept entries are kept
twice: in English (`report`, as REST answered) and as templates with their parameters (`words`,
`Report.words`), which the page says in its reader's language. Not carried by an account archive
(its prefix is not an exported kind)."""

from __future__ import annotations

import time
from typing import Any

from ..kernel.keys import user_partition
from ..kernel.ports.storage import ItemStore, Key
from ..kernel.timestamps import now_timestamp
from .plan import Report

PREFIX = "IMPORT#"
REPORT_DAYS = 90


def report_key(user_id: str, run_id: str) -> Key:
    return (user_partition(user_id), PREFIX + run_id)


def save_report(items: ItemStore, user_id: str, report: Report) -> None:
    pk, sk = report_key(user_id, report.run_id)
    items.put({"pk": pk, "sk": sk, "report": report.as_dict(), "words": report.words(), "at": now_timestamp(),
               "ttl": int(time.time()) + REPORT_DAYS * 86400})  # fmt: skip


def read_report(items: ItemStore, user_id: str, run_id: str) -> dict[str, Any] | None:
    return items.get(report_key(user_id, run_id))


def mark_undone(items: ItemStore, user_id: str, run_id: str, undone: dict[str, Any]) -> None:
    stored = read_report(items, user_id, run_id)
    if stored is not None:
        items.put({**stored, "undone": undone, "undoneAt": now_timestamp()})
