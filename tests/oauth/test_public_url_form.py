"""The public URL (`MESQ_PUBLIC_URL`, `--public-url`) is the OAuth issuer, the `iss` of every
authorization response and the origin of every resource. Clients compare the issuer as a string
after writing it their way (the official SDK through pydantic: lower-case scheme and host, no
default port), so an operator's `https://MeSQ.example.com:443/` made the `iss` the server sent
differ from the issuer the client expected, and the first connection stopped at "iss mismatch".
The URL is written in its normal form once, when it is read; a URL that cannot be an origin
(a path, a query, user info, another scheme) stops the server with the reason instead of
breaking every resource check later."""

from __future__ import annotations

import pytest

from mesq.runtime.cli.common import settings_of
from mesq.runtime.cli.main import build_parser
from mesq.wiring.config import ConfigError, Settings
from tests.oauth.test_official_client import first_connection

LOCAL = "http://localhost:{port}"


@pytest.mark.parametrize(
    ("written", "normal"),
    [
        ("https://MeSQ.Example.com", "https://mesq.example.com"),
        ("HTTPS://mesq.example.com:443/", "https://mesq.example.com"),
        ("http://mesq.example.com:80", "http://mesq.example.com"),
        ("https://mesq.example.com:8443", "https://mesq.example.com:8443"),
        (" http://LocalHost:8787/ ", "http://localhost:8787"),
        ("http://[::1]:8787", "http://[::1]:8787"),
    ],
)
def test_the_public_url_is_read_in_its_normal_form(written: str, normal: str) -> None:
    assert Settings.from_env({"MESQ_PUBLIC_URL": written}).public_url == normal


@pytest.mark.parametrize(
    "written",
    [
        "https://mesq.example.com/mesq",
        "https://mesq.example.com/?x=1",
        "https://mesq.example.com/#top",
        "https://user:secret@mesq.example.com",
        "ftp://mesq.example.com",
        "mesq.example.com",
        "https://mesq.example.com:99999",
        "https://",
    ],
)
def test_a_public_url_that_is_no_origin_stops_the_server_with_the_reason(written: str) -> None:
    with pytest.raises(ConfigError, match="MESQ_PUBLIC_URL"):
        Settings.from_env({"MESQ_PUBLIC_URL": written})


def test_the_command_line_public_url_is_read_the_same_way() -> None:
    parser = build_parser()
    args = parser.parse_args(["serve", "--public-url", "HTTPS://MeSQ.example.com:443/"])
    assert settings_of(args).public_url == "https://mesq.example.com"
    with pytest.raises(ConfigError, match="--public-url"):
        settings_of(parser.parse_args(["serve", "--public-url", "https://mesq.example.com/mesq"]))


def test_official_client_signs_in_when_the_public_url_is_written_with_capitals(tmp_path) -> None:
    # The SDK writes the issuer its way (lower-case host, no trailing slash) and compares `iss` as a string.
    with first_connection(tmp_path, "http://LocalHost:{port}/", browse=LOCAL, connect=LOCAL) as (_port, storage):
        assert storage.tokens is not None and storage.tokens.access_token.startswith("mesq_at_")
