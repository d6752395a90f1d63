"""RFC 8707 resource rules as a table: which resources an authorization may name, and where
the resulting token is accepted."""

from __future__ import annotations

import pytest

from mesq.auth.oauth.errors import OAuthError
from mesq.auth.oauth.resources import accepts, normalize_resource

HOST = "https://mesq.example"


@pytest.mark.parametrize(
    ("given", "normalized"),
    [
        (None, f"{HOST}/mcp"),
        ("", f"{HOST}/mcp"),
        (f"{HOST}/mcp", f"{HOST}/mcp"),
        (f"{HOST}/mcp/", f"{HOST}/mcp"),
        ("HTTPS://MESQ.EXAMPLE:443/mcp/readonly", f"{HOST}/mcp/readonly"),
        (f"{HOST}/mcp/x/memo,todo", f"{HOST}/mcp/x/memo,todo"),
        (f"{HOST}/mcp/x/memo/readonly", f"{HOST}/mcp/x/memo/readonly"),
        (f"{HOST}/api/toolkit", f"{HOST}/api/toolkit"),
    ],
)
def test_resources_of_this_instance(given, normalized):
    assert normalize_resource(given, HOST) == normalized


@pytest.mark.parametrize(
    "given",
    [
        "https://other.example/mcp",
        "http://mesq.example/mcp",  # another origin: the scheme differs
        "https://mesq.example:8443/mcp",
        f"{HOST}",
        f"{HOST}/",
        f"{HOST}/mcpx",
        f"{HOST}/mcp/x/",
        f"{HOST}/mcp/x/memo/write",
        f"{HOST}/mcp/x/unknown",
        f"{HOST}/mcp/x/memo,nope/readonly",
        f"{HOST}/mcp/x/,",
        f"{HOST}/mcp/x/Memo",  # toolset names are lower-case, as the route has them
        f"{HOST}/mcp/x/MEMO/readonly",
        f"{HOST}/mcp/x/me%6Do",  # percent-encoded: refused as the route refuses it
        f"{HOST}/mcp/x/{'memo,' * 41}",
        f"{HOST}/api/toolkit/memo",
        f"{HOST}/mcp?x=1",
        f"{HOST}/mcp#frag",
        "https://user@mesq.example/mcp",
        "urn:mesq",
    ],
)
def test_other_resources_are_invalid_targets(given):
    with pytest.raises(OAuthError) as error:
        normalize_resource(given, HOST)
    assert error.value.error == "invalid_target"


def test_unknown_toolset_resource_lists_the_valid_toolsets():
    with pytest.raises(OAuthError) as error:
        normalize_resource(f"{HOST}/mcp/x/memo,unknown", HOST)
    assert "unknown toolset(s) 'unknown'" in error.value.description
    assert "valid toolsets: memo, memo_attachments, todo" in error.value.description
    assert normalize_resource(f"{HOST}/mcp/x/all", HOST) == f"{HOST}/mcp/x/all"


@pytest.mark.parametrize(
    ("bound", "path", "accepted"),
    [
        ("/mcp", "/mcp", True),
        ("/mcp", "/mcp/readonly", True),
        ("/mcp", "/mcp/x/memo", True),
        ("/mcp", "/mcp/x/memo/readonly", True),
        ("/mcp", "/api/toolkit/memo", True),
        ("/mcp/readonly", "/api/toolkit/memo", False),
        ("/mcp/x/memo", "/api/toolkit/memo", False),
        ("/mcp/readonly", "/mcp/readonly", True),
        ("/mcp/readonly", "/mcp", False),
        ("/mcp/readonly", "/mcp/x/memo/readonly", False),
        ("/mcp/x/memo", "/mcp/x/memo", True),
        ("/mcp/x/memo", "/mcp/x/memo/readonly", True),
        ("/mcp/x/memo", "/mcp/x/memo,todo", False),
        ("/mcp/x/memo", "/mcp", False),
        ("/api/toolkit", "/api/toolkit/memo", True),
        ("/api/toolkit", "/mcp", False),
    ],
)
def test_audience(bound, path, accepted):
    assert accepts(HOST + bound, HOST, path) is accepted


def test_audience_needs_the_same_instance():
    assert accepts("https://other.example/mcp", HOST, "/mcp") is False
    assert accepts(f"{HOST}/mcp", "https://mesq.example:443", "/mcp") is True
