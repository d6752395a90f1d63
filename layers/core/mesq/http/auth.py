"""Bearer credentials -> Principal, and the scope check every operation goes through."""

from __future__ import annotations

from starlette.requests import Request

from ..auth.scopes import missing_scopes
from ..auth.tokens import authenticate_token
from ..context import Principal, Services
from ..errors import Forbidden, Unauthorized


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("use Authorization: Bearer <token>")
    return token.strip()


def authenticate(request: Request, services: Services) -> Principal:
    token = bearer_token(request)
    if token is None:
        raise Unauthorized("authentication required: send Authorization: Bearer <token>")
    return authenticate_token(services.items, token)


def require_scopes(principal: Principal, needed: tuple[str, ...]) -> None:
    missing = missing_scopes(principal.scopes, needed)
    if missing:
        raise Forbidden(f"this credential lacks the scope(s) {', '.join(missing)}")
