"""Tests of mesq/web/settings/."""
