"""Tests of mesq/kernel: values, messages, timestamps, tags, the spec and body rules."""
