"""Helpers shared by test packages: the in-process operation caller and the loopback HTTP stubs."""
