"""HTTP-level protections of the browser pages: headers, cookie attributes, origin check.

Cookies are `Secure` unless the instance is reached over plain http on a loopback address
(`mesq serve` on 127.0.0.1/localhost/::1, as tests and a laptop use it): browsers treat
loopback as a secure context, but refuse to send a Secure cookie over http to any other host, so
a LAN deployment without TLS fails closed (sign-in does not stick, and the login page says why)
instead of sending the session in clear text. With Secure the names carry the `__Host-` prefix
(no Domain, Path=/), so a sibling subdomain cannot plant or overwrite them.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from ...asgi.hosts import LOOPBACK_NAMES
from ...asgi.origin import is_allowed_origin
from ...wiring.config import Settings

_BASE_CSP = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)


def page_headers(*, consent: bool = False, connect_origins: tuple[str, ...] = ()) -> dict[str, str]:
    """Headers of every page. The consent page leaves out `form-action` (Chromium applies it to
    the redirect after its no-script form post, which must go to the client's redirect URI) and
    sends no referrer at all (its URL names the pending request). Elsewhere `same-origin`:
    under `no-referrer` browsers send `Origin: null` on the pages' own form posts.
    `connect_origins`: more origins the page's script may send to (the memo composer's direct
    uploads to object storage)."""
    csp = _BASE_CSP + ("" if consent else "; form-action 'self'")
    if connect_origins:
        csp = csp.replace("connect-src 'self'", " ".join(("connect-src 'self'", *connect_origins)))
    return {
        "Content-Security-Policy": csp,
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer" if consent else "same-origin",
        "Cache-Control": "no-store",
        "Cross-Origin-Opener-Policy": "same-origin",
    }


def instance_base(settings: Settings, request: Request) -> str:
    return settings.public_url or f"{request.url.scheme}://{request.url.netloc}"


def is_loopback_http(base_url: str) -> bool:
    parts = urlsplit(base_url)
    return parts.scheme == "http" and (parts.hostname or "") in LOOPBACK_NAMES


def cookies_secure(settings: Settings, request: Request) -> bool:
    return not is_loopback_http(instance_base(settings, request))


def insecure_transport(settings: Settings, request: Request) -> bool:
    """The cookie will be Secure but the browser talks plain http: sign-in cannot stick. (With an
    https public URL the browser is on https even when a proxy forwards plain http to us.)"""
    if settings.public_url and urlsplit(settings.public_url).scheme == "https":
        return False
    return cookies_secure(settings, request) and request.url.scheme == "http"


def cookie_name(base: str, secure: bool) -> str:
    return f"__Host-{base}" if secure else base


def set_strict_cookie(
    response: Response, request: Request, settings: Settings, name: str, value: str, max_age: int
) -> Response:
    """A short-lived HttpOnly, SameSite=Strict cookie for one page hand-over (a form token, a new
    PAT shown once): never sent cross-site, Secure wherever sessions are."""
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path="/",
        secure=cookies_secure(settings, request),
        httponly=True,
        samesite="strict",
    )
    return response


def same_origin_post(settings: Settings, request: Request) -> bool:
    """Defence in depth beside CSRF tokens: a POST from another site is refused.

    Fetch Metadata first (`Sec-Fetch-Site`, set by the browser and not forgeable by a page; sent
    to https and loopback origins), else the Origin check of the MCP endpoint (no Origin: a
    script or an old browser, which the CSRF token still guards)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    return is_allowed_origin(request.headers.get("origin"), request.headers.get("host"), settings.public_url)


def safe_next(value: str | None, default: str = "/") -> str:
    """A local path to go to after sign-in; anything else (other hosts, `//x`, `/\\x`) -> default."""
    if not value or len(value) > 2000 or not value.startswith("/") or value.startswith(("//", "/\\")):
        return default
    if any(ord(ch) < 0x20 or ch == "\x7f" for ch in value):
        return default
    return value
