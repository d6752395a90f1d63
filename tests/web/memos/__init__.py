"""Tests of mesq/web/memos/."""
