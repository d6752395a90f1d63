"""One-time notices ("Token “x” revoked."): set with the redirect after a POST, shown on the page
the browser lands on, and deleted in that same response.

The text travels in a short-lived HttpOnly, SameSite=Strict cookie (`security.set_strict_cookie`),
percent-encoded; pages render it autoescaped, so a planted cookie can only show its owner text.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from starlette.requests import Request
from starlette.responses import Response

from ...wiring.config import Settings
from .render import redirect
from .security import cookie_name, cookies_secure, set_strict_cookie

FLASH_COOKIE = "mesq_flash"
FLASH_SECONDS = 60
MAX_FLASH_CHARACTERS = 300


def _name(settings: Settings, request: Request) -> str:
    return cookie_name(FLASH_COOKIE, cookies_secure(settings, request))


def redirect_with_flash(settings: Settings, request: Request, url: str, message: str) -> Response:
    value = quote(message[:MAX_FLASH_CHARACTERS], safe="")
    return set_strict_cookie(redirect(url), request, settings, _name(settings, request), value, FLASH_SECONDS)


def pending_flash(settings: Settings, request: Request) -> str | None:
    raw = request.cookies.get(_name(settings, request))
    return unquote(raw)[:MAX_FLASH_CHARACTERS] if raw else None


def clear_flash(settings: Settings, request: Request, response: Response) -> None:
    if request.cookies.get(_name(settings, request)):
        response.delete_cookie(_name(settings, request), path="/", secure=cookies_secure(settings, request))
