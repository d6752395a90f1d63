"""tools/call of every memo tool in both eras, each result validated against the tool's declared
outputSchema (as strict clients do), and the failure envelopes: validation, REVISION_CONFLICT
with recoverData, NOT_FOUND, IDEMPOTENCY_CONFLICT, and internal faults that never leak text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from mesq.application.invocation import REGISTRY
from mesq.kernel.spec import load_spec
from mesq.mcp.catalog import build_catalog
from mesq.mcp.service import default_catalog, mcp_routes

from .conftest import ERAS, Mcp, check_text_copy, validate_output

MEMO_TOOLS = [name for name, tool in default_catalog().tools.items() if tool.toolset == "memo"]


class Recorder:
    """Calls tools through the wire client and validates every result like a strict client."""

    def __init__(self, client: Mcp) -> None:
        self.client = client
        self.tools = {tool["name"]: tool for tool in client.tools()}
        self.called: set[str] = set()

    def __call__(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.client.call(name, arguments)
        assert result.get("isError") is not True, result
        envelope = check_text_copy(result)
        validate_output(self.tools[name], envelope)
        # A write also carries what it recorded, beside data: changeIds always, runId, and the
        # sessionId when it changed something.
        writes = (self.tools[name].get("annotations") or {}).get("readOnlyHint") is not True
        written = {"changeIds", "runId", "sessionId"} if writes else set()
        assert set(envelope) <= {"data", "traceId", "correlationId"} | written and len(envelope["traceId"]) == 32
        if writes:
            assert isinstance(envelope["changeIds"], list) and envelope["runId"]
            assert ("sessionId" in envelope) == bool(envelope["changeIds"]), envelope
        self.called.add(name)
        data: dict[str, Any] = envelope["data"]
        return data


def run_every_memo_tool(call: Recorder) -> None:
    first = call("create_memo", {"content": "Plan the week #work/meetings", "idempotencyKey": "k-1"})["memo"]
    assert first["contentSource"] == "mcp" and first["tags"] == ["work/meetings"]
    replay = call("create_memo", {"content": "Plan the week #work/meetings", "idempotencyKey": "k-1"})["memo"]
    assert replay["id"] == first["id"]
    second = call("create_memo", {"content": "Read a book #reading", "pinned": True})["memo"]

    listed = call("list_memos", {})
    assert [m["id"] for m in listed["pinnedItems"]] == [second["id"]]
    assert [m["id"] for m in listed["timelineItems"]] == [first["id"]]
    assert listed["page"]["totalCount"] == 2 and listed["page"]["hasMore"] is False
    context = call("list_memos", {"includeContext": True, "deviceTimeZone": "Asia/Shanghai", "limit": 1})
    assert context["filters"]["all"] == 2 and context["page"]["nextOffset"] == 1

    found = call("search_memos", {"query": "PLAN"})
    assert [m["id"] for m in found["timelineItems"]] == [first["id"]]
    batch = call("batch_get_memos", {"ids": [first["id"], "missing-id"]})
    assert [m["id"] for m in batch["memos"]] == [first["id"]] and batch["missingIds"] == ["missing-id"]
    tags = call("list_tags")
    assert {node["path"] for node in tags["tags"]} == {"work", "reading"}
    insight = call("select_memos_for_insight", {"tags": ["work"]})
    assert [m["id"] for m in insight["memos"]] == [first["id"]] and insight["scope"]["mode"] == "scope"

    got = call("get_memo", {"id": first["id"], "includeContext": True})
    assert got["memo"]["revision"] == 1 and "filters" in got
    updated = call("update_memo", {"id": first["id"], "expectedRevision": 1, "content": "Plan #work/meetings v2"})
    assert updated["memo"]["revision"] == 2
    renamed = call("rename_memo_tag", {"from": "work", "to": "job"})
    assert renamed["updatedMemos"] == 1

    current = call("get_memo", {"id": second["id"]})["memo"]
    trashed = call("delete_memo", {"id": second["id"], "expectedRevision": current["revision"]})["memo"]
    assert trashed["status"] == "DELETED"
    restored = call("restore_memo", {"id": second["id"], "expectedRevision": trashed["revision"]})["memo"]
    assert restored["status"] == "NORMAL"


@pytest.mark.parametrize("era", ERAS)
def test_every_memo_tool(mcp, fresh_user, era):
    recorder = Recorder(mcp(era=era, user=fresh_user()))
    run_every_memo_tool(recorder)
    uncovered = sorted(set(MEMO_TOOLS) - recorder.called)
    assert not uncovered, f"add a call for {uncovered} to run_every_memo_tool (tests/mcp/test_tools.py)"


@pytest.mark.parametrize("era", ERAS)
def test_validation_errors_name_the_field_and_run_nothing(mcp, fresh_user, era):
    client = mcp(era=era, user=fresh_user())
    tools = {tool["name"]: tool for tool in client.tools()}
    cases = [
        ("create_memo", {"content": "x", "body": {"content": "x"}}, "unknown field 'body'"),
        ("create_memo", {}, "'content' is required"),
        ("create_memo", {"content": ""}, "content"),
        ("list_memos", {"limit": 0}, "limit"),
        ("get_memo", {"id": "../etc"}, "id"),
        ("update_memo", {"id": "abc", "expectedRevision": 1, "status": "DELETED"}, "use delete_memo"),
    ]
    for name, arguments, expected in cases:
        envelope = client.fails(name, arguments)
        validate_output(tools[name], envelope)
        assert envelope["error"]["code"] == "VALIDATION_ERROR", envelope
        assert expected in envelope["error"]["message"], envelope
    assert client.ok("list_memos")["page"]["totalCount"] == 0


@pytest.mark.parametrize("era", ERAS)
def test_revision_conflict_carries_recover_data(mcp, fresh_user, era):
    client = mcp(era=era, user=fresh_user())
    tools = {tool["name"]: tool for tool in client.tools()}
    memo = client.ok("create_memo", {"content": "v1"})["memo"]
    client.ok("update_memo", {"id": memo["id"], "expectedRevision": 1, "content": "v2"})
    for name, arguments in (
        ("update_memo", {"id": memo["id"], "expectedRevision": 1, "content": "stale"}),
        ("delete_memo", {"id": memo["id"], "expectedRevision": 1}),
    ):
        envelope = client.fails(name, arguments)
        validate_output(tools[name], envelope)
        assert envelope["error"]["code"] == "REVISION_CONFLICT"
        assert envelope["recoverData"]["memo"]["revision"] == 2
        assert envelope["recoverData"]["memo"]["content"] == "v2"


@pytest.mark.parametrize("era", ERAS)
def test_not_found_and_other_users_memos(mcp, fresh_user, era):
    alice = mcp(era=era, user=fresh_user())
    bob = mcp(era=era, user=fresh_user())
    memo = alice.ok("create_memo", {"content": "alice only"})["memo"]
    for client in (alice, bob):
        missing = client.fails("get_memo", {"id": "nope"})
        assert missing["error"]["code"] == "NOT_FOUND"
    assert bob.fails("get_memo", {"id": memo["id"]})["error"]["code"] == "NOT_FOUND"
    assert bob.ok("batch_get_memos", {"ids": [memo["id"]]})["missingIds"] == [memo["id"]]


def test_idempotency_conflict(mcp, fresh_user):
    client = mcp(user=fresh_user())
    client.ok("create_memo", {"content": "one", "idempotencyKey": "same"})
    envelope = client.fails("create_memo", {"content": "two", "idempotencyKey": "same"})
    assert envelope["error"]["code"] == "IDEMPOTENCY_CONFLICT"


@pytest.mark.parametrize("era", ERAS)
def test_unknown_tool_is_invalid_params(mcp, era):
    response = mcp(era=era).post("tools/call", {"name": "drop_database", "arguments": {}})
    assert response.status_code == (400 if era == "modern" else 200)  # the SDK's status per era
    error = response.json()["error"]
    assert error["code"] == -32602 and error["data"] == {"code": "NOT_FOUND"}
    assert "drop_database" in error["message"]


def test_correlation_id_is_echoed(mcp):
    client = mcp(headers={"X-Correlation-Id": "shortcut-42"})
    envelope = check_text_copy(client.call("list_tags", {}))
    assert envelope["correlationId"] == "shortcut-42"


# -- faults inside an operation never leak ----------------------------------------------------------


def _explode(call: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    raise RuntimeError("db password is hunter2")


def _malformed(call: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"tags": "not-a-list"}


@pytest.fixture
def faulty(mcp_services, shared_user, mcp) -> Any:
    registry = {**REGISTRY, "list_tags": _explode, "get_memo": _malformed}
    catalog = build_catalog(load_spec(), registry)
    app = Starlette(routes=mcp_routes(mcp_services, catalog))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield lambda era: Mcp(client=client, token=mcp(era=era).token, era=era)


@pytest.mark.parametrize("era", ERAS)
def test_internal_faults_are_enveloped_without_their_text(faulty, era):
    client = faulty(era)
    tools = {tool["name"]: tool for tool in client.tools()}
    for name, arguments in (("list_tags", {}), ("get_memo", {"id": "abc"})):
        response = client.post("tools/call", {"name": name, "arguments": arguments})
        assert response.status_code == 200
        assert "hunter2" not in response.text and "RuntimeError" not in response.text
        result = response.json()["result"]
        assert result["isError"] is True
        envelope = check_text_copy(result)
        validate_output(tools[name], envelope)
        assert envelope["error"]["code"] == "INTERNAL"
        assert envelope["traceId"] in envelope["error"]["message"]
        assert json.dumps(envelope).count("not-a-list") == 0


@pytest.mark.parametrize("era", ERAS)
def test_results_are_checked_against_the_full_envelope_not_just_the_listed_one(faulty, era, monkeypatch):
    # The listed envelope is open; the server still proves each result closed before sending it.
    import mesq.mcp.adapter as adapter

    def with_extra(
        data: dict[str, Any], trace_id: str, correlation_id: str | None, written: Any = None
    ) -> dict[str, Any]:
        return {"data": data, "traceId": trace_id, "unlisted": 1}

    monkeypatch.setattr(adapter, "success_envelope", with_extra)
    client = faulty(era)
    result = client.post("tools/call", {"name": "list_memos", "arguments": {}}).json()["result"]
    envelope = check_text_copy(result)
    assert result["isError"] is True and envelope["error"]["code"] == "INTERNAL" and "unlisted" not in envelope


def test_an_agents_day_counts_are_in_the_users_own_zone(mcp, fresh_user):
    # An agent names no deviceTimeZone: the days are the zone the user set (07:30 in Shanghai is
    # 2 March there), UTC while none is set; a deviceTimeZone it does name still wins.
    agent = mcp(scopes="memo:read,memo:write,todo:read,todo:write", user=fresh_user())
    agent.ok("create_memo", {"content": "early", "createdAt": "2026-03-01T23:30:00Z"})
    assert agent.ok("list_memos", {"includeContext": True})["filters"]["days"] == {"2026-03-01": 1}
    agent.ok("set_time_zone", {"timeZone": "Asia/Shanghai"})
    assert agent.ok("list_memos", {"includeContext": True})["filters"]["days"] == {"2026-03-02": 1}
    named = agent.ok("list_memos", {"includeContext": True, "deviceTimeZone": "Europe/London"})
    assert named["filters"]["days"] == {"2026-03-01": 1}
