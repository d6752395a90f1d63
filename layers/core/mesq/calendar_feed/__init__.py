"""The secret calendar feed of a user's dated todos (docs/contract.md §5, §12): the feed secret
(`feed_secret.py`) and the iCalendar document (`ics.py`). Served by the browser-pages app
(`mesq/web/settings/calendar.py`); the MCP and REST functions never import it."""
