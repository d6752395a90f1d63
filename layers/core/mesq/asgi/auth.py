"""Bearer credentials -> Principal, and the scope check every operation goes through."""

from __future__ import annotations

from starlette.requests import Request

from ..auth.oauth.grants import authenticate_access_token
from ..auth.oauth.keys import ACCESS_PREFIX
from ..auth.oauth.resources import accepts
from ..auth.scopes import missing_scopes
from ..auth.tokens import authenticate_token
from ..context import Principal, Services
from ..errors import Forbidden, Unauthorized
from ..store.ports import ItemStore
from .instance import instance_url


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("use Authorization: Bearer <token>")
    return token.strip()


def authenticate_bearer(items: ItemStore, token: str, instance: str, path: str) -> Principal:
    """A PAT, or an OAuth access token whose RFC 8707 audience covers `path` of `instance`."""
    if token.startswith(ACCESS_PREFIX):
        return authenticate_access_token(items, token, lambda resource: accepts(resource, instance, path))
    return authenticate_token(items, token)


def authenticate(request: Request, services: Services) -> Principal:
    token = bearer_token(request)
    if token is None:
        raise Unauthorized("authentication required: send Authorization: Bearer <token>")
    return authenticate_bearer(services.items, token, instance_url(request, services), request.url.path)


def require_scopes(principal: Principal, needed: tuple[str, ...]) -> None:
    missing = missing_scopes(principal.scopes, needed)
    if missing:
        raise Forbidden(f"this credential lacks the scope(s) {', '.join(missing)}")
