"""The attachment clean-up (Settings -> Attachments) racing a write that attaches the same file.

The clean-up checks that nothing refers to a file, then deletes its record and its bytes; a memo
or todo write checks that the file is registered, then commits. Each test puts the other side
exactly between those two steps (a hook on the check), on SQLite here and on DynamoDB Local,
and asserts the invariant: nothing ends up naming a file whose record or bytes are gone. Either
the clean-up keeps the file (CONFLICT) or the write is refused with a VALIDATION_ERROR naming
the file, and nothing of the refused one is written."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import mesq.attachments.reads as attachment_reads
import mesq.jobs.attachment_cleanup as cleanup
import mesq.todos.attachments as todo_attachments
from mesq.attachments.paths import namespace_of
from mesq.attachments.store import read_attachment, read_usage
from mesq.kernel.errors import Conflict, MesqError, ValidationError
from mesq.kernel.keys import user_partition
from mesq.kernel.ports.storage import ItemStore
from mesq.memos.store import MEMO_PREFIX
from mesq.store.paging import walk
from mesq.todos.keys import PREFIX as TODO_PREFIX
from mesq.wiring.services import Services, build_blob_store
from tests.settings import inprocess_settings

from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401
from ..history.conftest import BACKENDS, sqlite  # noqa: F401  (the two stores' fixtures)
from ..imports.checks import call

USER = "racer"


@pytest.fixture(params=BACKENDS)
def services(request: pytest.FixtureRequest, tmp_path: Path) -> Services:
    items: ItemStore = request.getfixturevalue(request.param)
    settings = inprocess_settings(data_dir=tmp_path / "data")
    return Services(settings=settings, items=items, blobs=build_blob_store(settings))


def _invoke(services: Services, operation_id: str, **arguments: Any) -> dict[str, Any]:
    return call(services, USER, operation_id, **arguments)


def _upload(services: Services, kind: str, data: bytes = b"scan of the receipt") -> dict[str, Any]:
    operation = "upload_memo_resource" if kind == "memo" else "upload_todo_attachment"
    content = base64.b64encode(data).decode()
    return _invoke(services, operation, displayName=f"{kind}.txt", mimeType="text/plain", content=content)


def _binding(resource: dict[str, Any]) -> dict[str, Any]:
    return {name: resource[name] for name in ("path", "displayName", "fileSize", "mimeType", "type")}


# Each attaching write: (namespace, prepare(services) -> context, write(services, context, resource)).
def _memo_create(services: Services, _ctx: Any, resource: dict[str, Any]) -> None:
    _invoke(services, "create_memo", content="receipt", resources=[_binding(resource)])


def _memo_prepare(services: Services) -> Any:
    return _invoke(services, "create_memo", content="receipt")["memo"]


def _memo_update(services: Services, memo: Any, resource: dict[str, Any]) -> None:
    _invoke(services, "update_memo", id=memo["id"], expectedRevision=memo["revision"], resources=[_binding(resource)])


def _task_create(services: Services, _ctx: Any, resource: dict[str, Any]) -> None:
    _invoke(services, "create_todo_task", title="file taxes", attachments=[{"path": resource["path"]}])


def _task_prepare(services: Services) -> Any:
    return _invoke(services, "create_todo_task", title="file taxes")["task"]


def _task_update(services: Services, task: Any, resource: dict[str, Any]) -> None:
    _invoke(
        services,
        "update_todo_task",
        id=task["id"],
        expectedRevision=task["revision"],
        attachments=[{"path": resource["path"]}],
    )


def _subtask_create(services: Services, task: Any, resource: dict[str, Any]) -> None:
    _invoke(services, "create_todo_subtask", taskId=task["id"], title="scan", attachments=[{"path": resource["path"]}])


def _inbox_create(services: Services, _ctx: Any, resource: dict[str, Any]) -> None:
    _invoke(services, "create_todo_inbox_item", title="scan", attachments=[{"path": resource["path"]}])


def _nothing(_services: Services) -> Any:
    return None


WRITES: dict[str, tuple[str, Callable[[Services], Any], Callable[[Services, Any, dict[str, Any]], None]]] = {
    "create_memo": ("memo", _nothing, _memo_create),
    "update_memo": ("memo", _memo_prepare, _memo_update),
    "create_todo_task": ("todo", _nothing, _task_create),
    "update_todo_task": ("todo", _task_prepare, _task_update),
    "create_todo_subtask": ("todo", _task_prepare, _subtask_create),
    "create_todo_inbox_item": ("todo", _nothing, _inbox_create),
}


def _named_paths(items: ItemStore) -> set[str]:
    """Every attachment path a memo or a todo record of the user names."""
    return cleanup.bound_paths(items, USER)


def _assert_nothing_names_a_lost_file(services: Services) -> None:
    for path in _named_paths(services.items):
        kind = namespace_of(path)
        assert kind is not None
        record = read_attachment(services.items, USER, path.rsplit("/", 1)[1], kind)
        assert record is not None, f"{path} is named by a record but its attachment record was deleted"
        assert services.blobs.head(path) is not None, f"{path} is named by a record but its bytes were deleted"


def _records(items: ItemStore, prefix: str) -> list[dict[str, Any]]:
    return list(walk(items, user_partition(USER), prefix=prefix))


@pytest.mark.parametrize("write", list(WRITES))
def test_a_write_between_the_cleanups_check_and_its_delete_keeps_the_file(
    services: Services, write: str, monkeypatch: pytest.MonkeyPatch
):
    """The clean-up has found the file unattached; the write attaches it; the clean-up deletes:
    it must now see the file is attached (CONFLICT) and keep record and bytes."""
    kind, prepare, attach = WRITES[write]
    context = prepare(services)
    resource = _upload(services, kind)
    real_bound_paths = cleanup.bound_paths
    raced: list[str] = []

    def check_then_write(items: ItemStore, user_id: str) -> set[str]:
        found = real_bound_paths(items, user_id)
        if not raced:
            raced.append(write)
            attach(services, context, resource)  # lands right after the clean-up's check
        return found

    monkeypatch.setattr(cleanup, "bound_paths", check_then_write)
    with pytest.raises(Conflict) as refused:
        cleanup.discard(services.items, services.blobs, USER, [resource["path"]])
    assert resource["path"][:30] in refused.value.message
    monkeypatch.setattr(cleanup, "bound_paths", real_bound_paths)
    assert raced == [write]
    assert resource["path"] in _named_paths(services.items)
    _assert_nothing_names_a_lost_file(services)
    assert read_usage(services.items, USER) == (resource["fileSize"], 1)  # nothing given back twice


@pytest.mark.parametrize("write", list(WRITES))
def test_discarding_every_orphan_skips_one_attached_meanwhile(
    services: Services, write: str, monkeypatch: pytest.MonkeyPatch
):
    """Discarding every unattached file keeps the one attached between its check and its delete
    and discards the rest."""
    kind, prepare, attach = WRITES[write]
    context = prepare(services)
    resource = _upload(services, kind)
    loose = _upload(services, kind, b"really unattached")
    real_bound_paths = cleanup.bound_paths
    calls: list[int] = []

    def check_then_write(items: ItemStore, user_id: str) -> set[str]:
        found = real_bound_paths(items, user_id)
        calls.append(1)
        if len(calls) == 2:  # the discard's own check (the first is the listing's)
            attach(services, context, resource)
        return found

    monkeypatch.setattr(cleanup, "bound_paths", check_then_write)
    freed = cleanup.discard_orphans(services.items, services.blobs, USER)
    monkeypatch.setattr(cleanup, "bound_paths", real_bound_paths)
    assert freed == {"count": 1, "bytes": loose["fileSize"]}
    assert services.blobs.head(loose["path"]) is None
    _assert_nothing_names_a_lost_file(services)
    assert resource["path"] in _named_paths(services.items)
    assert read_usage(services.items, USER) == (resource["fileSize"], 1)


@pytest.mark.parametrize("write", list(WRITES))
def test_a_write_whose_file_is_discarded_after_its_check_is_refused(
    services: Services, write: str, monkeypatch: pytest.MonkeyPatch
):
    """The write has found the file registered; the clean-up discards it (nothing names it yet);
    the write commits: it must be refused (VALIDATION_ERROR naming the file), nothing written."""
    kind, prepare, attach = WRITES[write]
    context = prepare(services)
    resource = _upload(services, kind)
    memos_before, todos_before = _records(services.items, MEMO_PREFIX), _records(services.items, TODO_PREFIX)
    real_entries = attachment_reads.registered_entries
    discarded: list[dict[str, int]] = []

    def check_then_discard(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        checked = real_entries(*args, **kwargs)
        if not discarded:  # the clean-up runs right after the write's registration check
            discarded.append(cleanup.discard(services.items, services.blobs, USER, [resource["path"]]))
        return checked

    monkeypatch.setattr(attachment_reads, "registered_entries", check_then_discard)
    monkeypatch.setattr(todo_attachments, "registered_entries", check_then_discard)
    with pytest.raises(MesqError) as refused:
        attach(services, context, resource)
    assert discarded == [{"count": 1, "bytes": resource["fileSize"]}]
    assert isinstance(refused.value, ValidationError), refused.value
    # the path is quoted as every refusal quotes one: its start, then an ellipsis when it is long
    assert resource["path"][:30] in refused.value.message and "upload it first" in refused.value.message
    _assert_nothing_names_a_lost_file(services)
    changed = [r for r in _records(services.items, TODO_PREFIX) if r not in todos_before]
    assert _records(services.items, MEMO_PREFIX) == memos_before
    assert [r for r in changed if r.get("attachments") or r.get("title") == "scan"] == []
    assert read_usage(services.items, USER) == (0, 0)


def test_an_edit_too_large_with_its_links_is_refused_clearly(services: Services):
    """Each file a memo starts naming is one more write in the memo's transaction: an edit that
    replaces all 48 tag paths (96 counters) and adds three files passes DynamoDB's 100 and is
    refused up front, saying how to split it; the same files with the tags kept are saved."""
    old_tags = " ".join(f"#old{n}" for n in range(48))
    memo = _invoke(services, "create_memo", content=old_tags)["memo"]
    files = [_binding(_upload(services, "memo", f"file {n}".encode())) for n in range(3)]
    new_tags = " ".join(f"#new{n}" for n in range(48))
    with pytest.raises(ValidationError) as refused:
        _invoke(services, "update_memo", id=memo["id"], expectedRevision=1, content=new_tags, resources=files)
    assert "too many tags and attachments at once" in refused.value.message
    assert "two edits" in refused.value.message
    assert _invoke(services, "get_memo", id=memo["id"])["memo"]["revision"] == 1  # nothing written
    saved = _invoke(services, "update_memo", id=memo["id"], expectedRevision=1, resources=files)["memo"]
    assert [r["path"] for r in saved["resources"]] == [f["path"] for f in files]
    _assert_nothing_names_a_lost_file(services)


def test_discarding_every_orphan_skips_one_another_tab_discarded_meanwhile(
    services: Services, monkeypatch: pytest.MonkeyPatch
):
    """Another tab discards one of the listed orphans between this discard's listing and its
    delete: the rest is discarded, the gone one is skipped (no NOT_FOUND), and each is counted once."""
    taken = _upload(services, "memo")
    loose = _upload(services, "todo", b"really unattached")
    real_inventory = cleanup.inventory

    def list_then_other_tab(items: ItemStore, user_id: str) -> dict[str, Any]:
        listing = real_inventory(items, user_id)
        assert cleanup.discard(items, services.blobs, user_id, [taken["path"]])["count"] == 1  # the other tab
        return listing

    monkeypatch.setattr(cleanup, "inventory", list_then_other_tab)
    freed = cleanup.discard_orphans(services.items, services.blobs, USER)
    assert freed == {"count": 1, "bytes": loose["fileSize"]}
    for gone in (taken, loose):
        assert services.blobs.head(gone["path"]) is None
        kind = namespace_of(gone["path"])
        assert kind is not None
        assert read_attachment(services.items, USER, gone["path"].rsplit("/", 1)[1], kind) is None
    assert read_usage(services.items, USER) == (0, 0)
