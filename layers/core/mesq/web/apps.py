"""Settings -> Connected apps (已连接应用): the OAuth grants of the signed-in user; revoking one
revokes every access and refresh token of that grant (mesq/auth/oauth)."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from ..auth.oauth.authorization import list_grants, revoke_grant
from ..concurrency import run_sync
from .framework import Page, Web, endpoint
from .render import redirect
from .scope_words import describe

PAGE = "/settings/apps"


async def apps_page(page: Page) -> Response:
    grants = await run_sync(list_grants, page.web.services.items, page.user.user_id)
    shown = [{**grant, "scopeWords": [describe(scope) for scope in grant["scopes"]]} for grant in grants]
    return page.render("apps.html", nav="apps", grants=shown)


async def revoke_submit(page: Page) -> Response:
    # Keys come from the session's user: another user's grant id is NOT_FOUND.
    await run_sync(revoke_grant, page.web.services.items, page.user.user_id, page.request.path_params["grant_id"])
    return redirect(PAGE)


def app_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, apps_page), methods=["GET"]),
        Route(PAGE + "/{grant_id}/revoke", endpoint(web, revoke_submit), methods=["POST"]),
    ]
