"""The browser pages (server-rendered Jinja2 with htmx, no SPA): the memo timeline at `/`
(composer, in-place editor, search, sidebar), the reading shelf, first-run set-up, sign-in, OAuth
consent, Settings -> Access credentials / Connected apps / Reading sync / Attachments / Calendar
feed, the
secret calendar feed itself, and the memo trash with permanent delete.

`web_routes(services)` is what an app mounts: the local server (`mesq serve`) and the OAuth
Lambda function both do.
"""

from __future__ import annotations

from pathlib import Path

from starlette.responses import Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from ..errors import MesqError
from ..services import Services
from .framework import Clock, Web, error_page
from .throttle import ThrottlePolicy

STATIC = Path(__file__).parent / "static"


def web_routes(
    services: Services, *, clock: Clock | None = None, throttle: ThrottlePolicy | None = None
) -> list[BaseRoute]:
    from .account import account_routes
    from .activity import activity_routes
    from .apps import app_routes
    from .attachments import attachment_routes
    from .calendar import calendar_routes
    from .consent import consent_routes
    from .credentials import credential_routes
    from .memos import memo_routes
    from .reading import reading_routes
    from .reminders import reminder_routes
    from .settings_index import settings_index_routes
    from .shelf import shelf_routes
    from .todos import todo_routes
    from .trash import trash_routes

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
        *calendar_routes(web),
        *todo_routes(web),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]


def browser_error_page(error: MesqError, trace_id: str) -> Response:
    """The error page an app shows a browser for an unknown URL or a fault outside the pages
    (`starlette_app(..., error_page=...)`): no session is read, so it shows no account links."""
    return error_page(error, trace_id, None)


__all__ = ["ThrottlePolicy", "browser_error_page", "web_routes"]
