"""The inbox tools over MCP (JSON-RPC against the local app, both protocol eras): every tool in
toolset `todo_inbox` is called, and every result — successes, REVISION_CONFLICT with recoverData,
NOT_FOUND, RESPONSE_TOO_LARGE — is validated against the tool's declared outputSchema the way a
strict client does."""

from __future__ import annotations

from typing import Any

import pytest

from mesq.mcp.service import default_catalog
from tests.mcp import conftest as wire
from tests.mcp.conftest import ERAS, Mcp, check_text_copy, validate_output

# The wire fixtures of tests/mcp (one app and store per module), used here by name.
mcp_services, mcp_http, shared_user = wire.mcp_services, wire.mcp_http, wire.shared_user
mcp, fresh_user = wire.mcp, wire.fresh_user

TODO = "todo:read,todo:write"
INBOX_TOOLS = sorted(name for name, tool in default_catalog().tools.items() if tool.toolset == "todo_inbox")


class Session:
    """Calls tools through the wire client; every result is checked against its outputSchema."""

    def __init__(self, client: Mcp) -> None:
        self.client = client
        self.tools = {tool["name"]: tool for tool in client.tools()}
        self.called: set[str] = set()
        self.failed: set[str] = set()

    def envelope(self, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        result = self.client.call(name, arguments)
        envelope = check_text_copy(result)
        validate_output(self.tools[name], envelope)
        return bool(result.get("isError")), envelope

    def ok(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        is_error, envelope = self.envelope(name, arguments)
        assert not is_error, envelope
        self.called.add(name)
        data: dict[str, Any] = envelope["data"]
        return data

    def fails(self, name: str, arguments: dict[str, Any], code: str) -> dict[str, Any]:
        is_error, envelope = self.envelope(name, arguments)
        assert is_error and envelope["error"]["code"] == code, envelope
        self.failed.add(name)
        return envelope


def test_inbox_tools_are_the_todo_inbox_toolset():
    expected = [
        "list_todo_inbox_items", "get_todo_inbox_item", "create_todo_inbox_item", "update_todo_inbox_item",
        "complete_todo_inbox_item", "delete_todo_inbox_item", "move_todo_inbox_item_to_board",
        "list_todo_inbox_subtasks", "get_todo_inbox_subtask", "create_todo_inbox_subtask",
        "update_todo_inbox_subtask", "set_todo_inbox_subtask_done", "delete_todo_inbox_subtask",
    ]  # fmt: skip
    assert sorted(expected) == INBOX_TOOLS


def test_toolset_header_and_scopes_select_the_inbox_tools(mcp):
    narrowed = [t["name"] for t in mcp(scopes=TODO, headers={"X-MCP-Toolsets": "todo_inbox"}).tools()]
    assert sorted(narrowed) == INBOX_TOOLS
    read_only = {t["name"] for t in mcp(scopes="todo:read").tools()}
    assert read_only & set(INBOX_TOOLS) == {
        "list_todo_inbox_items", "get_todo_inbox_item", "list_todo_inbox_subtasks", "get_todo_inbox_subtask",
    }  # fmt: skip
    assert not {t["name"] for t in mcp(scopes="memo:read").tools()} & set(INBOX_TOOLS)


def test_subtask_listing_declares_camel_case_fields():
    schema = default_catalog().tools["list_todo_inbox_subtasks"].output_schema
    items = schema["properties"]["data"]["properties"]["subtasks"]["items"]
    # The shape may be inlined (used once) or shared through $defs; it is the same shape.
    if "$ref" in items:
        items = schema["$defs"][items["$ref"].removeprefix("#/$defs/")]
    subtask = set(items["properties"])
    for pattern in items.get("patternProperties", {}):  # fields sharing one schema are named once: ^(?:a|b)$
        subtask |= set(pattern.removeprefix("^(?:").removesuffix(")$").split("|"))
    assert {"parentItemId", "isDone", "attachments", "parentRevision"} <= subtask
    assert "revision" not in subtask and "completedAt" not in subtask


@pytest.mark.parametrize("era", ERAS)
def test_every_inbox_tool_with_validated_results(mcp, fresh_user, era):
    call = Session(mcp(scopes=TODO, era=era, user=fresh_user()))
    capture = {"title": "plan trip", "notes": "n", "tags": ["travel"], "subtasks": [{"title": "book"}]}
    item = call.ok("create_todo_inbox_item", {**capture, "idempotencyKey": "t-1"})["item"]
    replay = call.ok("create_todo_inbox_item", {**capture, "idempotencyKey": "t-1"})
    assert replay["item"]["id"] == item["id"]
    listed = call.ok("list_todo_inbox_items", {})
    assert [i["id"] for i in listed["items"]] == [item["id"]] and "notes" not in listed["items"][0]
    detail = call.ok("get_todo_inbox_item", {"id": item["id"]})
    assert set(detail) == {"item", "timezone"} and detail["item"]["notes"] == "n"
    context = call.ok("get_todo_inbox_item", {"id": item["id"], "includeContext": True})
    assert context["tagSuggestions"][0]["name"] == "travel"
    item = call.ok("update_todo_inbox_item", {"id": item["id"], "expectedRevision": 1, "priority": "high"})["item"]
    conflict = call.fails("update_todo_inbox_item", {"id": item["id"], "expectedRevision": 1, "title": "x"},
                          "REVISION_CONFLICT")  # fmt: skip
    assert conflict["recoverData"]["item"]["revision"] == 2

    parent = item["id"]
    sub = call.ok("list_todo_inbox_subtasks", {"parentItemId": parent})["subtasks"][0]
    assert call.ok("get_todo_inbox_subtask", {"parentItemId": parent, "subtaskId": sub["id"]})["subtask"] == sub
    added = call.ok("create_todo_inbox_subtask", {"parentItemId": parent, "parentRevision": 2, "title": "pack"})
    assert added["item"]["revision"] == 3
    changed = call.ok("update_todo_inbox_subtask", {"parentItemId": parent, "subtaskId": sub["id"],
                                                    "parentRevision": 3, "notes": "window seat"})  # fmt: skip
    address = {"parentItemId": parent, "subtaskId": sub["id"]}
    done = call.ok("set_todo_inbox_subtask_done", {**address, "parentRevision": changed["item"]["revision"],
                                                   "isDone": True})  # fmt: skip
    stale = call.fails("set_todo_inbox_subtask_done", {**address, "parentRevision": 3, "isDone": False},
                       "REVISION_CONFLICT")  # fmt: skip
    assert stale["recoverData"]["item"]["revision"] == 5 and stale["recoverData"]["subtask"]["isDone"] is True
    removed = call.ok("delete_todo_inbox_subtask", {"parentItemId": parent, "subtaskId": added["subtask"]["id"],
                                                    "parentRevision": done["item"]["revision"]})  # fmt: skip
    call.fails("delete_todo_inbox_subtask", {"parentItemId": parent, "subtaskId": added["subtask"]["id"],
                                             "parentRevision": removed["item"]["revision"]}, "NOT_FOUND")  # fmt: skip
    call.fails("create_todo_inbox_subtask", {"parentItemId": parent, "parentRevision": 1, "title": "late"},
               "REVISION_CONFLICT")  # fmt: skip
    call.fails("update_todo_inbox_subtask", {"parentItemId": parent, "subtaskId": sub["id"], "parentRevision": 1,
                                             "title": "late"}, "REVISION_CONFLICT")  # fmt: skip
    call.fails("get_todo_inbox_subtask", {"parentItemId": parent, "subtaskId": "nope"}, "NOT_FOUND")
    call.fails("list_todo_inbox_subtasks", {"parentItemId": "nope"}, "NOT_FOUND")
    call.fails("get_todo_inbox_item", {"id": "nope"}, "NOT_FOUND")

    revision = removed["item"]["revision"]
    finished = call.ok("complete_todo_inbox_item", {"id": parent, "expectedRevision": revision})["item"]
    call.fails("complete_todo_inbox_item", {"id": parent, "expectedRevision": revision, "done": False},
               "REVISION_CONFLICT")  # fmt: skip
    call.fails("move_todo_inbox_item_to_board", {"id": parent, "expectedRevision": revision}, "REVISION_CONFLICT")
    moved = call.ok("move_todo_inbox_item_to_board", {"id": parent, "expectedRevision": finished["revision"]})
    assert moved["task"]["done"] is True and [s["title"] for s in moved["subtasks"]] == ["book"]
    call.fails("move_todo_inbox_item_to_board", {"id": parent, "expectedRevision": 1}, "NOT_FOUND")

    other = call.ok("create_todo_inbox_item", {"title": "scrap"})["item"]
    call.fails("delete_todo_inbox_item", {"id": other["id"], "expectedRevision": 9}, "REVISION_CONFLICT")
    trashed = call.ok("delete_todo_inbox_item", {"id": other["id"], "expectedRevision": 1})["item"]
    assert trashed["deletedAt"]
    call.fails("update_todo_inbox_item", {"id": other["id"], "expectedRevision": 2, "title": "x"}, "NOT_FOUND")
    call.fails("create_todo_inbox_item", {"title": " "}, "VALIDATION_ERROR")

    assert call.called == set(INBOX_TOOLS)


def test_a_30000_character_note_pages_in_the_detail_and_fails_only_lists_with_notes(mcp, fresh_user):
    call = Session(mcp(scopes=TODO, user=fresh_user()))
    small = call.ok("create_todo_inbox_item", {"title": "small"})["item"]
    big = call.ok("create_todo_inbox_item", {"title": "essay", "notes": "字" * 30_000,
                                             "subtasks": [{"title": "outline"}]})["item"]  # fmt: skip
    first = call.ok("get_todo_inbox_item", {"id": big["id"]})
    assert first["notesTruncated"] is True and first["item"]["subtasks"][0]["title"] == "outline"
    rest = call.ok("get_todo_inbox_item", {"id": big["id"], "notesOffset": first["notesNextOffset"]})
    assert first["item"]["notes"] + rest["item"]["notes"] == "字" * 30_000 and "notesTruncated" not in rest
    # An item whose subtask carries the weight cannot be cut: too large, the subtask reads paged.
    heavy = call.ok("create_todo_inbox_item", {"title": "heavy", "subtasks": [{"title": "s", "notes": "字" * 30_000}]})
    error = call.fails("get_todo_inbox_item", {"id": heavy["item"]["id"]}, "RESPONSE_TOO_LARGE")
    assert error["error"]["details"]["recordId"] == heavy["item"]["id"]
    assert "does not mean there are no tasks" in error["error"]["message"]
    assert "get_todo_inbox_subtask" in error["error"]["message"]
    subtask = {"parentItemId": heavy["item"]["id"], "subtaskId": heavy["item"]["subtasks"][0]["id"]}
    paged = call.ok("get_todo_inbox_subtask", subtask)
    more = call.ok("get_todo_inbox_subtask", {**subtask, "notesOffset": paged["notesNextOffset"]})
    assert paged["subtask"]["notes"] + more["subtask"]["notes"] == "字" * 30_000
    call.ok("delete_todo_inbox_item", {"id": heavy["item"]["id"], "expectedRevision": heavy["item"]["revision"]})
    call.fails("list_todo_inbox_items", {"includeNotes": True, "offset": 1}, "RESPONSE_TOO_LARGE")

    seen: list[str] = []
    arguments: dict[str, Any] = {"includeNotes": False, "limit": 1}
    while True:
        page = call.ok("list_todo_inbox_items", arguments)
        seen += [i["id"] for i in page["items"]]
        if not page["page"]["hasMore"]:
            break
        arguments["offset"] = page["page"]["nextOffset"]
    assert seen == [small["id"], big["id"]]
    subtasks = call.ok("list_todo_inbox_subtasks", {"parentItemId": big["id"], "includeNotes": False})
    assert [s["title"] for s in subtasks["subtasks"]] == ["outline"]
    assert call.ok("get_todo_inbox_item", {"id": small["id"]})["item"]["title"] == "small"


def test_another_users_token_sees_nothing(mcp, fresh_user):
    owner = Session(mcp(scopes=TODO, user=fresh_user()))
    item = owner.ok("create_todo_inbox_item", {"title": "mine", "subtasks": [{"title": "s"}]})["item"]
    stranger = Session(mcp(scopes=TODO, user=fresh_user()))
    assert stranger.ok("list_todo_inbox_items", {})["items"] == []
    stranger.fails("get_todo_inbox_item", {"id": item["id"]}, "NOT_FOUND")
    stranger.fails("update_todo_inbox_item", {"id": item["id"], "expectedRevision": 1, "title": "x"}, "NOT_FOUND")
    stranger.fails("delete_todo_inbox_subtask", {"parentItemId": item["id"], "subtaskId": item["subtasks"][0]["id"],
                                                 "parentRevision": 1}, "NOT_FOUND")  # fmt: skip
    assert owner.ok("get_todo_inbox_item", {"id": item["id"]})["item"]["revision"] == 1
