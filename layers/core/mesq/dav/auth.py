"""Who a CalDAV request comes from: HTTP Basic with the MeSQ username and a personal access token
as the password (docs/caldav.md). Calendar apps speak Basic, not Bearer.

- Over https only: plain http is answered 403 unless the peer is this machine (`mesq serve` on
  loopback, or a reverse proxy on it that ends TLS), so a token never travels in clear text.
- The token must belong to the named user (read as the sign-in page reads it: outer spaces
  dropped, lowercase, so the "Alice " a phone's keyboard made still names alice); a missing or
  wrong credential is 401 with a Basic challenge and counts against the client IP's
  `unauthenticated` budget (guessing ends in 429).
- Scopes are the todo scopes: `todo:read` to read the calendars, `todo:write` as well to change
  them (a read-only token gets a read-only calendar).
- Every authenticated request counts one `tool_call` against the token, as REST and MCP calls
  do (docs/contract.md §7): 429 with Retry-After once the minute's budget is spent.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from ..application.ratelimit import RateLimiter
from ..asgi.instance import client_ip
from ..auth.tokens import authenticate_token
from ..auth.users import get_user, preferred_language
from ..kernel.context import Principal
from ..kernel.errors import RateLimited, Unauthorized
from ..kernel.i18n import Text, requested_language
from ..wiring.services import Services
from .errors import DavError

READ, WRITE = "todo:read", "todo:write"


@dataclass(frozen=True)
class Caller:
    principal: Principal
    username: str
    #: The person's language (Settings, else the request's `Accept-Language`, else their
    #: browser's at sign-in), from the profile the sign-in read: what a refusal and the names
    #: MeSQ gives things are said in, with no second read of the profile.
    language: str = ""

    @property
    def can_write(self) -> bool:
        return WRITE in self.principal.scopes


def secure_enough(request: Request) -> bool:
    """https, or a peer on this machine (what `mesq serve` sees from a local client or proxy)."""
    if request.url.scheme == "https":
        return True
    try:
        return ipaddress.ip_address(client_ip(request)).is_loopback
    except ValueError:
        return False


def _credentials(request: Request) -> tuple[str, str] | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic" or not value.strip():
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    username, colon, password = decoded.partition(":")
    username = username.strip().lower()  # as the sign-in page reads it: usernames are lowercase
    return (username, password) if colon and username and password else None


def caller(request: Request, services: Services, limiter: RateLimiter) -> Caller:
    """The authenticated caller (sync: it reads the store). DavError 401/403/429 otherwise."""
    if not secure_enough(request):
        raise DavError(403, Text("CalDAV needs https: the password is an access token"))
    found = _credentials(request)
    signed_in = _principal(services, found) if found is not None else None
    if found is None or signed_in is None:
        if limiter.enabled:
            try:
                limiter.hit(f"ip:{client_ip(request)}", "unauthenticated")
            except RateLimited as error:
                raise DavError(429, error.text, headers=_retry(error)) from None
        raise DavError(401, Text("sign in with your MeSQ username and a personal access token as the password"))
    principal, profile = signed_in
    language = preferred_language(profile, requested_language(request.headers.get("accept-language")))
    try:
        if READ not in principal.scopes:
            raise DavError(403, Text("this token lacks the scope %(scope)s, which CalDAV needs", scope="todo:read"))
        if limiter.enabled:
            try:
                limiter.hit(principal.credential_id, "tool_call")
            except RateLimited as error:
                raise DavError(429, error.text, headers=_retry(error)) from None
    except DavError as refused:  # the person is known: said in their language, as after this
        refused.language = language
        raise
    return Caller(principal=principal, username=found[0], language=language)


def _retry(error: RateLimited) -> dict[str, str]:
    return {"Retry-After": str(error.retry_after_seconds)} if error.retry_after_seconds else {}


def _principal(services: Services, found: tuple[str, str]) -> tuple[Principal, dict[str, Any]] | None:
    """The token's principal and its user's profile, when the token is the named user's."""
    username, password = found
    try:
        principal = authenticate_token(services.items, password)
    except Unauthorized:
        return None
    profile = get_user(services.items, principal.user_id)
    if profile is None or profile.get("username") != username:
        return None
    return principal, profile
