"""Memos: Markdown notes with hierarchical tags, pinning, archive and trash (product §4)."""
