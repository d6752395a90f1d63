"""Tests of mesq/web/todos/."""
