"""Tests of mesq/web/kit/."""
