"""Reading an account back, record by record, for the import tests: memos with their attachment
bytes, the todo board with its tasks, and a snapshot of what a person sees (to compare before an
import and after its undo)."""

from __future__ import annotations

import hashlib
from typing import Any

from mesq.application.invocation import invoke_sync
from mesq.history.records import CHANGE_PREFIX
from mesq.kernel.context import Principal
from mesq.kernel.keys import user_partition
from mesq.kernel.spec import load_spec
from mesq.memos import store as memo_store
from mesq.store.paging import walk
from mesq.todos.state import load_state
from mesq.wiring.services import Services

SCOPES = frozenset({"memo:read", "memo:write", "todo:read", "todo:write"})


def call(services: Services, user_id: str, operation: str, **arguments: Any) -> dict[str, Any]:
    principal = Principal(user_id, SCOPES, "pat:test", "pat", name="test")
    result: dict[str, Any] = invoke_sync(
        load_spec().operations[operation],
        arguments,
        principal=principal,
        services=services,
        trace_id="t",
        channel="api",
    )
    return result


def memos_by_origin(services: Services, user_id: str) -> dict[str, dict[str, Any]]:
    return {
        str(memo.get("origin", {}).get("id", memo["id"])): memo
        for memo in memo_store.all_memos(services.items, user_id)
    }


def attachment_digests(services: Services, memo: dict[str, Any]) -> list[str]:
    digests = []
    for resource in memo["resources"]:
        digests.append(hashlib.sha256(services.blobs.get(resource["path"])).hexdigest())
    return digests


def records(services: Services, user_id: str) -> dict[str, dict[str, Any]]:
    """Every item of the user's partition but the change history, by sort key."""
    return {
        str(item["sk"]): item
        for item in walk(services.items, user_partition(user_id))
        if not str(item["sk"]).startswith((CHANGE_PREFIX, "IMPORT#"))
    }


def visible(services: Services, user_id: str) -> dict[str, Any]:
    """What the person sees: live memos and their counters, tags, the board's spaces, columns and
    live tasks (the trash left out: undo puts imported records there)."""
    memos = {m["id"]: (m["content"], m["pinned"], m["status"]) for m in memo_store.all_memos(services.items, user_id)
             if m["status"] != "DELETED"}  # fmt: skip
    stats = memo_store.read_stats(services.items, user_id)
    state = load_state(services.items, user_id)
    tasks = {
        t["id"]: (t["title"], t["columnId"], t.get("parentId")) for t in state.every_task() if not t.get("deletedAt")
    }
    return {
        "memos": memos,
        "stats": {name: stats[name] for name in ("normal", "archived", "pinned", "untagged")},
        "tags": memo_store.read_tag_counts(services.items, user_id),
        "spaces": sorted((s["id"], s["name"]) for s in state.spaces.values()),
        "columns": sorted((c["id"], c["name"]) for c in state.columns.values()),
        "tasks": tasks,
    }
