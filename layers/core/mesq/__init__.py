"""MeSQ: a personal knowledge service (memos, todos, reading highlights) for AI agents."""

# The one place the version lives: pyproject.toml reads it (dynamic version), MCP reports it.
__version__ = "0.1.0"
