"""Tests of mesq/web/reading/."""
