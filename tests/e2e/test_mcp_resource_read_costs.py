"""`resources/read` is counted before any store read (docs/decisions.md "resources/read counted
first"), against a real `mesq serve` (normal profile) whose store logs every record it reads
(counting_serve.py): a raw JSON-RPC flood past the limit costs no record read, and the official
`mcp` client still draws a 40-photo memo's thumbnails, reads a file until its limit, and hears a
plain -32602 for a URI that names nothing, in both eras."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp.shared.exceptions import MCPError

from mesq.application.ratelimit import PROFILES
from tests.conftest import Account, LiveServer, start_server, stop_server
from tests.e2e.test_mcp_client import MODES, connect

NORMAL = PROFILES["normal"]
HERE = Path(__file__).resolve().parent
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")
#: Seconds of a rate-limit window a flood that must stay inside one needs (100 reads take ~3 s).
WINDOW_ROOM = 20
LEGACY_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Path]]:
    data = tmp_path_factory.mktemp("resource-reads") / "data"
    log = data.parent / "reads.log"
    command = [sys.executable, str(HERE / "counting_serve.py"), "serve", "--data-dir", "{data_dir}", "--port", "{port}"]
    live = start_server(data, {"MCP_RATE_LIMIT_PROFILE": "normal", "MESQ_TEST_READS_LOG": str(log)}, command=command)
    yield live, log
    stop_server(live)


def _attachment_reads(log: Path, mark: int) -> list[str]:
    """Attachment records read since line `mark` of the log."""
    return [line for line in log.read_text().splitlines()[mark:] if "ATT#" in line]


def _lines(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def _settled(log: Path, quiet: float = 1.0, most: float = 20.0) -> None:
    """Wait until the store's log has not grown for `quiet` seconds: the follower's own reads
    after a write (indexing the new memo) must not be counted against a flood's refused reads."""
    deadline, size, since = time.monotonic() + most, -1, time.monotonic()
    while time.monotonic() < deadline:
        now = log.stat().st_size if log.exists() else 0
        if now != size:
            size, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        time.sleep(0.05)


def _album(base_url: str, account: Account, photos: int, mime: str = "image/png") -> list[str]:
    """The mcp_uri of each attachment of a new memo holding `photos` of them (made over REST)."""
    headers = {"Authorization": f"Bearer {account.token}"}
    resources = []
    for number in range(photos):
        made = httpx.post(f"{base_url}/api/toolkit/memo/resources/upload", headers=headers, timeout=30,
                          files={"file": (f"photo-{number}.png", PNG + bytes([number]), mime)})  # fmt: skip
        assert made.status_code == 201, made.text
        resources.append(made.json()["data"])
    memo = httpx.post(f"{base_url}/api/toolkit/memo", headers=headers, timeout=30,
                      json={"content": "trip", "resources": resources})  # fmt: skip
    assert memo.status_code == 201, memo.text
    return [resource["mcp_uri"] for resource in memo.json()["data"]["memo"]["resources"]]


def _read(base_url: str, token: str, uri: str, number: int) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": number, "method": "resources/read", "params": {"uri": uri}}
    answer = httpx.post(f"{base_url}/mcp", json=body, headers={**LEGACY_HEADERS, "Authorization": f"Bearer {token}"},
                        timeout=30)  # fmt: skip
    assert answer.status_code == 200, answer.text
    payload: dict[str, Any] = answer.json()
    return payload


def _flood(server: tuple[LiveServer, Path], token: str, uri: str, times: int = 200) -> tuple[int, list[str]]:
    """`times` raw JSON-RPC reads of `uri`, one after another: how many were refused as
    RATE_LIMITED, and the attachment records read while answering those."""
    live, log = server
    refused, costs = 0, []
    for number in range(times):
        mark = _lines(log)
        answer = _read(live.base_url, token, uri, number)
        if answer.get("error", {}).get("data", {}).get("code") == "RATE_LIMITED":
            refused += 1
            costs += _attachment_reads(log, mark)
    return refused, costs


def _spend_attachment_reads_in_a_window_with_room(server: tuple[LiveServer, Path], token: str, uri: str) -> None:
    """Wait for the next minute's window unless WINDOW_ROOM seconds are left in this one (the
    server's limits count per wall-clock minute), then spend its attachment_read bucket on `uri`
    (a read refused by its shape: no record read)."""
    left = 60 - time.time() % 60
    if left < WINDOW_ROOM:
        time.sleep(left + 0.2)
    _flood(server, token, uri, NORMAL["attachment_read"] + 1)


def test_a_raw_flood_past_the_limit_costs_no_store_read(server):
    live, log = server
    account = live.account("flooder", scopes="memo:read,memo:write")
    document = _album(live.base_url, account, 1, mime="application/pdf")[0]
    _settled(log)
    refused, costs = _flood(server, account.token, document)
    assert refused >= 200 - 2 * NORMAL["attachment_read"] and costs == []
    # A URI naming nothing of one's own, another account's path, a made-up scheme, a view.
    other = live.account("flooded", scopes="memo:read,memo:write")
    theirs = _album(live.base_url, other, 1)[0]
    _settled(log)
    unknown = document[:-6] + ("abcdef" if not document.endswith("abcdef") else "fedcba")
    # Past twice its bucket's limit (a view's read counts as connecting), so refused even when a
    # minute turns during the flood: 100 views split 50/50 across two windows were all answered.
    for uri, bucket in ((theirs, "attachment_read"), ("file:///etc/passwd", "attachment_read"),
                        ("ui://mesq/memo", "connection")):  # fmt: skip
        refused, costs = _flood(server, account.token, uri, 2 * NORMAL[bucket] + 1)
        assert refused > 0 and costs == [], uri
    # An own id never seen may be an image: counted in page_image, read once to tell (then
    # counted in attachment_read too, refused), remembered; its flood costs nothing more. Within
    # one window, with attachment_read spent in it: a window turning during the flood gives the
    # id room to be read again, as it should (it may have been registered since).
    _spend_attachment_reads_in_a_window_with_room(server, account.token, theirs)
    refused, costs = _flood(server, account.token, unknown, 100)
    assert refused == 100 and len(costs) == 1


def test_another_accounts_image_answers_as_a_made_up_id_does(server):
    live, log = server
    reader = live.account("reader", scopes="memo:read")
    owner = live.account("owner", scopes="memo:read,memo:write")
    theirs = _album(live.base_url, owner, 1)[0]
    _settled(log)
    made_up = f"memo://resource/users%2F{owner.user_id}%2Fmemo%2F{'0' * 28}"
    mark = _lines(log)
    first, second = (_read(live.base_url, reader.token, uri, 1)["error"] for uri in (theirs, made_up))
    assert first["code"] == second["code"] == -32602 and first["message"] == second["message"]
    assert {key: value for key, value in first["data"].items() if key != "uri"} == {"code": "FORBIDDEN"}
    assert _attachment_reads(log, mark) == []


@pytest.mark.parametrize("mode", MODES)
def test_the_official_client_draws_thumbnails_and_meets_the_file_limit(server, mode):
    live, _ = server
    account = live.account(f"client{mode}", scopes="memo:read,memo:write")
    photos = _album(live.base_url, account, 40)
    document = _album(live.base_url, account, 1, mime="application/pdf")[0]

    async def scenario() -> None:
        async with connect(live.base_url, account.token, mode) as client:
            for uri in photos:  # what the MCP Apps memo view does for a 40-photo memo
                read = await client.read_resource(uri, cache_mode="bypass")
                assert read.contents[0].mime_type == "image/png"  # type: ignore[union-attr]
            with pytest.raises(MCPError) as unknown:
                await client.read_resource(document[:-4] + "0000", cache_mode="bypass")
            assert unknown.value.error.code == -32602
            assert isinstance(unknown.value.error.data, dict) and unknown.value.error.data["code"] == "NOT_FOUND"
            # Bounded: two windows' worth, in case a minute boundary resets the counter once.
            for _ in range(2 * NORMAL["attachment_read"] + 10):
                try:
                    await client.read_resource(document, cache_mode="bypass")
                except MCPError as raised:
                    failure = raised
                    break
            else:
                raise AssertionError("resources/read of a file was never limited")
            data = failure.error.data
            assert isinstance(data, dict) and data["code"] == "RATE_LIMITED" and 1 <= data["retryAfterSeconds"] <= 60
            for uri in photos[:5]:  # the images' own bucket still has room
                assert (await client.read_resource(uri, cache_mode="bypass")).contents

    anyio.run(scenario)
