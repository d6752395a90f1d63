"""The change history through the official `mcp` client against a real `mesq serve`: attribution,
undo and the undo of an undo, a run_code run undone by its runId, a conflict left alone, a
memo-only token that neither sees nor undoes todo changes, and an agent's session: four writes
that carry their changeIds and one sessionId, listed by `actor: "me"` and the session, previewed
by a dry run that writes nothing and undone as one, a memo of an earlier session left as it is."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import anyio
import pytest
from mcp.client.client import Client

from mesq.adapters.store.sqlite import SQLiteItemStore
from mesq.history.sessions import POINTER_PREFIX
from mesq.kernel.ports.storage import Update
from mesq.kernel.timestamps import format_timestamp
from tests.conftest import LiveServer, start_server, stop_server
from tests.support.mcp_client import connect, ok

ALL = "memo:read,memo:write,todo:read,todo:write"


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("history") / "data", {"MCP_RATE_LIMIT_PROFILE": "relaxed"})
    yield server
    stop_server(server)


def token(server: LiveServer, username: str, name: str, scopes: str, *, new_user: bool = True) -> str:
    return server.account(username, scopes, name).token if new_user else server.token(username, scopes, name)


async def failed(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert result.is_error, result
    assert result.structured_content is not None
    return result.structured_content["error"]


def test_edits_are_attributed_undone_and_the_undo_undone(live_server):
    secret = token(live_server, "alice", "agent-x", ALL)

    async def body() -> None:
        async with connect(live_server.base_url, secret) as client:
            memo = (await ok(client, "create_memo", {"content": "draft"}))["memo"]
            first = await ok(client, "update_memo", {"id": memo["id"], "expectedRevision": 1, "content": "first"})
            await ok(client, "update_memo", {"id": memo["id"], "expectedRevision": 2, "content": "second"})
            history = (await ok(client, "list_changes", {"recordId": memo["id"]}))["changes"]
            assert [c["action"] for c in history] == ["update", "update", "create"]
            assert {c["actor"]["name"] for c in history} == {"agent-x"}
            assert {c["actor"]["kind"] for c in history} == {"pat"}
            last, previous = history[0], history[1]
            assert last["before"] == {"content": "first"} and last["after"] == {"content": "second"}
            assert last["revisions"] == {"before": 2, "after": 3} and last["operation"] == "update_memo"
            assert previous["before"] == {"content": "draft"} and previous["after"] == {"content": "first"}
            assert first["memo"]["revision"] == 2

            undo = await ok(client, "undo_changes", {"changeIds": [last["id"]]})
            assert undo["notUndone"] == [] and [u["changeId"] for u in undo["undone"]] == [last["id"]]
            now = (await ok(client, "get_memo", {"id": memo["id"]}))["memo"]
            assert now["content"] == "first" and now["revision"] == 4
            undo_change = undo["undone"][0]["undoChangeId"]
            again = await ok(client, "undo_changes", {"changeIds": [undo_change]})
            assert again["notUndone"] == [], again
            now = (await ok(client, "get_memo", {"id": memo["id"]}))["memo"]
            assert now["content"] == "second" and now["revision"] == 5
            history = (await ok(client, "list_changes", {"recordId": memo["id"]}))["changes"]
            assert history[0]["undoes"] == undo_change and history[1]["undoes"] == last["id"]
            assert history[2]["undoneBy"] == undo_change
            # Undone already: a second undo of the same change is refused, the memo left as it is.
            twice = await ok(client, "undo_changes", {"changeIds": [last["id"]]})
            assert twice["undone"] == [] and twice["notUndone"][0]["code"] == "CONFLICT"

    anyio.run(body)


RUN = """
const a = await mesq.create_memo({content: "made by the run"});
const b = await mesq.update_memo({id: ARG_B, expectedRevision: 1, content: "changed by the run"});
const t = await mesq.create_todo_task({title: "task of the run"});
return [a.data.memo.id, b.data.memo.revision, t.data.task.id];
"""


def test_a_run_code_run_is_listed_and_undone_by_its_run_id(live_server):
    secret = token(live_server, "bob", "coder", ALL)

    async def body() -> None:
        async with connect(live_server.base_url, secret) as client:
            before = (await ok(client, "create_memo", {"content": "as it was"}))["memo"]
            run = await ok(client, "run_code", {"code": RUN.replace("ARG_B", json.dumps(before["id"]))})
            assert "thrown" not in run, run
            made_memo, _revision, made_task = run["result"]
            listed = (await ok(client, "list_changes", {"runId": run["runId"]}))["changes"]
            assert [(c["record"]["kind"], c["action"]) for c in listed] == [
                ("task", "create"), ("memo", "update"), ("memo", "create"),
            ]  # fmt: skip
            assert {c["runId"] for c in listed} == {run["runId"]}
            undo = await ok(client, "undo_changes", {"runId": run["runId"]})
            assert len(undo["undone"]) == 3 and undo["notUndone"] == [], undo
            assert (await ok(client, "get_memo", {"id": before["id"]}))["memo"]["content"] == "as it was"
            assert (await ok(client, "get_memo", {"id": made_memo}))["memo"]["status"] == "DELETED"
            trash = await ok(client, "list_todo_trash", {})
            assert made_task in json.dumps(trash)  # trashed, not gone
            # The undo is one run of its own: its three changes share a runId of their own.
            newest = (await ok(client, "list_changes", {"limit": 3}))["changes"]
            assert {c["runId"] for c in newest} != {run["runId"]} and len({c["runId"] for c in newest}) == 1

    anyio.run(body)


CONFLICT_RUN = """
const a = await mesq.update_memo({id: ARG_A, expectedRevision: 1, content: "run edit a"});
const b = await mesq.update_memo({id: ARG_B, expectedRevision: 1, content: "run edit b"});
return [a.data.memo.revision, b.data.memo.revision];
"""


def test_a_record_changed_since_is_left_alone_and_the_others_undone(live_server):
    secret = token(live_server, "carol", "tidier", ALL)

    async def body() -> None:
        async with connect(live_server.base_url, secret) as client:
            a = (await ok(client, "create_memo", {"content": "a"}))["memo"]
            b = (await ok(client, "create_memo", {"content": "b"}))["memo"]
            code = CONFLICT_RUN.replace("ARG_A", json.dumps(a["id"])).replace("ARG_B", json.dumps(b["id"]))
            run = await ok(client, "run_code", {"code": code})
            assert run["result"] == [2, 2], run
            await ok(client, "update_memo", {"id": a["id"], "expectedRevision": 2, "content": "the person's edit"})
            undo = await ok(client, "undo_changes", {"runId": run["runId"]})
            assert [u["record"]["id"] for u in undo["undone"]] == [b["id"]]
            [refused] = undo["notUndone"]
            assert refused["record"]["id"] == a["id"] and refused["code"] == "REVISION_CONFLICT"
            assert refused["recoverData"]["memo"]["content"] == "the person's edit"
            assert (await ok(client, "get_memo", {"id": a["id"]}))["memo"]["content"] == "the person's edit"
            assert (await ok(client, "get_memo", {"id": b["id"]}))["memo"]["content"] == "b"

    anyio.run(body)


def test_a_memo_only_token_neither_sees_nor_undoes_todo_changes(live_server):
    full = token(live_server, "dave", "full", ALL)
    memo_only = token(live_server, "dave", "memos", "memo:read,memo:write", new_user=False)

    async def body() -> None:
        async with connect(live_server.base_url, full) as client:
            task = (await ok(client, "create_todo_task", {"title": "private plan"}))["task"]
            await ok(client, "create_memo", {"content": "a memo"})
            todo_change = (await ok(client, "list_changes", {"recordId": task["id"]}))["changes"][0]
        async with connect(live_server.base_url, memo_only) as client:
            seen = (await ok(client, "list_changes", {}))["changes"]
            assert seen and {c["record"]["kind"] for c in seen} == {"memo"}
            assert (await ok(client, "list_changes", {"recordId": task["id"]}))["changes"] == []
            assert (await ok(client, "list_changes", {"kind": "task"}))["changes"] == []
            error = await failed(client, "undo_changes", {"changeIds": [todo_change["id"]]})
            assert error["code"] == "NOT_FOUND"
            since = "2000-01-01T00:00:00Z"
            by_actor = await ok(client, "undo_changes", {"actor": todo_change["actor"]["id"], "since": since})
            assert all(u["record"]["kind"] == "memo" for u in by_actor["undone"])
        async with connect(live_server.base_url, full) as client:
            assert (await ok(client, "get_todo_task", {"id": task["id"]}))["task"]["title"] == "private plan"

    anyio.run(body)


def _earlier_session(server: LiveServer, secret: str) -> str:
    """A memo the token made in an earlier session: written through a second server on the same
    data directory (its process's memory of the session dies with it), then 20 minutes pass for
    the session (its pointer's `lastAt` moved back: the gap is measured from it, sessions.py)."""
    other = start_server(server.data_dir, {"MCP_RATE_LIMIT_PROFILE": "relaxed"})
    try:

        async def made() -> tuple[str, str]:
            async with connect(other.base_url, secret) as client:
                result = await client.call_tool("create_memo", {"content": "from this morning"})
                assert result.structured_content is not None, result
                return result.structured_content["data"]["memo"]["id"], result.structured_content["sessionId"]

        memo_id, session = anyio.run(made)
    finally:
        stop_server(other)
    with sqlite3.connect(server.data_dir / "mesq.db") as db:
        rows = db.execute("SELECT pk, sk, data FROM items WHERE sk LIKE ?", (POINTER_PREFIX + "%",)).fetchall()
    [(pk, sk)] = [(pk, sk) for pk, sk, data in rows if json.loads(data)["sessionId"] == session]
    store = SQLiteItemStore(server.data_dir / "mesq.db")
    pointer = store.get((pk, sk))
    assert pointer is not None
    aged = datetime.fromisoformat(str(pointer["lastAt"]).replace("Z", "+00:00")) - timedelta(minutes=20)
    store.update(Update(key=(pk, sk), set={"lastAt": format_timestamp(aged)}))
    store.close()
    return memo_id


def test_four_writes_are_one_session_listed_previewed_and_undone_by_it(live_server):
    secret = token(live_server, "dora", "session-agent", ALL)
    earlier = _earlier_session(live_server, secret)

    async def body() -> None:
        async with connect(live_server.base_url, secret) as client:

            async def write(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                result = await client.call_tool(name, arguments)
                assert not result.is_error and result.structured_content is not None, result
                return result.structured_content

            made = [
                await write("create_memo", {"content": "one"}),
                await write("create_todo_task", {"title": "two"}),
            ]
            memo, task = made[0]["data"]["memo"], made[1]["data"]["task"]
            made.append(await write("update_memo", {"id": memo["id"], "expectedRevision": 1, "content": "one, edited"}))
            made.append(await write("complete_todo_task", {"id": task["id"], "expectedRevision": 1}))
            [session] = {envelope["sessionId"] for envelope in made}
            assert all(len(envelope["changeIds"]) == 1 and envelope["runId"] for envelope in made)
            ids = [envelope["changeIds"][0] for envelope in made]
            context = await ok(client, "get_context", {})
            assert context["sessionId"] == session and context["actor"]["name"] == "session-agent"

            mine = (await ok(client, "list_changes", {"actor": "me", "sessionId": session}))["changes"]
            assert sorted(c["changeId"] for c in mine) == sorted(ids)
            everything = (await ok(client, "list_changes", {"actor": "me"}))["changes"]
            assert len(everything) == 5 and earlier in {c["record"]["id"] for c in everything}

            preview = await ok(client, "undo_changes", {"sessionId": session, "dryRun": True})
            assert preview["dryRun"] is True and preview["notUndone"] == []
            assert sorted(e["changeId"] for e in preview["undone"]) == sorted(ids)
            assert len((await ok(client, "list_changes", {"actor": "me"}))["changes"]) == 5  # nothing written
            assert (await ok(client, "get_memo", {"id": memo["id"]}))["memo"]["content"] == "one, edited"

            undone = await ok(client, "undo_changes", {"sessionId": session})
            assert undone["notUndone"] == [] and sorted(e["changeId"] for e in undone["undone"]) == sorted(ids)
            assert (await ok(client, "get_memo", {"id": memo["id"]}))["memo"]["status"] == "DELETED"
            assert (await ok(client, "get_memo", {"id": earlier}))["memo"]["status"] == "NORMAL"  # an earlier session
            assert task["id"] in json.dumps(await ok(client, "list_todo_trash", {}))

            listed = {tool.name: tool.description or "" for tool in (await client.list_tools()).tools}
            for name in ("list_changes", "undo_changes"):  # one line each: find yours, offsets, trash, permanent
                lines = listed[name].splitlines()
                assert any('actor "me"' in line and "get_context" in line and "sessionId" in line for line in lines)
                assert any("offset" in line and "+08:00" in line for line in lines)
                assert any("create moves it to the trash" in line for line in lines)
                assert any("permanent delete cannot be undone" in line for line in lines)

            unknown = await failed(client, "undo_changes", {"runId": "unknown"})
            assert unknown["code"] == "NOT_FOUND"
            assert "get_context" in unknown["message"] and 'list_changes {actor: "me"}' in unknown["message"]

    anyio.run(body)
