"""The `page` object of every offset-paged response (docs/contract.md §3), built in one place.

`page(offset, limit, returned, total, has_more=RULE, step=...)`: `step` is how far `nextOffset`
advances (default `returned`; more when a page stepped over matches it could not return), and
`nextOffset` is present exactly when `hasMore` is true. The rule is an argument because the lists
differ in what they know:
- `behind`: more matches lie past this page (the total is exact);
- `behind_nonempty`: the same, but an empty page (over budget, or out of range) ends the walk;
- `full_and_behind`: only a full page can have a successor (the total comes from counters that
  an eventually consistent index may lag, so following nextOffset must always end);
- `always`: the widest page object, for measuring a response before its size is known.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: (offset, limit, step, total) -> hasMore
HasMore = Callable[[int, int, int, int], bool]


def behind(offset: int, limit: int, step: int, total: int) -> bool:
    return offset + step < total


def behind_nonempty(offset: int, limit: int, step: int, total: int) -> bool:
    return step > 0 and offset + step < total


def full_and_behind(offset: int, limit: int, step: int, total: int) -> bool:
    return step == limit and offset + step < total


def always(offset: int, limit: int, step: int, total: int) -> bool:
    return True


def page(
    offset: int, limit: int, returned: int, total: int, *, has_more: HasMore, step: int | None = None
) -> dict[str, Any]:
    advance = returned if step is None else step
    more = has_more(offset, limit, advance, total)
    built: dict[str, Any] = {
        "offset": offset, "limit": limit, "returned": returned, "totalCount": total, "hasMore": more,
    }  # fmt: skip
    if more:
        built["nextOffset"] = offset + advance
    return built
