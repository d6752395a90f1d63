"""`/settings` lists every settings page (the header's Settings bar and the index are one list),
and on a phone the header shows one Settings link instead of the bar."""

from __future__ import annotations

import re
from collections.abc import Callable

from starlette.testclient import TestClient

from mesq.web.settings.pages import SETTINGS_PAGES

from .conftest import Browser


def test_the_index_and_the_header_list_every_settings_page(browser: Callable[..., Browser]) -> None:
    client = browser().client
    page = client.get("/settings")
    assert page.status_code == 200
    for item in SETTINGS_PAGES:
        assert page.text.count(f'href="{item.path}"') == 2, item.path  # the header bar and the index
        assert client.get(item.path).status_code == 200, item.path
    assert re.search(r'class="settings-link" href="/settings" aria-current="page"', page.text)


def test_signed_out_the_index_asks_for_a_sign_in(new_client: Callable[..., TestClient]) -> None:
    answer = new_client().get("/settings", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"].startswith("/login")
