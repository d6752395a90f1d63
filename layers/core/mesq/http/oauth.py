"""The OAuth 2.1 authorization server's HTTP side (docs/contract.md §1; docs/decisions.md "OAuth").

Routes: RFC 8414 metadata, RFC 9728 protected-resource metadata for the /mcp variants and REST
(`/.well-known/oauth-protected-resource/mcp` itself is served with the MCP routes), RFC 7591
registration, the authorization endpoint (which hands over to the consent page in mesq/web),
the token endpoint and RFC 7009 revocation. Protocol errors answer the RFC shape
`{"error", "error_description"}` with `Cache-Control: no-store`; the JSON body rules of
docs/contract.md §3 on registration answer the product envelope (400 VALIDATION_ERROR), as for every JSON body.
The store is synchronous: every store call runs in the worker pool (`run_sync`).
"""

from __future__ import annotations

import base64
import re
from typing import Any
from urllib.parse import unquote_plus

from authlib.common.urls import url_decode
from authlib.oauth2.rfc7636.challenge import CODE_CHALLENGE_PATTERN
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ..application.ratelimit import RateLimiter
from ..asgi.app import ErrorPage
from ..asgi.auth import count_unauthenticated
from ..asgi.body import (
    FORM_MEDIA_TYPE,
    MAX_FORM_BYTES,
    accepts_html,
    is_json_media_type,
    media_type,
    parse_json_object,
    read_json_object,
    read_limited,
)
from ..asgi.cors import open_cors
from ..asgi.envelope import failure
from ..asgi.instance import instance_aliases, instance_url, resource_base
from ..asgi.trace import trace_id_of
from ..auth.oauth import grants
from ..auth.oauth.authorization import create_pending, redirect_with, requested_scopes
from ..auth.oauth.clients import (
    Client,
    check_metadata_document_id,
    is_metadata_document_id,
    match_redirect_uri,
    metadata_document_client,
    metadata_from_document,
    register_client,
    registered_client,
)
from ..auth.oauth.errors import OAuthError, Unverified, for_the_person
from ..auth.oauth.metadata import (
    AUTHORIZE_PATH,
    CONSENT_PATH,
    PROTECTED_RESOURCE_PREFIX,
    REGISTER_PATH,
    REVOKE_PATH,
    TOKEN_PATH,
    authorization_server_metadata,
    protected_resource_metadata,
)
from ..auth.oauth.resources import canonical_resource, normalize_resource
from ..auth.scopes import known_scopes
from ..kernel.concurrency import run_sync
from ..kernel.errors import MesqError, NotFound, RateLimited
from ..kernel.messages import quoted
from ..kernel.values import checked_values
from ..wiring.services import Services
from .cimd import client_metadata_document
from .server_card import server_card_routes

MAX_STATE_LENGTH = 1000
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
METADATA_CACHE = {"Cache-Control": "public, max-age=3600"}


def oauth_error(error: OAuthError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=NO_STORE)


def rate_limited(limited: RateLimited) -> JSONResponse:
    """RFC 6749's shape for an anonymous caller over its per-IP budget, with Retry-After."""
    body = {"error": "temporarily_unavailable", "error_description": limited.message}
    headers = {**NO_STORE, "Retry-After": str(limited.retry_after_seconds)}
    return JSONResponse(body, status_code=429, headers=headers)


#: RFC 9110 §11.1 auth-scheme (a token).
_AUTH_SCHEME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,40}")


def _basic_public_client_id(authorization: str) -> str:
    """The client_id of `Authorization: Basic base64(urlencoded(client_id) ":" )` with an empty
    password (RFC 6749 §2.3.1); any other credential is a 401 invalid_client."""
    scheme, _, credentials = authorization.strip().partition(" ")
    if scheme.lower() != "basic":
        raise OAuthError("invalid_client", "MeSQ clients are public: send client_id and no secret", 401)
    try:
        decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        raise OAuthError("invalid_client", "the Authorization header is not valid Basic credentials", 401) from None
    client_id, colon, secret = decoded.partition(":")
    if not colon or not client_id:
        raise OAuthError("invalid_client", "the Authorization header is not valid Basic credentials", 401)
    if secret:
        raise OAuthError("invalid_client", "MeSQ clients are public: send client_id and no secret", 401)
    return unquote_plus(client_id)


def with_client_challenge(response: Response, request: Request) -> Response:
    """RFC 6749 §5.2: a 401 to a client that authenticated with the Authorization header carries
    `WWW-Authenticate` in the scheme it used."""
    authorization = request.headers.get("authorization")
    if response.status_code == 401 and authorization:
        scheme = authorization.strip().partition(" ")[0]
        if scheme.lower() == "basic" or not _AUTH_SCHEME.fullmatch(scheme):
            scheme = "Basic"
        response.headers["WWW-Authenticate"] = f'{scheme} realm="mesq"'
    return response


def _single_params(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """RFC 6749 §3.1/§3.2: a parameter sent more than once is an invalid request."""
    params: dict[str, str] = {}
    for name, value in pairs:
        if name in params:
            raise OAuthError("invalid_request", f"parameter {quoted(name)} is repeated")
        params[name] = value
    return params


def _optional(params: dict[str, str], name: str) -> str | None:
    value = params.get(name)
    return value if value else None


def _required(params: dict[str, str], name: str) -> str:
    value = params.get(name)
    if not value:
        raise OAuthError("invalid_request", f"{name} is required")
    return value


class OAuthEndpoints:
    def __init__(self, services: Services, error_page: ErrorPage | None = None) -> None:
        self.services = services
        self.limiter = RateLimiter(services.items, services.settings)
        #: The site's error page (mesq/web's, where the app serves pages): what a browser is shown
        #: when authorize must not redirect.
        self.error_page = error_page

    # -- discovery ------------------------------------------------------------------------------

    async def server_metadata(self, request: Request) -> Response:
        return JSONResponse(authorization_server_metadata(instance_url(request, self.services)), headers=METADATA_CACHE)

    async def resource_metadata(self, request: Request) -> Response:
        instance = instance_url(request, self.services)
        # The path as sent, when the server keeps it: the route reads `/mcp/x/me%6Do` decoded, and a
        # document for `/mcp/x/memo` would describe a URL the MCP route refuses (resources.py
        # refuses the `%` as the route does: a 404 here).
        raw_path = request.scope.get("raw_path")
        sent = raw_path.decode("latin-1") if isinstance(raw_path, bytes) else request.url.path
        path = sent.removeprefix(PROTECTED_RESOURCE_PREFIX) or "/mcp"
        try:
            resource = normalize_resource(instance + path, instance)
        except OAuthError as error:
            return failure(NotFound(error.description), trace_id_of(request))
        base = resource_base(request, self.services)
        return JSONResponse(
            protected_resource_metadata(instance, resource.removeprefix(instance), base), headers=METADATA_CACHE
        )

    # -- registration (RFC 7591) ----------------------------------------------------------------

    async def register(self, request: Request) -> Response:
        trace_id = trace_id_of(request)
        try:
            # Anyone may register: count it like other unauthenticated calls, per client IP.
            await count_unauthenticated(self.limiter, request)
            # The values rules of every JSON body too: a lone surrogate (`"\\ud800"`) in client_uri
            # was stored and then failed to encode in the answer (500).
            document = checked_values(await read_json_object(request))
        except MesqError as error:  # RATE_LIMITED, or the JSON body rules' VALIDATION_ERROR
            return failure(error, trace_id)
        try:
            metadata = metadata_from_document(document)
            response = await run_sync(register_client, self.services.items, metadata)
        except OAuthError as error:
            return oauth_error(error)
        return JSONResponse(response, status_code=201, headers=NO_STORE)

    # -- authorization endpoint -----------------------------------------------------------------

    async def _client(self, client_id: str) -> Client:
        if is_metadata_document_id(client_id):
            allow_loopback = self.services.settings.oauth_cimd_allow_loopback
            check_metadata_document_id(client_id, allow_loopback)
            document = await client_metadata_document(client_id, allow_loopback, self.services.client_documents)
            return metadata_document_client(client_id, document)
        client = await run_sync(registered_client, self.services.items, client_id)
        if client is None:
            raise OAuthError("invalid_client", f"unknown client_id {quoted(client_id)}; register the client first")
        return client

    async def _unverified(self, request: Request, error: OAuthError, unverified: Unverified) -> Response:
        """A browser (its Accept names text/html) gets the site's error page in its person's
        language; an API client the RFC's JSON, as before."""
        if self.error_page is None or not accepts_html(request.headers.get("accept")):
            return oauth_error(error)
        return await self.error_page(for_the_person(unverified), trace_id_of(request), request)

    async def _over_budget(self, request: Request) -> Response | None:
        """Authorize, token and revoke answer anyone, and authorize writes a pending request:
        each call counts against the client IP's unauthenticated budget."""
        try:
            await count_unauthenticated(self.limiter, request)
        except RateLimited as limited:
            return rate_limited(limited)
        return None

    async def authorize(self, request: Request) -> Response:
        if refused := await self._over_budget(request):
            return refused
        issuer = instance_url(request, self.services)
        # RFC 6749 §4.1.2.1: never redirect to an unverified URI; tell the person instead.
        unverified: Unverified = "request"
        try:
            params = _single_params(list(QueryParams(request.url.query).multi_items()))
            client_id = _required(params, "client_id")
            unverified = "client"
            client = await self._client(client_id)
            unverified = "redirect_uri"
            redirect_uri = match_redirect_uri(client, _optional(params, "redirect_uri"))
        except OAuthError as error:
            return await self._unverified(request, error, unverified)
        state = _optional(params, "state")
        try:
            if state is not None and len(state) > MAX_STATE_LENGTH:
                state = None
                raise OAuthError("invalid_request", f"state is longer than {MAX_STATE_LENGTH} characters")
            aliases = instance_aliases(self.services.settings)
            scopes, resource, challenge = self._authorization_params(client, params, issuer, aliases)
        except OAuthError as error:
            location = redirect_with(
                redirect_uri,
                {"error": error.error, "error_description": error.description, "state": state, "iss": issuer},
            )
            return RedirectResponse(location, status_code=302, headers=NO_STORE)
        request_id = await run_sync(
            lambda: create_pending(
                self.services.items,
                client=client,
                redirect_uri=redirect_uri,
                redirect_uri_given=bool(_optional(params, "redirect_uri")),
                scopes=scopes,
                resource=resource,
                state=state,
                code_challenge=challenge,
                issuer=issuer,
                offered=client.scopes is None and not known_scopes(params.get("scope")),
            )
        )
        return RedirectResponse(f"{issuer}{CONSENT_PATH}?request={request_id}", status_code=302, headers=NO_STORE)

    @staticmethod
    def _authorization_params(
        client: Client, params: dict[str, str], instance: str, aliases: frozenset[str]
    ) -> tuple[frozenset[str], str, str]:
        response_type = _optional(params, "response_type")
        if response_type != "code":
            raise OAuthError("unsupported_response_type", "response_type must be code")
        challenge = _optional(params, "code_challenge")
        if challenge is None:
            raise OAuthError("invalid_request", "PKCE is required: send code_challenge and code_challenge_method=S256")
        if params.get("code_challenge_method") != "S256":
            raise OAuthError("invalid_request", "code_challenge_method must be S256 (plain is not supported)")
        if not CODE_CHALLENGE_PATTERN.match(challenge):
            raise OAuthError("invalid_request", "code_challenge must be 43..128 unreserved characters")
        # A resource on another name of the instance (its metadata named the URL the client used)
        # is the instance's own: one audience whichever name the client connected by.
        resource = normalize_resource(canonical_resource(_optional(params, "resource"), instance, aliases), instance)
        requested = requested_scopes(client, params.get("scope"), resource)
        return requested, resource, challenge

    # -- token endpoint -------------------------------------------------------------------------

    async def _form(self, request: Request) -> dict[str, str]:
        if media_type(request.headers.get("content-type")) != FORM_MEDIA_TYPE:
            raise OAuthError("invalid_request", "token requests must be application/x-www-form-urlencoded")
        raw = await read_limited(request, MAX_FORM_BYTES)
        if raw is None:
            raise OAuthError("invalid_request", f"the request body exceeds {MAX_FORM_BYTES} bytes")
        try:
            pairs = url_decode(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise OAuthError("invalid_request", "the request body is not valid form encoding") from None
        return _single_params(pairs)

    async def _public_client_id(self, request: Request, params: dict[str, str]) -> str:
        """RFC 6749 §2.3/§3.2.1: public clients identify themselves with client_id only. An empty
        secret is no secret (RFC 6749 §2.3.1 lets a client send an empty password): a client that
        defaults to `client_secret_basic` or `_post` sends `Basic base64("<client_id>:")` or
        `client_secret=` after a registration answered `none`, and is the same public client.
        The token and the revocation endpoint both authenticate their client here (RFC 7009 §2.1)."""
        if params.get("client_secret"):
            raise OAuthError("invalid_client", "MeSQ clients are public: send client_id and no secret", 401)
        authorization = request.headers.get("authorization")
        if authorization:
            from_header = _basic_public_client_id(authorization)
            if params.get("client_id") not in (None, "", from_header):
                raise OAuthError("invalid_client", "client_id differs from the one in the Authorization header", 401)
            params = {**params, "client_id": from_header}
        client_id = _required(params, "client_id")
        if is_metadata_document_id(client_id):
            check_metadata_document_id(client_id, self.services.settings.oauth_cimd_allow_loopback)
        elif await run_sync(registered_client, self.services.items, client_id) is None:
            raise OAuthError("invalid_client", "unknown client_id", 401)
        return client_id

    async def token(self, request: Request) -> Response:
        if refused := await self._over_budget(request):
            return refused
        instance = instance_url(request, self.services)
        items = self.services.items
        aliases = instance_aliases(self.services.settings)
        try:
            params = await self._form(request)
            resource = canonical_resource(_optional(params, "resource"), instance, aliases)
            client_id = await self._public_client_id(request, params)
            grant_type = _required(params, "grant_type")
            if grant_type == "authorization_code":
                code = _required(params, "code")
                issued = await run_sync(
                    lambda: grants.exchange_code(
                        items,
                        code=code,
                        client_id=client_id,
                        redirect_uri=_optional(params, "redirect_uri"),
                        code_verifier=_optional(params, "code_verifier"),
                        resource=resource,
                        instance=instance,
                    )
                )
            elif grant_type == "refresh_token":
                refresh_token = _required(params, "refresh_token")
                issued = await run_sync(
                    lambda: grants.refresh(
                        items,
                        refresh_token=refresh_token,
                        client_id=client_id,
                        scope=params.get("scope"),
                        resource=resource,
                        instance=instance,
                    )
                )
            else:
                raise OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
        except OAuthError as error:
            return with_client_challenge(oauth_error(error), request)
        return JSONResponse(issued.response(), headers=NO_STORE)

    # -- revocation (RFC 7009) ------------------------------------------------------------------

    async def _revocation_params(self, request: Request) -> dict[str, str]:
        """The form RFC 7009 names, or a JSON object (some clients send one)."""
        content_type = request.headers.get("content-type")
        if media_type(content_type) == FORM_MEDIA_TYPE:
            return await self._form(request)
        if not is_json_media_type(content_type):
            raise OAuthError(
                "invalid_request", "revocation requests must be application/x-www-form-urlencoded or application/json"
            )
        raw = await read_limited(request, MAX_FORM_BYTES)
        if raw is None:
            raise OAuthError("invalid_request", f"the request body exceeds {MAX_FORM_BYTES} bytes")
        try:
            document: dict[str, Any] = parse_json_object(raw)
        except MesqError as error:
            raise OAuthError("invalid_request", error.message) from None
        return {name: value for name, value in document.items() if isinstance(value, str)}

    async def revoke(self, request: Request) -> Response:
        """RFC 7009: a client that names itself authenticates as at the token endpoint (a public
        client sends its client_id; a secret, an unknown client or a broken Authorization header is
        a 401 invalid_client), and then only a token issued to it is revoked (§2.1, §5). A request
        naming no client at all (a bare `token=`, as many libraries and scripts send) revokes the
        token's grant: holding the token is the proof, whoever holds it could use it, and refusing
        would leave it live. Unknown tokens and tokens of another client answer 200 and change
        nothing (§2.2)."""
        if refused := await self._over_budget(request):
            return refused
        try:
            params = await self._revocation_params(request)
            token = _required(params, "token")
            names_a_client = any(
                (request.headers.get("authorization"), params.get("client_id"), params.get("client_secret"))
            )
            client_id = await self._public_client_id(request, params) if names_a_client else None
        except OAuthError as error:
            return with_client_challenge(oauth_error(error), request)
        await run_sync(grants.revoke_token, self.services.items, token, client_id)
        return Response(status_code=200, headers=NO_STORE)


def oauth_routes(services: Services, error_page: ErrorPage | None = None) -> list[Route]:
    """`error_page`: the site's, for a browser sent to authorize by an app MeSQ cannot verify."""
    endpoints = OAuthEndpoints(services, error_page)
    read = ["GET", "OPTIONS"]
    post = ["POST", "OPTIONS"]
    resource_paths = ["", "/mcp/readonly", "/mcp/x/{toolsets}", "/mcp/x/{toolsets}/readonly", "/api/toolkit"]
    return [
        Route("/.well-known/oauth-authorization-server", open_cors(endpoints.server_metadata, read), methods=read),
        *(
            Route(PROTECTED_RESOURCE_PREFIX + path, open_cors(endpoints.resource_metadata, read), methods=read)
            for path in resource_paths
        ),
        Route(REGISTER_PATH, open_cors(endpoints.register, post), methods=post),
        Route(AUTHORIZE_PATH, endpoints.authorize, methods=["GET"]),
        Route(TOKEN_PATH, open_cors(endpoints.token, post), methods=post),
        Route(REVOKE_PATH, open_cors(endpoints.revoke, post), methods=post),
        # How directories list the server (the well-known documents are this function's).
        *server_card_routes(services),
    ]
