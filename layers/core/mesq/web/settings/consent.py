"""The OAuth consent page and `POST /api/oauth/consent` (docs/contract.md §1, seed "OAuth 拒绝授权").

GET /oauth/consent?request=<id>: `/oauth/authorize` sends the browser here after validating the
request (mesq/auth/oauth). Not signed in -> sign-in first, then back. The page names the client,
where it will send you and the scopes in plain words; Approve / Deny post the decision with the
session's CSRF token. A script posts JSON and gets `200 {"ok": true, "redirectUrl": ...}` (the
consent page's own script does exactly that and then navigates); a browser without script posts
the form and is sent on with a 303 instead.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.responses import Response
from starlette.routing import Route

from ...asgi.body import FORM_MEDIA_TYPE, accepts_html, is_json_media_type, media_type
from ...auth.oauth.authorization import decide, load_pending
from ...auth.oauth.metadata import CONSENT_PATH
from ...kernel.concurrency import run_sync
from ...kernel.errors import ValidationError
from ..kit.framework import Page, Web, endpoint, json_ok
from ..kit.render import redirect, render
from ..kit.scope_words import app_name, connection_words, describe


async def consent_page(page: Page) -> Response:
    request_id = page.request.query_params.get("request", "")
    pending = await run_sync(load_pending, page.web.services.items, request_id)
    target = urlsplit(pending.redirect_uri)
    return render(
        "settings/consent.html",
        consent=True,
        language=page.language,
        session=page.session,
        pending=pending,
        client_name=app_name(pending.client_name, page.translator),
        destination=f"{target.scheme}://{target.netloc}" if target.netloc else pending.redirect_uri,
        scopes=[(scope, describe(scope, page.translator)) for scope in pending.scopes],
        offered=pending.offered,
        connection=(connection_words(pending.resource, page.translator), urlsplit(pending.resource).path),
    )


def _wants_navigation(page: Page) -> bool:
    """A plain HTML form post from a browser (no script): answer with a redirect, not JSON."""
    headers = page.request.headers
    return media_type(headers.get("content-type")) == FORM_MEDIA_TYPE and accepts_html(headers.get("accept"))


def _ticked(page: Page) -> list[str] | None:
    """The scopes the person left ticked: JSON `scopes` (a list), or the form's `scopes` boxes
    (`scopeChoice` marks the page's form, so unticking every box is nothing, not everything).
    None when the answer says nothing of scopes (a script approving what was asked)."""
    given = page.fields.all("scopes")
    if is_json_media_type(page.request.headers.get("content-type")):
        if not given:
            return None
        (value,) = given
        if not isinstance(value, list) or not all(isinstance(scope, str) for scope in value):
            raise ValidationError("scopes must be a list of scope names")
        return list(value)
    if not given and not page.fields.get("scopeChoice"):
        return None
    return [str(scope) for scope in given]


async def consent_submit(page: Page) -> Response:
    request_id = page.fields.get("requestId")
    decision = page.fields.get("decision")
    unknown = sorted(set(page.fields.values) - {"requestId", "decision", "csrf", "scopes", "scopeChoice"})
    if unknown:
        raise ValidationError("unknown field(s): %(unknown)s", unknown=", ".join(unknown))
    if not isinstance(request_id, str) or not request_id:
        raise ValidationError("requestId is required")
    if decision not in ("approve", "deny"):
        raise ValidationError('decision must be "approve" or "deny"')
    url = await run_sync(
        decide, page.web.services.items, page.user.user_id, request_id,
        decision == "approve", _ticked(page) if decision == "approve" else None,
    )  # fmt: skip
    if _wants_navigation(page):
        return redirect(url)
    return json_ok({"ok": True, "redirectUrl": url})


def consent_routes(web: Web) -> list[Route]:
    return [
        Route(CONSENT_PATH, endpoint(web, consent_page), methods=["GET"]),
        Route("/api/oauth/consent", endpoint(web, consent_submit, api=True), methods=["POST"]),
    ]
