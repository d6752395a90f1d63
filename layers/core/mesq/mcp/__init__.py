"""The MCP adapter: `/mcp` served by the official SDK's low-level `Server` in stateless JSON mode.

See README.md beside this file for the startup flow, the request flow and how to add a tool.
"""

from .service import default_catalog, mcp_routes

__all__ = ["default_catalog", "mcp_routes"]
