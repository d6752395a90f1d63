"""Fetching OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document).

The `client_id` URL is fetched by the server on behalf of an anonymous caller, so the fetch is
tight: https only, public addresses only (no loopback, private, link-local or reserved targets:
no SSRF into the deployment's network), no redirects, a 5 s timeout, at most 64 KiB, a JSON
media type and a top-level object. `Settings.oauth_cimd_allow_loopback` (tests, local
development) admits http://127.0.0.1 and [::1] URLs and skips the address check.

The stdlib client is enough for one GET and keeps the OAuth function free of another HTTP
library. The address check resolves the name before connecting; a name that re-resolves
differently in between (DNS rebinding) is a known gap, narrowed by the short timeout.
"""

from __future__ import annotations

import ipaddress
import socket
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from ..asgi.body import is_json_media_type, parse_json_object
from ..auth.oauth.errors import OAuthError
from ..errors import ValidationError

MAX_DOCUMENT_BYTES = 64 * 1024
TIMEOUT_SECONDS = 5.0


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the 3xx then surfaces as an HTTPError


_opener = urllib.request.build_opener(_NoRedirects)


def _invalid(message: str) -> OAuthError:
    return OAuthError("invalid_client", f"client metadata document: {message}")


def _check_public_address(host: str, port: int) -> None:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise _invalid(f"cannot resolve {host}") from None
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if not address.is_global:
            raise _invalid(f"{host} resolves to a non-public address")


def fetch_metadata_document(url: str, allow_loopback: bool) -> dict[str, Any]:
    """The JSON object at `url` (a checked CIMD client_id), or OAuthError invalid_client."""
    parts = urlsplit(url)
    if not allow_loopback:
        _check_public_address(parts.hostname or "", parts.port or 443)
    request = urllib.request.Request(url, headers={"Accept": "application/json", "User-Agent": "MeSQ-OAuth"})  # noqa: S310  # scheme checked by the caller
    try:
        with _opener.open(request, timeout=TIMEOUT_SECONDS) as response:
            if response.status != 200:
                raise _invalid(f"{url} answered HTTP {response.status}")
            if not is_json_media_type(response.headers.get("Content-Type")):
                raise _invalid("the media type must be application/json")
            raw = response.read(MAX_DOCUMENT_BYTES + 1)
    except urllib.error.HTTPError as error:
        raise _invalid(f"{url} answered HTTP {error.code} (redirects are not followed)") from None
    except (urllib.error.URLError, OSError) as error:
        raise _invalid(f"cannot fetch {url} ({type(error).__name__})") from None
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise _invalid(f"the document exceeds {MAX_DOCUMENT_BYTES} bytes")
    try:
        return parse_json_object(raw)
    except ValidationError as error:
        raise _invalid(error.message) from None
