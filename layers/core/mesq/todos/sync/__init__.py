"""Two-way sync with clients that keep their own copies of todo records (CalDAV): names, UIDs,
the client's own data, collection reads and changes since a sync point (README.md)."""
