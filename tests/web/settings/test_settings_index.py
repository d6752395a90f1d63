"""`/settings` lists every settings page, and the header has one Settings entry: every settings
page shows the same side menu (one list, `settings/pages.py`), with the current page marked."""

from __future__ import annotations

from collections.abc import Callable

from starlette.testclient import TestClient

from mesq.web.settings.pages import SETTINGS_PAGES

from ..conftest import Browser


def test_the_index_and_the_settings_menu_list_every_settings_page(browser: Callable[..., Browser]) -> None:
    client = browser().client
    page = client.get("/settings")
    assert page.status_code == 200
    for item in SETTINGS_PAGES:
        assert page.text.count(f'href="{item.path}"') == 2, item.path  # the settings menu and the index
        shown = client.get(item.path)
        assert shown.status_code == 200, item.path
        assert f'href="{item.path}" aria-current="page"' in shown.text, item.path  # its menu entry marked
        assert 'class="settings-link" href="/settings" aria-current="page"' in shown.text, item.path
    assert 'class="settings-link" href="/settings" aria-current="page"' in page.text
    assert page.text.count('class="settings-link"') == 1  # one header entry, no bar of seven links


def test_pages_outside_settings_show_no_settings_menu(browser: Callable[..., Browser]) -> None:
    page = browser().client.get("/todos")
    assert page.status_code == 200
    assert 'class="settings-menu"' not in page.text
    assert 'class="settings-link" href="/settings">' in page.text


def test_signed_out_the_index_asks_for_a_sign_in(new_client: Callable[..., TestClient]) -> None:
    answer = new_client().get("/settings", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"].startswith("/login")
