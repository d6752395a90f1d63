"""REST API function: /api/toolkit/*, /api/openapi.json, /healthz."""

from mesq.runtime.startup import http_function_handler

handler = http_function_handler("api")
