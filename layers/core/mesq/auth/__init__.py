"""Principals, scopes, users and personal access tokens."""
