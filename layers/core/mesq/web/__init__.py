"""The browser pages (server-rendered Jinja2 with htmx, no SPA), in subpackages over one kit
(`kit/`): the memo timeline at `/` (composer, in-place editor, search, sidebar), the memo trash
with permanent delete and the activity pages (`memos/`), the todo board, a task, the inbox
(`todos/`), the reading shelf (`reading/`), first-run set-up, sign-in, OAuth consent, Settings ->
Access credentials / Connected apps / Reading sync / Reminders / Attachments / Calendar feed and
the secret calendar feed itself (`settings/`).

`web_routes(services)` is what an app mounts: the local server (`mesq serve`) and the OAuth
Lambda function both do.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Match, Mount
from starlette.staticfiles import StaticFiles

from ..asgi.app import ErrorPage
from ..kernel.errors import MesqError, MethodNotAllowed
from ..wiring.services import Services
from .kit.framework import Clock, Web, current_session, error_page, request_preferences
from .kit.i18n import choose_language
from .kit.throttle import ThrottlePolicy

STATIC = Path(__file__).parent / "static"


def web_routes(
    services: Services, *, clock: Clock | None = None, throttle: ThrottlePolicy | None = None
) -> list[BaseRoute]:
    # Imported here, not at the top, for start-up cost only (no cycle: tests/architecture/test_web_shape.py):
    # `mesq.web.kit.sessions` (the CLI's `user disable`) and the kit load without every page module.
    from .activity.pages import activity_routes
    from .memos.pages import memo_routes
    from .memos.trash import trash_routes
    from .reading.shelf import shelf_routes
    from .settings.account import account_routes
    from .settings.archive import archive_routes
    from .settings.attachments import attachment_routes
    from .settings.calendar import calendar_routes
    from .settings.connected_apps import app_routes
    from .settings.consent import consent_routes
    from .settings.credentials import credential_routes
    from .settings.home import settings_index_routes
    from .settings.import_sources import import_source_routes
    from .settings.reminders import reminder_routes
    from .settings.sync import reading_routes
    from .todos.board import todo_routes

    web = Web.build(services, clock, throttle)
    return [
        *account_routes(web),
        *activity_routes(web),
        *memo_routes(web),
        *consent_routes(web),
        *settings_index_routes(web),
        *credential_routes(web),
        *app_routes(web),
        *trash_routes(web),
        *reading_routes(web),
        *shelf_routes(web),
        *reminder_routes(web),
        *attachment_routes(web),
        *archive_routes(web),
        *import_source_routes(web),
        *calendar_routes(web),
        *todo_routes(web),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]


async def browser_error_page(error: MesqError, trace_id: str, request: Request) -> Response:
    """The error page for an unknown URL or a fault outside the pages, in the browser's language,
    without reading a session (no account links): what an app without the pages' services shows."""
    return error_page(error, trace_id, None, choose_language(None, request.headers.get("accept-language")), request)


def browser_error_pages(services: Services) -> ErrorPage:
    """The error page an app that serves the pages shows a browser for an unknown URL or a fault
    outside the pages (`starlette_app(..., error_page=...)`): for a signed-in visitor in the
    language of the account (and with its header), as every page is."""
    web = Web.build(services)

    async def page(error: MesqError, trace_id: str, request: Request) -> Response:
        if isinstance(error, MethodNotAllowed) and (back := page_above(request)) is not None:
            return RedirectResponse(back, status_code=303)
        try:
            session = await current_session(web, request)
        except Exception:  # a store fault must not turn a 404 into a 500: the browser's language
            session = None
        language, _zone = await request_preferences(web, request, session)
        return error_page(error, trace_id, session, language, request)

    return page


#: Paths whose POST-only routes are for programs, not pages: a browser's GET there keeps its 405.
NOT_PAGES = ("/api/", "/oauth/", "/mcp")


def page_above(request: Request) -> str | None:
    """The page a browser's GET of a form's POST-only URL goes to (a reload after a post, a
    bookmarked or typed action URL): the nearest path above it that a GET answers
    (`/todos/tasks/ID/complete` -> the task, `/todos/spaces` -> the board), instead of an error
    page saying the method is not allowed. None for another method, or a program's path."""
    path = request.url.path
    if request.method not in ("GET", "HEAD") or path.startswith(NOT_PAGES):
        return None
    routes = request.app.router.routes
    while path not in ("", "/"):
        path = path.rsplit("/", 1)[0] or "/"
        scope = {**request.scope, "path": path, "method": "GET"}
        if any(route.matches(scope)[0] is Match.FULL for route in routes):
            return path
    return None


__all__ = ["ThrottlePolicy", "browser_error_page", "browser_error_pages", "web_routes"]
