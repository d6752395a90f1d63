"""Editing an account archive in a test: one member's bytes replaced, the manifest's checksum and
size kept true, so that only the member's own text is at fault."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Callable


def with_member_replaced(archive: bytes, member: str, replace: Callable[[bytes], bytes]) -> bytes:
    """`archive` with `member` as `replace(member's bytes)`; the manifest itself is replaced as
    given when `member` is "manifest.json"."""
    source = zipfile.ZipFile(io.BytesIO(archive))
    changed = replace(source.read(member))
    manifest = json.loads(source.read("manifest.json"))
    if member != "manifest.json":
        manifest["files"][member].update(sha256=hashlib.sha256(changed).hexdigest(), bytes=len(changed))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            if info.filename == member:
                target.writestr(info.filename, changed)
            elif info.filename == "manifest.json":
                target.writestr(info.filename, json.dumps(manifest))
            else:
                target.writestr(info, source.read(info.filename))
    return out.getvalue()
