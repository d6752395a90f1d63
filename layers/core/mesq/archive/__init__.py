"""A user's whole data out as one archive and back in (docs/archive.md)."""
