"""Fetching OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document).

The `client_id` URL is fetched by the server on behalf of an anonymous caller, so the fetch is
tight: https only, public addresses only (no loopback, private, link-local or reserved targets:
no SSRF into the deployment's network), no redirects, a 5 s timeout, at most 64 KiB, a JSON
media type and a top-level object. `Settings.oauth_cimd_allow_loopback` (tests, local
development) admits http://127.0.0.1 and [::1] URLs and skips the address check.

The name is resolved once; every address is checked, and the connection goes to the checked
address (the request keeps the URL's host in `Host` and, for https, in SNI and the certificate
check), so a name that re-resolves elsewhere in between (DNS rebinding) cannot redirect the
fetch. What counts as public (embedded IPv4 addresses included) is `mesq/adapters/outbound.py`.

Anyone can make the server fetch, so the fetch is bounded in time and in number: the whole
exchange (lookup, connect, request, every byte of the answer) runs under one 5 s deadline, and
at most `MAX_IN_FLIGHT` fetches run at once in the process; one more is refused at once with
`invalid_client` rather than queued. It runs on the event loop (httpx's async client), so a
slow metadata server holds no worker thread.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import httpx

from ..adapters.outbound import UnsafeTarget, resolve_checked_async, tls_context
from ..asgi.body import is_json_media_type, parse_json_object
from ..auth.oauth.errors import OAuthError
from ..kernel.errors import ValidationError

MAX_DOCUMENT_BYTES = 64 * 1024
DEADLINE_SECONDS = 5.0
MAX_IN_FLIGHT = 4


def _invalid(message: str) -> OAuthError:
    return OAuthError("invalid_client", f"client metadata document: {message}")


class _InFlight:
    """A count of the fetches running in this process; a lock, not an asyncio primitive, since
    Lambda runs each invocation on a loop of its own."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._count = 0
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        with self._lock:
            if self._count >= self.limit:
                raise _invalid("the server is fetching too many client metadata documents; try again in a few seconds")
            self._count += 1
        try:
            yield
        finally:
            with self._lock:
                self._count -= 1


IN_FLIGHT = _InFlight(MAX_IN_FLIGHT)


async def _get(url: str, allow_loopback: bool) -> tuple[int, str | None, bytes]:
    parsed = httpx.URL(url)  # checked by check_metadata_document_id: https (or loopback http)
    host = parsed.host
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        address = await resolve_checked_async(host, port, require_public=not allow_loopback)
    except UnsafeTarget as unsafe:
        raise _invalid(str(unsafe)) from None
    headers = {
        "Accept": "application/json",
        "Accept-Encoding": "identity",  # read as sent: no decompression to outgrow the cap
        "User-Agent": "MeSQ-OAuth",
        "Host": parsed.netloc.decode("ascii"),
    }
    extensions = {"sni_hostname": host} if parsed.scheme == "https" else {}
    client_options: dict[str, Any] = {"follow_redirects": False, "trust_env": False, "verify": tls_context()}
    async with (
        httpx.AsyncClient(timeout=DEADLINE_SECONDS, **client_options) as client,
        client.stream("GET", parsed.copy_with(host=address), headers=headers, extensions=extensions) as response,
    ):
        body = bytearray()
        if response.status_code == 200:
            async for chunk in response.aiter_raw():
                body += chunk
                if len(body) > MAX_DOCUMENT_BYTES:
                    break
        return response.status_code, response.headers.get("Content-Type"), bytes(body)


async def fetch_metadata_document(url: str, allow_loopback: bool) -> dict[str, Any]:
    """The JSON object at `url` (a checked CIMD client_id), or OAuthError invalid_client."""
    with IN_FLIGHT.slot():
        try:
            with anyio.fail_after(DEADLINE_SECONDS):
                status, content_type, raw = await _get(url, allow_loopback)
        except TimeoutError:
            raise _invalid(f"{url} did not answer within {DEADLINE_SECONDS:g} s") from None
        except (OSError, httpx.HTTPError) as error:  # also TLS failures
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
