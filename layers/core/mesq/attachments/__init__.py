"""Memo attachments (docs/contract.md §8): paths, registration with a per-account quota, upload sessions
(relay or direct-to-storage), capped reads and the sweep of abandoned sessions.

Domain code only: it talks to storage through the ItemStore and BlobStore ports and raises typed
MesqErrors; the HTTP routes (mesq/http/attachments.py) and MCP resources adapt it.
"""
