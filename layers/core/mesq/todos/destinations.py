"""Where a write lands: the destination rules of docs/contract.md §5, in one place.

Offers `resolve_space(state, space_id, space_slug)` and `resolve_destination(state, space_id,
space_slug, column_id)` -> (space, column), plus `find_space(state, ref)` for path parameters.

Rules: explicit `spaceId` / `spaceSlug` / `columnId` must exist (NOT_FOUND otherwise), be live
(a column must not be archived) and agree with each other (VALIDATION_ERROR otherwise); an omitted
space is the default space; a task without a column goes to the first non-archived column of its
space. `default` (as spaceSlug or spaceId) is the default space unless a space really has the
slug `default` (ids are random, so no space id is ever `default`).
"""

from __future__ import annotations

from ..kernel.errors import NotFound, ValidationError
from ..kernel.messages import quoted
from ..kernel.ports.storage import Item
from . import model
from .state import TodoState


def _default(state: TodoState) -> Item:
    space = state.default_space()
    if space is None:  # ensure_default_space runs before every write; a bug if this happens
        raise NotFound("the default space does not exist yet")
    return space


def find_space(state: TodoState, space_id: str) -> Item:
    """A space by id, `default` meaning the default space."""
    space = state.spaces.get(space_id)
    if space is None and space_id == model.DEFAULT_ALIAS:
        return state.space_by_slug(model.DEFAULT_ALIAS) or _default(state)
    if space is None:
        raise NotFound("todo space %(space_id)s not found", space_id=quoted(space_id))
    return space


def _by_slug(state: TodoState, slug: str) -> Item:
    space = state.space_by_slug(slug)
    if space is None and slug == model.DEFAULT_ALIAS:
        return _default(state)
    if space is None:
        raise NotFound("no todo space has slug %(slug)s", slug=quoted(slug))
    return space


def resolve_space(state: TodoState, space_id: str | None, space_slug: str | None) -> Item | None:
    """The space named by the references (None when both are omitted)."""
    by_id = find_space(state, space_id) if space_id is not None else None
    by_slug = _by_slug(state, space_slug) if space_slug is not None else None
    if by_id is not None and by_slug is not None and by_id["id"] != by_slug["id"]:
        raise ValidationError(
            "spaceId %(space_id)s and spaceSlug %(space_slug)s name different spaces; give one or make them agree",
            space_id=quoted(space_id),
            space_slug=quoted(space_slug),
        )
    return by_id or by_slug


def find_column(state: TodoState, column_id: str) -> Item:
    column = state.columns.get(column_id)
    if column is None:
        raise NotFound("todo column %(column_id)s not found", column_id=quoted(column_id))
    return column


def open_column(state: TodoState, space: Item) -> Item:
    column = state.first_open_column(space["id"])
    if column is None:
        raise ValidationError(
            "space %(slug)s has no open (non-archived) column; create or unarchive one", slug=quoted(space["slug"])
        )
    return column


def resolve_destination(
    state: TodoState, space_id: str | None, space_slug: str | None, column_id: str | None
) -> tuple[Item, Item]:
    """(space, column) for a root task; omitted everything = the default space's first open column."""
    space = resolve_space(state, space_id, space_slug)
    if column_id is not None:
        column = find_column(state, column_id)
        if space is not None and column["spaceId"] != space["id"]:
            raise ValidationError(
                "column %(column_id)s belongs to another space than %(slug)s; omit the space or make them agree",
                column_id=quoted(column_id),
                slug=quoted(space["slug"]),
            )
        if column.get("archived"):
            raise ValidationError(
                "column %(column_id)s is archived; unarchive it or choose another column", column_id=quoted(column_id)
            )
        return state.spaces[column["spaceId"]], column
    space = space or _default(state)
    return space, open_column(state, space)
