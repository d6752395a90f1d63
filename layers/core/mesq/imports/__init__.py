"""Imports from other apps: memos' database, flomo's HTML export, Todoist's CSV (docs/migrating.md)."""
