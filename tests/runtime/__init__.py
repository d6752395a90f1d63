"""Tests of mesq/runtime: the `mesq` command and the data directory it keeps."""
