"""The scopes of docs/contract.md §1 and the rules that combine them."""

from __future__ import annotations

from collections.abc import Iterable

from ..kernel.errors import ValidationError

ALL_SCOPES = ("memo:read", "memo:write", "todo:read", "todo:write", "reading:read")
READ_SCOPES = frozenset(scope for scope in ALL_SCOPES if scope.endswith(":read"))


def parse_scopes(raw: str | Iterable[str]) -> frozenset[str]:
    """Scopes from `memo:read,memo:write` / `memo:read memo:write` or a list; unknown -> error."""
    items = raw.replace(",", " ").split() if isinstance(raw, str) else list(raw)
    scopes = frozenset(item.strip() for item in items if item.strip())
    unknown = sorted(scopes - set(ALL_SCOPES))
    if unknown:
        raise ValidationError(
            "unknown scope(s) %(unknown)s; valid scopes are %(all_scopes)s",
            unknown=", ".join(unknown),
            all_scopes=", ".join(ALL_SCOPES),
        )
    if not scopes:
        raise ValidationError("at least one scope is required")
    return scopes


def known_scopes(raw: str | None) -> frozenset[str]:
    """The MeSQ scopes of an OAuth `scope` string (RFC 6749 §3.3: space-separated). Others
    (`offline_access`, `openid`, `profile`, `claudeai`, a misspelt one) are ignored, never an
    error: the authorization server may grant less than asked and says what it granted
    (docs/decisions.md "OAuth 2.1 authorization server", scope)."""
    return frozenset((raw or "").split()) & frozenset(ALL_SCOPES)


def missing_scopes(granted: frozenset[str], needed: Iterable[str]) -> list[str]:
    return [scope for scope in needed if scope not in granted]


def needed_scopes(granted: frozenset[str], scopes: Iterable[str], any_scope: bool = False) -> list[str]:
    """Missing scopes: all of `scopes` must be granted, or one of them when `any_scope`."""
    scopes = list(scopes)
    if any_scope and any(scope in granted for scope in scopes):
        return []
    return [scope for scope in scopes if scope not in granted]


def order_scopes(scopes: Iterable[str]) -> list[str]:
    return [scope for scope in ALL_SCOPES if scope in set(scopes)]
