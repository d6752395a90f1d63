"""The REST adapter: Starlette routes generated from openapi.yaml."""
