"""One planned memo written the way `create_memo` writes one: its files through the attachment
upload path (size checks, quota, record and usage in one transaction), then the memo through the
memo store's transaction with its counters, tag counters and change record (history, under the
import's runId). The memo's id is derived from the source (plan.derived_id) and its Put is
conditioned on absence: a memo already there is skipped before any file is uploaded, so a second
run creates nothing, and a twin run racing this one loses cleanly (its uploads given back).
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..attachments import store as attachment_store
from ..attachments.paths import MEMO
from ..attachments.reads import checked_resources
from ..attachments.uploads import store_bytes
from ..kernel.context import Call
from ..kernel.i18n import Text
from ..kernel.messages import quoted
from ..kernel.ports.storage import ConditionFailed, Item
from ..kernel.tags import expand_tag_paths, parse_tags
from ..memos import store as memo_store
from ..memos.changes import write_recorded
from .plan import PlannedMemo, SourceError


def _discard(call: Call, uploaded: list[dict[str, Any]]) -> None:
    """Give back what a memo that was not written uploaded (record, quota, bytes)."""
    user_id = call.principal.user_id
    for resource in uploaded:
        record = {"id": resource["path"].rsplit("/", 1)[-1], "fileSize": resource["fileSize"]}
        with contextlib.suppress(ConditionFailed):  # already given back
            call.services.items.transact(attachment_store.unregister(user_id, record, MEMO))
        call.services.blobs.delete(resource["path"])


def write_memo(call: Call, planned: PlannedMemo, source: str) -> bool:
    """True when the memo was created, False when it was already there."""
    items, user_id = call.services.items, call.principal.user_id
    if memo_store.read_memo(items, user_id, planned.memo_id) is not None:
        return False
    uploaded: list[dict[str, Any]] = []
    try:
        for file in planned.files:
            data = file.read()
            if len(data) != file.size:  # the file changed since it was checked: stop here
                raise SourceError(
                    Text(
                        "%(memo)s: attachment %(name)s changed while importing",
                        memo=planned.label,
                        name=quoted(file.name),
                    )
                )
            uploaded.append(store_bytes(call, data, file.name, file.mime))
        tags = parse_tags(planned.content)
        memo: Item = {
            "id": planned.memo_id,
            "content": planned.content,
            "tags": tags,
            "tagPaths": expand_tag_paths(tags),
            "status": "ARCHIVED" if planned.archived else "NORMAL",
            "pinned": planned.pinned,
            "resources": checked_resources(call, uploaded),
            "contentSource": source,
            "createdAt": planned.created,
            "updatedAt": max(planned.updated, planned.created),
            "revision": 1,
        }
        if planned.origin:
            memo["origin"] = planned.origin
        write_recorded(call, None, memo)
    except ConditionFailed as failure:
        _discard(call, uploaded)
        if failure.index == 0:
            return False  # written meanwhile by a twin run
        raise
    except BaseException:
        _discard(call, uploaded)
        raise
    return True
