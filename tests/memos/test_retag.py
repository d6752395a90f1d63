"""The one-time re-tag (issue 41, memos/retag.py): memos stored under the old `#tag` rule (a `#`
started a tag only after whitespace) get the tags the current rule reads, with exact counters and
no change record, on SQLite and on DynamoDB Local. An account made before the migration then lists
the same memos under `#读书` as one made after it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.application.invocation import invoke_sync
from mesq.auth.users import create_user
from mesq.jobs.memo_retag import retag_every_user, retag_in_background
from mesq.kernel.context import Principal
from mesq.kernel.keys import user_partition
from mesq.kernel.ports.storage import ItemStore
from mesq.kernel.spec import load_spec
from mesq.kernel.tags import WHITESPACE_CHARS, expand_tag_paths
from mesq.memos import retag, store
from mesq.store.paging import walk
from mesq.wiring.services import Services
from tests.settings import inprocess_settings

from ..contract.conftest import dynamodb_local, dynamodb_local_endpoint  # noqa: F401

BACKENDS = ["sqlite", pytest.param("dynamodb_local", marks=pytest.mark.dynamodb_local)]
SCOPES = frozenset({"memo:read", "memo:write"})
# The rule before issue 41, written out: a `#` after whitespace or at the start, up to whitespace
# or punctuation (its punctuation had no ellipsis or dash).
_OLD_NOT_IN_TAG = rf"{WHITESPACE_CHARS}#,.;:!?()\[\]{{}}<>\"'`|\\*~=^$%，。；：！？（）【】「」『』、《》“”‘’/"
OLD_TAG = re.compile(rf"(?<![^{WHITESPACE_CHARS}])#([^{_OLD_NOT_IN_TAG}]+(?:/[^{_OLD_NOT_IN_TAG}]+)*)")
MEMOS = [
    "刚读完《三体》#读书",  # old: no tag; now 读书
    "周报，#工作 已交",  # old: none; now 工作
    "今天去买菜#生活",  # old: none; now 生活
    "今天读了《三体》#读书 #科幻",  # old: 科幻; now 读书, 科幻
    "读完了 #读书……好看",  # old: 读书……好看; now 读书
    "C# and a#b and https://x.test/#frag",  # none, before and after
    "plain #work/notes",  # the same before and after
]


@pytest.fixture(params=BACKENDS)
def items(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ItemStore]:
    if request.param == "sqlite":
        sqlite = SQLiteItemStore(tmp_path / "items.db")
        yield sqlite
        sqlite.close()
        return
    yield request.getfixturevalue(request.param)


def caller(items: ItemStore, tmp_path: Path, user_id: str) -> Callable[..., dict[str, Any]]:
    services = Services(settings=inprocess_settings(), items=items, blobs=LocalBlobStore(tmp_path / "blobs"))  # type: ignore[call-arg]
    principal = Principal(user_id=user_id, scopes=SCOPES, credential_id="pat:t", kind="pat", name="tester")
    spec = load_spec()

    def call(operation_id: str, **arguments: Any) -> dict[str, Any]:
        return invoke_sync(spec.operations[operation_id], arguments, principal=principal, services=services,
                           trace_id="t", channel="api")  # fmt: skip

    return call


def write_as_the_old_rule_did(items: ItemStore, user_id: str) -> None:
    """Each memo as the old version stored it: its tags by the old rule, counters to match."""
    for memo in store.all_memos(items, user_id):
        old = list(dict.fromkeys(OLD_TAG.findall(memo["content"])))
        store.write_memo(items, user_id, memo, {**memo, "tags": old, "tagPaths": expand_tag_paths(old)})


def view(call: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """What a person sees: the memos under #读书 and #科幻, the tag tree with counts, the counters."""

    def under(tag: str) -> list[str]:
        return sorted(memo["content"] for memo in call("list_memos", tags=[tag], limit=100)["timelineItems"])

    counts = call("list_memos", includeContext=True, limit=1)["filters"]
    counts.pop("days")  # when the memos were made, not what they are tagged
    return {"读书": under("读书"), "科幻": under("科幻"), "tags": call("list_tags")["tags"], "counts": counts}


def changes(items: ItemStore, user_id: str) -> int:
    return sum(1 for _ in walk(items, user_partition(user_id), prefix="CHANGE#", keys_only=True))


def test_an_account_from_before_lists_what_one_from_after_lists(items: ItemStore, tmp_path: Path) -> None:
    before = create_user(items, "before", "correct horse battery")["id"]
    old = caller(items, tmp_path, before)
    for content in MEMOS:
        old("create_memo", content=content)
    old("delete_memo", id=old("create_memo", content="扔了#生活")["memo"]["id"], expectedRevision=1)
    write_as_the_old_rule_did(items, before)
    assert view(old)["读书"] == []
    revisions = {memo["id"]: (memo["revision"], memo["updatedAt"]) for memo in store.all_memos(items, before)}
    history = changes(items, before)

    after = create_user(items, "after", "correct horse battery")["id"]
    new = caller(items, tmp_path, after)
    for content in MEMOS:
        new("create_memo", content=content)
    new("delete_memo", id=new("create_memo", content="扔了#生活")["memo"]["id"], expectedRevision=1)

    reports = dict(retag_every_user(items))
    assert (reports["before"].retagged, reports["before"].memos) == (6, 8)  # 5 of MEMOS + the trashed one
    assert reports["after"].retagged == 0

    expected = view(new)
    assert expected["读书"] == sorted(["刚读完《三体》#读书", "今天读了《三体》#读书 #科幻", "读完了 #读书……好看"])
    assert view(old) == expected  # same memos under #读书, same tag counts, same untagged count
    assert changes(items, before) == history  # not the person's edit: no change record
    assert {memo["id"]: (memo["revision"], memo["updatedAt"]) for memo in store.all_memos(items, before)} == revisions

    again = dict(retag_every_user(items))  # one-time: the marker says the rule is current
    assert again["before"].current and again["after"].current
    items.delete(retag.marker_key(before))  # and idempotent without it
    assert retag.retag_user(items, before).retagged == 0
    assert view(old) == expected


def test_an_edit_or_a_second_runner_meanwhile_wins_and_counts_stay_exact(items: ItemStore, tmp_path: Path) -> None:
    user = create_user(items, "racer", "correct horse battery")["id"]
    call = caller(items, tmp_path, user)
    edited = call("create_memo", content="今天去买菜#生活")["memo"]["id"]
    raced = call("create_memo", content="周报，#工作")["memo"]["id"]
    write_as_the_old_rule_did(items, user)
    assert store.read_tag_counts(items, user) == {}
    stale = store.read_memo(items, user, edited)
    assert stale is not None and stale["tags"] == []
    call("update_memo", id=edited, content="今天去买菜#生活 #家", expectedRevision=1)  # tagged by the new rule
    assert not retag._write(items, user, stale, {**stale, "tags": ["生活"], "tagPaths": ["生活"]})
    first = store.read_memo(items, user, raced)  # two runners read the same memo
    assert first is not None
    second = dict(first)
    assert retag._write(items, user, first, {**first, "tags": ["工作"], "tagPaths": ["工作"]})
    assert not retag._write(items, user, second, {**second, "tags": ["工作"], "tagPaths": ["工作"]})
    assert store.read_tag_counts(items, user) == {"家": 1, "生活": 1, "工作": 1}
    assert store.read_stats(items, user)["untagged"] == 0


#: Memos as rule 3 stored them (the outside sweep: F2, F3, F9, F10) -> what rule 4 reads.
RULE_3 = {
    "看这里 https://x.test/a,#frag": (["frag"], []),
    "今天好开心😊#日常": ([], ["日常"]),
    "段落\n\n    #indented_code": (["indented_code"], []),
    "#工作\u200b后面": (["工作\u200b后面"], ["工作"]),
}


def test_memos_tagged_by_rule_3_are_retagged_once(items: ItemStore, tmp_path: Path) -> None:
    user = create_user(items, "three", "correct horse battery")["id"]
    call = caller(items, tmp_path, user)
    for content in RULE_3:
        call("create_memo", content=content)
    for memo in store.all_memos(items, user):
        old = RULE_3[memo["content"]][0]
        store.write_memo(items, user, memo, {**memo, "tags": old, "tagPaths": expand_tag_paths(old)})
    pk, sk = retag.marker_key(user)
    items.put({"pk": pk, "sk": sk, "version": 3, "retaggedAt": "2026-01-01T00:00:00Z"})
    assert store.read_tag_counts(items, user) == {"frag": 1, "indented_code": 1, "工作\u200b后面": 1}
    assert retag.retag_user(items, user).retagged == 4
    assert {memo["content"]: memo["tags"] for memo in store.all_memos(items, user)} == {
        content: new for content, (_old, new) in RULE_3.items()
    }
    assert store.read_tag_counts(items, user) == {"日常": 1, "工作": 1}
    assert retag.is_current(items, user)


#: A Persian word whose non-joiner made rule 4 end its tag, grown past the tag length by rule 5.
OVERLONG = "#می\u200c" + "خ" * 100
#: Memos as rule 4 stored them -> what rule 5 reads: a non-joiner or joiner inside a word stays in
#: its tag, a CJK character ends a bare URL.
RULE_4 = {
    "#می\u200cخواهم بروم": (["می"], ["می\u200cخواهم"]),
    "#कि\u200dसान": (["कि"], ["कि\u200dसान"]),
    "看https://example.com/页面很好#读书": ([], ["读书"]),
    f"想法 {OVERLONG} #短": (["می", "短"], ["短"]),
}


def test_memos_tagged_by_rule_4_are_retagged_and_an_overlong_word_is_reported(items: ItemStore, tmp_path: Path) -> None:
    user = create_user(items, "four", "correct horse battery")["id"]
    call = caller(items, tmp_path, user)
    for content in RULE_4:
        if content.startswith("想法"):  # a person's write refuses it: stored by an older server
            stored = store.read_memo(items, user, call("create_memo", content="想法")["memo"]["id"])
            assert stored is not None
            store.write_memo(items, user, stored, {**stored, "content": content})
        else:
            call("create_memo", content=content)
    ids = {}
    for memo in store.all_memos(items, user):
        old = RULE_4[memo["content"]][0]
        store.write_memo(items, user, memo, {**memo, "tags": old, "tagPaths": expand_tag_paths(old)})
        ids[memo["content"]] = memo["id"]
    pk, sk = retag.marker_key(user)
    items.put({"pk": pk, "sk": sk, "version": 4, "retaggedAt": "2026-01-01T00:00:00Z"})
    report = retag.retag_user(items, user)
    assert report.retagged == 4
    assert {memo["content"]: memo["tags"] for memo in store.all_memos(items, user)} == {
        content: new for content, (_old, new) in RULE_4.items()
    }
    assert store.read_tag_counts(items, user) == {"می\u200cخواهم": 1, "कि\u200dसान": 1, "读书": 1, "短": 1}
    # The word stays text where it stands, and the report names the memo and the word.
    shown = "'#می\\u200c" + "خ" * 20 + "…'"  # as an error quotes it: the joiner escaped, 24 characters
    assert report.overlong_count == 1 and report.overlong == [(ids[f"想法 {OVERLONG} #短"], shown)]
    line = report.overlong_line()
    assert line.startswith("1 #word too long to be a tag (over 100 characters) stays text, no tag: memo "), line
    assert shown in line


def test_mesq_serve_retags_in_the_background(tmp_path: Path) -> None:
    items = SQLiteItemStore(tmp_path / "items.db")
    try:
        user = create_user(items, "starter", "correct horse battery")["id"]
        caller(items, tmp_path, user)("create_memo", content="今天去买菜#生活")
        write_as_the_old_rule_did(items, user)
        said: list[str] = []
        retag_in_background(items, said.append).join(timeout=60)
        assert said == ["Tags: 1 memo(s) of 1 account(s) re-tagged by the current #tag rule"]
        assert store.read_tag_counts(items, user) == {"生活": 1}
        retag_in_background(items, said.append).join(timeout=60)
        assert len(said) == 1  # nothing to say the second time
    finally:
        items.close()


def test_mesq_serve_says_which_memo_holds_a_word_too_long_to_be_a_tag(tmp_path: Path) -> None:
    items = SQLiteItemStore(tmp_path / "items.db")
    try:
        user = create_user(items, "longer", "correct horse battery")["id"]
        stored = store.read_memo(
            items, user, caller(items, tmp_path, user)("create_memo", content="想法")["memo"]["id"]
        )
        assert stored is not None
        store.write_memo(items, user, stored, {**stored, "content": f"想法 #{'长' * 101}"})  # an older server's
        said: list[str] = []
        retag_in_background(items, said.append).join(timeout=60)
        assert said == [
            f"Tags, longer: 1 #word too long to be a tag (over 100 characters) stays text, no tag: memo {stored['id']}"
            f" '#{'长' * 23}…'"
        ]
    finally:
        items.close()
