"""Who the MCP server says it is, in one place: the `serverInfo` of `initialize`/`server/discover`
(mcp/service.py), the protocol versions its URLs serve (mcp/versions.py), and the directory
listings that repeat them, the Server Card and the registry's `server.json` (http/server_card.py).

Plain values only: the OAuth function serves the Server Card and never imports the MCP SDK, so the
served versions are written here and checked against the SDK where the SDK is loaded
(`mcp.versions`, at start-up).
"""

from __future__ import annotations

SERVER_NAME = "mesq"
SERVER_TITLE = "MeSQ"
#: At most 100 characters (the registry's and the Server Card's `description`).
SERVER_DESCRIPTION = "One person's memos, todos and reading highlights, for AI agents."
#: The reverse-DNS name directories list the server under (registry `server.json`, Server Card):
#: the namespace the project publishes with `mcp-publisher` (docs/MCP/README.md "Directories").
REGISTRY_NAME = "io.github.mesq/mesq"

#: Every protocol version served on the same URLs, newest first: 2026-07-28 (`server/discover`)
#: and the `initialize` handshake of 2025-11-25 back to 2024-11-05.
SERVED_PROTOCOL_VERSIONS: tuple[str, ...] = ("2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
