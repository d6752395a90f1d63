"""OAuth function: the built-in authorization server (/oauth/authorize, /oauth/token,
/oauth/register, /oauth/revoke) and the discovery documents (/.well-known/oauth-authorization-server,
/.well-known/oauth-protected-resource[/...] except /mcp's own, which the MCP function serves).

It never imports the MCP SDK: its cold start stays that of the REST function.
"""

from mesq.runtime.startup import http_function_handler

handler = http_function_handler("oauth")
