"""The notice an in-place write answers with (htmx): a toast, appended out of band to the page's
`#toasts` live region (base.html), with an Undo button when the write recorded changes.

The Undo button posts the change ids the write recorded (`Page.invoke_recorded`) to the page
package's undo endpoint, which calls `undo_changes` for exactly those and answers the item's
fragment again, swapped over `target` (the card or the placeholder the write left). `static/
inplace.js` dismisses toasts after a few seconds, on Escape and on their close button.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import Response

from ...kernel.errors import ValidationError
from .framework import Page
from .i18n import NP_, Translator

#: Change ids one Undo button may carry (a write records one per record it changes).
MAX_UNDO = 100


@dataclass(frozen=True)
class Toast:
    message: str
    #: The undo endpoint (POST) and what its answer replaces; no Undo button without change ids.
    undo_url: str = ""
    target: str = ""
    change_ids: Sequence[str] = ()
    #: Extra hidden fields the undo endpoint needs to render the item (the view to return to, ...).
    fields: Sequence[tuple[str, str]] = field(default_factory=tuple)

    @property
    def undoable(self) -> bool:
        return bool(self.undo_url and self.change_ids)


def render_with_toast(page: Page, fragment: str, toast: Toast | None, *, status: int = 200, **context: Any) -> Response:
    """`fragment` (a card, a placeholder, a list) rendered with `context`, and the toast after it
    (htmx swaps the fragment in place and the toast into `#toasts`)."""
    response = page.render("kit/_with_toast.html", fragment=fragment, toast=toast, **context)
    response.status_code = status
    return response


def toast_only(page: Page, toast: Toast) -> Response:
    """Just the toast (a refused write): the item where it is, untouched (`HX-Reswap: none`
    swaps nothing in place; the out-of-band toast still lands)."""
    response = page.render("kit/_toast.html", toast=toast)
    response.headers["HX-Reswap"] = "none"
    return response


def undo_ids(page: Page) -> list[str]:
    """The change ids an Undo button posted (`changeId`, one field each), for `undo_changes`."""
    change_ids = [str(value) for value in page.fields.all("changeId") if value][:MAX_UNDO]
    if not change_ids:
        raise ValidationError("changeId: the change to undo")
    return change_ids


#: Why a change was not undone, by the code `undo_changes` gives it (its message is the API's,
#: in English): in the page's words.
NOT_UNDONE_WORDS = {
    "REVISION_CONFLICT": NP_("%(num)d changed again since", "%(num)d changed again since"),
    "NOT_FOUND": NP_("%(num)d no longer exists", "%(num)d no longer exist"),
    "NOT_UNDOABLE": NP_("%(num)d cannot be undone", "%(num)d cannot be undone"),
    "CONFLICT": NP_("%(num)d was already undone or has moved on since",
                    "%(num)d were already undone or have moved on since"),
    "FORBIDDEN": NP_("%(num)d is not yours to undo", "%(num)d are not yours to undo"),
}
_OTHER = NP_("%(num)d could not be undone", "%(num)d could not be undone")


def not_undone_words(refused: list[dict[str, Any]], say: Translator) -> str:
    """`1 changed again since, 2 cannot be undone`: the changes an undo left, by reason."""
    reasons = Counter(str(entry.get("code")) for entry in refused)
    return say.gettext(", ").join(
        say.ngettext(*NOT_UNDONE_WORDS.get(code, _OTHER), count) for code, count in reasons.items()
    )


def undo_message(page: Page, answer: dict[str, Any]) -> str:
    """What an Undo says: done, or why not."""
    refused = answer["notUndone"]
    if not refused:
        return page.gettext("Undone.")
    return page.gettext("Not undone: %(reasons)s.", reasons=not_undone_words(refused, page.translator))


__all__ = ["Toast", "not_undone_words", "render_with_toast", "toast_only", "undo_ids", "undo_message"]
