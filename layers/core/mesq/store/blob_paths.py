"""Validation shared by every BlobStore adapter, so local files and S3 accept exactly the same input.

A blob path is relative and '/'-separated; each segment is 1+ of [A-Za-z0-9._-] and not '.' or
'..', at most 200 characters (filesystems allow 255 per name and the local adapter adds a suffix); the
whole path is at most 512 characters. Anything outside that alphabet (notably '~',
which the local adapter reserves for its own file names) is rejected with InvalidBlobPath.

Content types and metadata follow what S3 can store and return unchanged: printable ASCII,
metadata keys lowercase (S3 lowercases them), values non-empty, at most 2 KiB of metadata in total.
Breaking those rules is a caller bug and raises ValueError.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..kernel.messages import quoted
from ..kernel.ports.storage import InvalidBlobPath

MAX_PATH_LENGTH = 512
MAX_SEGMENT_LENGTH = 200
MAX_METADATA_BYTES = 2048
_SEGMENT = re.compile(rf"[A-Za-z0-9._-]{{1,{MAX_SEGMENT_LENGTH}}}")
_METADATA_KEY = re.compile(r"[a-z0-9][a-z0-9-]*")
_PRINTABLE = re.compile(r"[\x20-\x7e]+")


def validate_blob_path(path: str) -> str:
    """Return `path` unchanged if it is a valid blob path, else raise InvalidBlobPath."""
    if not isinstance(path, str) or not path or len(path) > MAX_PATH_LENGTH:
        raise InvalidBlobPath(f"invalid blob path {quoted(path)}")
    for segment in path.split("/"):
        if segment in (".", "..") or not _SEGMENT.fullmatch(segment):
            raise InvalidBlobPath(f"invalid blob path {quoted(path)}")
    return path


def validate_content_type(content_type: str) -> str:
    if not isinstance(content_type, str) or not content_type.strip():
        raise ValueError("content_type must be a non-empty string")
    if not _PRINTABLE.fullmatch(content_type) or content_type != content_type.strip():
        raise ValueError(f"content_type {quoted(content_type)} must be printable ASCII without outer spaces")
    return content_type


def validate_metadata(metadata: Mapping[str, str] | None) -> dict[str, str]:
    """A plain-dict copy of `metadata`, or ValueError if S3 could not round-trip it unchanged."""
    result: dict[str, str] = {}
    total = 0
    for key, value in (metadata or {}).items():
        if not isinstance(key, str) or not _METADATA_KEY.fullmatch(key):
            raise ValueError(f"metadata key {quoted(key)} must match [a-z0-9][a-z0-9-]*")
        if not isinstance(value, str) or not _PRINTABLE.fullmatch(value) or value != value.strip():
            raise ValueError(f"metadata value for {quoted(key)} must be non-empty printable ASCII without outer spaces")
        total += len(key) + len(value)
        result[key] = value
    if total > MAX_METADATA_BYTES:
        raise ValueError(f"metadata is {total} bytes; at most {MAX_METADATA_BYTES} are allowed")
    return result
