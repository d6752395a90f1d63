"""The composition root: the four apps MeSQ runs, each built from the adapters' routes.

- `create_api_app`: the REST function (`functions/api`);
- `create_mcp_app`: the MCP function (`functions/mcp`);
- `create_oauth_app`: the OAuth function (`functions/oauth`): the authorization server and the
  browser pages, one flow (its authorization endpoint hands the browser to the consent page);
- `create_dav_app`: the CalDAV function (`functions/dav`), behind a Lambda function URL;
- `create_local_app`: `mesq serve`, all of them in one app; `create_staged_local_app` builds it
  in two steps, so the MCP endpoint answers while the rest is built (asgi/staged.py).

The adapters (`http`, `mcp`, `web`, `dav`) never import one another; only this module puts them side by
side. Each factory imports only the adapters its app mounts, so a Lambda function loads only its
own (the OAuth and REST functions never import the MCP SDK; a test checks).
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from ..asgi.app import ErrorPage, starlette_app
from ..asgi.body_deadline import BodyDeadlineMiddleware
from ..asgi.staged import StagedApp
from ..wiring.services import Services


def _api_routes(services: Services) -> list[BaseRoute]:
    from ..http.app import api_routes

    return list(api_routes(services))


def _mcp_routes(services: Services) -> list[BaseRoute]:
    from ..mcp import mcp_routes

    return list(mcp_routes(services))


def _dav_routes(services: Services) -> list[BaseRoute]:
    from ..dav import dav_routes

    return list(dav_routes(services))


def _oauth_routes(services: Services, error_page: ErrorPage) -> list[BaseRoute]:
    from ..http.oauth import oauth_routes
    from ..web import web_routes

    # The pages' error page also for authorize's refusals a browser reads (RFC 6749 §4.1.2.1).
    return [*oauth_routes(services, error_page), *web_routes(services)]


def _browser_error_page(services: Services) -> ErrorPage:
    from ..web import browser_error_pages

    return browser_error_pages(services)


def _prepare_search(services: Services) -> None:
    """The functions that search, on an init off the request path (SnapStart): search's imports,
    jieba's dictionary and the providers go into the snapshot (search/warm_up.py)."""
    if services.settings.prepare_at_init and services.settings.search_provider != "none":
        from ..search.warm_up import prepare_for_snapshot

        prepare_for_snapshot(services.search)


def create_api_app(services: Services) -> Starlette:
    _prepare_search(services)
    return starlette_app(_api_routes(services), services.settings)


def create_mcp_app(services: Services) -> Starlette:
    _prepare_search(services)
    return starlette_app(_mcp_routes(services), services.settings)


def create_oauth_app(services: Services) -> Starlette:
    """The apps that serve browser pages answer a browser's 404/405/500 with a page."""
    error_page = _browser_error_page(services)
    return starlette_app(_oauth_routes(services, error_page), services.settings, error_page=error_page)


def create_dav_app(services: Services) -> Starlette:
    """CalDAV on its own function: its front door passes PROPFIND and REPORT (docs/deploy.md)."""
    return starlette_app(_dav_routes(services), services.settings)


def _local_app(routes: list[BaseRoute], services: Services, error_page: ErrorPage | None) -> Starlette:
    # The body deadline only here: on Lambda, API Gateway delivers whole bodies.
    extra = [Middleware(BodyDeadlineMiddleware, settings=services.settings)]
    return starlette_app(routes, services.settings, error_page=error_page, extra=extra)


def create_local_app(services: Services) -> Starlette:
    return _whole_local_app(services, _mcp_routes(services))


def _whole_local_app(services: Services, mcp: list[BaseRoute]) -> Starlette:
    # The MCP routes first: Starlette tries routes in order, and an agent's calls are most of a
    # local server's requests; behind the REST table each paid ~65 path matches (~0.1 ms). No
    # other route starts with /mcp or is MCP's metadata path, so the order answers nothing else.
    error_page = _browser_error_page(services)
    routes = [*mcp, *_api_routes(services), *_dav_routes(services), *_oauth_routes(services, error_page)]
    return _local_app(routes, services, error_page)


def create_staged_local_app(services: Services) -> StagedApp:
    """`mesq serve`'s app: the MCP routes first, answering at once (no error pages there: asgi/app.py
    never renders one under /mcp), then the same app `create_local_app` builds, around the same
    MCP routes, when the server calls `build()` or a request needs the rest."""
    mcp = _mcp_routes(services)
    return StagedApp(_local_app(mcp, services, None), mcp, lambda: _whole_local_app(services, mcp))
