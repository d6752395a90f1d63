"""The discovery documents: RFC 8414 authorization-server metadata and RFC 9728
protected-resource metadata. The issuer is the instance URL (no path), so the AS document lives
at `/.well-known/oauth-authorization-server` and MCP clients find it from `authorization_servers`.
"""

from __future__ import annotations

from typing import Any

from ..scopes import ALL_SCOPES
from .resources import connection_scopes

AUTHORIZE_PATH = "/oauth/authorize"
TOKEN_PATH = "/oauth/token"
REGISTER_PATH = "/oauth/register"
REVOKE_PATH = "/oauth/revoke"
#: The consent page (mesq/web) the authorization endpoint hands the browser over to.
CONSENT_PATH = "/oauth/consent"
PROTECTED_RESOURCE_PREFIX = "/.well-known/oauth-protected-resource"


def authorization_server_metadata(issuer: str) -> dict[str, Any]:
    # Imported here: the MCP function needs only the protected-resource document below, and
    # keeps authlib off its cold start (tests/mcp/test_cold_import.py).
    from authlib.oauth2.rfc8414 import AuthorizationServerMetadata

    document = AuthorizationServerMetadata(
        {
            "issuer": issuer,
            "authorization_endpoint": issuer + AUTHORIZE_PATH,
            "token_endpoint": issuer + TOKEN_PATH,
            "registration_endpoint": issuer + REGISTER_PATH,
            "revocation_endpoint": issuer + REVOKE_PATH,
            "scopes_supported": list(ALL_SCOPES),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": True,
            "client_id_metadata_document_supported": True,
        }
    )
    # authlib checks the RFC 8414 rules (https issuer without query/fragment, required fields);
    # an http issuer is only ever the loopback `mesq serve`, which RFC 8414 tolerates in tests.
    if issuer.startswith("https://"):
        document.validate()
    return dict(document)


def protected_resource_metadata(instance: str, resource_path: str, base: str | None = None) -> dict[str, Any]:
    """RFC 9728 §3.2 document for `<base><resource_path>`: `base` is the URL the client connected
    by when that is another name of the instance (asgi/instance.resource_base), else the instance;
    the authorization server is always the instance. `scopes_supported` is what the tools of that
    connection can use (`/mcp/x/todo`: todo:read todo:write), not every scope of the instance."""
    return {
        "resource": (base or instance) + resource_path,
        "authorization_servers": [instance],
        "resource_name": "MeSQ",
        "bearer_methods_supported": ["header"],
        "scopes_supported": connection_scopes(resource_path),
    }
