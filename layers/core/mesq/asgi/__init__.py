"""The plumbing every HTTP-facing adapter (REST, MCP, OAuth, the pages) shares; see README.md."""
