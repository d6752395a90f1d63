"""A board's untouched default names in the page's language.

A board made while the account spoke English keeps "Default" / "To do" / "Doing" / "Done" after
the person switches to Chinese (and 默认 / 待办 / 进行中 / 已完成 the other way): names are the
person's data, and nothing renames them behind their back (docs/i18n.md, "New boards"). So the
settings page offers it: when a space or column is still named exactly as
another language's new board, a card lists the renames, and one click runs them through the
same operations a rename on the board runs (`update_todo_space`, `update_todo_column`: each
checked against its revision, recorded in the history, undoable). A name changed meanwhile, or a
record gone, is left as it is and counted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ...kernel.concurrency import run_sync
from ...kernel.errors import Conflict, NotFound, ValidationError
from ...todos.board.spaces import has_board
from ...todos.model import default_board
from ..kit.framework import Page
from ..kit.i18n import LANGUAGES

_OPERATIONS = {"space": ("spaceId", "update_todo_space"), "column": ("columnId", "update_todo_column")}
#: What leaves a name as it is: a record changed or gone meanwhile (a name refused, too).
_KEPT = (ValidationError, Conflict, NotFound)


@dataclass(frozen=True)
class Rename:
    kind: Literal["space", "column"]
    id: str
    revision: int
    name: str
    to: str
    space: str = ""  # a column's space, by its name now: two spaces' "To do" are two lines


def default_names_to_rename(listing: dict[str, Any], language: str) -> list[Rename]:
    """The spaces and columns (of `list_todo_spaces`) named exactly as a new board in another
    language, each with its name in `language`."""
    space_name, column_names = default_board(language)
    renames: list[Rename] = []
    for other in LANGUAGES:
        if other == language:
            continue
        other_space, other_columns = default_board(other)
        renames += [
            Rename("space", space["id"], space["revision"], space["name"], space_name)
            for space in listing["spaces"]
            if space["name"] == other_space
        ]
        spaces = {space["id"]: space["name"] for space in listing["spaces"]}
        renames += [
            Rename(
                "column",
                column["id"],
                column["revision"],
                name,
                column_names[other_columns.index(name)],
                spaces.get(column["spaceId"], ""),
            )
            for column in listing["columns"]
            if (name := column["name"]) in other_columns
        ]
    return renames


async def renames_offered(page: Page) -> list[Rename]:
    # Listing the spaces would make the board of an account that has none, named in this page's
    # language: looking at Settings must not decide a first board's names.
    if not await run_sync(has_board, page.web.services.items, page.user.user_id):
        return []
    return default_names_to_rename(await page.invoke("list_todo_spaces", {}), page.language)


async def rename_default_names(page: Page) -> tuple[int, int]:
    """Run the offered renames: (renamed, kept as they were)."""
    renamed = kept = 0
    for rename in await renames_offered(page):
        key, operation = _OPERATIONS[rename.kind]
        try:
            await page.invoke(operation, {key: rename.id, "expectedRevision": rename.revision, "name": rename.to})
        except _KEPT:
            kept += 1
            continue
        renamed += 1
    return renamed, kept
