"""Tests of mesq/web/activity/: the history written for people."""
