"""OAuth function: the built-in authorization server (/oauth/authorize, /oauth/token,
/oauth/register, /oauth/revoke) and the discovery documents (/.well-known/oauth-authorization-server,
/.well-known/oauth-protected-resource[/...] except /mcp's own, which the MCP function serves).

It never imports the MCP SDK: its cold start stays that of the REST function.
"""

from mesq.runtime.startup import collector_paused

with collector_paused():  # the init's objects frozen, never walked by a request's collections
    from mesq.runtime.app_factories import create_oauth_app
    from mesq.runtime.lambda_entry import lambda_handler
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    handler = lambda_handler(create_oauth_app(build_services(Settings.from_env())), service="mesq-oauth")
