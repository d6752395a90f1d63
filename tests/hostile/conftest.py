"""Fixtures of other suites the hostile tests reuse: the browser-page ones of tests/web (an
in-process web app, signed-in browsers, a clock the tests move) and the official DynamoDB Local
of tests/contract (a fresh table per test)."""

from __future__ import annotations

from tests.contract.conftest import dynamodb_local, dynamodb_local_endpoint
from tests.web.conftest import browser, clock, new_client, web_app

__all__ = ["browser", "clock", "dynamodb_local", "dynamodb_local_endpoint", "new_client", "web_app"]
