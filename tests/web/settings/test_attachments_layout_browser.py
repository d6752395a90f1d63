"""Settings -> Attachments in headless Chromium against a real `mesq serve`: a file name with no
place to break (a long hash or URL-like name, up to the 255 characters an upload allows) wraps
inside its cell instead of pushing the table, and its Discard button, off the side of the page."""

from __future__ import annotations

import httpx

from ...conftest import LiveServer
from ..chromium import chromium_page
from ..kit.test_layout import SIZES
from ..todos.test_todos_browser import sign_in_page

LONG_NAME = "scan_" + "0123456789abcdef" * 15 + ".pdf"  # 249 characters, no space or hyphen


def test_a_long_file_name_wraps_inside_the_table(server: LiveServer) -> None:
    account = server.account("ada")
    with httpx.Client(base_url=server.base_url, headers=account.headers, timeout=10) as rest:
        upload = rest.post(
            "/api/toolkit/memo/resources/upload", files={"file": (LONG_NAME, b"%PDF-1.4 tiny", "application/pdf")}
        )
        assert upload.status_code == 201, upload.text
    with chromium_page(viewport={"width": SIZES[1][0], "height": SIZES[1][1]}) as page:
        sign_in_page(page, server.base_url, "ada", "/settings/attachments")
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll_width <= inner_width, (
                f"at {width}px the page scrolls sideways: {scroll_width} > {inner_width}"
            )
            discard = page.locator("tr.orphan button.danger")
            box = discard.bounding_box()
            assert box is not None and box["x"] + box["width"] <= inner_width, f"Discard is off the page at {width}px"
