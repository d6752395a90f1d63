"""GitHub's Copilot App (the Copilot CLI's MCP client).

What it does, from public reports (github/copilot-cli#4888, #4525):
- It sends `server/discover` at 2026-07-28 with its `_meta` envelope
  (`clientInfo.name` `copilot-cli`, capabilities `sampling` and `elicitation`), and then a legacy
  2025-11-25 `initialize` anyway; the timings in #4525 show the `initialize` leaving before the
  discover answer arrives (a timeout fallback racing the server), so both are in flight at once.
- A dual-era server that locks the connection to the modern era after `server/discover` rejects
  that `initialize` with -32022, and the client never connects. MeSQ keeps no connection state,
  so both answer and the client carries on in whichever era it settles on; here it settles on
  the handshake: `notifications/initialized`, then `tools/list` with `MCP-Protocol-Version`.
- It is configured with a bearer header (a personal access token).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.clients.wire import MODERN, McpWire, result
from tests.conftest import LiveServer

CLIENT_INFO = {"name": "copilot-cli", "version": "1.0.85"}
CAPABILITIES = {"sampling": {}, "elicitation": {"form": {}, "url": {}}}


def test_copilot_discovers_then_initializes_at_2025_11_25_and_both_are_served(server: LiveServer, pat: str) -> None:
    wire = McpWire(f"{server.base_url}/mcp", CLIENT_INFO, token=pat)
    with ThreadPoolExecutor(max_workers=2) as pool:
        discovering = pool.submit(wire.modern, "server/discover", None, CAPABILITIES)
        initializing = pool.submit(wire.initialize, "2025-11-25", CAPABILITIES)
        discovered, initialized = result(discovering.result()), result(initializing.result())
    assert discovered["supportedVersions"][0] == MODERN
    assert initialized["protocolVersion"] == "2025-11-25"
    assert initialized["serverInfo"] == {**initialized["serverInfo"], "name": "mesq", "title": "MeSQ"}
    assert "mcp-session-id" not in {name.lower() for name in initializing.result().headers}  # stateless

    assert wire.notify("notifications/initialized", version="2025-11-25").status_code == 202
    listed = result(wire.legacy("tools/list", {}, version="2025-11-25"))["tools"]
    assert {"create_todo_task", "list_memos"} <= {tool["name"] for tool in listed}
    # And the modern era still answers on the same URL afterwards: nothing was locked.
    assert result(wire.modern("tools/list"))["tools"] == listed
