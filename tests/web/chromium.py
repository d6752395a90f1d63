"""Headless Chromium (Debian `chromium`, driven by Playwright) for the browser tests.

One Chromium (and one Playwright driver) serves every `chromium_page` of a test module: each call
gets a fresh browser context (its own cookies, storage, cache, service workers, locale, time zone
and viewport: what a fresh browser would give the test), and the browser is closed when the
module's last test has run (`close_shared_chromium`, from `tests/conftest.py`'s
`pytest_runtest_teardown`). A Chromium and its driver cost ~0.9 CPU-seconds and ~2 s to start
here, and `make test` opened one for each of ~250 pages.

Between pages the thread's asyncio "running loop" mark that Playwright's sync API keeps while its
driver lives is taken down, and put back for the next page: a later test in the same process may
`asyncio.run` / `anyio.run` as if no browser were open, as it could when each page had its own
driver."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api as playwright_sync

CHROMIUM = "/usr/bin/chromium"


@dataclass
class _Shared:
    driver: Any  # playwright's context manager (`sync_playwright()`), started
    browser: Any
    loop: asyncio.AbstractEventLoop
    #: How many `chromium_page` blocks are open (one may open inside another, or stay open in a
    #: module-scoped fixture): the loop's mark comes down only when none is.
    open_pages: int = 0


_shared: _Shared | None = None


def _mark_loop(loop: asyncio.AbstractEventLoop | None) -> None:
    asyncio._set_running_loop(loop)  # what Playwright's own sync calls do around each call


def _start() -> _Shared:
    driver = playwright_sync.sync_playwright()
    started = driver.start()
    loop = asyncio.get_running_loop()  # the driver's, marked running by its first call
    try:
        browser = started.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
    except BaseException:
        driver.__exit__()
        raise
    return _Shared(driver=driver, browser=browser, loop=loop)


def _browser() -> _Shared:
    """The module's browser, started on first use (or again, if it went away)."""
    global _shared
    if _shared is not None:
        _mark_loop(_shared.loop)
        if _shared.browser.is_connected():
            return _shared
        close_shared_chromium()
    _shared = _start()
    return _shared


@contextmanager
def chromium_page(**context_options: Any) -> Iterator[Any]:
    """A page in a fresh browser context (`context_options`: Playwright's `new_context` ones)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium")
    shared = _browser()
    shared.open_pages += 1
    try:
        context = shared.browser.new_context(**context_options)
        try:
            yield context.new_page()
        finally:
            _mark_loop(shared.loop)
            context.close()
    finally:
        shared.open_pages -= 1
        if shared.open_pages == 0:
            _mark_loop(None)


def close_shared_chromium() -> None:
    """Close the module's browser and its driver, if one is open (idempotent)."""
    global _shared
    shared, _shared = _shared, None
    if shared is None:
        return
    _mark_loop(shared.loop)
    try:
        if shared.browser.is_connected():
            shared.browser.close()
    finally:
        shared.driver.__exit__()  # stops the driver; the loop's mark comes down with it
        _mark_loop(None)
