"""OAuth protocol errors: an RFC error code the adapter sends as `{"error", "error_description"}`."""

from __future__ import annotations


class OAuthError(Exception):
    """`error` is the RFC 6749 / 7591 / 8707 code (invalid_grant, invalid_target, ...)."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status

    def body(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}
