"""The bare `mcp` SDK (MeSQ's pinned version): the low-level `Server` with `create_memo` and
`get_memo` over one SQLite table, its own stateless streamable HTTP app with JSON answers, on
uvicorn. The tools declare input and output schemas as FastMCP's do, and the results carry
`structuredContent` and its text copy.

    python bench/peer_servers/sdk_memo.py DB_PATH PORT
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import mcp_types as types
import memo_table
import uvicorn
from mcp.server.lowlevel import Server

DB, PORT = sys.argv[1], int(sys.argv[2])
MEMO = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "content": {"type": "string"},
        "createdAt": {"type": "string"},
        "updatedAt": {"type": "string"},
        "revision": {"type": "integer"},
    },
    "required": ["id", "content", "createdAt", "updatedAt", "revision"],
}
TOOLS = [
    types.Tool(
        name="create_memo",
        description="Create a memo.",
        input_schema={"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]},
        output_schema=MEMO,
    ),
    types.Tool(
        name="get_memo",
        description="Get one memo by id.",
        input_schema={"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        output_schema=MEMO,
    ),
]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


def _result(memo: dict[str, Any] | None, missing: str) -> types.CallToolResult:
    if memo is None:
        return types.CallToolResult(content=[types.TextContent(type="text", text=missing)], is_error=True)
    text = json.dumps(memo)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=memo)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "create_memo":
        memo = await anyio.to_thread.run_sync(memo_table.create_memo, DB, str(arguments["content"]))
        return _result(memo, "")
    if params.name == "get_memo":
        memo_id = str(arguments["id"])
        return _result(await anyio.to_thread.run_sync(memo_table.get_memo, DB, memo_id), f"memo {memo_id} not found")
    return _result(None, f"unknown tool {params.name}")


server = Server("memos", on_list_tools=list_tools, on_call_tool=call_tool)
app = server.streamable_http_app(json_response=True, stateless_http=True)
uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning", access_log=False)
