"""CalDAV function: /.well-known/caldav and /dav/*, behind a Lambda function URL (it passes
PROPFIND and REPORT, which the HTTP API and CloudFront do not; docs/deploy.md)."""

from mesq.runtime.startup import collector_paused

with collector_paused():  # the init's objects frozen, never walked by a request's collections
    from mesq.runtime.app_factories import create_dav_app
    from mesq.runtime.lambda_entry import lambda_handler
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    handler = lambda_handler(create_dav_app(build_services(Settings.from_env())), service="mesq-dav")
