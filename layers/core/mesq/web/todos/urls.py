"""The todo pages' addresses, shared by the board and the pages under it (a task, the inbox, the
todo trash), which link and redirect back to the board: `BOARD` and `board_url`."""

from __future__ import annotations

from urllib.parse import urlencode

BOARD = "/todos"


def board_url(space_id: str | None, anchor: str | None = None) -> str:
    return BOARD + (f"?{urlencode({'space': space_id})}" if space_id else "") + (f"#{anchor}" if anchor else "")


__all__ = ["BOARD", "board_url"]
