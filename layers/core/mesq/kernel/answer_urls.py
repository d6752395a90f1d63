"""The URLs an answer hands a client, absolute (docs/decisions.md "URLs in answers").

Attachment records keep the URL they were bound with: absolute under a configured public URL,
else the bare REST route (`/api/toolkit/...`), so a stored record never names a host it was
reached by once. A script or an agent cannot use a bare route, so every REST and MCP answer gets
the base URL the request came by (scheme + the Host `asgi/hosts.py` checked) in front of such a
route, on the way out; with a public URL the records already carry it."""

from __future__ import annotations

from typing import Any, TypeVar, cast

from .context import Call

#: The routes an answer names for a client to call itself (attachment reads, the relay upload).
REST_ROUTE_PREFIX = "/api/toolkit/"
#: The keys of answer objects whose value is such a URL.
URL_KEYS = frozenset({"url", "uploadEndpoint"})

Answer = TypeVar("Answer")


def answer_base(call: Call) -> str:
    """The base URL the URLs of this call's answer start with: the public URL, else the
    request's own (`Call.base_url`), else "" (no request: the command line, jobs)."""
    return call.services.deployment.public_url or call.base_url


def absolute_urls(value: Any, base: str) -> Any:
    """`value` with `base` in front of every bare REST route under a URL key, at any depth; the
    objects and lists that hold none are returned as they are (nothing is copied for them)."""
    if not base:
        return value
    if isinstance(value, dict):
        changed: dict[str, Any] | None = None
        for key, item in value.items():
            if key in URL_KEYS and isinstance(item, str) and item.startswith(REST_ROUTE_PREFIX):
                new = base + item
            elif isinstance(item, (dict, list)):
                new = absolute_urls(item, base)
            else:
                continue
            if new is not item:
                changed = changed if changed is not None else dict(value)
                changed[key] = new
        return changed if changed is not None else value
    if isinstance(value, list):
        items = [absolute_urls(item, base) for item in value]
        return items if any(new is not old for new, old in zip(items, value, strict=True)) else value
    return value


def answered(call: Call, data: Answer) -> Answer:
    """An operation's result as the client gets it: bare routes made absolute by the request's
    base URL when no public URL is configured (with one, records and answers already carry it)."""
    if call.services.deployment.public_url or not call.base_url:
        return data
    return cast(Answer, absolute_urls(data, call.base_url))
