"""OAuth clients: registered ones (RFC 7591, stored) and Client ID Metadata Document clients
(the `client_id` is an HTTPS URL whose JSON document the adapter fetched; never stored).

All clients are public (`token_endpoint_auth_method: none`): MCP clients are desktop apps and
browser-based agents that cannot keep a secret, and PKCE S256 binds every code to its client.

Redirect URIs: `https` URLs, `http` only on loopback (127.0.0.1, [::1], localhost; RFC 8252
§7.3 lets the port vary at request time for the IP literals, and MeSQ for `localhost` too, which
Claude Code relies on), and a native app's private-use
scheme with a host (RFC 8252 §7.1; Cursor registers `cursor://anysphere.cursor-mcp/oauth/callback`
beside its https and loopback callbacks, and refusing one refuses the whole registration). No
fragments, no user info, and no scheme a browser itself acts on (`javascript:`, `data:`, `file:`,
`ws:`...: `BROWSER_SCHEMES`); PKCE binds the code to the app that started the flow either way.

Registration (RFC 7591 §3.2.1 lets the server replace requested values, and clients read the
answer): every client is public, so a request for a secret-based method is answered with
`token_endpoint_auth_method: none` and no secret (claude.ai's connector asks for
`client_secret_post` and reads the method from the answer); every client gets refresh tokens, so
the answer's `grant_types` is always `authorization_code` and `refresh_token` (ChatGPT refuses an
answer without `refresh_token` when the server metadata advertises it); scopes MeSQ does not have
(`openid profile offline_access`, `claudeai`) are dropped from the registered `scope`, and the
answer returns what was stored. A metadata document cannot be rewritten by us: one whose
method is secret- or key-based is accepted only when its `token_endpoint_auth_methods_supported`
offers `none` (ChatGPT's does), else refused; grant types beyond the two MeSQ issues (VS Code's
device code) are ignored; its unknown scopes are ignored the same way.

The RFC 7591 grammar (URL fields, contacts, jwks) is authlib's `ClientMetadataClaims`; the rules
above are MeSQ's policy on top of it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from authlib.oauth2.rfc7591 import ClientMetadataClaims
from joserfc.errors import JoseError

from ...kernel.messages import quoted
from ...kernel.ports.storage import Condition, ItemStore
from ...kernel.timestamps import now_timestamp
from ..scopes import known_scopes, order_scopes
from .errors import OAuthError
from .keys import client_key, new_id
from .names import UNNAMED_CLIENT, hidden_characters, name_problem, shown_name

MAX_REDIRECT_URIS = 10
MAX_URI_LENGTH = 2000
LOOPBACK_IPS = frozenset({"127.0.0.1", "::1"})
LOOPBACK_HOSTS = LOOPBACK_IPS | {"localhost"}
_GRANT_TYPES = frozenset({"authorization_code", "refresh_token"})
#: What every registered client gets (and the authorization-server metadata advertises).
GRANTED_TYPES = ("authorization_code", "refresh_token")
#: Schemes a browser acts on itself (scripts, local files, other protocols): never a redirect target.
BROWSER_SCHEMES = frozenset(
    {"javascript", "vbscript", "data", "file", "blob", "about", "filesystem", "view-source", "ftp", "ws", "wss",
     "mailto", "tel", "sms", "intent", "jar", "resource", "chrome", "chrome-extension", "moz-extension", "edge"}
)  # fmt: skip
#: RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")


@dataclass(frozen=True)
class ClientMetadata:
    """The registration fields MeSQ uses, already through the RFC 7591 grammar."""

    redirect_uris: tuple[str, ...]
    client_name: str | None = None
    scope: str | None = None
    client_uri: str | None = None
    grant_types: tuple[str, ...] = ("authorization_code", "refresh_token")
    response_types: tuple[str, ...] = ("code",)
    token_endpoint_auth_method: str | None = None


@dataclass(frozen=True)
class Client:
    client_id: str
    client_name: str
    redirect_uris: tuple[str, ...]
    scopes: frozenset[str] | None  # None: any scope may be requested
    metadata_document: bool


def is_metadata_document_id(client_id: str) -> bool:
    return client_id.startswith(("https://", "http://"))


def _redirect_error(message: str) -> OAuthError:
    return OAuthError("invalid_redirect_uri", message)


def _has_unsafe_characters(uri: str) -> bool:
    """Whitespace, control or format characters. `urlsplit` silently drops CR, LF and TAB (WHATWG
    URL parsing), so a URI carrying them would be stored, compared and redirected to as another
    URI; a bidi override (U+202E) or a line separator would make the consent page show another
    destination than the one the browser goes to (names.py)."""
    return any(character <= " " or character.isspace() for character in uri) or bool(hidden_characters(uri))


def check_redirect_uri(uri: str) -> str:
    if not isinstance(uri, str) or not uri or len(uri) > MAX_URI_LENGTH:
        raise _redirect_error(f"redirect URIs must be 1..{MAX_URI_LENGTH} characters")
    if _has_unsafe_characters(uri):
        raise _redirect_error("redirect URIs must not contain spaces or control characters (CR, LF, TAB...)")
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018  # raises ValueError on a bad port
    except ValueError:
        raise _redirect_error(f"redirect URI {quoted(uri)} is not a valid URL") from None
    if parts.fragment or "#" in uri:
        raise _redirect_error(f"redirect URI {quoted(uri)} must not have a fragment")
    if parts.username or parts.password:
        raise _redirect_error(f"redirect URI {quoted(uri)} must not carry user info")
    scheme = parts.scheme.lower()
    if scheme == "https" and parts.hostname:
        return uri
    if scheme == "http" and parts.hostname in LOOPBACK_HOSTS:
        return uri
    if _is_private_use(scheme) and parts.hostname:
        return uri
    raise _redirect_error(
        f"redirect URI {quoted(uri)} must be https, http on a loopback address, or an app's own scheme with a host"
    )


def _is_private_use(scheme: str) -> bool:
    """A native app's own URI scheme (RFC 8252 §7.1): well formed, neither http(s) nor a scheme
    a browser acts on itself."""
    return bool(_SCHEME.fullmatch(scheme)) and scheme not in BROWSER_SCHEMES and scheme not in ("http", "https")


def _strings(document: dict[str, Any], name: str) -> tuple[str, ...] | None:
    value = document.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise OAuthError("invalid_client_metadata", f"{name} must be an array of strings")
    return tuple(value)


def _string(document: dict[str, Any], name: str) -> str | None:
    value = document.get(name)
    if value is not None and not isinstance(value, str):
        raise OAuthError("invalid_client_metadata", f"{name} must be a string")
    return value


def metadata_from_document(document: dict[str, Any]) -> ClientMetadata:
    """Client metadata from a registration request or a metadata document (a JSON object)."""
    redirect_uris = _strings(document, "redirect_uris")
    if not redirect_uris:
        raise _redirect_error("redirect_uris is required and must list at least one URI")
    for uri in redirect_uris:
        check_redirect_uri(uri)
    auth_method = _string(document, "token_endpoint_auth_method")
    for url_field in ("client_uri", "logo_uri", "tos_uri", "policy_uri", "jwks_uri"):
        _string(document, url_field)  # authlib's URL checks assume strings (an int raises AttributeError)
    jwks = document.get("jwks")
    if jwks is not None and not (isinstance(jwks, dict) and isinstance(jwks.get("keys"), list)):
        # authlib's key-set import reads `keys` before checking it has a key set: "x" or {} was a
        # TypeError / KeyError, a 500 at registration and at a metadata document's authorize.
        raise OAuthError("invalid_client_metadata", "jwks must be a JSON Web Key Set: an object with a keys array")
    # A null member is an absent one, as for the fields read above (authlib imported `"jwks": null`).
    claims = ClientMetadataClaims({name: value for name, value in document.items() if value is not None}, {})
    try:
        claims.validate()
    except JoseError as error:
        claim = getattr(error, "claim", None) or "client metadata"
        raise OAuthError("invalid_client_metadata", f"{claim} is not valid") from None
    return ClientMetadata(
        redirect_uris=redirect_uris,
        client_name=_string(document, "client_name"),
        scope=_string(document, "scope"),
        client_uri=_string(document, "client_uri"),
        grant_types=_strings(document, "grant_types") or ("authorization_code", "refresh_token"),
        response_types=_strings(document, "response_types") or ("code",),
        token_endpoint_auth_method=auth_method,
    )


def check_metadata(metadata: ClientMetadata) -> None:
    """MeSQ's registration policy on top of the RFC 7591 grammar."""
    if not metadata.redirect_uris or len(metadata.redirect_uris) > MAX_REDIRECT_URIS:
        raise _redirect_error(f"redirect_uris must list 1..{MAX_REDIRECT_URIS} URIs")
    for uri in metadata.redirect_uris:
        check_redirect_uri(uri)
    if metadata.token_endpoint_auth_method not in (None, "none"):
        # RFC 7591 §3.2.1 would let us substitute "none"; a CIMD document cannot be changed,
        # so both paths refuse a method whose secret or key we would never check.
        raise OAuthError(
            "invalid_client_metadata", "only public clients are supported: token_endpoint_auth_method must be none"
        )
    if "authorization_code" not in metadata.grant_types or not set(metadata.grant_types) <= _GRANT_TYPES:
        raise OAuthError(
            "invalid_client_metadata", "grant_types must include authorization_code and may add refresh_token"
        )
    if "code" not in metadata.response_types or set(metadata.response_types) - {"code"}:
        raise OAuthError("invalid_client_metadata", "response_types must be ['code']")
    if metadata.client_name is not None and (problem := name_problem(metadata.client_name)):
        raise OAuthError("invalid_client_metadata", problem)


def _registered_scopes(metadata: ClientMetadata) -> frozenset[str] | None:
    """The MeSQ scopes among the client's `scope`; None when it names none (or none of ours): such
    a client is treated as one that registered no scope. Others (`openid profile offline_access`,
    `claudeai`) are dropped, not refused (RFC 7591 §3.2.1 lets the server replace requested
    values; the registration answer says what was registered)."""
    return known_scopes(metadata.scope) or None


def _display_name(metadata: ClientMetadata, fallback: str) -> str:
    return (metadata.client_name or "").strip() or fallback


def _as_registered(metadata: ClientMetadata) -> ClientMetadata:
    """What MeSQ grants in place of what was asked (RFC 7591 §3.2.1; see the module docstring):
    a public client with both grant types. A request without `authorization_code` is still
    refused: such a client could never use what it registered."""
    if "authorization_code" not in metadata.grant_types:
        raise OAuthError("invalid_client_metadata", "grant_types must include authorization_code")
    return replace(metadata, token_endpoint_auth_method="none", grant_types=GRANTED_TYPES)


def register_client(items: ItemStore, metadata: ClientMetadata) -> dict[str, Any]:
    """RFC 7591 §3.2.1 response fields of a newly registered public client."""
    metadata = _as_registered(metadata)
    check_metadata(metadata)
    client_id = "mesq_client_" + new_id()
    issued_at = now_timestamp()
    record: dict[str, Any] = {
        "pk": client_key(client_id)[0],
        "sk": client_key(client_id)[1],
        "clientId": client_id,
        "clientName": _display_name(metadata, UNNAMED_CLIENT),
        "redirectUris": list(metadata.redirect_uris),
        "grantTypes": list(metadata.grant_types),
        "createdAt": issued_at,
    }
    scopes = _registered_scopes(metadata)
    if scopes:
        record["scope"] = " ".join(order_scopes(scopes))
    if metadata.client_uri:
        record["clientUri"] = metadata.client_uri
    items.put(record, Condition(exists=False))
    response: dict[str, Any] = {
        "client_id": client_id,
        "client_id_issued_at": int(time.time()),
        "redirect_uris": list(metadata.redirect_uris),
        "token_endpoint_auth_method": "none",
        "grant_types": list(metadata.grant_types),
        "response_types": ["code"],
        "client_name": record["clientName"],
    }
    if "scope" in record:
        response["scope"] = record["scope"]
    if metadata.client_uri:
        response["client_uri"] = metadata.client_uri
    return response


def registered_client(items: ItemStore, client_id: str) -> Client | None:
    if not client_id or len(client_id) > 100 or is_metadata_document_id(client_id):
        return None
    record = items.get(client_key(client_id))
    if record is None:
        return None
    scope = record.get("scope")
    return Client(
        client_id=client_id,
        client_name=shown_name(record["clientName"]),
        redirect_uris=tuple(record["redirectUris"]),
        scopes=frozenset(scope.split()) if scope else None,
        metadata_document=False,
    )


def check_metadata_document_id(client_id: str, allow_loopback_http: bool) -> None:
    """CIMD `client_id` rules: an https URL with a path, no fragment, user info or dot segments.
    `allow_loopback_http` (tests and local development only) also admits http://127.0.0.1."""
    try:
        parts = urlsplit(client_id)
        parts.port  # noqa: B018  # raises ValueError on a bad port, before anything fetches it
    except ValueError:
        raise OAuthError("invalid_client", "a URL client_id must be a valid URL") from None
    loopback = allow_loopback_http and parts.scheme == "http" and parts.hostname in LOOPBACK_IPS
    if parts.scheme != "https" and not loopback:
        raise OAuthError("invalid_client", "a URL client_id must be an https URL")
    if not parts.hostname or parts.fragment or parts.username or parts.password or len(client_id) > MAX_URI_LENGTH:
        raise OAuthError("invalid_client", "a URL client_id must have a host and no fragment or user info")
    if _has_unsafe_characters(client_id):
        raise OAuthError("invalid_client", "a URL client_id must not contain spaces, control or format characters")
    segments = parts.path.split("/")
    if parts.path in ("", "/") or "." in segments or ".." in segments:
        raise OAuthError("invalid_client", "a URL client_id must have a path without dot segments")


def _as_public_document(document: dict[str, Any], metadata: ClientMetadata) -> ClientMetadata:
    """A metadata document as the public code-flow client MeSQ serves, when it offers to be one.
    ChatGPT's document names `private_key_jwt` and lists `none` in
    `token_endpoint_auth_methods_supported` (RFC 8414's name: the methods it can use, to a server
    that takes `none` only); VS Code's lists the device-code grant beside the two MeSQ issues.
    Refusing either refused the client at authorize, and both use their document because the
    server metadata advertises them. A document offering no `none`, or no authorization code, is
    still refused: MeSQ would never check the secret or key it relies on."""
    offered = document.get("token_endpoint_auth_methods_supported")
    offers_none = isinstance(offered, list) and "none" in offered
    if metadata.token_endpoint_auth_method not in (None, "none") and not offers_none:
        raise OAuthError(
            "invalid_client_metadata",
            "only public clients are supported: token_endpoint_auth_method must be none, or "
            "token_endpoint_auth_methods_supported must offer none",
        )
    if "authorization_code" not in metadata.grant_types:
        raise OAuthError("invalid_client_metadata", "grant_types must include authorization_code")
    return replace(metadata, token_endpoint_auth_method="none", grant_types=GRANTED_TYPES)


def metadata_document_client(client_id: str, document: dict[str, Any]) -> Client:
    """A client from its fetched metadata document (the document must name itself)."""
    if document.get("client_id") != client_id:
        raise OAuthError("invalid_client", "the client metadata document's client_id must equal its URL")
    for secret in ("client_secret", "client_secret_expires_at"):
        if secret in document:
            raise OAuthError("invalid_client", f"a client metadata document must not contain {secret}")
    try:
        metadata = _as_public_document(document, metadata_from_document(document))
        check_metadata(metadata)
    except OAuthError as error:
        raise OAuthError("invalid_client", f"client metadata document: {error.description}") from None
    return Client(
        client_id=client_id,
        client_name=_display_name(metadata, urlsplit(client_id).hostname or client_id),
        redirect_uris=metadata.redirect_uris,
        scopes=_registered_scopes(metadata),
        metadata_document=True,
    )


def _loopback_portless(uri: str) -> str | None:
    """A loopback http URI without its port, the form two URIs are compared in when only the port
    may differ: the IP literals (RFC 8252 §7.3) and `localhost`. RFC 8252 §8.3 prefers the literals,
    but Claude Code's metadata document lists `http://localhost/callback` and authorizes with
    `http://localhost:<a free port>/callback` (anthropics/claude-code#90370): exact matching on that
    name refused it for ever. The host must still be the one registered, and `localhost` resolves
    on the person's own machine, as the literals do."""
    try:
        parts = urlsplit(uri)
    except ValueError:  # not a URL at all: the caller's exact match already failed
        return None
    if parts.scheme != "http" or parts.hostname not in LOOPBACK_HOSTS:
        return None
    host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname
    return urlunsplit((parts.scheme, host, parts.path, parts.query, ""))


def match_redirect_uri(client: Client, requested: str | None) -> str:
    """The redirect URI to use: exactly a registered one (loopback http URIs: any port). Absent
    only when exactly one is registered. OAuthError invalid_request otherwise."""
    if requested is None or requested == "":
        if len(client.redirect_uris) == 1:
            return client.redirect_uris[0]
        raise OAuthError("invalid_request", "redirect_uri is required: the client registered several")
    if "#" in requested or _has_unsafe_characters(requested):
        # RFC 6749 §3.1.2: the redirection endpoint URI MUST NOT include a fragment.
        raise OAuthError("invalid_request", "redirect_uri must not have a fragment, spaces or control characters")
    if requested in client.redirect_uris:
        return requested
    portless = _loopback_portless(requested)
    if portless is not None and any(_loopback_portless(uri) == portless for uri in client.redirect_uris):
        return requested
    raise OAuthError("invalid_request", "redirect_uri does not match any URI registered for this client")
