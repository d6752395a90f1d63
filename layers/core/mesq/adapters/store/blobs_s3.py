"""S3 adapter of BlobStore (transport "direct": clients upload and download with presigned URLs).

Objects live at `key_prefix + path`. Server-side encryption is requested on every `put`;
presigned PUTs do not sign it (the uploader only gets a URL, and a signed
`x-amz-server-side-encryption` header it does not send would make S3 refuse the upload), so the
bucket's default encryption must cover them. A presigned PUT signs Content-Type and
Content-Length: S3 refuses an upload with any other type or size.

A presigned GET answers from the bucket's origin, where MeSQ cannot add `nosniff` or a sandboxing
CSP: its URL asks S3 for `Content-Disposition: attachment` with the download's name and for a
`Content-Type` a browser cannot run (`store.blob_downloads.inline_safe_type`: images, audio and
video keep theirs, everything else is `application/octet-stream`). Every object written (`put`,
`copy`) is stored with `Content-Disposition: attachment` as well.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Literal, NoReturn, cast

import boto3
from botocore.config import Config
from botocore.exceptions import (
    ClientError,
    ConnectionError,
    FlexibleChecksumError,
    HTTPClientError,
    IncompleteReadError,
)

from ...kernel.messages import quoted
from ...kernel.ports.storage import BlobInfo, BlobNotFound, BlobSource, BlobTooLarge, StoreUnavailable
from ...kernel.timestamps import format_timestamp
from ...store.blob_downloads import content_disposition, inline_safe_type
from ...store.blob_paths import validate_blob_path, validate_content_type, validate_metadata

if TYPE_CHECKING:
    from botocore.response import StreamingBody
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.literals import ServerSideEncryptionType
    from mypy_boto3_s3.type_defs import GetObjectOutputTypeDef, PutObjectRequestTypeDef

_SSE_MODES = frozenset({"AES256", "aws:kms", "aws:kms:dsse"})
_NOT_FOUND_CODES = frozenset({"NoSuchKey", "404", "NotFound"})
_UNAVAILABLE_CODES = frozenset(
    {
        "SlowDown",
        "ServiceUnavailable",
        "InternalError",
        "RequestTimeout",
        "Throttling",
        "ThrottlingException",
        "RequestLimitExceeded",
        "500",
        "503",
    }
)
#: Errors raised while connecting or while moving bytes: worth retrying later.
_TRANSPORT_ERRORS = (ConnectionError, HTTPClientError, IncompleteReadError, FlexibleChecksumError)
MAX_PRESIGN_SECONDS = 7 * 24 * 3600  # the SigV4 limit
MAX_SINGLE_PUT_BYTES = 5 * 1024**3  # the PutObject limit
#: What every stored object says when it is fetched without a presigned GET's overrides.
STORED_DISPOSITION = "attachment"


def make_s3_client(
    endpoint_url: str | None = None,
    region: str | None = None,
    session: boto3.session.Session | None = None,
) -> S3Client:
    """The S3 client every S3BlobStore uses unless it is given one (from `session` if given,
    else boto3's default session)."""
    config = Config(
        connect_timeout=5,
        read_timeout=30,
        # 3 attempts in all. (In this dict botocore reads "max_attempts" as *retries*: 3 there
        # would mean 4 attempts, up to 4 x connect_timeout before StoreUnavailable.)
        retries={"mode": "standard", "total_max_attempts": 3},
        signature_version="s3v4",
        # Presigned URLs then name the bucket's regional endpoint (bucket.s3.<region>.amazonaws.com)
        # instead of the global one, which answers new non-us-east-1 buckets with a redirect that
        # breaks the signature and CORS. Custom endpoints (MinIO, moto) keep botocore's choice.
        s3={"addressing_style": "virtual"} if endpoint_url is None else None,
    )
    if session is None:
        return boto3.client("s3", endpoint_url=endpoint_url, region_name=region, config=config)
    return session.client("s3", endpoint_url=endpoint_url, region_name=region, config=config)


class S3BlobStore:
    """BlobStore over one S3 bucket. Thread-safe (boto3 clients are)."""

    transport: Literal["direct", "relay"] = "direct"

    def __init__(
        self,
        bucket: str,
        *,
        client: S3Client | None = None,
        endpoint_url: str | None = None,
        region: str | None = None,
        key_prefix: str = "",
        sse: str | None = "AES256",
    ) -> None:
        if not bucket:
            raise ValueError("bucket is required")
        if client is not None and (endpoint_url is not None or region is not None):
            raise ValueError("pass either client or endpoint_url/region, not both")
        if sse is not None and sse not in _SSE_MODES:
            raise ValueError(f"sse must be one of {sorted(_SSE_MODES)} or None")
        prefix = key_prefix.strip("/")
        self._bucket = bucket
        self._prefix = validate_blob_path(prefix) + "/" if prefix else ""
        self._sse = cast("ServerSideEncryptionType | None", sse)
        self._client = client if client is not None else make_s3_client(endpoint_url, region)

    @property
    def client(self) -> S3Client:
        return self._client

    @property
    def bucket(self) -> str:
        return self._bucket

    # -- BlobStore ---------------------------------------------------------------------------

    def put(
        self,
        path: str,
        data: BlobSource,
        content_type: str,
        metadata: Mapping[str, str] | None = None,
    ) -> BlobInfo:
        key = self._key(path)
        validate_content_type(content_type)
        user_metadata = validate_metadata(metadata)
        body: Any = data  # a file is streamed by botocore, never read whole here
        if isinstance(data, bytes | bytearray | memoryview):
            body, size = bytes(data), len(data)
        else:
            start = data.tell()
            size = data.seek(0, 2) - start
            data.seek(start)
        params: PutObjectRequestTypeDef = {
            "Bucket": self._bucket,
            "Key": key,
            "Body": body,
            "ContentType": content_type,
            "ContentDisposition": STORED_DISPOSITION,
            "Metadata": user_metadata,
        }
        if self._sse is not None:
            params["ServerSideEncryption"] = self._sse
        try:
            response = self._client.put_object(**params)
        except (ClientError, *_TRANSPORT_ERRORS) as exc:
            _raise_mapped(exc, path)
        # S3 stamps LastModified when it receives the request; the response's Date is the
        # closest thing available without another round trip.
        date = response.get("ResponseMetadata", {}).get("HTTPHeaders", {}).get("date")
        return BlobInfo(path, size, content_type, _server_time(date), user_metadata)

    def get(self, path: str, max_bytes: int | None = None) -> bytes:
        if max_bytes is not None and max_bytes < 0:
            raise ValueError("max_bytes must be >= 0")
        response = self._get_object(path)
        body = response["Body"]
        try:
            if max_bytes is None:
                return body.read()
            if response.get("ContentLength", 0) > max_bytes:
                raise BlobTooLarge(f"blob {quoted(path)} is larger than {max_bytes} bytes")
            parts: list[bytes] = []
            received = 0
            for chunk in body.iter_chunks(1 << 16):  # never trust the header alone
                received += len(chunk)
                if received > max_bytes:
                    raise BlobTooLarge(f"blob {quoted(path)} is larger than {max_bytes} bytes")
                parts.append(chunk)
            return b"".join(parts)
        except _TRANSPORT_ERRORS as exc:
            _raise_mapped(exc, path)
        finally:
            body.close()

    def stream(self, path: str, chunk_size: int = 1 << 16) -> Iterator[bytes]:
        """Sends the GET now (so BlobNotFound is raised by this call), reads the body lazily."""
        if chunk_size <= 0:
            raise ValueError("chunk_size must be > 0")
        return _chunks(self._get_object(path)["Body"], path, chunk_size)

    def head(self, path: str) -> BlobInfo | None:
        key = self._key(path)
        try:
            response = self._client.head_object(Bucket=self._bucket, Key=key)
        except ClientError as exc:
            if _error_code(exc) in _NOT_FOUND_CODES:
                return None
            _raise_mapped(exc, path)
        except _TRANSPORT_ERRORS as exc:
            _raise_mapped(exc, path)
        return BlobInfo(
            path=path,
            size=response["ContentLength"],
            content_type=response.get("ContentType", "binary/octet-stream"),
            modified_at=format_timestamp(response["LastModified"]),
            metadata=dict(response.get("Metadata", {})),
        )

    def delete(self, path: str) -> None:
        key = self._key(path)
        try:
            self._client.delete_object(Bucket=self._bucket, Key=key)
        except (ClientError, *_TRANSPORT_ERRORS) as exc:
            if isinstance(exc, ClientError) and _error_code(exc) in _NOT_FOUND_CODES:
                return
            _raise_mapped(exc, path)

    def copy(self, source: str, target: str, metadata: Mapping[str, str] | None = None) -> BlobInfo:
        """One server-side CopyObject (objects up to 5 GiB): the bytes never pass through MeSQ."""
        info = self.head(source)
        if info is None:
            raise BlobNotFound(source)
        user_metadata = validate_metadata(info.metadata if metadata is None else metadata)
        params: dict[str, Any] = {
            "Bucket": self._bucket,
            "Key": self._key(target),
            "CopySource": {"Bucket": self._bucket, "Key": self._key(source)},
            "ContentType": info.content_type,
            "ContentDisposition": STORED_DISPOSITION,
            "Metadata": user_metadata,
            "MetadataDirective": "REPLACE",
        }
        if self._sse is not None:
            params["ServerSideEncryption"] = self._sse
        try:
            response = self._client.copy_object(**params)
        except (ClientError, *_TRANSPORT_ERRORS) as exc:
            _raise_mapped(exc, source)
        modified = response.get("CopyObjectResult", {}).get("LastModified")
        stamp = format_timestamp(modified) if modified is not None else _server_time(None)
        return BlobInfo(target, info.size, info.content_type, stamp, user_metadata)

    def presign_put(self, path: str, content_type: str, size: int, expires_in: int) -> str:
        """URL for one `PUT` of exactly `size` bytes sent with header `Content-Type: content_type`.

        The uploader must send those two headers unchanged (most HTTP clients set Content-Length
        from the body) and no other signed header; S3 answers 403 SignatureDoesNotMatch otherwise.
        """
        key = self._key(path)
        validate_content_type(content_type)
        if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= MAX_SINGLE_PUT_BYTES:
            raise ValueError(f"size must be an int between 0 and {MAX_SINGLE_PUT_BYTES}")
        return self._presign(
            "put_object",
            {"Bucket": self._bucket, "Key": key, "ContentType": content_type, "ContentLength": size},
            expires_in,
            "PUT",
        )

    def presign_get(self, path: str, expires_in: int, *, filename: str, content_type: str) -> str:
        """URL for a `GET` of the object, answered as a download named `filename` (attachment
        disposition) with `content_type` only if a browser cannot run it (else
        application/octet-stream). Does not check that the object exists (the GET answers 404)."""
        key = self._key(path)
        params = {
            "Bucket": self._bucket,
            "Key": key,
            "ResponseContentDisposition": content_disposition(filename),
            "ResponseContentType": inline_safe_type(content_type),
        }
        return self._presign("get_object", params, expires_in, "GET")

    # -- internals ---------------------------------------------------------------------------

    def _key(self, path: str) -> str:
        return self._prefix + validate_blob_path(path)

    def _get_object(self, path: str) -> GetObjectOutputTypeDef:
        key = self._key(path)
        try:
            return self._client.get_object(Bucket=self._bucket, Key=key)
        except (ClientError, *_TRANSPORT_ERRORS) as exc:
            _raise_mapped(exc, path)

    def _presign(self, operation: str, params: dict[str, Any], expires_in: int, method: str) -> str:
        if isinstance(expires_in, bool) or not isinstance(expires_in, int):
            raise ValueError("expires_in must be an int")
        if not 1 <= expires_in <= MAX_PRESIGN_SECONDS:
            raise ValueError(f"expires_in must be between 1 and {MAX_PRESIGN_SECONDS} seconds")
        # Signing is local (no request), so there is nothing to map to StoreUnavailable.
        return self._client.generate_presigned_url(operation, Params=params, ExpiresIn=expires_in, HttpMethod=method)


def _chunks(body: StreamingBody, path: str, chunk_size: int) -> Iterator[bytes]:
    try:
        yield from body.iter_chunks(chunk_size)
    except _TRANSPORT_ERRORS as exc:
        _raise_mapped(exc, path)
    finally:
        body.close()


def _error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _raise_mapped(exc: Exception, path: str) -> NoReturn:
    if isinstance(exc, ClientError):
        code = _error_code(exc)
        if code in _NOT_FOUND_CODES:
            raise BlobNotFound(path) from exc
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        if code in _UNAVAILABLE_CODES or status in (500, 502, 503, 504):
            raise StoreUnavailable(f"S3 is unavailable ({code or status})") from exc
        raise exc
    raise StoreUnavailable(f"S3 could not be reached: {exc}") from exc


def _server_time(http_date: str | None) -> str:
    moment: datetime | None = None
    if http_date:
        try:
            moment = parsedate_to_datetime(http_date)
        except (TypeError, ValueError):
            moment = None
    if moment is None or moment.tzinfo is None:
        moment = datetime.now(UTC)
    return format_timestamp(moment)


__all__ = ["MAX_PRESIGN_SECONDS", "MAX_SINGLE_PUT_BYTES", "S3BlobStore", "make_s3_client"]
