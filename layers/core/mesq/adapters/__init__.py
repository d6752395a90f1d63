"""Adapters that belong to no domain: deferred blobs, EMF call metrics, outbound HTTP, private files."""
