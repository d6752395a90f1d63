"""The built-in OAuth 2.1 authorization server (docs/contract.md §1): clients (RFC 7591 registration and
Client ID Metadata Documents), pending authorization requests, codes, grants and opaque tokens.

Pure domain code over the ItemStore port: the HTTP grammar lives in `mesq/http/oauth.py`, the
CIMD fetch in `mesq/http/cimd.py`, the consent page in `mesq/web/`. Every secret (code, access
token, refresh token) is 256 random bits, handed out once and stored only as its SHA-256.
"""
