"""OAuth protocol errors: an RFC error code the adapter sends as `{"error", "error_description"}`,
and what a person is told when the authorization endpoint cannot send them back to the app."""

from __future__ import annotations

from typing import Literal

from ...kernel.errors import ValidationError

#: Why an authorization request could not go back to its app: the client is unknown or invalid,
#: its redirect_uri is not one it registered, or the link is malformed (a parameter missing or
#: repeated).
Unverified = Literal["client", "redirect_uri", "request"]


class OAuthError(Exception):
    """`error` is the RFC 6749 / 7591 / 8707 code (invalid_grant, invalid_target, ...)."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status

    def body(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}


def for_the_person(unverified: Unverified) -> ValidationError:
    """What the authorization endpoint's page says when it must not redirect (RFC 6749
    §4.1.2.1: tell the resource owner instead), in words the person can act on and in their
    language (the error page translates the template); the RFC code and its English
    description stay in the JSON an API client gets."""
    if unverified == "client":
        return ValidationError(
            "The app that sent you here is not known to MeSQ (it is not registered, or its client ID is not"
            " valid), so it cannot ask for access to your account. Go back to the app and connect again; if"
            " this keeps happening, tell the app's developer."
        )
    if unverified == "redirect_uri":
        return ValidationError(
            "The app that sent you here asked to get you back at an address it did not register, so MeSQ"
            " sends you nowhere. Go back to the app and connect again; if this keeps happening, tell the"
            " app's developer."
        )
    return ValidationError(
        "This sign-in link is incomplete or malformed, so MeSQ cannot tell which app is asking for"
        " access. Go back to the app and connect again."
    )
