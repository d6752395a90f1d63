"""ports."""
