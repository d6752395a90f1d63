"""The application services: the operation registry, validation, rate limits, idempotency."""
