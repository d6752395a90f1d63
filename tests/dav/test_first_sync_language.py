"""A phone that is the account's first contact with its board: the board it makes is named in the
phone's language, as the inbox beside it is. An account made on the command line has no browser
language yet; a Chinese iPhone's first sync showed a list "Default" (columns "To do", "Doing",
"Done" on the board) beside "收件箱", because CalDAV's operations were run without the language
the request asked for (REST and MCP pass it)."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest
from starlette.testclient import TestClient

from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from mesq.wiring.services import Services

from .conftest import NS, PASSWORD, basic

PROPFIND_NAMES = '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:displayname/></d:prop></d:propfind>'


@pytest.mark.parametrize(
    ("header", "space", "columns", "inbox"),
    [
        ("zh-CN,zh-Hans;q=0.9", "默认", ["待办", "进行中", "已完成"], "收件箱"),
        ("en-US,en;q=0.9", "Default", ["To do", "Doing", "Done"], "Inbox"),
    ],
)
def test_a_board_first_made_by_a_phone_is_named_in_the_phones_language(
    services: Services, dav_client: TestClient, header: str, space: str, columns: list[str], inbox: str
) -> None:
    user = create_user(services.items, "firstphone", PASSWORD)
    token, _ = create_token(services.items, user["id"], name="iPhone", scopes="todo:read,todo:write")
    answer = dav_client.request(
        "PROPFIND",
        "/dav/firstphone/",
        content=PROPFIND_NAMES,
        headers={"Authorization": basic("firstphone", token), "Depth": "1", "Accept-Language": header},
    )
    assert answer.status_code == 207, answer.text
    names = [str(e.text) for e in ET.fromstring(answer.content).iterfind(".//D:displayname", NS)]
    assert names == ["firstphone", space, inbox]
    board = dav_client.get("/api/toolkit/todo/spaces", headers={"Authorization": f"Bearer {token}"}).json()["data"]
    assert [s["name"] for s in board["spaces"]] == [space]
    assert [c["name"] for c in board["columns"]] == columns
