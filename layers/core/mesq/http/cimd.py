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

`client_metadata_document` puts the cache of `auth/oauth/document_cache.py` in front: a fresh
copy answers without a fetch; otherwise the document is fetched, checked as a client
(`metadata_document_client`) and remembered with its `Cache-Control` max-age. When the metadata
host fails (`MetadataHostFailed`: no answer within the deadline, a connection or TLS error, the
in-flight cap, an answer other than 200 except 404/410 (gone), a body that is not a JSON object
within the cap or not this client's document at all: an outage page) a stale copy still within
its 7 days answers instead. A 404/410, or the client's own document (its `client_id`) that no
longer describes a valid client, is definitive: the copy is forgotten and the client refused.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
from aws_lambda_powertools import Logger

from ..adapters.outbound import pinned_client
from ..asgi.body import is_json_media_type, parse_json_object
from ..auth.oauth.clients import metadata_document_client
from ..auth.oauth.document_cache import DocumentCache
from ..auth.oauth.errors import OAuthError
from ..kernel.addresses import UnsafeTarget, resolve_checked_async
from ..kernel.concurrency import run_sync
from ..kernel.errors import ValidationError

MAX_DOCUMENT_BYTES = 64 * 1024
DEADLINE_SECONDS = 5.0
MAX_IN_FLIGHT = 4
#: Answers that say the document is gone for good (RFC 9110): never covered by a stale copy.
GONE_STATUSES = frozenset({404, 410})

logger = Logger(child=True)


def _invalid(message: str) -> OAuthError:
    return OAuthError("invalid_client", f"client metadata document: {message}")


class MetadataHostFailed(OAuthError):
    """The metadata host did not give a usable answer (down, slow, erroring, an outage page):
    a stale copy may answer instead. Still `invalid_client` when none does."""

    def __init__(self, message: str) -> None:
        super().__init__("invalid_client", f"client metadata document: {message}")


@dataclass(frozen=True)
class Fetched:
    document: dict[str, Any]
    #: Seconds the host lets the document be reused (Cache-Control), None when it says nothing.
    max_age: int | None


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
                raise MetadataHostFailed(
                    "the server is fetching too many client metadata documents; try again in a few seconds"
                )
            self._count += 1
        try:
            yield
        finally:
            with self._lock:
                self._count -= 1


IN_FLIGHT = _InFlight(MAX_IN_FLIGHT)


def max_age(headers: httpx.Headers) -> int | None:
    """The seconds `Cache-Control` lets a shared cache reuse the answer (`s-maxage` before
    `max-age`, less `Age`; `no-store`/`no-cache` 0), or None when it says nothing usable."""
    directives: dict[str, str] = {}
    for part in ",".join(headers.get_list("cache-control")).split(","):
        name, _, value = part.strip().partition("=")
        if name:
            directives[name.lower()] = value.strip().strip('"')
    if "no-store" in directives or "no-cache" in directives:
        return 0
    for name in ("s-maxage", "max-age"):
        if directives.get(name, "").isdigit():
            age = headers.get("age", "")
            return max(0, int(directives[name]) - (int(age) if age.isdigit() else 0))
    return None


async def _get(url: str, allow_loopback: bool) -> tuple[int, httpx.Headers, bytes]:
    parsed = httpx.URL(url)  # checked by check_metadata_document_id: https (or loopback http)
    host = parsed.host
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        address = await resolve_checked_async(host, port, require_public=not allow_loopback)
    except UnsafeTarget as unsafe:
        raise _invalid(str(unsafe)) from None  # our own rule: no stale copy may bypass it
    headers = {
        "Accept": "application/json",
        "Accept-Encoding": "identity",  # read as sent: no decompression to outgrow the cap
        "User-Agent": "MeSQ-OAuth",
        "Host": parsed.netloc.decode("ascii"),
    }
    extensions = {"sni_hostname": host} if parsed.scheme == "https" else {}
    async with (
        pinned_client(DEADLINE_SECONDS) as client,
        client.stream("GET", parsed.copy_with(host=address), headers=headers, extensions=extensions) as response,
    ):
        body = bytearray()
        if response.status_code == 200:
            async for chunk in response.aiter_raw():
                body += chunk
                if len(body) > MAX_DOCUMENT_BYTES:
                    break
        return response.status_code, response.headers, bytes(body)


async def fetch_metadata_document(url: str, allow_loopback: bool) -> Fetched:
    """The JSON object at `url` (a checked CIMD client_id) and its max-age; OAuthError
    invalid_client (MetadataHostFailed when the host failed rather than answered)."""
    with IN_FLIGHT.slot():
        try:
            with anyio.fail_after(DEADLINE_SECONDS):
                status, headers, raw = await _get(url, allow_loopback)
        except TimeoutError:
            raise MetadataHostFailed(f"{url} did not answer within {DEADLINE_SECONDS:g} s") from None
        except (OSError, httpx.HTTPError) as error:  # also TLS failures
            raise MetadataHostFailed(f"cannot fetch {url} ({type(error).__name__})") from None
    if status in GONE_STATUSES:
        raise _invalid(f"{url} answered HTTP {status}")
    if 300 <= status < 400:
        raise MetadataHostFailed(f"{url} answered HTTP {status} (redirects are not followed)")
    if status != 200:
        raise MetadataHostFailed(f"{url} answered HTTP {status}")
    if not is_json_media_type(headers.get("content-type")):
        raise MetadataHostFailed("the media type must be application/json")
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise MetadataHostFailed(f"the document exceeds {MAX_DOCUMENT_BYTES} bytes")
    try:
        return Fetched(parse_json_object(raw), max_age(headers))
    except ValidationError as error:
        raise MetadataHostFailed(error.message) from None


async def client_metadata_document(url: str, allow_loopback: bool, cache: DocumentCache) -> dict[str, Any]:
    """The document of the CIMD client `url`, valid as a client: fresh from the cache, else
    fetched (and remembered), else, when the host fails, a stale copy (see the module docstring)."""
    cached = await run_sync(cache.lookup, url)
    if cached is not None and cached.fresh(cache.now()):
        return cached.document
    try:
        fetched = await fetch_metadata_document(url, allow_loopback)
        if fetched.document.get("client_id") != url:  # e.g. a JSON outage notice: not this client's answer
            raise MetadataHostFailed("the document's client_id must equal its URL")
        metadata_document_client(url, fetched.document)  # only a valid client is remembered
    except MetadataHostFailed as failure:
        if cached is None:
            raise
        await run_sync(cache.hold, url)
        age = int(cache.now() - cached.fresh_until)
        logger.warning(
            "client metadata host failed; using the stale copy",
            extra={"host": urlsplit(url).hostname, "staleSeconds": age, "reason": failure.description},
        )
        return cached.document
    except OAuthError:
        if cached is not None:
            await run_sync(cache.forget, url)
        raise
    await run_sync(cache.remember, url, fetched.document, fetched.max_age)
    return fetched.document
