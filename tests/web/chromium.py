"""Headless Chromium (Debian `chromium`, driven by Playwright) for the browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api as playwright_sync

CHROMIUM = "/usr/bin/chromium"


@contextmanager
def chromium_page(**context_options: Any) -> Iterator[Any]:
    """A page in a fresh browser context (`context_options`: Playwright's `new_context` ones)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium")
    with playwright_sync.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        context = browser.new_context(**context_options)
        try:
            yield context.new_page()
        finally:
            context.close()
            browser.close()
