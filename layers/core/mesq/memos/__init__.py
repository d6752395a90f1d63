"""Memos: Markdown notes with hierarchical tags, pinning, archive and trash (docs/contract.md §4)."""
