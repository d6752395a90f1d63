"""Settings -> Reminders (设置 → 提醒): the user's reminder delivery channels (signed webhooks):
add one (its signing secret is shown once), send a test reminder, delete; each channel shows its
last success and its last failure. Browser session only: nothing here exists over MCP or for a
PAT (docs/contract.md §12)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from ..concurrency import run_sync
from ..reminders import channels
from ..reminders.delivery import new_client
from ..reminders.signing import REPLAY_WINDOW_SECONDS
from ..reminders.tick import deliver
from ..services import build_sealer
from ..timestamps import format_timestamp, now_timestamp
from .framework import Page, Web, endpoint

PAGE = "/settings/reminders"


def _view(page: Page) -> dict[str, Any]:
    records = channels.channel_records(page.web.services.items, page.user.user_id)
    shown = [
        {key: record.get(key) for key in ("id", "url", "createdAt", "lastSuccessAt", "lastFailure")}
        for record in records
    ]
    return {"channels": shown, "max_channels": channels.MAX_CHANNELS, "replay_window": REPLAY_WINDOW_SECONDS}


async def reminders_page(page: Page) -> Response:
    view = await run_sync(_view, page)
    return page.render("reminders.html", nav="reminders", new_secret=None, **view)


async def add_submit(page: Page) -> Response:
    services = page.web.services
    created = await run_sync(
        channels.add_webhook,
        services.items,
        build_sealer(services.settings),
        page.user.user_id,
        page.fields.text("url"),
        now_timestamp(),
        allow_loopback=services.settings.reminder_webhook_allow_loopback,
    )
    view = await run_sync(_view, page)
    # The one time the secret is shown: rendered, never stored in the clear or redirected with.
    return page.render(
        "reminders.html", nav="reminders", new_secret={"id": created.id, "secret": created.secret}, **view
    )


async def _send_test(page: Page, channel_id: str) -> dict[str, str]:
    """One attempt, under the send deadline: the page answers within SEND_DEADLINE_SECONDS."""
    services, user_id = page.web.services, page.user.user_id
    record = await run_sync(channels.find_channel, services.items, user_id, channel_id)
    now = format_timestamp(datetime.now(UTC))
    payload = {"type": "test", "id": f"test-{record['id']}-{now}", "sentAt": now, "task": None, "remindAt": now}
    async with new_client() as client:
        return await deliver(services.items, build_sealer(services.settings), user_id, payload, client=client,
                             attempts=1, channel_ids={str(record["id"])})  # fmt: skip


async def test_submit(page: Page) -> Response:
    failures = await _send_test(page, page.fields.text("channel"))
    message = "Test reminder sent." if not failures else "The test reminder failed; see the channel's last failure."
    return page.redirect_with_flash(PAGE, message)


async def delete_submit(page: Page) -> Response:
    await run_sync(channels.delete_channel, page.web.services.items, page.user.user_id, page.fields.text("channel"))
    return page.redirect_with_flash(PAGE, "Channel deleted.")


def reminder_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, reminders_page), methods=["GET"]),
        Route(PAGE + "/webhooks", endpoint(web, add_submit), methods=["POST"]),
        Route(PAGE + "/test", endpoint(web, test_submit), methods=["POST"]),
        Route(PAGE + "/delete", endpoint(web, delete_submit), methods=["POST"]),
    ]
