"""`/settings`: the settings index (the header's one Settings entry opens it; every settings page
shows the same menu, `pages.py`) and the Language choice (`POST /settings/language`), kept in
the account's interface settings (`auth/users.set_setting`) like the memo page's double-click
setting: "" follows the browser's `Accept-Language`, "en" or "zh" is fixed; and the Time zone
(`POST /settings/time-zone`, the `set_time_zone` operation REST and MCP run): the zone every
"today", overdue, agenda and quick-add default uses. Until one is set, every signed-in page offers
the browser's zone ("Use Asia/Shanghai?", `kit/base.html`), saved only when the person confirms.
Below the Language choice, a board still named in another language is offered its names in this
one (`POST /settings/board-names`, board_names.py)."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from ...auth.user_zone import zone_names
from ...auth.users import get_user, set_setting
from ...kernel.concurrency import run_sync
from ...kernel.errors import ValidationError
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import LANGUAGES, Translator, choose_language
from ..kit.request_values import request_zone
from ..kit.security import safe_next
from .board_names import rename_default_names, renames_offered

PAGE = "/settings"


async def settings_page(page: Page, *, zone_error: str = "", typed_zone: str | None = None) -> Response:
    profile = await run_sync(get_user, page.web.services.items, page.user.user_id)
    chosen = (profile or {}).get("settings", {}).get("language", "")
    return page.render(
        "settings/index.html",
        status=400 if zone_error else 200,
        nav="settings",
        chosen_language=chosen if chosen in LANGUAGES else "",
        board_renames=await renames_offered(page),
        user_zone=page.user_zone,
        typed_zone=page.user_zone if typed_zone is None else typed_zone,
        zone_error=zone_error,
        browser_zone=request_zone(page.request),
        zones=zone_names(),
    )


async def language_submit(page: Page) -> Response:
    language = page.fields.text("language")
    if language and language not in LANGUAGES:
        raise ValidationError("choose one of the listed languages, or the browser's")
    await run_sync(set_setting, page.web.services.items, page.user.user_id, "language", language)
    # The notice is in the language the next page will be in.
    now = Translator(choose_language(language, page.request.headers.get("accept-language")))
    return page.redirect_with_flash(PAGE, now.gettext("Language saved."))


async def board_names_submit(page: Page) -> Response:
    renamed, kept = await rename_default_names(page)
    said = page.ngettext("Renamed %(num)d name on your board.", "Renamed %(num)d names on your board.", renamed)
    if kept:
        said += " " + page.ngettext(
            "%(num)d was changed meanwhile and kept as it is.",
            "%(num)d were changed meanwhile and kept as they are.",
            kept,
        )
    return page.redirect_with_flash(PAGE, said)


async def time_zone_submit(page: Page) -> Response:
    typed = page.fields.text("timeZone").strip()
    # A name as the list spells it, whatever its case ("asia/shanghai"): the operation takes the exact one.
    name = {zone.lower(): zone for zone in zone_names()}.get(typed.lower(), typed)
    back = safe_next(page.fields.text("back"), PAGE)  # the offer's page (every page offers it): stay there
    try:
        saved = await page.invoke("set_time_zone", {"timeZone": name})
    except ValidationError as error:
        if back != PAGE:  # the offer's zone is the browser's own: an error page, as before
            raise
        # Settings' own field: the page again, the reason beside the field and the name as typed
        return await settings_page(page, zone_error=page.error_text(error), typed_zone=typed)
    return page.redirect_with_flash(back, page.gettext("Time zone set to %(zone)s.", zone=saved["timeZone"]))


def settings_index_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, settings_page), methods=["GET"]),
        Route(PAGE + "/language", endpoint(web, language_submit), methods=["POST"]),
        Route(PAGE + "/board-names", endpoint(web, board_names_submit), methods=["POST"]),
        Route(PAGE + "/time-zone", endpoint(web, time_zone_submit), methods=["POST"]),
    ]
