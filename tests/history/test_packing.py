"""A change record stores its before / after / members compactly (records.packed): past
PACK_ABOVE bytes they are one compressed string, every reader sees them restored (list_changes,
undo, the archive), and a small change stays as it was written."""

from __future__ import annotations

from mesq.history.records import PACK_ABOVE, expanded, packed

from .test_atomicity import USER, caller, changes


def _stored(store, memo_id):
    from mesq.kernel.keys import user_partition
    from mesq.store.paging import walk

    return [item for item in walk(store, user_partition(USER), prefix="CHANGE#") if item["record"]["id"] == memo_id]


def test_a_long_change_is_stored_packed_and_read_whole(store):
    call = caller(store)
    text = "A memo long enough to be worth compressing, as real notes are. " * 40
    memo = call("create_memo", content=text)["memo"]
    edited = call("update_memo", id=memo["id"], expectedRevision=1, content=text + " One more line.")["memo"]
    stored = sorted(_stored(store, memo["id"]), key=lambda item: item["id"])
    assert all("packed" in item and "before" not in item and "after" not in item for item in stored)
    assert all(int(item["size"]) < len(text) for item in stored)  # the size counts the packed form
    listed = call("list_changes", recordId=memo["id"])["changes"]
    assert listed[0]["before"] == {"content": text} and listed[0]["after"] == {"content": edited["content"]}
    assert listed[1]["action"] == "create" and listed[1]["after"]["content"] == text
    undone = call("undo_changes", changeIds=[listed[0]["id"]])
    assert undone["notUndone"] == [] and call("get_memo", id=memo["id"])["memo"]["content"] == text


def test_a_short_change_stays_as_written(store):
    call = caller(store)
    memo = call("create_memo", content="short")["memo"]
    [item] = _stored(store, memo["id"])
    assert "packed" not in item and item["after"]["content"] == "short"
    assert expanded(item) is item
    assert [c["id"] for c in changes(store)] == [item["id"]]


def test_packing_keeps_everything_and_only_packs_when_it_saves() -> None:
    long = {"before": {"content": "x" * (PACK_ABOVE * 2)}, "after": {"content": "y" * (PACK_ABOVE * 2)},
            "members": [{"record": {"kind": "subtask", "id": "s"}, "before": {"done": False}}], "id": "1"}  # fmt: skip
    stored = packed(long)
    assert set(stored) == {"id", "packed"} and expanded(stored) == long
    noise = {"before": {"content": "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(PACK_ABOVE))}}
    assert packed(noise) is noise or len(str(packed(noise)["packed"])) < len(str(noise))
