"""Settings -> Reminders (设置 → 提醒): the user's reminder delivery channels (webhook, email,
ntfy, Telegram, Web Push, docs/reminders.md): add one (a webhook's signing secret is shown once;
no other secret is ever shown again; a refused form comes back with its reason and its fields,
secrets excepted), send a test reminder, delete; each channel shows its last success and, when
its last delivery failed every retry, "failing" with the reason. Web Push: the
page's script (`static/reminders.js`) registers the service worker (`/settings/reminders-sw.js`,
scope `/settings/`) and subscribes with the instance's VAPID public key. Browser session only:
nothing here exists over MCP or for a PAT (docs/contract.md §12)."""

from __future__ import annotations

import hmac
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ...adapters.reminders.delivery import new_client
from ...jobs.reminder_tick import deliver
from ...kernel.concurrency import run_sync
from ...kernel.errors import NotFound, ValidationError
from ...kernel.timestamps import format_timestamp, now_timestamp
from ...reminders import channels
from ...reminders.signing import REPLAY_WINDOW_SECONDS
from ...reminders.vapid import instance_vapid, subject_of
from ...wiring.services import reminder_reach
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import N_, Text
from ..kit.render import redirect
from ..kit.security import cookie_name, cookies_secure, set_strict_cookie
from ..kit.user_limits import count_user

PAGE = "/settings/reminders"
WORKER = "/settings/reminders-sw.js"
_WORKER_FILE = Path(__file__).parents[1] / "static" / "reminders-sw.js"
#: What a channel shows of its record (never `sealed`; Telegram's url is the API base, no token).
_SHOWN = ("id", "kind", "url", "createdAt", "lastSuccessAt", "lastFailure")
#: A channel form's fields (each kind reads its own).
_FIELDS = ("url", "host", "port", "security", "user", "password", "from", "to", "token", "chat", "endpoint",
           "p256dh", "auth")  # fmt: skip
#: Not written back into a refused form: a secret never goes out in a page again.
_SECRET_FIELDS = frozenset({"password", "token", "p256dh", "auth"})
#: A new webhook's signing secret travels to the page shown after the POST in this cookie
#: (post/redirect/get, as a new PAT: a reload of the answer re-posted the form and added a second
#: webhook with a second secret); shown while it opens the channel's sealed secret, then deleted.
NEW_SECRET_COOKIE = "mesq_new_webhook"
NEW_SECRET_SECONDS = 120


def _failing(record: dict[str, Any]) -> bool:
    """The last delivery failed all its attempts, after the last success (if any)."""
    failure = record.get("lastFailure")
    if not failure:
        return False
    success = record.get("lastSuccessAt")
    return not success or str(failure.get("at", "")) > str(success)


def _view(page: Page) -> dict[str, Any]:
    services = page.web.services
    records = channels.channel_records(services.items, page.user.user_id)
    shown = []
    for record in records:
        config = record.get("config") or {}
        row = {key: record.get(key) for key in _SHOWN}
        failure = record.get("lastFailure") or None
        if failure:  # its reason in the reader's language (kept as a template; older ones: the English)
            said = Text.from_stored(failure.get("said"), str(failure.get("reason") or ""))
            failure = {**failure, "reason": page.translator.text(said)}
        shown.append({**row, "lastFailure": failure, "chat": config.get("chat"), "to": config.get("to"),
                      "failing": _failing(record)})  # fmt: skip
    public_url = reminder_reach(services.settings).public_url
    vapid = instance_vapid(services.items, services.sealer, public_url)
    try:
        subject_of(public_url)
        push_needs_https = False
    except ValidationError:  # said beside the button: a subscribe would be refused
        push_needs_https = True
    return {
        "push_needs_https": push_needs_https,
        "channels": shown,
        "max_channels": channels.MAX_CHANNELS,
        "replay_window": REPLAY_WINDOW_SECONDS,
        "vapid_public_key": vapid.public_key,
        "private_allowed": services.settings.allow_private_destinations,
    }


def _secret_cookie(page: Page) -> str:
    return cookie_name(NEW_SECRET_COOKIE, cookies_secure(page.web.services.settings, page.request))


def _revealed(page: Page) -> dict[str, str] | None:
    """The new webhook's secret to show once, if the cookie holds the live secret of this user's
    webhook."""
    channel_id, _, secret = page.request.cookies.get(_secret_cookie(page), "").partition(".")
    if not channel_id or not secret:
        return None
    services = page.web.services
    try:
        record = channels.find_channel(services.items, page.user.user_id, channel_id)
    except NotFound:  # deleted meanwhile, or another user's id
        return None
    if record.get("kind", "webhook") != "webhook":
        return None
    stored = channels.opened(services.sealer, page.user.user_id, record).secret
    return {"id": channel_id, "secret": secret} if hmac.compare_digest(stored, secret) else None


def _shown_once(page: Page) -> tuple[dict[str, Any], dict[str, str] | None]:
    return _view(page), _revealed(page)


async def reminders_page(page: Page) -> Response:
    view, new_secret = await run_sync(_shown_once, page)
    response = page.render("settings/reminders.html", nav="reminders", new_secret=new_secret, form=None, **view)
    if page.request.cookies.get(_secret_cookie(page)):
        secure = cookies_secure(page.web.services.settings, page.request)
        response.delete_cookie(_secret_cookie(page), path="/", secure=secure)
    return response


async def add_submit(page: Page) -> Response:
    services = page.web.services
    kind = page.fields.text("kind") or "webhook"
    given = {name: page.fields.text(name) for name in _FIELDS}
    reach = reminder_reach(services.settings)
    try:
        if kind == "webpush":
            subject_of(reach.public_url)  # no push could be signed: refused before it is stored
        created = await run_sync(channels.add_channel, services.items, services.sealer, page.user.user_id, kind,
                                 given, now_timestamp(), reach.destinations)  # fmt: skip
    except ValidationError as error:
        # The page again, the reason beside the form that was sent and what was typed kept
        # (secrets excepted: they are typed again).
        kept = {name: "" if name in _SECRET_FIELDS else value for name, value in given.items()}
        view = await run_sync(_view, page)
        form = {"kind": kind, "error": page.error_text(error), "values": kept}
        return page.render("settings/reminders.html", status=400, nav="reminders", new_secret=None, form=form, **view)
    if kind != "webhook":
        return page.redirect_with_flash(PAGE, page.gettext("Channel added. Send a test reminder to check it."))
    # Shown once, on the page the browser lands on (never stored in the clear, never in a URL).
    settings = page.web.services.settings
    hand_over = f"{created.id}.{created.secret}"
    response = redirect(PAGE)
    return set_strict_cookie(response, page.request, settings, _secret_cookie(page), hand_over, NEW_SECRET_SECONDS)


async def worker_script(page: Page) -> Response:
    """The service worker that shows a reminder push (scope /settings/, the page's)."""
    return Response(_WORKER_FILE.read_bytes(), media_type="text/javascript",
                    headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})  # fmt: skip


async def _send_test(page: Page, channel_id: str) -> dict[str, str]:
    """One attempt, under the send deadline: the page answers within SEND_DEADLINE_SECONDS."""
    services, user_id = page.web.services, page.user.user_id
    record = await run_sync(channels.find_channel, services.items, user_id, channel_id)
    now = format_timestamp(datetime.now(UTC))
    payload = {"type": "test", "id": f"test-{record['id']}-{now}", "sentAt": now, "task": None, "remindAt": now}
    async with new_client() as client:
        return await deliver(services.items, services.sealer, user_id, payload, client=client, attempts=1,
                             channel_ids={str(record["id"])}, reach=reminder_reach(services.settings),
                             language=page.language)  # fmt: skip


async def test_submit(page: Page) -> Response:
    # A test send reaches another server on the user's say-so: counted per user (docs/security.md
    # "Fair shares"); over the limit, 429 with Retry-After and nothing sent.
    await count_user(page, "reminder_test")
    failures = await _send_test(page, page.fields.text("channel"))
    sent, failed = N_("Test reminder sent."), N_("The test reminder failed; see the channel's last failure.")
    message = page.gettext(sent) if not failures else page.gettext(failed)
    return page.redirect_with_flash(PAGE, message)


async def delete_submit(page: Page) -> Response:
    await run_sync(channels.delete_channel, page.web.services.items, page.user.user_id, page.fields.text("channel"))
    return page.redirect_with_flash(PAGE, page.gettext("Channel deleted."))


def reminder_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, reminders_page), methods=["GET"]),
        Route(PAGE + "/webhooks", endpoint(web, add_submit), methods=["POST"]),
        Route(PAGE + "/channels", endpoint(web, add_submit), methods=["POST"]),
        Route(WORKER, endpoint(web, worker_script), methods=["GET"]),
        Route(PAGE + "/test", endpoint(web, test_submit), methods=["POST"]),
        Route(PAGE + "/delete", endpoint(web, delete_submit), methods=["POST"]),
    ]
