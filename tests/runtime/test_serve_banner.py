"""`mesq serve`'s lines on how to get in (issue 41): the README's four scopes, the first account's
commands while none exists, and only the token command (with the one account's name) after."""

from __future__ import annotations

from pathlib import Path

from mesq.auth.users import create_user
from mesq.runtime.cli.serve import BANNER_SCOPES, token_lines
from mesq.wiring.services import build_services
from tests.settings import inprocess_settings


def test_the_banner_gives_four_scopes_and_is_shorter_once_an_account_exists(tmp_path: Path) -> None:
    assert BANNER_SCOPES == "memo:read,memo:write,todo:read,todo:write"
    services = build_services(inprocess_settings(data_dir=tmp_path))
    try:
        first = token_lines(services, "http://127.0.0.1:9000")
        assert first[0].startswith("Web:  http://127.0.0.1:9000/setup creates the first account (the admin)")
        assert first[1].endswith(f"mesq user create alice --admin --data-dir {tmp_path}")
        token = f"mesq token create alice --name laptop --scopes {BANNER_SCOPES} --data-dir {tmp_path}"
        assert first[2].endswith(token)
        create_user(services.items, "mei", "correct horse battery")
        one = token_lines(services, "http://127.0.0.1:9000")
        assert one[0] == "Web:  http://127.0.0.1:9000/login" and len(one) == 2
        assert one[1].startswith("Token: ") and f" token create mei --name laptop --scopes {BANNER_SCOPES}" in one[1]
        create_user(services.items, "li", "correct horse battery")
        assert " token create <username> " in token_lines(services, "http://127.0.0.1:9000")[1]
    finally:
        services.items.close()
