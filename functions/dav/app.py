"""CalDAV function: /.well-known/caldav and /dav/*, behind a Lambda function URL (it passes
PROPFIND and REPORT, which the HTTP API and CloudFront do not; docs/deploy.md)."""

from mesq.runtime.startup import http_function_handler

handler = http_function_handler("dav")
