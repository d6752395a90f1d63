"""REST API function: /api/toolkit/*, /api/openapi.json, /healthz."""

from mesq.apps import create_api_app
from mesq.config import Settings
from mesq.lambda_entry import lambda_handler
from mesq.services import build_services

handler = lambda_handler(create_api_app(build_services(Settings.from_env())), service="mesq-api")
