"""Settings -> Calendar feed (设置 → 日历订阅), and the feed itself.

The page also says how to set up a CalDAV app (docs/caldav.md): the server address (`MESQ_DAV_URL`
when CalDAV has a host of its own, as on AWS, else this instance's; `/dav/` on it), the user name,
and that the password is a token with the todo scopes (a link to create one, those scopes ticked).

The page creates, rotates and revokes the user's secret feed URL (`calendar_feed/feed_secret.py`:
only a hash is stored). A new URL is shown once, on the page the browser lands on after the POST
(post/redirect/get, like a new PAT): it travels in a two-minute HttpOnly, SameSite=Strict cookie
and is shown only while its hash is still the user's live feed.

`GET /calendar/<secret>.ics` is the feed a calendar app subscribes to: no session and no bearer
token (calendar apps send neither), the secret in the URL is the credential. An unknown,
revoked or rotated secret is a 404 that says nothing more. Read-only; `Cache-Control: private`
(a shared cache must never keep one person's todos).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from ...auth.tokens import secret_digest
from ...auth.user_zone import configured_zone
from ...auth.users import get_user, preferred_language
from ...calendar_feed import feed_secret
from ...calendar_feed.ics import feed
from ...calendar_feed.source import dated_records
from ...kernel.concurrency import run_sync
from ...kernel.errors import ValidationError
from ...kernel.i18n import LANGUAGE_TAGS, Translator, negotiate
from ..kit.framework import Page, Web, endpoint
from ..kit.render import redirect
from ..kit.security import cookie_name, cookies_secure, instance_base, set_strict_cookie

PAGE = "/settings/calendar"
FEED_ROUTE = "/calendar/{feed}"
NEW_FEED_COOKIE = "mesq_new_feed"
NEW_FEED_SECONDS = 120
FEED_HEADERS = {
    "Cache-Control": "private, max-age=300",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _cookie(page: Page) -> str:
    return cookie_name(NEW_FEED_COOKIE, cookies_secure(page.web.services.settings, page.request))


def feed_url(base: str, secret: str) -> str:
    return f"{base}/calendar/{secret}.ics"


def dav_server(base: str, dav_url: str | None) -> str:
    return f"{dav_url or base}/dav/"


def _page(page: Page) -> Response:
    items = page.web.services.items
    current = feed_secret.feed_record(items, page.user.user_id)
    secret = page.request.cookies.get(_cookie(page), "")
    stored = items.get(feed_secret.record_key(page.user.user_id))
    shown = None
    if secret and stored is not None and stored.get("digest") == secret_digest(secret):
        shown = feed_url(instance_base(page.web.services.settings, page.request), secret)
    settings = page.web.services.settings
    dav = dav_server(instance_base(settings, page.request), settings.dav_url)
    response = page.render(
        "settings/calendar.html", nav="calendar", feed=current, url=shown, dav=dav, username=page.user.username
    )
    if page.request.cookies.get(_cookie(page)):
        response.delete_cookie(_cookie(page), path="/", secure=cookies_secure(page.web.services.settings, page.request))
    return response


async def calendar_page(page: Page) -> Response:
    return await run_sync(_page, page)


async def issue_submit(page: Page) -> Response:
    secret = await run_sync(feed_secret.issue, page.web.services.items, page.user.user_id)
    settings = page.web.services.settings
    return set_strict_cookie(redirect(PAGE), page.request, settings, _cookie(page), secret, NEW_FEED_SECONDS)


async def revoke_submit(page: Page) -> Response:
    if page.fields.text("confirm") != "yes":
        raise ValidationError("confirm revoking the calendar feed")
    await run_sync(feed_secret.revoke, page.web.services.items, page.user.user_id)
    return page.redirect_with_flash(PAGE, page.gettext("Calendar feed revoked: its URL no longer works."))


def _feed_body(web: Web, secret: str) -> bytes | None:
    user_id = feed_secret.owner_of(web.services.items, secret)
    if user_id is None:
        return None
    items = web.services.items
    language = preferred_language(get_user(items, user_id))
    return feed(dated_records(items, user_id), configured_zone(items, user_id), language)


def feed_endpoint(web: Web) -> Route:
    async def serve(request: Request) -> Response:
        name = request.path_params["feed"]
        body = await run_sync(_feed_body, web, name.removesuffix(".ics")) if name.endswith(".ics") else None
        if body is None:  # no account is known from a URL that reads nothing: the browser's language
            language = negotiate(request.headers.get("accept-language"))
            words = Translator(language).gettext(
                "No calendar feed at this address: it was replaced by a new one or revoked, or it is mistyped."
            )
            headers = {
                "Cache-Control": "no-store",
                "Content-Language": LANGUAGE_TAGS[language],
                "Vary": "Accept-Language",
            }
            return PlainTextResponse(words, status_code=404, headers=headers)
        return Response(body, media_type="text/calendar; charset=utf-8", headers=FEED_HEADERS)

    return Route(FEED_ROUTE, serve, methods=["GET"])


def calendar_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, calendar_page), methods=["GET"]),
        Route(PAGE, endpoint(web, issue_submit), methods=["POST"]),
        Route(PAGE + "/revoke", endpoint(web, revoke_submit), methods=["POST"]),
        feed_endpoint(web),
    ]
