"""`/settings`: the settings index (the header's one Settings entry opens it; every settings page
shows the same menu, `pages.py`) and the Language choice (`POST /settings/language`), kept in
the account's interface settings (`auth/users.set_setting`) like the memo page's double-click
setting: "" follows the browser's `Accept-Language`, "en" or "zh" is fixed."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from ...auth.users import get_user, set_setting
from ...kernel.concurrency import run_sync
from ...kernel.errors import ValidationError
from ..kit.framework import Page, Web, endpoint
from ..kit.i18n import LANGUAGES, Translator, choose_language

PAGE = "/settings"


async def settings_page(page: Page) -> Response:
    profile = await run_sync(get_user, page.web.services.items, page.user.user_id)
    chosen = (profile or {}).get("settings", {}).get("language", "")
    return page.render("settings/index.html", nav="settings", chosen_language=chosen if chosen in LANGUAGES else "")


async def language_submit(page: Page) -> Response:
    language = page.fields.text("language")
    if language and language not in LANGUAGES:
        raise ValidationError(
            "language must be one of: %(languages)s, or empty for the browser's", languages=", ".join(LANGUAGES)
        )
    await run_sync(set_setting, page.web.services.items, page.user.user_id, "language", language)
    # The notice is in the language the next page will be in.
    now = Translator(choose_language(language, page.request.headers.get("accept-language")))
    return page.redirect_with_flash(PAGE, now.gettext("Language saved."))


def settings_index_routes(web: Web) -> list[Route]:
    return [
        Route(PAGE, endpoint(web, settings_page), methods=["GET"]),
        Route(PAGE + "/language", endpoint(web, language_submit), methods=["POST"]),
    ]
