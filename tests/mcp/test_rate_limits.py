"""Rate limits (docs/contract.md §7): per credential and bucket, per IP without a credential, counters in
the store (shared by every instance), HTTP 429 with Retry-After and RATE_LIMITED."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from mesq.application import ratelimit
from mesq.application.ratelimit import PROFILES, RateLimiter
from mesq.auth.tokens import create_token, list_tokens
from mesq.auth.users import create_user
from mesq.kernel.errors import RateLimited
from mesq.mcp.limits import RATE_LIMITED_RPC_CODE
from mesq.runtime.server import create_local_app
from mesq.wiring.config import Settings
from mesq.wiring.services import Services, build_services
from tests.settings import inprocess_settings

from .conftest import Mcp

NORMAL = PROFILES["normal"]


@pytest.fixture
def limited(tmp_path: Path, monkeypatch) -> Iterator[tuple[Services, TestClient, TestClient, str]]:
    """Two app instances (think: two Lambda containers) over one store, normal profile, the clock
    held at the start of the current window so a test never straddles two windows."""
    frozen = float(int(time.time()) // 60 * 60 + 1)
    monkeypatch.setattr(ratelimit, "wall_clock", lambda: frozen)
    services = build_services(inprocess_settings(data_dir=tmp_path / "data", rate_limit_profile="normal"))
    user = create_user(services.items, "limited", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="t", scopes="memo:read,memo:write")
    with (
        TestClient(create_local_app(services), raise_server_exceptions=False) as first,
        TestClient(create_local_app(services), raise_server_exceptions=False) as second,
    ):
        yield services, first, second, token
    services.items.close()


def test_connection_bucket_is_shared_across_instances(limited):
    _, first, second, token = limited
    clients = [Mcp(client=first, token=token), Mcp(client=second, token=token)]
    for i in range(NORMAL["connection"]):
        assert clients[i % 2].post("tools/list").status_code == 200, i
    # Over MCP a limited request is a JSON-RPC error an MCP client reads (not an HTTP 429, which
    # the official client reports as "Server returned an error response").
    response = clients[0].post("server/discover")
    assert response.status_code == 200
    error = response.json()["error"]
    assert error["code"] == RATE_LIMITED_RPC_CODE and "retry after" in error["message"]
    assert error["data"]["code"] == "RATE_LIMITED" and 1 <= error["data"]["retryAfterSeconds"] <= 60
    assert response.headers["cache-control"] == "private, no-store"
    # Tool calls have their own bucket: still allowed.
    call = clients[1].post("tools/call", {"name": "list_tags", "arguments": {}})
    assert call.status_code == 200 and not call.json()["result"].get("isError")


def test_legacy_messages_are_counted_from_the_body(limited):
    _, first, _, token = limited
    legacy = Mcp(client=first, token=token, era="legacy")
    for _ in range(NORMAL["connection"]):
        assert legacy.post("tools/list").status_code == 200
    for method, params in (("tools/list", None), ("ping", None), ("prompts/list", None)):
        error = legacy.error(method, params)
        assert error["code"] == RATE_LIMITED_RPC_CODE and error["data"]["retryAfterSeconds"] >= 1, method
    # initialize is the SDK's own: the endpoint answers it in the same form, with its id.
    answer = legacy.post(
        "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    )
    assert answer.status_code == 200 and answer.json()["error"]["data"]["code"] == "RATE_LIMITED"
    assert answer.json()["id"] is not None
    # A notification has no answer to carry the error: HTTP 429 with Retry-After.
    notified = legacy.notify("notifications/initialized")
    assert notified.status_code == 429 and int(notified.headers["retry-after"]) >= 1
    # A batch: each message in its own form, the tool call still served (its bucket is not spent).
    batch = legacy.client.post(
        legacy.path,
        headers={**legacy.http_headers("tools/list", None), "Mcp-Protocol-Version": "2025-03-26"},
        json=[
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_tags", "arguments": {}}},
        ],
    )
    first, second = sorted(batch.json(), key=lambda answer: answer["id"])
    assert first["error"]["data"]["code"] == "RATE_LIMITED" and not second["result"].get("isError")


def test_every_limited_answer_carries_retry_after_beside_its_body(limited):
    """Clients read `Retry-After` before any body: a rate-limited `tools/list` (a JSON-RPC error),
    `initialize` (answered by the endpoint), a batch and a limited `tools/call` (a tool error)
    carry it too, equal to the `retryAfterSeconds` in the body; an answer within the limits does not."""
    _, first, _, token = limited
    for era in ("modern", "legacy"):
        client = Mcp(client=first, token=token, era=era)
        assert "retry-after" not in client.post("tools/list").headers
    client = Mcp(client=first, token=token)
    for _ in range(NORMAL["connection"] - 2):
        client.post("tools/list")
    for era in ("modern", "legacy"):
        listed = Mcp(client=first, token=token, era=era).post("tools/list")
        error = listed.json()["error"]
        assert listed.status_code == 200 and error["data"]["code"] == "RATE_LIMITED", era
        assert listed.headers["retry-after"] == str(error["data"]["retryAfterSeconds"]), era
    legacy = Mcp(client=first, token=token, era="legacy")
    initialize = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    answer = legacy.post("initialize", initialize)
    assert answer.headers["retry-after"] == str(answer.json()["error"]["data"]["retryAfterSeconds"])
    batch = legacy.client.post(
        legacy.path,
        headers={**legacy.http_headers("tools/list", None), "Mcp-Protocol-Version": "2025-03-26"},
        json=[{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, {"jsonrpc": "2.0", "id": 2, "method": "ping"}],
    )
    assert int(batch.headers["retry-after"]) == batch.json()[0]["error"]["data"]["retryAfterSeconds"]
    caller = Mcp(client=first, token=token)
    for _ in range(NORMAL["tool_call"]):
        caller.post("tools/call", {"name": "list_tags", "arguments": {}})
    called = caller.post("tools/call", {"name": "list_tags", "arguments": {}})
    envelope = called.json()["result"]["structuredContent"]
    assert envelope["error"]["code"] == "RATE_LIMITED"
    assert called.headers["retry-after"] == str(envelope["error"]["retryAfterSeconds"])


def test_a_limited_tool_call_is_a_tool_error_the_model_reads(limited):
    _, first, _, token = limited
    for era in ("modern", "legacy"):
        client = Mcp(client=first, token=token, era=era)
        for _ in range(NORMAL["tool_call"] + 5):
            result = client.call("list_tags", {})
            if result.get("isError"):
                break
        envelope = result["structuredContent"]
        assert envelope["error"]["code"] == "RATE_LIMITED" and 1 <= envelope["error"]["retryAfterSeconds"] <= 60
        assert "RATE_LIMITED" in result["content"][0]["text"] and "retryAfterSeconds" in result["content"][0]["text"]
        # Unknown tools too: the limit is checked before anything is looked up.
        assert client.call("no_such_tool", {})["structuredContent"]["error"]["code"] == "RATE_LIMITED"


def test_limits_are_per_credential(limited):
    services, first, _, token = limited
    user = create_user(services.items, "other", "correct horse battery")
    other, _ = create_token(services.items, user["id"], name="t", scopes="memo:read")
    for _ in range(NORMAL["connection"]):
        Mcp(client=first, token=token).post("tools/list")
    assert Mcp(client=first, token=token).error("tools/list")["data"]["code"] == "RATE_LIMITED"
    assert "tools" in Mcp(client=first, token=other).result("tools/list")


def test_unauthenticated_calls_are_limited_per_ip(limited):
    _, first, _, _ = limited
    anonymous = Mcp(client=first, token=None)
    for _ in range(NORMAL["unauthenticated"]):
        assert anonymous.post("tools/list").status_code == 401
    response = Mcp(client=first, token="mesq_pat_guess").post("tools/list")
    assert response.status_code == 429 and response.json()["error"]["code"] == "RATE_LIMITED"
    assert int(response.headers["retry-after"]) >= 1


def test_windows_reset_and_profiles(tmp_path):
    services = build_services(inprocess_settings(data_dir=tmp_path / "data"))
    # Near real time: the store expires counters by its own clock (TTL).
    start = float(int(time.time()) // 60 * 60 + 20)
    now = [start]
    limiter = RateLimiter(services.items, Settings(rate_limit_profile="normal"), clock=lambda: now[0])
    for _ in range(NORMAL["attachment_read"]):
        limiter.hit("pat:x", "attachment_read")
    with pytest.raises(RateLimited) as caught:
        limiter.hit("pat:x", "attachment_read")
    assert caught.value.retry_after_seconds == 40
    now[0] += 60  # the next window starts from zero
    limiter.hit("pat:x", "attachment_read")
    relaxed = RateLimiter(services.items, Settings(rate_limit_profile="relaxed"), clock=lambda: now[0])
    for _ in range(NORMAL["attachment_read"] + 5):
        relaxed.hit("pat:y", "attachment_read")
    for settings in (Settings(rate_limit_profile="off"), Settings(rate_limit_enabled=False)):
        off = RateLimiter(services.items, settings)
        assert not off.enabled
        for _ in range(PROFILES["relaxed"]["attachment_read"] + 1):
            off.hit("pat:z", "attachment_read")
    services.items.close()


def test_environment_switches(monkeypatch):
    monkeypatch.setenv("MCP_RATE_LIMIT_PROFILE", "relaxed")
    monkeypatch.setenv("MCP_RATE_LIMIT_ENABLED", "false")
    settings = Settings.from_env()
    assert settings.rate_limit_profile == "relaxed" and settings.rate_limit_enabled is False
    monkeypatch.setenv("MCP_RATE_LIMIT_PROFILE", "turbo")
    with pytest.raises(ValueError, match="MCP_RATE_LIMIT_PROFILE"):
        Settings.from_env()


def _counters(services: Services, token_id: str) -> dict[str, int]:
    window = int(ratelimit.wall_clock()) // 60 * 60
    found = {}
    for bucket in ("connection", "tool_call", "attachment_read"):
        item = services.items.get((f"RL#{token_id}", f"{bucket}#{window}"))
        if item:
            found[bucket] = item["count"]
    return found


def test_method_headers_only_count_when_the_sdk_enforces_them(limited):
    services, first, _, token = limited
    (record,) = list_tokens(services.items, _user_id(services))
    credential = f"pat:{record['id']}"
    # A legacy message claiming to be a ping is counted by what its body is: a tool call.
    legacy = Mcp(client=first, token=token, era="legacy", headers={"Mcp-Method": "ping"})
    assert legacy.post("tools/call", {"name": "list_tags", "arguments": {}}).status_code == 200
    assert _counters(services, credential) == {"tool_call": 1}
    # A 2026-07-28 request whose headers disagree with its body is refused by the SDK.
    lying = Mcp(client=first, token=token, headers={"Mcp-Method": "ping"})
    response = lying.post("tools/call", {"name": "list_tags", "arguments": {}})
    assert response.status_code == 400 and "mcp-method header does not match" in response.json()["error"]["message"]


def _user_id(services: Services) -> str:
    return services.items.get(("USERNAME#limited", "USERNAME"))["userId"]


def test_limited_unauthenticated_calls_keep_the_challenge(limited):
    _, first, _, _ = limited
    anonymous = Mcp(client=first, token=None)
    for _ in range(NORMAL["unauthenticated"]):
        anonymous.post("tools/list")
    response = anonymous.post("tools/list")
    assert response.status_code == 429
    assert "resource_metadata=" in response.headers["www-authenticate"]


def test_every_call_of_a_code_mode_script_counts_in_its_bucket(limited):
    _, first, _, token = limited
    client = Mcp(client=first, token=token)
    script = "let n = 0; for (let i = 0; i < 200; i++) { const r = await mesq.list_tags({});" \
             " if (r.error) return {n, error: r.error.code}; n++; } return {n}"  # fmt: skip
    runs = [client.ok("run_code", {"code": script, "maxCalls": 200}) for _ in range(2)]
    # 240 tool calls a minute; the run_code messages count, and so does each script call. A run
    # may use half of what is left when it starts: 239 left -> 119; then 240 - 121 - 1 = 118 -> 59.
    left = NORMAL["tool_call"] - 1
    for run in runs:
        share = left // 2
        assert run["budget"] == {"kind": "calls", "used": share, "limit": share}, run
        assert run["thrown"].startswith("BudgetExceeded: this run may use at most half of the tool calls left")
        assert run["log"][-1] == "list_tags refused: call budget"
        left -= share + 1
    # So two greedy runs no longer drain the bucket: a plain call still answers.
    assert client.post("tools/call", {"name": "list_tags", "arguments": {}}).status_code == 200


PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")  # a PNG's first bytes


def _album(client: TestClient, token: str, photos: int, mime: str = "image/png") -> dict:
    """A memo holding `photos` attachments, made over REST (authenticated REST writes count in no bucket)."""
    headers = {"Authorization": f"Bearer {token}"}
    resources = []
    for i in range(photos):
        made = client.post("/api/toolkit/memo/resources/upload", headers=headers,
                           files={"file": (f"photo-{i}.png", PNG + bytes([i]), mime)})  # fmt: skip
        assert made.status_code == 201, made.text
        resources.append(made.json()["data"])
    memo = client.post("/api/toolkit/memo", headers=headers, json={"content": "trip", "resources": resources})
    assert memo.status_code == 201, memo.text
    return memo.json()["data"]["memo"]


def test_the_memo_view_of_a_forty_photo_memo_draws_every_thumbnail(limited):
    """What the MCP Apps memo view (mcp/views/memo.js) does for a memo: `get_memo`, then one
    `resources/read` of the memo:// URI of each image. A 40-photo album is a person-sized memo
    (a memo holds up to 100); at the 30 a minute of `attachment_read` its last ten thumbnails
    never drew. Shown images count in `page_image`, as on the web."""
    _, first, _, token = limited
    memo = _album(first, token, 40)
    mcp = Mcp(client=first, token=token)
    shown = mcp.post("tools/call", {"name": "get_memo", "arguments": {"id": memo["id"]}})
    assert shown.status_code == 200 and not shown.json()["result"].get("isError"), shown.text
    for resource in memo["resources"]:
        read = mcp.post("resources/read", {"uri": resource["mcp_uri"]})
        assert read.status_code == 200 and "result" in read.json(), (resource["displayName"], read.text)
    # A script pulling images still meets a limit: the page_image bucket's.
    counted = NORMAL["page_image"] - 40  # the 40 thumbnails above
    for _ in range(counted):
        assert "result" in mcp.post("resources/read", {"uri": memo["resources"][0]["mcp_uri"]}).json()
    over = mcp.post("resources/read", {"uri": memo["resources"][0]["mcp_uri"]}).json()
    assert over["error"]["code"] == RATE_LIMITED_RPC_CODE, over


def test_reads_of_files_that_are_no_images_stay_in_the_attachment_bucket(limited):
    _, first, _, token = limited
    memo = _album(first, token, 1, mime="application/pdf")
    mcp = Mcp(client=first, token=token)
    uri = memo["resources"][0]["mcp_uri"]
    for _ in range(NORMAL["attachment_read"]):
        assert "result" in mcp.post("resources/read", {"uri": uri}).json()
    over = mcp.post("resources/read", {"uri": uri}).json()
    assert over["error"]["code"] == RATE_LIMITED_RPC_CODE and over["error"]["data"]["code"] == "RATE_LIMITED"
