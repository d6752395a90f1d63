"""MCP function: POST /mcp, /mcp/readonly, /mcp/x/{toolsets}[/readonly] (GET/DELETE answer 405).

Everything heavy (the SDK import, the catalog, the store clients) happens here, at init, so
SnapStart snapshots it (there `Settings.prepare_at_init` also builds every tool listing, the
validators and the S3 client; an on-demand cold start leaves those to first use); the
first invocation starts the SDK's stateless session manager, which later ones reuse
(mesq/mcp/running_manager.py).
"""

from mesq.runtime.startup import http_function_handler

handler = http_function_handler("mcp")
