"""Settings -> Attachments (设置 → 附件): every attachment of the signed-in user (memo and
todo) with its size and whether a memo or a todo still refers to it, and discarding the orphans
(one, or all at once), which frees their bytes and quota. Browser only: the work is
`mesq/jobs/attachment_cleanup.py`, which has no operation, so no token can reach it.
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from ...jobs.attachment_cleanup import discard, discard_orphans, inventory
from ...kernel import formats
from ...kernel.concurrency import run_sync
from ...kernel.errors import ValidationError
from ..kit.framework import Page, Web, endpoint

PAGE = "/settings/attachments"


async def attachments_page(page: Page) -> Response:
    listing = await run_sync(inventory, page.web.services.items, page.user.user_id)
    return page.render("settings/attachments.html", nav="attachments", listing=listing)


def _discarded(page: Page, freed: dict[str, int]) -> Response:
    message = page.ngettext(
        "Discarded %(num)d attachment, %(size)s freed.",
        "Discarded %(num)d attachments, %(size)s freed.",
        freed["count"],
        size=formats.size(freed["bytes"], page.language),
    )
    return page.redirect_with_flash(PAGE, message)


async def discard_submit(page: Page) -> Response:
    paths = [value for value in page.fields.all("path") if isinstance(value, str) and value]
    if not paths:
        raise ValidationError("choose an attachment to discard")
    freed = await run_sync(discard, page.web.services.items, page.web.services.blobs, page.user.user_id, paths)
    return _discarded(page, freed)


async def discard_orphans_submit(page: Page) -> Response:
    if page.fields.text("confirm") != "yes":
        raise ValidationError("confirm discarding every unattached file")
    freed = await run_sync(discard_orphans, page.web.services.items, page.web.services.blobs, page.user.user_id)
    return _discarded(page, freed)


def attachment_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, attachments_page), methods=["GET"]),
        Route(PAGE + "/discard", endpoint(web, discard_submit), methods=["POST"]),
        Route(PAGE + "/discard-orphans", endpoint(web, discard_orphans_submit), methods=["POST"]),
    ]
