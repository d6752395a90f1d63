"""The notice an in-place write answers with (htmx): a toast, appended out of band to the page's
`#toasts` live region (base.html), with an Undo button when the write recorded changes.

The Undo button posts the change ids the write recorded (`Page.invoke_recorded`) to the page
package's undo endpoint, which undoes them in order with what this browser did to the record
since (`activity/undoing.py`) and answers the item's fragment again, swapped over `target` (the
card or the placeholder the write left). A toast never shows the service's own message. `static/
inplace.js` dismisses toasts after a few seconds, on Escape and on their close button.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import Response

from ...kernel.errors import ValidationError
from .framework import Page

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
    #: The record the toast is about (`memo:<id>`): sending one of its toasts' Undo retires the
    #: others (inplace.js), whose words no longer hold.
    record: str = ""
    #: A record that changed since: the toast offers to open it here.
    open_url: str = ""

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


__all__ = ["Toast", "render_with_toast", "toast_only", "undo_ids"]
