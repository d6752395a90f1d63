"""The MCP adapter: `/mcp` served by the official SDK's low-level `Server` in stateless JSON mode.

See docs/MCP/README.md for the startup flow, the request flow and how to add a tool.
"""

from .service import create_mcp_app, default_catalog, mcp_routes

__all__ = ["create_mcp_app", "default_catalog", "mcp_routes"]
