"""Settings -> Connected apps (已连接应用): the OAuth grants of the signed-in user, one row per app
(grants of the same name, redirect URI and connection URL: a host that registered again after
losing its client, or another device; `auth/oauth/connected_apps.py`); disconnecting a row
revokes every access and refresh token of its grants, all or none: when they cannot all be ended,
the list says so, with the row of what is still connected to revoke again."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from starlette.responses import Response
from starlette.routing import Route

from ...auth.oauth.connected_apps import NotDisconnected, disconnect_app, get_app, list_apps
from ...history.reads import recent_changes
from ...kernel.concurrency import run_sync
from ..activity.pages import MAX_ACTORS, last_session_views
from ..kit.framework import Page, Web, endpoint
from ..kit.scope_words import app_name, connection_words, describe

PAGE = "/settings/apps"


def activity_url(grant_ids: list[str]) -> str:
    """/activity showing every change of an app's connections (one `actor` per grant)."""
    return "/activity?" + urlencode([("actor", f"oauth:{grant_id}") for grant_id in grant_ids[:MAX_ACTORS]])


async def apps_page(page: Page) -> Response:
    grants = await run_sync(list_apps, page.web.services.items, page.user.user_id)
    sessions = last_session_views(page, await run_sync(recent_changes, page.web.services.items, page.user.user_id))
    shown = [
        {
            **grant,
            "clientName": app_name(grant["clientName"], page.translator),
            "scopeWords": [describe(scope, page.translator) for scope in grant["scopes"]],
            "connectionWords": connection_words(grant["resource"], page.translator),
            "connectionPath": urlsplit(grant["resource"]).path,
            "activityUrl": activity_url(grant["grantIds"]),
            "lastSession": max(
                (sessions[f"oauth:{grant_id}"] for grant_id in grant["grantIds"] if f"oauth:{grant_id}" in sessions),
                key=lambda session: str(session["newest"]),
                default=None,
            ),
        }
        for grant in grants
    ]
    return page.render("settings/apps.html", nav="apps", grants=shown)


async def confirm_revoke(page: Page) -> Response:
    # Keys come from the session's user: another user's grant id is NOT_FOUND.
    grant = await run_sync(get_app, page.web.services.items, page.user.user_id, page.request.path_params["grant_id"])
    shown = {
        **grant,
        "clientName": app_name(grant["clientName"], page.translator),
        "scopeWords": [describe(scope, page.translator) for scope in grant["scopes"]],
        "connectionWords": connection_words(grant["resource"], page.translator),
        "connectionPath": urlsplit(grant["resource"]).path,
    }
    return page.render("settings/app_revoke.html", nav="apps", grant=shown)


async def revoke_submit(page: Page) -> Response:
    items, user_id, grant_id = page.web.services.items, page.user.user_id, page.request.path_params["grant_id"]
    try:
        grant = await run_sync(disconnect_app, items, user_id, grant_id)
    except NotDisconnected as error:  # back to the list, where what is still connected is its row
        return page.redirect_with_flash(PAGE, page.error_text(error))
    return page.redirect_with_flash(
        PAGE,
        page.gettext("“%(name)s” disconnected: its access ended.", name=app_name(grant["clientName"], page.translator)),
    )


def app_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, apps_page), methods=["GET"]),
        Route(PAGE + "/{grant_id}/revoke", endpoint(web, confirm_revoke), methods=["GET"]),
        Route(PAGE + "/{grant_id}/revoke", endpoint(web, revoke_submit), methods=["POST"]),
    ]
