"""The outbound HTTP clients (httpx) of the requests the service makes on a user's behalf: the
OAuth client metadata fetch (`http/cimd.py`) and the reminder senders (`adapters/reminders/`).
Where they may connect is decided by the address rules (mesq/kernel/addresses.py): each caller
resolves the host once, checks it, and connects to that address, so these clients never
follow redirects or take a proxy from the environment (either would undo the pinning).
"""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One verifying TLS context (httpx's default) for every outbound client: building one reads
    the whole CA bundle, too slow to repeat on the event loop for each request."""
    return httpx.create_ssl_context()


def pinned_client(timeout: float, limits: httpx.Limits | None = None) -> httpx.AsyncClient:
    """A client for requests to an address the caller checked: no redirects, no proxy from the
    environment, the shared TLS context."""
    return httpx.AsyncClient(
        timeout=timeout, follow_redirects=False, trust_env=False, verify=tls_context(),
        limits=limits or httpx.Limits(),
    )  # fmt: skip
