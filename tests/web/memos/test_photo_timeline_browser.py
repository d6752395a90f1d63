"""A person-sized photo timeline, looked at again within the minute, in headless Chromium against
a real `mesq serve` with its normal rate limits: 20 memos of nine photos each (the nine-photo grid
people post) are 180 `<img>` of `/memos/attachment` a view. At `tool_call`'s 240 a minute the
second view drew 60 of 180 and the third none; page images have their own bucket now
(`page_image`, decisions.md "rate buckets"), while downloads keep `attachment_read`'s 30."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ...conftest import LiveServer, start_server, stop_server
from ..chromium import chromium_page
from ..kit.test_layout import SIZES
from .test_memos_browser import _set_up

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
MEMOS, PHOTOS = 20, 9  # a timeline page holds 20 memos (web/memos/query.PAGE_SIZE)
DRAWN = "() => [...document.querySelectorAll('.memo-thumb img')].filter(i => i.complete && i.naturalWidth > 0).length"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = start_server(tmp_path / "live", {"MESQ_SEARCH_PROVIDER": "none", "MCP_RATE_LIMIT_PROFILE": "normal"})
    yield live
    stop_server(live)


def _look(page: Any, base: str) -> int:
    """Open the timeline and scroll through it (the images are lazy): how many drew."""
    page.goto(base + "/")
    page.wait_for_load_state("networkidle")
    for _ in range(40):
        page.mouse.wheel(0, 800)
    page.wait_for_load_state("networkidle")
    page.wait_for_function(
        f"() => [...document.querySelectorAll('.memo-thumb img')].every(i => i.complete)"
        f" && document.querySelectorAll('.memo-thumb img').length === {MEMOS * PHOTOS}"
    )
    drawn: int = page.evaluate(DRAWN)
    return drawn


def test_a_timeline_of_photo_memos_draws_every_photo_at_each_look(server: LiveServer) -> None:
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}, timezone_id="Asia/Shanghai") as page:
        rest = _set_up(server, page)
        for memo in range(MEMOS):
            photos = []
            for index in range(PHOTOS):
                name = f"day {memo} photo {index}.png"
                made = rest.post("/api/toolkit/memo/resources/upload",
                                 files={"file": (name, PNG + bytes([memo, index]), "image/png")})  # fmt: skip
                assert made.status_code == 201, made.text
                photos.append(made.json()["data"])
            created = rest.post("/api/toolkit/memo", json={"content": f"day {memo}", "resources": photos})
            assert created.status_code == 201, created.text
        # Three looks within the minute (a save, a tag and back): every photo each time.
        assert [_look(page, server.base_url) for _ in range(3)] == [MEMOS * PHOTOS] * 3
