"""Settings -> Access credentials (设置 → 访问凭证): personal access tokens.

A new token is shown exactly once, on the page the browser lands on after creating it
(post/redirect/get, so a reload never creates a second token). It travels there in a
two-minute, HttpOnly, SameSite=Strict cookie scoped like the session; the page shows it only if
its SHA-256 matches the stored token record of the signed-in user, and deletes the cookie in
the same response. The server never stores the secret: only its hash, as `auth/tokens.py` does.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...auth.scopes import ALL_SCOPES
from ...auth.tokens import (
    MAX_EXPIRY_DAYS,
    create_token,
    list_tokens,
    public_token,
    record_key,
    revoke_token,
    secret_digest,
    token_status,
)
from ...history.reads import recent_changes
from ...kernel.concurrency import run_sync
from ...kernel.errors import NotFound, ValidationError
from ...kernel.messages import quoted
from ..activity.pages import last_session_views
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import N_
from ..kit.render import redirect
from ..kit.scope_words import describe
from ..kit.security import cookie_name, cookies_secure, instance_base, set_strict_cookie
from .calendar import dav_server

NEW_TOKEN_COOKIE = "mesq_new_token"
NEW_TOKEN_SECONDS = 120
EXPIRY_CHOICES = (
    ("", N_("Never")),  # the expiry choice (the table says pgettext("expires", "never"))
    ("7", N_("7 days")),
    ("30", N_("30 days")),
    ("90", N_("90 days")),
    ("365", N_("1 year")),
)
PAGE = "/settings/tokens"
#: `?for=caldav`: the token form as Settings -> Calendar links to it, and the page after it, which
#: repeats what the calendar app asks for beside the new token (the person need not go back).
FOR_CALDAV = "caldav"


def _flash_name(page: Page) -> str:
    return cookie_name(NEW_TOKEN_COOKIE, cookies_secure(page.web.services.settings, page.request))


def _revealed(page: Page) -> dict[str, str] | None:
    """The token to show once, if the cookie holds a live token of this user."""
    value = page.request.cookies.get(_flash_name(page), "")
    token_id, _, secret = value.partition(".")
    if not token_id or not secret:
        return None
    record = page.web.services.items.get(record_key(page.user.user_id, token_id))
    if record is None or record.get("revokedAt"):
        return None
    if record["digest"] != secret_digest(secret):
        return None
    return {"id": token_id, "name": record["name"], "token": secret}


def _page(page: Page, *, status: int = 200, error: str | None = None, form: dict[str, Any] | None = None) -> Response:
    now = datetime.fromtimestamp(page.web.clock(), UTC)
    items, user_id = page.web.services.items, page.user.user_id
    sessions = last_session_views(page, recent_changes(items, user_id))
    tokens: list[dict[str, Any]] = []
    for token in list_tokens(items, user_id):
        actor = f"pat:{token['id']}"
        state = token_status(token, now)
        tokens.append({**token, "status": state, "actor": actor, "lastSession": sessions.get(actor)})
    # Usable tokens first, then expired, then revoked; newest first within each.
    rank = {"active": 0, "expired": 1, "revoked": 2}
    ordered = sorted(sorted(tokens, key=lambda t: t["createdAt"], reverse=True), key=lambda t: rank[t["status"]])
    revealed = _revealed(page) if status == 200 else None
    calendar_app = None
    if revealed is not None and page.request.query_params.get("for") == FOR_CALDAV:
        settings = page.web.services.settings
        calendar_app = {"dav": dav_server(instance_base(settings, page.request), settings.dav_url),
                        "username": page.user.username}  # fmt: skip
    response = page.render(
        "settings/tokens.html",
        nav="tokens",
        tokens=ordered,
        revealed=revealed,
        calendar_app=calendar_app,
        scopes=[(scope, describe(scope, page.translator)) for scope in ALL_SCOPES],
        expiry_choices=EXPIRY_CHOICES,
        error=error,
        form=form or _blank_form(page),
    )
    response.status_code = status
    if page.request.cookies.get(_flash_name(page)):
        response.delete_cookie(
            _flash_name(page), path="/", secure=cookies_secure(page.web.services.settings, page.request)
        )
    return response


def _blank_form(page: Page) -> dict[str, Any]:
    """An empty form; `?for=caldav` (the link on Settings -> Calendar) ticks the two scopes a
    calendar app needs and names the token for it: with the default memo:read it could not sign in."""
    if page.request.query_params.get("for") == FOR_CALDAV:
        return {"name": page.gettext("Calendar app"), "scopes": ["todo:read", "todo:write"], "expiry": "",
                "for": FOR_CALDAV}  # fmt: skip
    return {"name": "", "scopes": ["memo:read"], "expiry": ""}


async def tokens_page(page: Page) -> Response:
    return await run_sync(_page, page)


def _expiry_days(raw: str) -> int | None:
    raw = raw.strip()
    if not raw:
        return None
    # isascii: str.isdigit() also says yes to "²" (which int() refuses) and to other scripts' digits.
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_EXPIRY_DAYS:
        raise ValidationError(
            "expiry must be a number of days between 1 and %(max_expiry_days)s, or never",
            max_expiry_days=MAX_EXPIRY_DAYS,
        )
    return int(raw)


async def create_token_submit(page: Page) -> Response:
    name = page.fields.text("name")
    scopes = [value for value in page.fields.all("scopes") if isinstance(value, str)]
    expiry = page.fields.text("expiry")
    purpose = FOR_CALDAV if page.fields.text("for") == FOR_CALDAV else ""
    try:
        if not scopes:
            raise ValidationError("choose at least one scope")
        secret, record = await run_sync(
            create_token, page.web.services.items, page.user.user_id,
            name=name, scopes=scopes, expires_days=_expiry_days(expiry),
        )  # fmt: skip
    except ValidationError as error:
        form = {"name": name, "scopes": scopes, "expiry": expiry, "for": purpose}
        return await run_sync(partial(_page, page, status=400, error=page.error_text(error), form=form))
    response = redirect(f"{PAGE}?for={purpose}" if purpose else PAGE)
    flash = f"{record['id']}.{secret}"
    settings = page.web.services.settings
    return set_strict_cookie(response, page.request, settings, _flash_name(page), flash, NEW_TOKEN_SECONDS)


def _own_token(page: Page) -> dict[str, Any]:
    # The key is built from the session's user: another user's token id is NOT_FOUND.
    token_id = page.request.path_params["token_id"]
    record = page.web.services.items.get(record_key(page.user.user_id, token_id)) if len(token_id) <= 100 else None
    if record is None:
        raise NotFound("no token %(token_id)s", token_id=quoted(token_id))
    return public_token(record)


async def confirm_revoke(page: Page) -> Response:
    token = await run_sync(_own_token, page)
    if token.get("revokedAt"):
        return page.redirect_with_flash(PAGE, page.gettext("Token “%(name)s” was revoked already.", name=token["name"]))
    return page.render("settings/token_revoke.html", nav="tokens", token=token)


async def revoke_token_submit(page: Page) -> Response:
    token = await run_sync(
        revoke_token, page.web.services.items, page.user.user_id, page.request.path_params["token_id"]
    )
    return page.redirect_with_flash(
        PAGE, page.gettext("Token “%(name)s” revoked: it no longer works.", name=token["name"])
    )


def credential_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, tokens_page), methods=["GET"]),
        Route(PAGE, endpoint(web, create_token_submit), methods=["POST"]),
        Route(PAGE + "/{token_id}/revoke", endpoint(web, confirm_revoke), methods=["GET"]),
        Route(PAGE + "/{token_id}/revoke", endpoint(web, revoke_token_submit), methods=["POST"]),
    ]
