"""`Origin` check against DNS rebinding (docs/contract.md §2, memos' `isAllowedMCPOrigin`).

Allowed: no `Origin` (desktop clients and scripts omit it), the instance's own origin — the
configured instance URL, or an `Origin` whose host[:port] equals the `Host` header (host
comparison only: TLS may end at a proxy) — or, on a server reached over loopback, any loopback
origin (a local tool on another port). Anything else, including the opaque origin `null`, is
refused. "Equals the Host" is safe only because `Host` itself was checked first
(mesq/asgi/hosts.py, on every app): a rebinding page's Host is 421 before this runs.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .hosts import LOOPBACK_NAMES, host_name

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _authority(scheme: str, host: str | None, port: int | None) -> str | None:
    if not host:
        return None
    host = host.lower()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # IPv6 literal
    if port is None or port == _DEFAULT_PORTS.get(scheme):
        return host
    return f"{host}:{port}"


def _origin_parts(value: str) -> tuple[str, str] | None:
    """(scheme, authority) of an origin or URL, None when it is not one."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        return None
    authority = _authority(scheme, parts.hostname, port)
    return (scheme, authority) if authority else None


def _host_header(host: str) -> str:
    host = host.strip().lower()
    for scheme_port in (":80", ":443"):
        # A default port in Host is equivalent to none (the Origin's scheme decides which).
        if host.endswith(scheme_port) and not host.endswith("]"):
            return host[: -len(scheme_port)]
    return host


def is_allowed_origin(origin: str | None, host: str | None, instance_url: str | None) -> bool:
    if origin is None:
        return True
    parsed = _origin_parts(origin)
    if parsed is None:
        return False
    scheme, authority = parsed
    if host and authority == _host_header(host):
        return True
    if host and host_name(host) in LOOPBACK_NAMES and host_name(authority) in LOOPBACK_NAMES:
        return True
    if instance_url:
        instance = _origin_parts(instance_url)
        if instance is not None and instance == (scheme, authority):
            return True
    return False
