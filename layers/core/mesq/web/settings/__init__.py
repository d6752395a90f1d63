"""Set-up, sign-in, OAuth consent and the Settings pages."""
