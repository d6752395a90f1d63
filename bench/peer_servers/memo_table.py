"""The one SQLite table both peer servers serve (`bench/peers.py`): what a person writing a small
memo MCP server would store. A connection per thread (the servers run tools on worker threads),
WAL, one commit per write, as MeSQ's SQLite store does."""

from __future__ import annotations

import secrets
import sqlite3
import threading
from datetime import UTC, datetime
from typing import Any

_local = threading.local()


def connection(path: str) -> sqlite3.Connection:
    opened: dict[str, sqlite3.Connection] = _local.__dict__.setdefault("opened", {})
    db = opened.get(path)
    if db is None:
        db = sqlite3.connect(path, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS memo (id TEXT PRIMARY KEY, content TEXT NOT NULL,"
            " created_at TEXT NOT NULL, updated_at TEXT NOT NULL, revision INTEGER NOT NULL)"
        )
        opened[path] = db
    return db


def _memo(row: tuple[Any, ...]) -> dict[str, Any]:
    return {"id": row[0], "content": row[1], "createdAt": row[2], "updatedAt": row[3], "revision": row[4]}


def create_memo(path: str, content: str) -> dict[str, Any]:
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    row = (secrets.token_urlsafe(12), content, now, now, 1)
    db = connection(path)
    with db:
        db.execute("INSERT INTO memo VALUES (?, ?, ?, ?, ?)", row)
    return _memo(row)


def get_memo(path: str, memo_id: str) -> dict[str, Any] | None:
    row = connection(path).execute("SELECT * FROM memo WHERE id = ?", (memo_id,)).fetchone()
    return None if row is None else _memo(row)
