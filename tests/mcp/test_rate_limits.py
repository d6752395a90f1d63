"""Rate limits (docs/contract.md §7): per credential and bucket, per IP without a credential, counters in
the store (shared by every instance), HTTP 429 with Retry-After and RATE_LIMITED."""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesq.application import ratelimit
from mesq.application.ratelimit import PROFILES, RateLimiter
from mesq.attachments import store as attachment_store
from mesq.attachments.paths import attachment_path, mcp_uri
from mesq.attachments.store import attachment_key
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


class CountingReads:
    """The item store, keeping the key of every record the app reads through it (get,
    batch_get, query): what a `resources/read` costs in GetItems."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.keys = inner, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def get(self, key: Any) -> Any:
        self.keys.append(key)
        return self.inner.get(key)

    def batch_get(self, keys: Any) -> Any:
        self.keys.extend(keys)
        return self.inner.batch_get(keys)

    def query(self, partition: str, **options: Any) -> Any:
        self.keys.append((partition, "query"))
        return self.inner.query(partition, **options)

    def since(self, mark: int) -> list[Any]:
        """Reads after `mark` (a `len(keys)`) but the credential lookups (`PAT#...`): a token is
        looked up before anything can know whose bucket to count in (cached for a few seconds)."""
        return [key for key in self.keys[mark:] if not str(key[0]).startswith("PAT#")]


@pytest.fixture
def counted(tmp_path: Path, monkeypatch) -> Iterator[tuple[CountingReads, TestClient, str, str, str]]:
    """One app over a store that counts its reads (normal profile, the clock held inside one
    window); two users: (reads, client, token, the other user's token, the other user's id)."""
    frozen = float(int(time.time()) // 60 * 60 + 1)
    monkeypatch.setattr(ratelimit, "wall_clock", lambda: frozen)
    built = build_services(inprocess_settings(data_dir=tmp_path / "data", rate_limit_profile="normal"))
    reads = CountingReads(built.items)
    reads.blobs = built.blobs  # a test puts files where an upload would
    services = dataclasses.replace(built, items=reads)  # type: ignore[arg-type]
    user = create_user(services.items, "counted", "correct horse battery")
    other = create_user(services.items, "other", "correct horse battery")
    token, _ = create_token(services.items, user["id"], name="t", scopes="memo:read,memo:write")
    other_token, _ = create_token(services.items, other["id"], name="t", scopes="memo:read,memo:write")
    with TestClient(create_local_app(services), raise_server_exceptions=False) as client:
        yield reads, client, token, other_token, other["id"]
    built.items.close()


def _flood(mcp: Mcp, reads: CountingReads, uri: str, times: int) -> tuple[list[dict], list[Any]]:
    """`times` reads of `uri`: the answers, and the store reads made after the first limited one."""
    answers: list[dict] = []
    mark: int | None = None
    for _ in range(times):
        answer = mcp.post("resources/read", {"uri": uri})
        assert answer.status_code in (200, 400), answer.text  # -32602 is a 400 on 2026-07-28
        answers.append(answer.json())
        if mark is None and answers[-1].get("error", {}).get("code") == RATE_LIMITED_RPC_CODE:
            mark = len(reads.keys)
    assert mark is not None, "never limited"
    return answers, reads.since(mark)


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_a_flood_of_reads_over_the_limit_reads_no_record(counted, era):
    """A client flooding `resources/read` past its limit must not cost a store read per call:
    the endpoint read the attachment record (to tell an image) before it counted the call, so
    170 refused reads of a file cost 170 GetItems."""
    reads, client, token, _, _ = counted
    memo = _album(client, token, 1, mime="application/pdf")
    mcp = Mcp(client=client, token=token, era=era)
    answers, past = _flood(mcp, reads, memo["resources"][0]["mcp_uri"], 200)
    assert sum("result" in answer for answer in answers) == NORMAL["attachment_read"]
    assert all(answer["error"]["data"]["code"] == "RATE_LIMITED" for answer in answers[NORMAL["attachment_read"] :])
    assert past == []


def test_a_flood_of_image_reads_over_the_page_image_limit_reads_no_record(counted, monkeypatch):
    reads, client, token, _, _ = counted
    monkeypatch.setitem(PROFILES["normal"], "page_image", 40)  # a smaller window, same rule
    memo = _album(client, token, 1)
    answers, past = _flood(Mcp(client=client, token=token), reads, memo["resources"][0]["mcp_uri"], 200)
    assert sum("result" in answer for answer in answers) == 40
    assert past == []


def test_reads_of_uris_naming_nothing_are_counted_first_and_refused_plainly(counted):
    """A URI naming nothing (an unknown id of one's own, another account's path, a malformed
    path, an unknown scheme) is counted before any read and refused with -32602, never a 500;
    once its bucket is spent a flood of it costs no store read at all."""
    reads, client, token, _, _ = counted
    mcp = Mcp(client=client, token=token)
    real = _album(client, token, 1, mime="application/pdf")["resources"][0]["mcp_uri"]
    unknown = real[:-6] + ("abcdef" if not real.endswith("abcdef") else "fedcba")
    for uri in (unknown, "memo://resource/users%2F..%2Fx", "memo://resource/not-a-path", "file:///etc/passwd"):
        error = mcp.error("resources/read", {"uri": uri})
        assert error["code"] == -32602 and error["data"]["uri"] == uri, error
    # The bucket spent by the (attachment_read-counted) reads above and these:
    for uri in (unknown, "memo://resource/not-a-path", "file:///etc/passwd"):
        answers, past = _flood(mcp, reads, uri, 60)
        assert answers[-1]["error"]["data"]["code"] == "RATE_LIMITED", uri
        assert past == [], uri


def test_distinct_unknown_uris_past_the_page_image_limit_read_nothing(counted, monkeypatch):
    """An id nobody has seen cannot be told an image without its record: it is counted in
    `page_image` (the generous bucket) before that read, so fresh ids cost reads only within it."""
    reads, client, token, _, _ = counted
    monkeypatch.setitem(PROFILES["normal"], "page_image", 40)
    real = _album(client, token, 1, mime="application/pdf")["resources"][0]["mcp_uri"]
    mcp = Mcp(client=client, token=token)
    mark = None
    for number in range(120):
        uri = real[:-8] + f"{number:08x}"
        answer = mcp.post("resources/read", {"uri": uri}).json()
        assert "error" in answer, answer
        if mark is None and answer["error"]["code"] == RATE_LIMITED_RPC_CODE and number >= 40:
            mark = len(reads.keys)
    assert mark is not None and reads.since(mark) == []


def test_another_accounts_attachment_reads_like_a_made_up_one(counted):
    """Another account's path is refused by its shape, before any read: an existing attachment
    and an id that names nothing get the same answer, in the same bucket, and cost no read."""
    reads, client, token, other_token, other_id = counted
    theirs = _album(client, other_token, 1)["resources"][0]["mcp_uri"]  # an image of theirs
    made_up = f"memo://resource/users%2F{other_id}%2Fmemo%2F{'0' * 28}"
    mcp = Mcp(client=client, token=token)
    mark = len(reads.keys)
    first, second = mcp.error("resources/read", {"uri": theirs}), mcp.error("resources/read", {"uri": made_up})
    assert first["code"] == second["code"] == -32602
    assert first["message"] == second["message"] and first["data"]["code"] == second["data"]["code"] == "FORBIDDEN"
    # Counted in attachment_read (30), never in the image bucket, whether it exists or not.
    for uri in (theirs, made_up):
        for _ in range(NORMAL["attachment_read"] // 2 - 1):
            mcp.post("resources/read", {"uri": uri})
    for uri in (theirs, made_up):
        assert mcp.error("resources/read", {"uri": uri})["data"]["code"] == "RATE_LIMITED"
    assert reads.since(mark) == []


def test_reading_a_view_reads_no_record(counted):
    reads, client, token, _, _ = counted
    mcp = Mcp(client=client, token=token)
    mark = len(reads.keys)
    for _ in range(70):
        mcp.post("resources/read", {"uri": "ui://mesq/memo"})
    assert mcp.error("resources/read", {"uri": "ui://mesq/memo"})["data"]["code"] == "RATE_LIMITED"
    assert reads.since(mark) == []


def test_what_one_account_learned_about_an_id_never_serves_another(counted):
    """The memory of which attachments are images is per user: another account naming the
    same attachment id under its own user id reads its own (empty) record, gets the NOT_FOUND of
    any id that names nothing, and counts in `attachment_read` like it."""
    reads, client, token, other_token, other_id = counted
    mine = _album(client, token, 1)["resources"][0]["mcp_uri"]
    owner = Mcp(client=client, token=token)
    assert "result" in owner.post("resources/read", {"uri": mine}).json()  # remembered: an image
    attachment_id = mine.rsplit("%2F", 1)[1]
    borrowed = f"memo://resource/users%2F{other_id}%2Fmemo%2F{attachment_id}"
    made_up = f"memo://resource/users%2F{other_id}%2Fmemo%2F{'0' * 28}"
    other = Mcp(client=client, token=other_token)
    first, second = other.error("resources/read", {"uri": borrowed}), other.error("resources/read", {"uri": made_up})
    assert first["data"]["code"] == second["data"]["code"] == "NOT_FOUND"
    assert first["message"].split("/memo/")[0] == second["message"].split("/memo/")[0]  # then the id, cut short
    answers, past = _flood(other, reads, borrowed, NORMAL["attachment_read"] + 5)
    assert answers[-1]["error"]["data"]["code"] == "RATE_LIMITED" and past == []
    assert "result" in owner.post("resources/read", {"uri": mine}).json()  # the owner's bucket untouched


def test_a_batch_of_thumbnails_and_files_counts_each_in_its_bucket(counted):
    """A 2025-03-26 batch: 40 images all drawn (page_image), and of 35 reads of a file only the
    first 30 served; the file's record is read once for the whole batch."""
    reads, client, token, _, _ = counted
    album = _album(client, token, 40)
    document = _album(client, token, 1, mime="application/pdf")["resources"][0]["mcp_uri"]
    legacy = Mcp(client=client, token=token, era="legacy")
    headers = {**legacy.http_headers("resources/read", None), "Mcp-Protocol-Version": "2025-03-26"}
    images = [resource["mcp_uri"] for resource in album["resources"]]
    body = [{"jsonrpc": "2.0", "id": number, "method": "resources/read", "params": {"uri": uri}}
            for number, uri in enumerate(images)]  # fmt: skip
    answers = client.post("/mcp", headers=headers, json=body).json()
    assert len(answers) == 40 and all("result" in answer for answer in answers)
    mark = len(reads.keys)
    body = [{"jsonrpc": "2.0", "id": number, "method": "resources/read", "params": {"uri": document}}
            for number in range(35)]  # fmt: skip
    answers = client.post("/mcp", headers=headers, json=body).json()
    # One batch counts its 35 reads at once: the whole bucket is over, so every one is refused.
    assert all(answer["error"]["data"]["code"] == "RATE_LIMITED" for answer in answers)
    document_key = [key for key in reads.since(mark) if str(key[1]).startswith("MEMOATT#")]
    assert len(document_key) == 1  # the one read that told it no image


def test_the_image_memory_is_bounded_and_least_recently_used_goes_first():
    from mesq.mcp.image_uris import ImageUris

    images = ImageUris(max_entries=3)
    for number, kind in enumerate(("image", "file", "missing")):
        images.remember(("u", "memo", str(number)), kind)  # type: ignore[arg-type]
    assert images.kind(("u", "memo", "0")) == "image"  # used: now the most recent
    images.remember(("u", "memo", "3"), "file")
    assert images.kind(("u", "memo", "1")) is None  # the least recently used went
    assert images.kind(("u", "memo", "0")) == "image" and images.kind(("u", "memo", "3")) == "file"
    assert images.kind(("v", "memo", "0")) is None  # another user's key is another entry


def test_every_spelling_of_one_attachment_is_one_memory_and_the_rest_are_refused_unread(counted):
    """`%2F`, `%2f` and plain slashes name one attachment: once one spelling told it a file, none
    costs a second record read. A spelling that names no attachment path (upper-case id, a query
    string, a fragment, a trailing slash, double encoding, a capitalised scheme) is refused with
    -32602 and reads no record."""
    reads, client, token, _, _ = counted
    document = _album(client, token, 1, mime="application/pdf")["resources"][0]["mcp_uri"]
    mcp = Mcp(client=client, token=token)
    assert "result" in mcp.post("resources/read", {"uri": document}).json()
    for spelling in (document.replace("%2F", "%2f"), document.replace("%2F", "/")):
        mark = len(reads.keys)
        assert "result" in mcp.post("resources/read", {"uri": spelling}).json(), spelling
        assert len([key for key in reads.since(mark) if str(key[1]).startswith("MEMOATT#")]) == 1, spelling
    head, attachment_id = document[:-28], document[-28:]
    for spelling in (head + attachment_id.upper(), document + "?x=1", document + "#f", document + "/",
                     document.replace("%2F", "%252F"), document.replace("memo://", "MEMO://")):  # fmt: skip
        mark = len(reads.keys)
        assert mcp.error("resources/read", {"uri": spelling})["code"] == -32602, spelling
        assert [key for key in reads.since(mark) if "ATT#" in str(key[1])] == [], spelling


def test_a_batch_naming_one_attachment_in_two_spellings_reads_its_record_once(counted):
    """A 2025-03-26 batch reading one never-seen file as `%2F` and as `%2f`: the endpoint tells
    what it is with one record read (it read one per spelling), then each read is answered."""
    reads, client, token, _, _ = counted
    document = _album(client, token, 1, mime="application/pdf")["resources"][0]["mcp_uri"]
    legacy = Mcp(client=client, token=token, era="legacy")
    headers = {**legacy.http_headers("resources/read", None), "Mcp-Protocol-Version": "2025-03-26"}
    spellings = [document, document.replace("%2F", "%2f"), document.replace("%2F", "/")]
    body = [{"jsonrpc": "2.0", "id": number, "method": "resources/read", "params": {"uri": uri}}
            for number, uri in enumerate(spellings)]  # fmt: skip
    mark = len(reads.keys)
    answers = client.post("/mcp", headers=headers, json=body).json()
    assert len(answers) == 3 and all("result" in answer for answer in answers), answers
    record_reads = [key for key in reads.since(mark) if str(key[1]).startswith("MEMOATT#")]
    assert len(record_reads) == 1 + len(spellings)  # one to tell it a file, then each read's own


@pytest.fixture
def small_image_memory(monkeypatch) -> None:
    """An endpoint's image memory of 8 entries, 4 a user (requested before `counted`, which builds it)."""
    from mesq.mcp import endpoint, image_uris

    monkeypatch.setattr(endpoint, "ImageUris", functools.partial(image_uris.ImageUris, max_entries=8))
    monkeypatch.setattr(image_uris, "USER_MAX_ENTRIES", 4, raising=False)


def test_one_account_reading_fresh_ids_never_makes_another_forget(small_image_memory, counted):
    """The memory was one LRU for every user: an account reading fresh ids of its own (each
    remembered, `missing`) pushed out another's entries, whose next read then cost a GetItem and
    a `page_image` count again; and an account could tell from its own entries going how much
    others read. Now one account's reads only ever push out its own."""
    reads, client, token, other_token, other_id = counted
    document = _album(client, token, 1, mime="application/pdf")["resources"][0]["mcp_uri"]
    owner = Mcp(client=client, token=token)
    assert "result" in owner.post("resources/read", {"uri": document}).json()  # remembered: a file
    other = Mcp(client=client, token=other_token)
    for number in range(20):
        fresh = f"memo://resource/users%2F{other_id}%2Fmemo%2F{number:028x}"
        assert other.error("resources/read", {"uri": fresh})["data"]["code"] == "NOT_FOUND"
    mark = len(reads.keys)
    assert "result" in owner.post("resources/read", {"uri": document}).json()
    record_reads = [key for key in reads.since(mark) if str(key[1]).startswith("MEMOATT#")]
    assert len(record_reads) == 1  # the read itself, no second one to tell whether it is an image


def test_a_read_the_step_up_refuses_reads_no_record(counted):
    """A token without memo:read naming one of its user's memo images gets the 403 step-up; the
    endpoint counted it first and read nothing to tell whether it is an image."""
    reads, client, token, _, _ = counted
    image = _album(client, token, 1)["resources"][0]["mcp_uri"]
    user_id = image.split("%2F")[1]
    todo_token, _ = create_token(reads, user_id, name="todo", scopes="todo:read")
    mark = len(reads.keys)
    refused = Mcp(client=client, token=todo_token).post("resources/read", {"uri": image})
    assert refused.status_code == 403 and 'scope="memo:read"' in refused.headers["www-authenticate"]
    assert [key for key in reads.since(mark) if "ATT#" in str(key[1])] == []


def test_an_id_found_missing_and_registered_later_counts_as_the_image_it_became(counted):
    """A direct upload session hands out its path before completion, so an agent may read an id
    that is registered a moment later. Found missing, it counts in `attachment_read` and is read
    again while that has room; once registered as an image its reads count in `page_image`."""
    reads, client, token, _, _ = counted
    photo = _album(client, token, 1)["resources"][0]
    user_id, attachment_id = photo["path"].split("/")[1], photo["path"].rsplit("/", 1)[1]
    later_id = attachment_id[:-6] + ("abcdef" if not attachment_id.endswith("abcdef") else "fedcba")
    later = attachment_path(user_id, later_id)
    uri = mcp_uri(later)
    mcp = Mcp(client=client, token=token)
    for _ in range(2):
        assert mcp.error("resources/read", {"uri": uri})["data"]["code"] == "NOT_FOUND"  # remembered: missing
    # The session completes: the bytes and the record appear at the path it handed out.
    reads.blobs.put(later, reads.blobs.get(photo["path"], max_bytes=1024), "image/png")
    record = reads.inner.get(attachment_key(user_id, attachment_id))
    attachment_store.register(reads.inner, user_id, {**record, "id": later_id, "path": later}, 10**9)
    # Its first read still counts as a download (found missing), then it is an image: well past
    # attachment_read's 30, every thumbnail is drawn.
    for number in range(NORMAL["attachment_read"] + 10):
        assert "result" in mcp.post("resources/read", {"uri": uri}).json(), number
