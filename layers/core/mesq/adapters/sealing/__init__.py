"""sealing."""
