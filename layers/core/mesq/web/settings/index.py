"""`/settings`: the index of the settings pages (`pages.py`), which a phone's header
links to instead of showing the whole Settings bar."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from ..kit.framework import Page, Web, endpoint


async def settings_page(page: Page) -> Response:
    return page.render("settings.html", nav="settings")


def settings_index_routes(web: Web) -> list[Route]:
    return [Route("/settings", endpoint(web, settings_page), methods=["GET"])]
