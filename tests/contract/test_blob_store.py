"""BlobStore contract: one suite, run unchanged against LocalBlobStore and S3BlobStore.

Each contract test is parametrized over the adapters by the `blob_store` / `served_blob_store`
fixtures (see blob_fixtures.py). Adapter-specific checks (symlinks and atomic files for local,
client configuration, encryption and error mapping for S3) follow in their own sections.
"""

from __future__ import annotations

import os
import re
import socket
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from botocore.stub import Stubber

from mesq.adapters.store.blobs_local import LocalBlobStore
from mesq.adapters.store.blobs_s3 import S3BlobStore
from mesq.kernel.ports.storage import (
    BlobInfo,
    BlobNotFound,
    BlobStore,
    BlobTooLarge,
    InvalidBlobPath,
    PresignUnsupported,
    StoreUnavailable,
)
from mesq.store.blob_paths import MAX_PATH_LENGTH, MAX_SEGMENT_LENGTH

from .blob_fixtures import BUCKET, REGION, fake_session

MiB = 1 << 20
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z")


def _parse(timestamp: str) -> datetime:
    assert TIMESTAMP.fullmatch(timestamp), timestamp
    return datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def _assert_recent(timestamp: str) -> None:
    assert abs(_parse(timestamp) - datetime.now(UTC)) < timedelta(minutes=2), timestamp


# =============================================================================================
# Contract: every adapter
# =============================================================================================


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"hello",
        bytes(range(256)) * 3,  # every byte value, NUL included
        "naïve ☕ text\r\n".encode(),
        os.urandom(MiB + 17),  # bigger than any read chunk
    ],
    ids=["empty", "small", "all-bytes", "utf8", "over-1MiB"],
)
def test_round_trip(blob_store: BlobStore, data: bytes) -> None:
    info = blob_store.put("u/alice/file.bin", data, "application/octet-stream")
    assert info.path == "u/alice/file.bin"
    assert info.size == len(data)
    assert blob_store.get("u/alice/file.bin") == data
    assert b"".join(blob_store.stream("u/alice/file.bin")) == data
    head = blob_store.head("u/alice/file.bin")
    assert head is not None and head.size == len(data)


def test_head_reports_type_size_metadata_and_time(blob_store: BlobStore) -> None:
    metadata = {"owner": "alice", "original-name": "Report (final).pdf", "x-1": "1"}
    info = blob_store.put("u/alice/report.pdf", b"%PDF-1.7 ...", "application/pdf", metadata)
    head = blob_store.head("u/alice/report.pdf")
    assert isinstance(head, BlobInfo)
    assert head.path == "u/alice/report.pdf"
    assert head.size == 12
    assert head.content_type == "application/pdf"
    assert dict(head.metadata) == metadata
    _assert_recent(head.modified_at)
    # What put returns describes the same object.
    assert (info.path, info.size, info.content_type, dict(info.metadata)) == (
        head.path,
        head.size,
        head.content_type,
        dict(head.metadata),
    )
    assert abs(_parse(info.modified_at) - _parse(head.modified_at)) <= timedelta(seconds=2)


def test_content_type_with_parameters_round_trips(blob_store: BlobStore) -> None:
    blob_store.put("notes/a.txt", b"x", "text/plain; charset=utf-8")
    head = blob_store.head("notes/a.txt")
    assert head is not None and head.content_type == "text/plain; charset=utf-8"


def test_overwrite_replaces_bytes_type_and_metadata(blob_store: BlobStore) -> None:
    blob_store.put("a/b", b"first version", "text/plain", {"v": "1"})
    blob_store.put("a/b", b"2nd", "application/json")
    assert blob_store.get("a/b") == b"2nd"
    head = blob_store.head("a/b")
    assert head is not None
    assert (head.size, head.content_type, dict(head.metadata)) == (3, "application/json", {})


def test_missing_blob(blob_store: BlobStore) -> None:
    assert blob_store.head("no/such/blob") is None
    with pytest.raises(BlobNotFound):
        blob_store.get("no/such/blob")
    with pytest.raises(BlobNotFound):
        blob_store.get("no/such/blob", max_bytes=10)
    with pytest.raises(BlobNotFound):
        blob_store.stream("no/such/blob")  # raised by the call, before any chunk is pulled
    blob_store.delete("no/such/blob")  # deleting nothing is fine


def test_a_directory_like_prefix_is_not_a_blob(blob_store: BlobStore) -> None:
    blob_store.put("dir/child", b"c", "text/plain")
    assert blob_store.head("dir") is None
    with pytest.raises(BlobNotFound):
        blob_store.get("dir")


def test_delete_is_idempotent(blob_store: BlobStore) -> None:
    blob_store.put("u/bob/x", b"data", "text/plain", {"k": "v"})
    blob_store.delete("u/bob/x")
    blob_store.delete("u/bob/x")
    assert blob_store.head("u/bob/x") is None
    with pytest.raises(BlobNotFound):
        blob_store.get("u/bob/x")
    # A new blob at the same path starts clean (no stale metadata).
    blob_store.put("u/bob/x", b"new", "text/csv")
    head = blob_store.head("u/bob/x")
    assert head is not None and dict(head.metadata) == {} and head.content_type == "text/csv"


def test_delete_leaves_other_blobs_alone(blob_store: BlobStore) -> None:
    blob_store.put("a", b"1", "text/plain")
    blob_store.put("a/b", b"2", "text/plain")
    blob_store.put("ab", b"3", "text/plain")
    blob_store.delete("a")
    assert blob_store.get("a/b") == b"2"
    assert blob_store.get("ab") == b"3"


def test_a_blob_and_a_blob_below_its_name_coexist(blob_store: BlobStore) -> None:
    blob_store.put("a/b", b"outer", "text/plain")
    blob_store.put("a/b/c", b"inner", "text/plain")
    assert blob_store.get("a/b") == b"outer"
    assert blob_store.get("a/b/c") == b"inner"


def test_max_bytes(blob_store: BlobStore) -> None:
    data = os.urandom(1000)
    blob_store.put("capped", data, "application/octet-stream")
    assert blob_store.get("capped", max_bytes=1000) == data  # exactly at the limit
    assert blob_store.get("capped", max_bytes=10_000) == data
    with pytest.raises(BlobTooLarge):
        blob_store.get("capped", max_bytes=999)  # one over
    with pytest.raises(BlobTooLarge):
        blob_store.get("capped", max_bytes=0)
    blob_store.put("empty", b"", "application/octet-stream")
    assert blob_store.get("empty", max_bytes=0) == b""


def test_max_bytes_on_a_large_blob(blob_store: BlobStore) -> None:
    data = os.urandom(MiB + 1)
    blob_store.put("big", data, "application/octet-stream")
    with pytest.raises(BlobTooLarge):
        blob_store.get("big", max_bytes=MiB)
    assert blob_store.get("big", max_bytes=MiB + 1) == data


def test_negative_max_bytes_is_a_caller_error(blob_store: BlobStore) -> None:
    blob_store.put("x", b"1", "text/plain")
    with pytest.raises(ValueError):
        blob_store.get("x", max_bytes=-1)


def test_stream_yields_bounded_chunks_that_reassemble(blob_store: BlobStore) -> None:
    data = os.urandom(200_003)
    blob_store.put("streamed", data, "application/octet-stream")
    chunks = list(blob_store.stream("streamed", chunk_size=65_536))
    assert len(chunks) >= 4
    assert all(0 < len(chunk) <= 65_536 for chunk in chunks)
    assert b"".join(chunks) == data
    assert b"".join(blob_store.stream("streamed")) == data  # default chunk size
    blob_store.put("empty", b"", "application/octet-stream")
    assert b"".join(blob_store.stream("empty")) == b""
    with pytest.raises(ValueError):
        blob_store.stream("streamed", chunk_size=0)


def test_abandoned_stream_does_not_block_writers(blob_store: BlobStore) -> None:
    blob_store.put("s", os.urandom(300_000), "application/octet-stream")
    chunks = blob_store.stream("s", chunk_size=1024)
    assert len(next(iter(chunks))) == 1024
    chunks.close()  # type: ignore[attr-defined]  # generators close; the body is released
    blob_store.put("s", b"replaced", "text/plain")
    assert blob_store.get("s") == b"replaced"


def test_sidecar_like_names_are_ordinary_blobs(blob_store: BlobStore) -> None:
    """No blob path can reach an adapter's bookkeeping (the local store's metadata sidecars)."""
    blob_store.put("doc", b"body", "text/plain", {"owner": "alice"})
    for name in ("doc.meta.json", "doc.meta", "doc.json", ".doc.meta.json", "doc.tmp", ".meta"):
        blob_store.put(name, b'{"content_type": "evil/type", "metadata": {"owner": "mallory"}}', "a/b")
    for name in ("doc.meta.json", ".meta"):
        blob_store.delete(name)
    head = blob_store.head("doc")
    assert head is not None
    assert (head.content_type, dict(head.metadata)) == ("text/plain", {"owner": "alice"})
    assert blob_store.get("doc") == b"body"


VALID_PATHS = [
    "a",
    "u/alice/notes-2026_11.md",
    ".hidden",
    "...",
    "-",
    "x.meta.json",
    "A/B/C/D/E/F/G/H",
    "s" * MAX_SEGMENT_LENGTH,
    "/".join(["p" * 170] * 3),  # exactly MAX_PATH_LENGTH
]


@pytest.mark.parametrize("path", VALID_PATHS, ids=range(len(VALID_PATHS)))
def test_valid_edge_paths(blob_store: BlobStore, path: str) -> None:
    assert len(path) <= MAX_PATH_LENGTH
    blob_store.put(path, b"ok", "text/plain")
    assert blob_store.get(path) == b"ok"
    blob_store.delete(path)
    assert blob_store.head(path) is None


INVALID_PATHS = [
    "",
    "/",
    "/abs/path",
    "a/",
    "a//b",
    ".",
    "..",
    "../escape",
    "a/../b",
    "a/./b",
    "a\\b",
    "..\\..\\windows",
    "C:\\temp\\x",
    "a b",
    "naïve.txt",
    "tab\tname",
    "new\nline",
    "nul\x00byte",
    "query?x",
    "percent%2e%2e",
    "colon:name",
    "doc~blob",  # the local adapter's blob-file suffix
    "doc~meta.json",  # ... and its sidecar suffix
    "~",
    "s" * (MAX_SEGMENT_LENGTH + 1),
    "/".join(["p" * 170] * 3) + "x",  # MAX_PATH_LENGTH + 1
]


@pytest.mark.parametrize("path", INVALID_PATHS, ids=range(len(INVALID_PATHS)))
def test_invalid_paths_are_rejected_by_every_operation(blob_store: BlobStore, path: str) -> None:
    operations = {
        "put": lambda: blob_store.put(path, b"x", "text/plain"),
        "get": lambda: blob_store.get(path),
        "stream": lambda: blob_store.stream(path),
        "head": lambda: blob_store.head(path),
        "delete": lambda: blob_store.delete(path),
        "presign_put": lambda: blob_store.presign_put(path, "text/plain", 1, 60),
        "presign_get": lambda: blob_store.presign_get(path, 60, filename="f", content_type="text/plain"),
    }
    for name, operation in operations.items():
        with pytest.raises(InvalidBlobPath):
            operation()
            pytest.fail(f"{name} accepted {path!r}")


@pytest.mark.parametrize(
    ("content_type", "metadata"),
    [
        ("", None),
        (" text/plain", None),
        ("text/plain\r\nX-Injected: 1", None),
        ("text/plain", {"Upper": "v"}),
        ("text/plain", {"under_score": "v"}),
        ("text/plain", {"k": "non-ascii ü"}),
        ("text/plain", {"k": ""}),
        ("text/plain", {"k": " padded "}),
        ("text/plain", {"k": "line\nbreak"}),
        ("text/plain", {"k": "v" * 2048}),
    ],
)
def test_unstorable_content_type_or_metadata_is_a_caller_error(
    blob_store: BlobStore, content_type: str, metadata: dict[str, str] | None
) -> None:
    with pytest.raises(ValueError):
        blob_store.put("x", b"1", content_type, metadata)
    assert blob_store.head("x") is None


def test_transport(blob_store: BlobStore) -> None:
    assert blob_store.transport == ("relay" if isinstance(blob_store, LocalBlobStore) else "direct")


# -- presigned URLs: real HTTP against moto server mode (S3) -----------------------------------


def test_presign_put_accepts_exactly_the_signed_type_and_length(served_blob_store: BlobStore) -> None:
    store = served_blob_store
    if store.transport == "relay":
        with pytest.raises(PresignUnsupported):
            store.presign_put("up/photo.png", "image/png", 10, 300)
        return
    data = b"\x89PNG\r\n\x1a\n" + os.urandom(5000)
    url = store.presign_put("up/photo.png", "image/png", len(data), 300)

    query = parse_qs(urlsplit(url).query)
    assert query["X-Amz-Expires"] == ["300"]
    assert set(query["X-Amz-SignedHeaders"][0].split(";")) == {"content-length", "content-type", "host"}

    wrong_type = httpx.put(url, content=data, headers={"Content-Type": "text/html"})
    assert wrong_type.status_code == 403, wrong_type.text
    no_type = httpx.put(url, content=data)
    assert no_type.status_code == 403, no_type.text
    too_long = httpx.put(url, content=data + b"!", headers={"Content-Type": "image/png"})
    assert too_long.status_code == 403, too_long.text
    too_short = httpx.put(url, content=data[:-1], headers={"Content-Type": "image/png"})
    assert too_short.status_code == 403, too_short.text
    assert store.head("up/photo.png") is None  # nothing was written by the refused uploads

    ok = httpx.put(url, content=data, headers={"Content-Type": "image/png"})
    assert ok.status_code == 200, ok.text
    head = store.head("up/photo.png")
    assert head is not None and (head.size, head.content_type) == (len(data), "image/png")
    assert store.get("up/photo.png") == data


def test_presign_put_of_zero_bytes(served_blob_store: BlobStore) -> None:
    store = served_blob_store
    if store.transport == "relay":
        with pytest.raises(PresignUnsupported):
            store.presign_put("up/empty", "text/plain", 0, 60)
        return
    url = store.presign_put("up/empty", "text/plain", 0, 60)
    response = httpx.put(url, content=b"", headers={"Content-Type": "text/plain", "Content-Length": "0"})
    assert response.status_code == 200, response.text
    assert store.get("up/empty") == b""


def test_presign_get_returns_the_bytes(served_blob_store: BlobStore) -> None:
    store = served_blob_store
    data = os.urandom(70_000)
    store.put("down/file.bin", data, "application/octet-stream", {"owner": "alice"})

    def presigned(path: str) -> str:
        return store.presign_get(path, 300, filename="file.bin", content_type="application/octet-stream")

    if store.transport == "relay":
        with pytest.raises(PresignUnsupported):
            presigned("down/file.bin")
        return
    response = httpx.get(presigned("down/file.bin"))
    assert response.status_code == 200, response.text
    assert response.content == data
    assert response.headers["content-type"] == "application/octet-stream"
    missing = httpx.get(presigned("down/missing.bin"))
    # S3 answers 404 (403 without s3:ListBucket). moto answers a missing key's presigned GET
    # 403 when the URL has response-* overrides (its `_invalid_headers` heuristic reads
    # `response-content-type=` as a signed Content-Type header the request lacks).
    assert missing.status_code in (403, 404)
    tampered = httpx.get(presigned("down/file.bin").replace("down/file.bin", "down/other"))
    assert tampered.status_code == 403


SCRIPTABLE_TYPES = [
    "text/html",
    "text/html; charset=utf-8",
    "image/svg+xml",
    "application/xhtml+xml",
    "text/xml",
    "application/xml",
    "text/javascript",
    "application/javascript",
    "application/pdf",
    "text/plain",
    "application/x-shockwave-flash",
    "IMAGE/SVG+XML",
]


@pytest.mark.parametrize("content_type", SCRIPTABLE_TYPES)
def test_presigned_downloads_never_serve_a_runnable_type(served_s3_store: S3BlobStore, content_type: str) -> None:
    """The answer of the presigned URL itself (the bucket's origin: no nosniff, no CSP) is a
    download with the given name, typed application/octet-stream for anything a browser might
    run; the stored object says `attachment` too, for a GET without the URL's overrides. (A relay
    store, the local one, has no presigned downloads: its reads are the REST download's.)"""
    store = served_s3_store
    page = b"<script>alert(document.domain)</script><svg onload=alert(1)/>"
    store.put("down/page", page, content_type)
    name = "invoice \u202egpj.exe \u6587.html"
    response = httpx.get(store.presign_get("down/page", 60, filename=name, content_type=content_type))
    assert response.status_code == 200, response.text
    assert response.content == page
    assert response.headers["content-type"] == "application/octet-stream"
    assert response.headers["content-disposition"] == (
        "attachment; filename=\"invoice _gpj.exe _.html\"; filename*=UTF-8''invoice%20%E2%80%AEgpj.exe%20%E6%96%87.html"
    )
    assert store.client.head_object(Bucket=store.bucket, Key="down/page")["ContentDisposition"] == "attachment"
    store.copy("down/page", "down/copied")
    assert store.client.head_object(Bucket=store.bucket, Key="down/copied")["ContentDisposition"] == "attachment"


@pytest.mark.parametrize(
    ("content_type", "served"),
    [("image/png", "image/png"), ("image/jpeg; foo=bar", "image/jpeg"), ("video/mp4", "video/mp4")],
)
def test_presigned_downloads_keep_a_media_type(served_s3_store: S3BlobStore, content_type: str, served: str) -> None:
    """Images, audio and video keep their type (an `<img>` of the URL still decodes), still as
    an `attachment` download."""
    store = served_s3_store
    store.put("down/pic", b"\x89PNG", content_type)
    response = httpx.get(store.presign_get("down/pic", 60, filename="p.png", content_type=content_type))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == served
    assert response.headers["content-disposition"].startswith('attachment; filename="p.png"')


def test_presign_argument_checks(served_blob_store: BlobStore) -> None:
    store = served_blob_store
    bad_calls = [
        lambda: store.presign_put("p", "text/plain", -1, 60),
        lambda: store.presign_put("p", "text/plain", 1, 0),
        lambda: store.presign_put("p", "text/plain", 1, 7 * 24 * 3600 + 1),
        lambda: store.presign_put("p", "", 1, 60),
        lambda: store.presign_get("p", 0, filename="p", content_type="text/plain"),
    ]
    expected = PresignUnsupported if store.transport == "relay" else ValueError
    for call in bad_calls:
        with pytest.raises(expected):
            call()


# =============================================================================================
# LocalBlobStore specifics
# =============================================================================================


def test_local_layout_keeps_bookkeeping_out_of_the_path_space(tmp_path: Path) -> None:
    store = LocalBlobStore(tmp_path / "root")
    store.put("u/alice/doc", b"body", "text/plain", {"k": "v"})
    files = sorted(p.relative_to(store.root).as_posix() for p in store.root.rglob("*") if p.is_file())
    assert files == ["u/alice/doc~blob", "u/alice/doc~meta.json"]


def test_local_put_leaves_no_temp_files_even_when_the_rename_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalBlobStore(tmp_path / "root")
    store.put("k", b"original", "text/plain", {"v": "1"})

    def failing_replace(src: str, dst: str) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk on fire"):
        store.put("k", b"replacement", "text/plain", {"v": "2"})
    monkeypatch.undo()
    assert store.get("k") == b"original"
    head = store.head("k")
    assert head is not None and dict(head.metadata) == {"v": "1"}
    assert sorted(p.name for p in store.root.iterdir()) == ["k~blob", "k~meta.json"]


def test_local_concurrent_writers_keep_bytes_and_sidecar_paired(tmp_path: Path) -> None:
    store = LocalBlobStore(tmp_path / "root")
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(25):
                tag = f"{n}-{i}"
                store.put("shared", tag.encode(), "text/plain", {"tag": tag})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    head = store.head("shared")
    assert head is not None
    assert store.get("shared").decode() == head.metadata["tag"]
    assert sorted(p.name for p in store.root.iterdir()) == ["shared~blob", "shared~meta.json"]


def test_local_symlinked_directory_cannot_escape_the_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret~blob").write_bytes(b"top secret")
    store = LocalBlobStore(tmp_path / "root")
    (store.root / "evil").symlink_to(outside, target_is_directory=True)
    with pytest.raises(InvalidBlobPath):
        store.get("evil/secret")
    with pytest.raises(InvalidBlobPath):
        store.head("evil/secret")
    with pytest.raises(InvalidBlobPath):
        store.put("evil/planted", b"x", "text/plain")
    with pytest.raises(InvalidBlobPath):
        store.delete("evil/secret")
    assert sorted(p.name for p in outside.iterdir()) == ["secret~blob"]


def test_local_symlinked_blob_file_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_bytes(b"top secret")
    store = LocalBlobStore(tmp_path / "root")
    (store.root / "link~blob").symlink_to(outside)
    (store.root / "inner~blob").symlink_to(store.root / "link~blob")
    store.put("real", b"inside", "text/plain")
    (store.root / "alias~blob").symlink_to(store.root / "real~blob")  # stays inside the root
    for path in ("link", "inner", "alias"):
        with pytest.raises(InvalidBlobPath):
            store.get(path)
        with pytest.raises(InvalidBlobPath):
            store.stream(path)


def test_local_symlink_inside_the_root_is_followed(tmp_path: Path) -> None:
    store = LocalBlobStore(tmp_path / "root")
    store.put("real/x", b"1", "text/plain")
    (store.root / "alias").symlink_to(store.root / "real", target_is_directory=True)
    assert store.get("alias/x") == b"1"


def test_local_root_behind_a_symlink_works(tmp_path: Path) -> None:
    (tmp_path / "actual").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "actual", target_is_directory=True)
    store = LocalBlobStore(tmp_path / "link")
    store.put("a/b", b"1", "text/plain")
    assert store.get("a/b") == b"1"
    assert (tmp_path / "actual" / "a" / "b~blob").read_bytes() == b"1"


def test_local_blob_without_sidecar_still_reads(tmp_path: Path) -> None:
    store = LocalBlobStore(tmp_path / "root")
    store.put("x", b"abc", "text/plain", {"k": "v"})
    (store.root / "x~meta.json").write_text("{not json")
    head = store.head("x")
    assert head is not None
    assert (head.size, head.content_type, dict(head.metadata)) == (3, "application/octet-stream", {})


def test_local_modified_at_is_the_file_mtime(tmp_path: Path) -> None:
    store = LocalBlobStore(tmp_path / "root")
    info = store.put("x", b"abc", "text/plain")
    head = store.head("x")
    assert head is not None and head.modified_at == info.modified_at
    os.utime(store.root / "x~blob", (1_700_000_000.5, 1_700_000_000.5))
    head = store.head("x")
    assert head is not None and head.modified_at == "2023-11-14T22:13:20.500000Z"


# =============================================================================================
# S3BlobStore specifics
# =============================================================================================


def test_s3_default_client_configuration(fake_aws: None) -> None:
    config = S3BlobStore("bucket", region=REGION).client.meta.config
    assert config.connect_timeout == 5
    assert config.read_timeout == 30
    assert config.retries == {"mode": "standard", "total_max_attempts": 3}  # 1 try + 2 retries
    assert config.signature_version == "s3v4"
    assert (config.s3 or {}).get("addressing_style") == "virtual"
    custom = S3BlobStore("bucket", endpoint_url="http://127.0.0.1:1", region=REGION)
    assert custom.client.meta.endpoint_url == "http://127.0.0.1:1"
    assert (custom.client.meta.config.s3 or {}).get("addressing_style") in (None, "auto")


def test_s3_presigned_urls_name_the_regional_endpoint(fake_aws: None) -> None:
    store = S3BlobStore("mesq-blobs", region="eu-central-1")
    url = store.presign_get("a/b", 60, filename="b", content_type="text/plain")
    assert url.startswith("https://mesq-blobs.s3.eu-central-1.amazonaws.com/a/b?")


def test_s3_put_requests_server_side_encryption(s3_store: S3BlobStore) -> None:
    s3_store.put("enc", b"x", "text/plain", {"k": "v"})
    raw = s3_store.client.head_object(Bucket=BUCKET, Key="enc")
    assert raw["ServerSideEncryption"] == "AES256"
    assert raw["Metadata"] == {"k": "v"}


def test_s3_key_prefix(s3_store: S3BlobStore) -> None:
    tenant = S3BlobStore(BUCKET, client=s3_store.client, key_prefix="/tenant-1/")
    tenant.put("a/b", b"scoped", "text/plain")
    assert s3_store.client.get_object(Bucket=BUCKET, Key="tenant-1/a/b")["Body"].read() == b"scoped"
    assert s3_store.head("a/b") is None
    assert tenant.get("a/b") == b"scoped"
    with pytest.raises(InvalidBlobPath):
        S3BlobStore(BUCKET, client=s3_store.client, key_prefix="../other")


def test_s3_constructor_checks(fake_aws: None) -> None:
    client = fake_session().client("s3")
    with pytest.raises(ValueError):
        S3BlobStore(BUCKET, client=client, region=REGION)
    with pytest.raises(ValueError):
        S3BlobStore(BUCKET, region=REGION, sse="rot13")
    with pytest.raises(ValueError):
        S3BlobStore("", region=REGION)


def _unused_loopback_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_s3_unreachable_endpoint_is_store_unavailable(fake_aws: None) -> None:
    client = fake_session().client(
        "s3",
        endpoint_url=f"http://127.0.0.1:{_unused_loopback_port()}",
        config=Config(connect_timeout=1, retries={"mode": "standard", "total_max_attempts": 1}),
    )
    store = S3BlobStore(BUCKET, client=client)
    for call in (
        lambda: store.put("a", b"x", "text/plain"),
        lambda: store.get("a"),
        lambda: store.stream("a"),
        lambda: store.head("a"),
        lambda: store.delete("a"),
    ):
        with pytest.raises(StoreUnavailable):
            call()
    assert store.presign_get("a", 60, filename="a", content_type="text/plain").startswith(
        "http://127.0.0.1:"
    )  # signing needs no network


@pytest.mark.parametrize(
    ("code", "status", "expected"),
    [
        ("SlowDown", 503, StoreUnavailable),
        ("InternalError", 500, StoreUnavailable),
        ("NoSuchKey", 404, BlobNotFound),
        ("AccessDenied", 403, ClientError),  # misconfiguration: surfaces unchanged
        ("NoSuchBucket", 404, ClientError),
    ],
)
def test_s3_error_mapping(fake_aws: None, code: str, status: int, expected: type[Exception]) -> None:
    client = fake_session().client("s3", config=Config(retries={"total_max_attempts": 1}))
    store = S3BlobStore(BUCKET, client=client)
    with Stubber(client) as stubber:
        stubber.add_client_error("get_object", service_error_code=code, http_status_code=status)
        with pytest.raises(expected):
            store.get("a")
