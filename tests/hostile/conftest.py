"""The browser-page fixtures of tests/web (an in-process web app, signed-in browsers, a clock
the tests move) for the hostile tests that go through the pages."""

from __future__ import annotations

from tests.web.conftest import browser, clock, new_client, web_app

__all__ = ["browser", "clock", "new_client", "web_app"]
