"""`mesq serve` re-tags memos stored under the old `#tag` rule once it listens (issue 41): a data
directory whose memo an older version stored without a tag lists it under that tag after a start,
and the banner says so in one line."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.auth.tokens import create_token
from mesq.auth.users import create_user
from tests.conftest import start_server, stop_server
from tests.memos.test_retag import caller, write_as_the_old_rule_did


def test_a_start_retags_what_an_older_version_stored(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    items = SQLiteItemStore(data_dir / "mesq.db")
    try:
        user = create_user(items, "reader", "correct horse battery")["id"]
        caller(items, tmp_path, user)("create_memo", content="刚读完《三体》#读书")
        write_as_the_old_rule_did(items, user)
        token, _ = create_token(items, user, name="t", scopes="memo:read")
    finally:
        items.close()
    server = start_server(data_dir)
    try:
        headers = {"Authorization": f"Bearer {token}"}
        deadline = time.monotonic() + 60
        while True:
            listed = httpx.get(f"{server.base_url}/api/toolkit/memo", params={"tags": "读书"}, headers=headers)
            contents = [memo["content"] for memo in listed.json()["data"]["timelineItems"]]
            if contents or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert contents == ["刚读完《三体》#读书"]
        tags = httpx.get(f"{server.base_url}/api/toolkit/memo/tags", headers=headers).json()["data"]["tags"]
        assert [(tag["path"], tag["count"]) for tag in tags] == [("读书", 1)]
        said = "Tags: 1 memo(s) of 1 account(s) re-tagged by the current #tag rule"
        while said not in server.output and time.monotonic() < deadline:  # printed once the pass ends
            time.sleep(0.1)
        assert said in server.output
    finally:
        stop_server(server)
