"""First-run set-up, sign-in and sign-out.

Before sign-in there is no session to tie a CSRF token to, so the set-up and login forms use a
double-submit token: a random value in a `SameSite=Strict` HttpOnly cookie (`__Host-` prefixed
when Secure, so no other site or subdomain can set it) that the form must echo. With the Origin
check of the pipeline this stops login CSRF without writing anything to the store for visitors.
"""

from __future__ import annotations

import secrets
from urllib.parse import parse_qs, quote, urlsplit

from starlette.responses import Response
from starlette.routing import Route

from ...asgi.instance import client_ip
from ...auth.oauth.authorization import load_pending
from ...auth.oauth.metadata import CONSENT_PATH
from ...auth.users import SetupAlreadyDone, any_user_exists, check_password, create_user, note_browser_language
from ...kernel.concurrency import run_sync
from ...kernel.errors import Forbidden, NotFound, ValidationError
from ...kernel.i18n import requested_language
from ..kit.framework import Page, Web, clear_session_cookie, endpoint, set_session_cookie
from ..kit.render import redirect
from ..kit.scope_words import app_name
from ..kit.security import cookie_name, cookies_secure, insecure_transport, safe_next, set_strict_cookie
from ..kit.sessions import create_session, end_session, same_token

LOGIN_COOKIE = "mesq_login"
LOGIN_COOKIE_SECONDS = 3600
HOME = "/"


def _login_cookie_name(page: Page) -> str:
    return cookie_name(LOGIN_COOKIE, cookies_secure(page.web.services.settings, page.request))


def _form_token(page: Page) -> str:
    """The double-submit token: the cookie's value, or a new one."""
    return page.request.cookies.get(_login_cookie_name(page)) or secrets.token_urlsafe(32)


def _with_form_token(page: Page, response: Response, token: str) -> Response:
    return set_strict_cookie(
        response, page.request, page.web.services.settings, _login_cookie_name(page), token, LOGIN_COOKIE_SECONDS
    )


def _check_form_token(page: Page) -> None:
    if not same_token(page.request.cookies.get(_login_cookie_name(page), ""), page.fields.text("csrf") or None):
        raise Forbidden(
            # A sentence on its own on the sign-in page (not a field's error): it starts with a capital.
            "The sign-in form is out of date or your browser did not keep its cookie (CSRF check failed); "
            "reload the page and try again"
        )


async def _signed_in(page: Page, user_id: str, username: str, target: str) -> Response:
    session = await run_sync(create_session, page.web.services.items, user_id, username, page.web.clock)
    asked = requested_language(page.request.headers.get("accept-language"))
    if asked:  # what a reminder speaks when the account's language is "as the browser says"
        await run_sync(note_browser_language, page.web.services.items, user_id, asked)
    response = redirect(target)
    set_session_cookie(page.web, page.request, response, session)
    response.delete_cookie(
        _login_cookie_name(page), path="/", secure=cookies_secure(page.web.services.settings, page.request)
    )
    return response


def _form_page(
    page: Page, template: str, *, status: int = 200, token: str | None = None, **context: object
) -> Response:
    token = token or _form_token(page)
    response = page.render(
        template,
        csrf=token,
        insecure=insecure_transport(page.web.services.settings, page.request),
        **context,
    )
    response.status_code = status
    return _with_form_token(page, response, token)


async def _users_exist(page: Page) -> bool:
    return await run_sync(any_user_exists, page.web.services.items)


# -- set-up ------------------------------------------------------------------------------------


# Once an account exists, /setup sends the visitor to sign-in (a bookmarked or shared set-up
# link is not an error); a POST is redirected before its form is read, so nothing is created.
SETUP_DONE = "/login"


def _carrying(path: str, target: str) -> str:
    """`path` with `?next=<target>` unless the target is home: a person sent to sign in (or, on a
    fresh instance, to set up) from the OAuth consent page goes back there afterwards."""
    return path if target == HOME else f"{path}?next={quote(target, safe='')}"


async def _connecting(page: Page, target: str) -> str | None:
    """The app asking for access when the sign-in leads on to its consent page (`next` is
    `/oauth/consent?request=<id>`), so the page says why the person is asked to sign in: an MCP
    host's "Connect" opened a bare sign-in form, nothing on it naming the app or the approval
    after. None for any other `next`, or a request unknown, answered or expired (the consent page
    says so after the sign-in)."""
    parts = urlsplit(target)
    if parts.path != CONSENT_PATH:
        return None
    request_id = (parse_qs(parts.query).get("request") or [""])[0]
    try:
        pending = await run_sync(load_pending, page.web.services.items, request_id)
    except NotFound:
        return None
    return app_name(pending.client_name, page.translator)


async def setup_form(page: Page) -> Response:
    target = safe_next(page.request.query_params.get("next"), HOME)
    if await _users_exist(page):
        return redirect(_carrying(SETUP_DONE, target))
    return _form_page(
        page, "settings/setup.html", next=target, username="", error=None, connecting=await _connecting(page, target)
    )


async def setup_submit(page: Page) -> Response:
    target = safe_next(page.fields.text("next"), HOME)
    if await _users_exist(page):
        return redirect(_carrying(SETUP_DONE, target))
    _check_form_token(page)
    username = page.fields.text("username").strip().lower()
    password = page.fields.text("password")
    if password != page.fields.text("confirm"):
        mismatch = page.gettext("The passwords do not match.")
        return _form_page(
            page, "settings/setup.html", status=400, next=target, username=username, error=mismatch,
            connecting=await _connecting(page, target),
        )  # fmt: skip
    try:
        user = await run_sync(create_user, page.web.services.items, username, password, admin=True, first_user=True)
    except SetupAlreadyDone:  # another set-up won the race
        return redirect(_carrying(SETUP_DONE, target))
    except ValidationError as error:
        return _form_page(
            page, "settings/setup.html", status=400, next=target, username=username, error=page.error_text(error),
            connecting=await _connecting(page, target),
        )  # fmt: skip
    return await _signed_in(page, user["id"], user["username"], target)


# -- sign-in / sign-out ------------------------------------------------------------------------


async def login_form(page: Page) -> Response:
    target = safe_next(page.request.query_params.get("next"), HOME)
    if page.session is not None:
        return redirect(target)
    if not await _users_exist(page):
        return redirect(_carrying("/setup", target))
    return _form_page(
        page, "settings/login.html", next=target, username="", error=None, connecting=await _connecting(page, target)
    )


async def login_submit(page: Page) -> Response:
    _check_form_token(page)
    target = safe_next(page.fields.text("next"), HOME)
    username = page.fields.text("username").strip().lower()
    password = page.fields.text("password")
    ip = client_ip(page.request)
    throttle = page.web.throttle
    wait = await run_sync(throttle.blocked_for, username, ip)
    if wait is not None:
        minutes = max(1, (wait + 59) // 60)
        response = _form_page(
            page, "settings/login.html", status=429, next=target, username=username,
            connecting=await _connecting(page, target),
            error=page.ngettext(
                "Too many failed sign-in attempts. Try again in %(num)d minute.",
                "Too many failed sign-in attempts. Try again in %(num)d minutes.",
                minutes,
            ),
        )  # fmt: skip
        response.headers["Retry-After"] = str(wait)
        return response
    profile = await run_sync(check_password, page.web.services.items, username, password) if username else None
    if profile is None:
        await run_sync(throttle.failed, username, ip)
        return _form_page(
            page,
            "settings/login.html",
            status=401,
            next=target,
            username=username,
            connecting=await _connecting(page, target),
            error=page.gettext("Wrong username or password."),
        )
    await run_sync(throttle.succeeded, username, ip)
    return await _signed_in(page, profile["userId"], profile["username"], target)


async def logout(page: Page) -> Response:
    # Signed out already (in another tab, by a changed password, by expiry): there is nothing to
    # end, and "Sign out" lands on the sign-in page as it would have; it was a 401 error page.
    if page.session is None:
        response = redirect("/login")
        clear_session_cookie(page.web, page.request, response)
        return response
    if not same_token(page.session.csrf_token, page.fields.text("csrf") or None):
        raise Forbidden("the form is out of date (CSRF check failed); reload the page and try again")
    await run_sync(end_session, page.web.services.items, page.session.session_id)
    response = redirect("/login")
    clear_session_cookie(page.web, page.request, response)
    return response


async def signed_out_home(page: Page) -> Response:
    """`/` for a visitor without a session: sign-in (or the first-run set-up). Signed in, `/` is
    the memo timeline (`../memos/pages.py`)."""
    return redirect("/login" if await _users_exist(page) else "/setup")


def account_routes(web: Web) -> list[Route]:
    return [
        Route("/setup", endpoint(web, setup_form, session="optional"), methods=["GET"]),
        Route("/setup", endpoint(web, setup_submit, session="optional"), methods=["POST"]),
        Route("/login", endpoint(web, login_form, session="optional"), methods=["GET"]),
        Route("/login", endpoint(web, login_submit, session="optional"), methods=["POST"]),
        Route("/logout", endpoint(web, logout, session="optional"), methods=["POST"]),
    ]


__all__ = ["account_routes", "signed_out_home"]
