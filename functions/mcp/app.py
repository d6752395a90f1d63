"""MCP function: POST /mcp, /mcp/readonly, /mcp/x/{toolsets}[/readonly] (GET/DELETE answer 405).

Everything heavy (the SDK import, the catalog, the store clients) happens here, at init, so
SnapStart snapshots it (there `Settings.prepare_at_init` also builds every tool listing, the
validators and the S3 client; an on-demand cold start leaves those to first use); each
invocation builds only a per-request stateless session manager.
"""

from mesq.runtime.startup import collector_paused

with collector_paused():  # the init's objects frozen, never walked by a request's collections
    from mesq.runtime.app_factories import create_mcp_app
    from mesq.runtime.lambda_entry import lambda_handler
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    handler = lambda_handler(create_mcp_app(build_services(Settings.from_env())), service="mesq-mcp")
