"""The memo timeline at `/`: pinned first, newest first, paged; the sidebar (the `includeContext`
counts and the tag tree) and the filters it links to; literal search and AI search.

What the page shows is built in `views.py` (shared with the writes); the writes are in
`writes.py`, the attachment uploads in `uploads.py`. `memo_routes` gathers the memo pages.
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from ..kit.framework import Page, Web, endpoint
from ..settings.account import signed_out_home
from .query import TimelineQuery
from .uploads import upload_routes
from .views import timeline_context, timeline_page
from .writes import write_routes


async def timeline(page: Page) -> Response:
    if page.session is None:
        return await signed_out_home(page)
    query = TimelineQuery.from_params(page.request.query_params)
    return timeline_page(page, await timeline_context(page, query))


def memo_routes(web: Web) -> list[Route]:
    return [
        Route("/", endpoint(web, timeline, session="optional"), methods=["GET"]),
        *upload_routes(web),  # before /memos/{memo_id}, which would take /memos/uploads
        *write_routes(web),
    ]


__all__ = ["memo_routes"]
