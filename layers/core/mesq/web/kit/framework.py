"""The request pipeline every browser page goes through, written once:

bearer credentials refused -> cross-site POST refused -> session from the cookie -> (no session:
sign-in redirect for a GET, 401 for a POST) -> body -> CSRF synchronizer token on every
cookie-authenticated POST -> the handler -> MesqError as a page (or JSON envelope), any other
fault as a page with only the trace id.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

from aws_lambda_powertools import Logger
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ...application.invocation import invoke
from ...asgi.body import MAX_FORM_BYTES
from ...asgi.envelope import failure
from ...asgi.trace import trace_id_of
from ...auth.scopes import ALL_SCOPES
from ...auth.user_zone import is_zone_name, settings_key, zone_in
from ...auth.users import profile_key
from ...kernel.concurrency import run_sync
from ...kernel.context import Call, Principal
from ...kernel.errors import Forbidden, Internal, MesqError, Unauthorized
from ...kernel.recorded import Recorded
from ...kernel.spec import load_spec
from ...wiring.services import Services
from .field_words import labelled
from .flash import clear_flash, pending_flash, redirect_with_flash
from .forms import Fields, close_uploads, read_form, read_form_or_json, read_upload
from .i18n import DEFAULT_LANGUAGE, Text, Translator, choose_language
from .render import VIEWER_ZONE, redirect, render
from .request_values import request_zone
from .security import cookie_name, cookies_secure, page_headers, same_origin_post
from .sessions import ABSOLUTE_SECONDS, WebSession, load_session, same_token
from .throttle import LoginThrottle, ThrottlePolicy
from .url_text import without_url_text

logger = Logger(child=True)

SESSION_COOKIE = "mesq_session"
CSRF_HEADER = "x-csrf-token"
#: `details.reason` of the 403 a post gets when its CSRF token is not its session's (the person
#: signed in again elsewhere since the page was shown): a page script may reload the page for it.
STALE_FORM = "staleForm"
Clock = Callable[[], float]
SessionRule = Literal["required", "optional"]


@dataclass(frozen=True)
class Web:
    """What the pages share: the services, a clock (tests move it) and the login throttle."""

    services: Services
    clock: Clock
    throttle: LoginThrottle

    @classmethod
    def build(cls, services: Services, clock: Clock | None = None, policy: ThrottlePolicy | None = None) -> Web:
        clock = clock or time.time
        return cls(services, clock, LoginThrottle(services.items, policy or ThrottlePolicy(), clock))


@dataclass(frozen=True)
class Page:
    """One request as a handler sees it."""

    web: Web
    request: Request
    session: WebSession | None
    fields: Fields
    trace_id: str
    language: str = DEFAULT_LANGUAGE  # "en" or "zh": the user's choice, else the browser's
    user_zone: str | None = None  # the zone the user set (Settings, CLI, REST, a tool), else None

    @property
    def time_zone(self) -> str:
        """The zone every "today", overdue, agenda, quick-add default and shown time of the page
        uses: the user's own, else the browser's (its cookie), else UTC."""
        return self.user_zone or request_zone(self.request)

    @property
    def offered_zone(self) -> str | None:
        """The browser's zone, offered ("Use Asia/Shanghai?") while the user has set none."""
        if self.session is None or self.user_zone is not None:
            return None
        browser = request_zone(self.request)
        return browser if browser != "UTC" and is_zone_name(browser) else None  # only what set_time_zone takes

    @property
    def translator(self) -> Translator:
        return Translator(self.language)

    def gettext(self, message: str, /, **variables: Any) -> str:
        """A user-visible string built in Python (a notice, a label), in the page's language."""
        return self.translator.gettext(message, **variables)

    def ngettext(self, singular: str, plural: str, count: int, /, **variables: Any) -> str:
        return self.translator.ngettext(singular, plural, count, **variables)

    def error_text(self, error: Exception, names: Mapping[str, str] | None = None) -> str:
        """An error's message in the page's language: a domain error's template through the
        catalog, the field it names by its label (`field_words.labelled`; `names`: this form's
        own labels, e.g. a column form's `name` is "Column name"); another error's English
        message, translated when it is a catalog string."""
        text = getattr(error, "text", None)
        if isinstance(text, Text):
            return self.translator.text(labelled(text, names))
        return self.translator.text(str(getattr(error, "message", "") or error))

    @property
    def user(self) -> WebSession:
        assert self.session is not None  # handlers with session="required" only
        return self.session

    @property
    def principal(self) -> Principal:
        """The signed-in user as a caller: the browser acts with the user's full rights."""
        return Principal(
            user_id=self.user.user_id,
            scopes=frozenset(ALL_SCOPES),
            credential_id=self.user.credential_id,
            kind="session",
        )

    def call(self) -> Call:
        """A domain Call for the signed-in user (for store-level helpers that take a Call)."""
        return Call(principal=self.principal, services=self.web.services, trace_id=self.trace_id, channel="web",
                    language=self.language)  # fmt: skip

    async def invoke(
        self,
        operation_id: str,
        arguments: dict[str, Any],
        *,
        principal: Principal | None = None,
        recorded: Recorded | None = None,
    ) -> dict[str, Any]:
        """One operation of the OpenAPI document, exactly as REST and MCP run it (argument
        validation, the operation, its call metrics), in a worker thread. Its `MesqError`s reach
        `endpoint`, which shows them as a page or a JSON envelope."""
        operation = load_spec().operations[operation_id]
        return await invoke(
            operation,
            arguments,
            principal=principal or self.principal,
            services=self.web.services,
            trace_id=self.trace_id,
            channel="web",
            language=self.language,
            recorded=recorded,
        )

    async def invoke_recorded(self, operation_id: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """`invoke`, and the ids of the change records the write made (`Call.recorded`: the write
        returns them, one operation call), so an Undo button can undo exactly that write
        (`undo_changes` with those ids). A write that changed nothing recorded nothing: an empty
        list."""
        recorded = Recorded()
        data = await self.invoke(operation_id, arguments, recorded=recorded)
        return data, recorded.change_ids

    def render(self, template: str, **context: Any) -> Response:
        """A page, with the pending one-time notice (if any) shown and consumed, and its times in
        the page's zone (`time_zone`)."""
        settings = self.web.services.settings
        context.setdefault(VIEWER_ZONE, self.time_zone)
        context.setdefault("offered_zone", self.offered_zone)
        if self.request.method == "GET":  # the offer's Use comes back to the page it was clicked on
            query = self.request.url.query
            context.setdefault("offer_back", self.request.url.path + ("?" + query if query else ""))
        response = render(
            template,
            language=self.language,
            session=self.session,
            flash=pending_flash(settings, self.request),
            **context,
        )
        clear_flash(settings, self.request, response)
        return response

    def redirect_with_flash(self, url: str, message: str) -> Response:
        return redirect_with_flash(self.web.services.settings, self.request, url, message)


Handler = Callable[[Page], Awaitable[Response]]


def session_cookie_name(web: Web, request: Request) -> str:
    return cookie_name(SESSION_COOKIE, cookies_secure(web.services.settings, request))


def set_session_cookie(web: Web, request: Request, response: Response, session: WebSession) -> None:
    response.set_cookie(
        session_cookie_name(web, request),
        session.session_id,
        max_age=ABSOLUTE_SECONDS,
        path="/",
        secure=cookies_secure(web.services.settings, request),
        httponly=True,
        samesite="lax",
    )


def clear_session_cookie(web: Web, request: Request, response: Response) -> None:
    response.delete_cookie(
        session_cookie_name(web, request),
        path="/",
        secure=cookies_secure(web.services.settings, request),
        httponly=True,
        samesite="lax",
    )


async def current_session(web: Web, request: Request) -> WebSession | None:
    value = request.cookies.get(session_cookie_name(web, request))
    return await run_sync(load_session, web.services.items, value, web.clock) if value else None


def login_redirect(request: Request) -> Response:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return redirect("/login?next=" + quote(target, safe=""))


def _stored_preferences(web: Web, session: WebSession) -> tuple[str | None, str | None]:
    """The user's language (their profile) and time zone (their settings item), in one batch read."""
    wanted = (profile_key(session.user_id), settings_key(session.user_id))
    found = {(item["pk"], item["sk"]): item for item in web.services.items.batch_get(wanted)}
    language = (found.get(wanted[0]) or {}).get("settings", {}).get("language")
    return (language if isinstance(language, str) else None), zone_in(found.get(wanted[1]))


async def request_preferences(web: Web, request: Request, session: WebSession | None) -> tuple[str, str | None]:
    """This request's page language (the user's Settings choice, else `Accept-Language`) and the
    zone the user set (None: unset): one BatchGetItem per signed-in page."""
    language, zone = await run_sync(_stored_preferences, web, session) if session is not None else (None, None)
    return choose_language(language, request.headers.get("accept-language")), zone


def error_page(
    error: MesqError,
    trace_id: str,
    session: WebSession | None,
    language: str = DEFAULT_LANGUAGE,
    request: Request | None = None,
    unsaved: str = "",
) -> Response:
    """The error as a page; with `request`, its message without any text of the request's URL
    (`url_text.py`: a link cannot make a page say something). `unsaved`: the text of the refused
    form (its `content`), given back to copy: the page replaces the form that held it."""
    headers = {"Retry-After": str(error.retry_after_seconds)} if error.retry_after_seconds else None
    said = Translator(language).text(labelled(error.text))  # in the page's language (docs/i18n.md)
    message = said if request is None else without_url_text(said, request)
    return render(
        "kit/error.html",
        language=language,
        status=error.http_status,
        headers=headers,
        session=session,
        message=message,
        code=error.code,
        status_code=error.http_status,
        trace_id=trace_id,
        unsaved=unsaved,
    )


def endpoint(
    web: Web,
    handler: Handler,
    *,
    session: SessionRule = "required",
    api: bool = False,
    raw_body: bool = False,
    form_bytes: int = MAX_FORM_BYTES,
    upload_bytes: int | None = None,
) -> Callable[[Request], Awaitable[Response]]:
    """Wrap a handler in the pipeline. `api`: answers are JSON envelopes and the body may be JSON.
    `raw_body`: the pipeline leaves a POST body unread for the handler to stream (a file upload);
    the CSRF token then comes in the `X-CSRF-Token` header. `form_bytes`: the form size cap
    (a memo form carries up to 50,000 characters, percent-encoded). `upload_bytes`: the POST is a
    multipart form with one file, cut at that size (its CSRF token a field like any form's); the
    file's temporary copy is removed when the handler returns."""

    async def run(request: Request) -> Response:
        trace_id = trace_id_of(request)
        current: WebSession | None = None
        language = choose_language(None, request.headers.get("accept-language"))
        fields = Fields()
        try:
            if "authorization" in request.headers:
                raise Forbidden(
                    "these pages take a signed-in browser session; access tokens (PAT or OAuth) cannot be used here"
                )
            post = request.method == "POST"
            if post and not same_origin_post(web.services.settings, request):
                raise Forbidden("cross-site form posts are refused")
            current = await current_session(web, request)
            language, zone = await request_preferences(web, request, current)
            if current is None and session == "required":
                if post and not (api or raw_body or upload_bytes is not None):
                    # A form posted after the session ended (a tab left open overnight): its text
                    # is given back on the error page, not dropped with the form.
                    fields = await _form_of_refused_post(request, form_bytes)
                if post or api:
                    raise Unauthorized("you are not signed in (or your session has ended); sign in and try again")
                return login_redirect(request)
            if post:
                if upload_bytes is not None:
                    fields = await read_upload(request, upload_bytes)
                elif not raw_body:
                    fields = await (read_form_or_json(request) if api else read_form(request, form_bytes))
                if current is not None and session == "required":
                    given = request.headers.get(CSRF_HEADER) or fields.get("csrf")
                    if not same_token(current.csrf_token, given if isinstance(given, str) else None):
                        raise Forbidden(
                            "the form is out of date (CSRF check failed); reload the page and try again",
                            details={"reason": STALE_FORM},
                        )
            try:
                return await handler(Page(web, request, current, fields, trace_id, language, zone))
            finally:
                await close_uploads(fields)
        except MesqError as error:
            if api:  # a page script shows the message: in the page's language, the code as it is
                response: Response = failure(_said(error, language), trace_id)
                response.headers.update(page_headers())
                return response
            return error_page(error, trace_id, current, language, request, _given_back(request, fields))
        except Exception as exc:  # a fault: logged with its traceback, shown without its text
            logger.exception("unhandled error in a page", extra={"traceId": trace_id, "error_type": type(exc).__name__})
            internal = Internal.for_trace(trace_id)
            if api:  # in the page's language, as a refusal is
                return failure(_said(internal, language), trace_id)
            return error_page(internal, trace_id, current, language, unsaved=_given_back(request, fields))

    return run


def _given_back(request: Request, fields: Fields) -> str:
    """The text a refused form carried (its `content`: a memo, a note), for the error page to give back."""
    return fields.text("content") if request.method == "POST" else ""


async def _form_of_refused_post(request: Request, form_bytes: int) -> Fields:
    """The fields of a form about to be refused, to give its text back; nothing when it cannot be read."""
    try:
        return await read_form(request, form_bytes)
    except MesqError:
        return Fields()


def _said(error: MesqError, language: str) -> MesqError:
    """The error with its message in `language` (its code, status, details and retry kept): what
    a page script shows after a refused request."""
    said = copy.copy(error)
    said.message = Translator(language).text(labelled(error.text))
    return said


def json_ok(payload: dict[str, object]) -> Response:
    return JSONResponse(payload, headers=page_headers())
