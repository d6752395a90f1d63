"""A FastMCP server with `create_memo` and `get_memo` over one SQLite table, stateless streamable
HTTP with JSON answers, on uvicorn: what `bench/peers.py` measures MeSQ against.

    python bench/peer_servers/fastmcp_memo.py DB_PATH PORT
"""

from __future__ import annotations

import sys

import memo_table
import uvicorn
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from pydantic import BaseModel

DB, PORT = sys.argv[1], int(sys.argv[2])
mcp = FastMCP("memos")


class Memo(BaseModel):
    id: str
    content: str
    createdAt: str
    updatedAt: str
    revision: int


@mcp.tool
def create_memo(content: str) -> Memo:
    """Create a memo."""
    return Memo(**memo_table.create_memo(DB, content))


@mcp.tool
def get_memo(id: str) -> Memo:
    """Get one memo by id."""
    found = memo_table.get_memo(DB, id)
    if found is None:
        raise ToolError(f"memo {id} not found")
    return Memo(**found)


app = mcp.http_app(path="/mcp", json_response=True, stateless_http=True)
uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning", access_log=False)
