"""REST API function: /api/toolkit/*, /api/openapi.json, /healthz."""

from mesq.runtime.startup import collector_paused

with collector_paused():  # the init's objects frozen, never walked by a request's collections
    from mesq.runtime.app_factories import create_api_app
    from mesq.runtime.lambda_entry import lambda_handler
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    handler = lambda_handler(create_api_app(build_services(Settings.from_env())), service="mesq-api")
