"""Fetching OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document).

The `client_id` URL is fetched by the server on behalf of an anonymous caller, so the fetch is
tight: https only, public addresses only (no loopback, private, link-local or reserved targets:
no SSRF into the deployment's network), no redirects, a 5 s timeout, at most 64 KiB, a JSON
media type and a top-level object. `Settings.oauth_cimd_allow_loopback` (tests, local
development) admits http://127.0.0.1 and [::1] URLs and skips the address check.

The name is resolved once; every address is checked, and the connection goes to the checked
address (the request keeps the URL's host in `Host` and, for https, in SNI and the certificate
check), so a name that re-resolves elsewhere in between (DNS rebinding) cannot redirect the
fetch. What counts as public (embedded IPv4 addresses included) is `mesq/outbound.py`.

The stdlib client is enough for one GET and keeps the OAuth function free of another HTTP
library.
"""

from __future__ import annotations

import http.client
import socket
import ssl
from typing import Any
from urllib.parse import urlsplit

from ..asgi.body import is_json_media_type, parse_json_object
from ..auth.oauth.errors import OAuthError
from ..errors import ValidationError
from ..outbound import UnsafeTarget, resolve_checked

MAX_DOCUMENT_BYTES = 64 * 1024
TIMEOUT_SECONDS = 5.0


def _invalid(message: str) -> OAuthError:
    return OAuthError("invalid_client", f"client metadata document: {message}")


def _resolve(host: str, port: int, allow_loopback: bool) -> str:
    """The one address the fetch connects to, every address of `host` checked first."""
    try:
        return resolve_checked(host, port, require_public=not allow_loopback)
    except UnsafeTarget as unsafe:
        raise _invalid(str(unsafe)) from None


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to `address` instead of resolving `host` again; `Host` still names `host`."""

    def __init__(self, host: str, port: int, address: str) -> None:
        super().__init__(host, port, timeout=TIMEOUT_SECONDS)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """TLS to `address`, with SNI and certificate verification for `host`."""

    def __init__(self, host: str, port: int, address: str) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(host, port, timeout=TIMEOUT_SECONDS, context=self._tls)
        self._address = address

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)


def _get(url: str, allow_loopback: bool) -> tuple[int, str | None, bytes]:
    parts = urlsplit(url)
    host = parts.hostname or ""
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    address = _resolve(host, port, allow_loopback)
    connection_type = _PinnedHTTPSConnection if secure else _PinnedHTTPConnection
    connection = connection_type(host, port, address)
    try:
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection.request("GET", target, headers={"Accept": "application/json", "User-Agent": "MeSQ-OAuth"})
        response = connection.getresponse()  # http.client never follows redirects
        body = response.read(MAX_DOCUMENT_BYTES + 1) if response.status == 200 else b""
        return response.status, response.headers.get("Content-Type"), body
    finally:
        connection.close()


def fetch_metadata_document(url: str, allow_loopback: bool) -> dict[str, Any]:
    """The JSON object at `url` (a checked CIMD client_id), or OAuthError invalid_client."""
    try:
        status, content_type, raw = _get(url, allow_loopback)
    except (OSError, http.client.HTTPException) as error:  # also ssl.SSLError and socket timeouts
        raise _invalid(f"cannot fetch {url} ({type(error).__name__})") from None
    if 300 <= status < 400:
        raise _invalid(f"{url} answered HTTP {status} (redirects are not followed)")
    if status != 200:
        raise _invalid(f"{url} answered HTTP {status}")
    if not is_json_media_type(content_type):
        raise _invalid("the media type must be application/json")
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise _invalid(f"the document exceeds {MAX_DOCUMENT_BYTES} bytes")
    try:
        return parse_json_object(raw)
    except ValidationError as error:
        raise _invalid(error.message) from None
