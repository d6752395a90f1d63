"""The reading shelf (docs/contract.md §6, §13): books and notes synced from WeChat Reading or
imported from a file, read through three tools; sync and import never go through MCP."""
