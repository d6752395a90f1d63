"""The CalDAV routes: `/.well-known/caldav` (and PROPFIND on `/`) and everything under `/dav`,
one endpoint that reads the request, authenticates it, and runs the method's handler in one
worker thread (the store is synchronous); errors become a status with a one-line reason
(errors.py), never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from xml.etree import ElementTree as ET

from aws_lambda_powertools import Logger
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Match, Route
from starlette.types import Scope

from ..application.ratelimit import RateLimiter
from ..asgi.body import read_limited
from ..asgi.trace import trace_id_of
from ..kernel.concurrency import run_sync
from ..kernel.errors import Internal
from ..kernel.i18n import Text, negotiate, requested_language
from ..wiring.services import Services
from . import objects, paths
from .auth import caller
from .errors import DavError, error_response
from .ical_in import MAX_OBJECT_BYTES
from .propfind import depth_of, propfind, proppatch, requested
from .report import report
from .session import Session
from .xml import MAX_XML_BYTES, XmlRefused, parse, serialize

logger = Logger(child=True)

#: What the CalDAV space answers; anything else is 405 with this list in `Allow`.
METHODS = (
    "OPTIONS", "GET", "HEAD", "PUT", "DELETE", "MOVE", "PROPFIND", "PROPPATCH", "REPORT", "MKCALENDAR", "MKCOL",
)  # fmt: skip
ALLOW = "OPTIONS, GET, HEAD, PUT, DELETE, MOVE, PROPFIND, PROPPATCH, REPORT"
DAV_CLASSES = "1, 3, calendar-access"
_XML = "application/xml; charset=utf-8"


def _multistatus(body: bytes) -> Response:
    return Response(body, status_code=207, media_type=_XML, headers={"Cache-Control": "no-store"})


def _options() -> Response:
    return Response(status_code=200, headers={"DAV": DAV_CLASSES, "Allow": ALLOW, "Content-Length": "0"})


async def _body(request: Request, limit: int) -> bytes:
    body = await read_limited(request, limit)
    if body is None:
        raise DavError(413, Text("the request body is over %(limit)s bytes", limit=limit))
    return body


def _xml(body: bytes) -> ET.Element | None:
    try:
        return parse(body)
    except XmlRefused as error:
        raise DavError(400, str(error)) from None


def _handle(request: Request, services: Services, limiter: RateLimiter, target: paths.Target, body: bytes) -> Response:
    """Everything after the body arrived, on a worker thread."""
    who = caller(request, services, limiter)
    request.state.language = who.language  # a fault after this is told in it too (_endpoint)
    session = Session(
        services,
        who,
        request.scope.get("root_path", ""),
        trace_id_of(request),
        requested_language(request.headers.get("accept-language")),
    )
    try:
        return _serve(request, session, target, body)
    except DavError as error:
        error.language = session.say.language  # the person's choice, as the names the client shows
        raise


def _serve(request: Request, session: Session, target: paths.Target, body: bytes) -> Response:
    method = request.method
    # As at sign-in, capitals and spaces around a username do not matter (`/dav/Alice/` is alice's).
    if target.username and target.username.strip().lower() != session.username:
        raise DavError(403, Text("these calendars belong to another account"))
    if method == "PROPFIND":
        wanted = requested(_xml(body))
        return _multistatus(propfind(session, target, depth_of(request.headers.get("depth")), wanted).body())
    if method == "REPORT":
        return _multistatus(report(session, target, _xml(body)).body())
    if method == "PROPPATCH":
        return _multistatus(serialize(proppatch(request.url.path, _xml(body), session.say)))
    if method in ("MKCALENDAR", "MKCOL"):
        raise DavError(403, Text("calendars are spaces: create a space in MeSQ, it appears here"))
    if target.level != "object" and method != "DELETE":
        raise DavError(
            405, Text("%(method)s works on a task, not on a calendar", method=method), headers={"Allow": ALLOW}
        )
    if method in ("GET", "HEAD"):
        return objects.get(session, target, head=method == "HEAD")
    if method == "PUT":
        headers = {name: request.headers.get(name) for name in ("content-type", "if-match", "if-none-match")}
        return objects.put(session, target, body, headers)
    if method == "MOVE":
        return objects.move(session, target, request.headers.get("destination"), request.headers.get("if-match"))
    return objects.delete(session, target, request.headers.get("if-match"))


def _endpoint(services: Services) -> Callable[[Request], object]:
    limiter = RateLimiter(services.items, services.settings)

    async def endpoint(request: Request) -> Response:
        trace_id = trace_id_of(request)
        try:
            if request.method == "OPTIONS":
                return _options()
            target = paths.parse(request.url.path)
            if target is None:
                raise DavError(404, Text("no such CalDAV resource"))
            if not paths.is_utf8(request.scope.get("raw_path"), target):
                raise DavError(
                    400,
                    Text(
                        "a resource name is UTF-8 text: percent-encode its UTF-8 bytes (%(example)s)",
                        example="caf%C3%A9.ics",
                    ),
                )
            limit = MAX_OBJECT_BYTES if request.method == "PUT" else MAX_XML_BYTES
            body = await _body(request, limit)
            return await run_sync(_handle, request, services, limiter, target, body)
        except DavError as error:
            return error_response(error, trace_id, negotiate(request.headers.get("accept-language")))
        except Exception:  # every other fault is internal: logged with its traceback, no text leaks
            logger.exception("CalDAV request failed", extra={"method": request.method})
            said = getattr(request.state, "language", "") or negotiate(request.headers.get("accept-language"))
            return error_response(DavError(500, Internal.for_trace(trace_id).text), trace_id, said)

    return endpoint


async def _well_known(request: Request) -> Response:
    """`/.well-known/caldav`, and a PROPFIND on the site's root (RFC 6764 §5: the context path a
    client given only the server's address tries, as python-caldav does): 301 to `/dav/`."""
    return RedirectResponse(request.scope.get("root_path", "") + paths.ROOT + "/", status_code=301)


class _RootPropfind(Route):
    """PROPFIND on the site's root, and nothing else of it: any other method does not match at all,
    so the site's own route answers it (and names its own methods in a 405's Allow)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope.get("method") != "PROPFIND":
            return Match.NONE, {}
        return super().matches(scope)


def dav_routes(services: Services) -> list[BaseRoute]:
    endpoint = _endpoint(services)
    return [
        Route(paths.WELL_KNOWN, _well_known, methods=["GET", "PROPFIND", "OPTIONS"]),
        _RootPropfind("/", _well_known, methods=["PROPFIND"]),  # GET / stays the site's front page
        Route(paths.ROOT, endpoint, methods=list(METHODS)),
        Route(paths.ROOT + "/{rest:path}", endpoint, methods=list(METHODS)),
    ]
