"""DynamoDB adapter of ItemStore: the production store (and DynamoDB Local / moto in tests).

Semantics follow the SQLite adapter exactly, which takes some care because DynamoDB:

* deletes expired items lazily (up to days late), so every read drops items whose `ttl` has
  passed, every "absent" condition also accepts an expired item, and every "exists" condition
  requires a live one. An `Update` that meets an expired item starts from a fresh item (as
  SQLite does) instead of growing the expired one: the update is guarded with "not expired",
  and when only that guard fails the expired item is replaced by a conditional Put.
* stores numbers as decimals: floats are written as `Decimal(repr(x))` and numbers come back
  as int when integral, else float.
* returns query pages of at most 1 MB and can only express one sort-key condition: the adapter
  narrows the key condition as far as DynamoDB allows, filters the rest client-side and loops
  over pages until `limit` items (plus one, to know whether there is a next page) are found.
* reads eventually-consistent by default: table reads here are strongly consistent (GSIs
  cannot be), so a write is visible to the next `get`, `batch_get` or table `query`.

Expiry is "ttl <= now" with `now` in whole epoch seconds (`item_rules.expired`, shared with the
SQLite adapter); an item whose `ttl` is not a number never expires. Items read from `gsi1` can only be hidden when
expired if the index projects `ttl` (see GSI1_PROJECTED_ATTRIBUTES in table.py).
"""

from __future__ import annotations

import math
import random
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar

import boto3
from aws_lambda_powertools import Logger
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    NoRegionError,
    ParamValidationError,
    PartialCredentialsError,
    ReadTimeoutError,
)

from ...kernel.messages import quoted
from ...kernel.ports.storage import (
    INDEXES,
    Check,
    Condition,
    ConditionFailed,
    Cursor,
    Delete,
    Item,
    Key,
    Put,
    QueryPage,
    StoreError,
    StoreUnavailable,
    Update,
    WriteOp,
)
from ...store.item_rules import (
    INDEX_KEY_ATTRIBUTES,
    clock,
    expired,
    must_exist,
    valid_key,
    validate_index_key,
    validate_item,
    validate_key,
    validate_transaction,
    validate_update_keys,
)
from ...store.table import TTL_ATTRIBUTE, table_definition

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

logger = Logger(child=True)

_BATCH_GET_CHUNK = 100
_BATCH_GET_MAX_IDLE_ROUNDS = 8  # rounds in a row without progress before giving up
_MAX_WRITE_ROUNDS = 6  # attempts when racing other writers over an expired item
_MAX_CONFLICT_RETRIES = 4  # transactions cancelled by conflicts or throttling
_MAX_QUERY_PAGE = 1000
#: An UpdateExpression is required in transactions (and by moto): an update with no changes
#: removes this (never written) attribute instead, which still creates the item when absent.
_NOOP_ATTRIBUTE = "__mesq_noop__"
_UNAVAILABLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
        "ResourceNotFoundException",
        "TransactionConflictException",
        "TransactionInProgressException",
        "LimitExceededException",
        "UnrecognizedClientException",
        "AccessDeniedException",
    }
)
_RETRYABLE_CANCELLATIONS = frozenset(
    {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "InternalServerError"}
)

_SERIALIZER = TypeSerializer()
_DESERIALIZER = TypeDeserializer()

T = TypeVar("T")


def _default_config() -> Config:
    return Config(
        connect_timeout=5,
        read_timeout=30,
        retries={"mode": "standard", "max_attempts": 5},
    )


#: The start-up check's budget: one attempt, short timeouts. A server that cannot reach its table
#: should say so within seconds, not retry for a minute and then answer every call with 500.
_PREFLIGHT_CONFIG = Config(connect_timeout=2, read_timeout=3, retries={"mode": "standard", "max_attempts": 1})


TABLE_MISSING = "missing"


def preflight(table_name: str, *, endpoint_url: str | None, region: str | None) -> str | None:
    """One DescribeTable with a short deadline, before a server or command starts on DynamoDB.

    Returns None when the table answers, "missing" when DynamoDB answers without the table (a
    local endpoint then creates it), else one line naming what is missing: credentials, a
    reachable endpoint, a region, or the right to read the table."""
    where = endpoint_url or f"the AWS endpoint of {region}"
    try:
        client = boto3.session.Session().client(
            "dynamodb", endpoint_url=endpoint_url, region_name=region, config=_PREFLIGHT_CONFIG
        )
        client.describe_table(TableName=table_name)
    except (NoCredentialsError, PartialCredentialsError):
        return (
            "no AWS credentials: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
            "(DynamoDB Local accepts any values)"
        )
    except NoRegionError:
        return "no AWS region: set AWS_REGION"
    except (EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError):
        return f"cannot reach DynamoDB at {where} (is it running? check MESQ_DYNAMODB_ENDPOINT)"
    except ClientError as exc:
        if _error_code(exc) == "ResourceNotFoundException":
            return TABLE_MISSING
        first_line = "".join(str(exc.response.get("Error", {}).get("Message", "")).splitlines()[:1])
        return f"DynamoDB at {where} refused DescribeTable on {table_name}: {_error_code(exc)} {first_line}".rstrip()
    except BotoCoreError as exc:
        return f"cannot use DynamoDB at {where}: {str(exc).splitlines()[0]}"
    return None


# -- values ---------------------------------------------------------------------------------


def _to_dynamo(value: Any) -> Any:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"DynamoDB cannot store the number {quoted(value)}")
        return Decimal(repr(value))
    if isinstance(value, Mapping):
        return {str(k): _to_dynamo(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_to_dynamo(v) for v in value]
    return value


def _from_dynamo(value: Any) -> Any:
    if isinstance(value, Decimal):
        if value == value.to_integral_value():
            return int(value)
        return float(value)
    if isinstance(value, dict):
        return {k: _from_dynamo(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_dynamo(v) for v in value]
    if isinstance(value, set | frozenset):  # only if something else wrote a DynamoDB set
        return sorted(_from_dynamo(v) for v in value)
    return value


def _serialize(value: Any) -> dict[str, Any]:
    try:
        return dict(_SERIALIZER.serialize(_to_dynamo(value)))
    except (TypeError, ArithmeticError) as exc:
        raise ValueError(f"DynamoDB cannot store {quoted(value)}: {exc}") from exc


def _serialize_item(item: Mapping[str, Any]) -> dict[str, Any]:
    return {name: _serialize(value) for name, value in item.items()}


def _deserialize_item(raw: Mapping[str, Any]) -> Item:
    return {name: _from_dynamo(_DESERIALIZER.deserialize(value)) for name, value in raw.items()}


def _key_dict(key: Key) -> dict[str, Any]:
    return {"pk": {"S": key[0]}, "sk": {"S": key[1]}}


# -- expressions ----------------------------------------------------------------------------


class _Expr:
    """Collects ExpressionAttributeNames/Values; every name goes through a placeholder."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.values: dict[str, dict[str, Any]] = {}
        self._name_ids: dict[str, str] = {}

    def name(self, attribute: str) -> str:
        placeholder = self._name_ids.get(attribute)
        if placeholder is None:
            placeholder = f"#n{len(self._name_ids)}"
            self._name_ids[attribute] = placeholder
            self.names[placeholder] = attribute
        return placeholder

    def value(self, value: Any) -> str:
        placeholder = f":v{len(self.values)}"
        self.values[placeholder] = _serialize(value)
        return placeholder

    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = {}
        if self.names:
            params["ExpressionAttributeNames"] = self.names
        if self.values:
            params["ExpressionAttributeValues"] = self.values
        return params

    # item states; `now` is the same for one request
    def absent(self, now: int) -> str:
        """No item, or an expired one."""
        return f"(attribute_not_exists({self.name('pk')}) OR {self.name(TTL_ATTRIBUTE)} <= {self.value(now)})"

    def strictly_absent(self) -> str:
        return f"attribute_not_exists({self.name('pk')})"

    def not_expired(self, now: int) -> str:
        """No item, or a live one. (A comparison with a missing or non-number `ttl` is false.)"""
        return f"(NOT ({self.name(TTL_ATTRIBUTE)} <= {self.value(now)}))"

    def live(self, now: int) -> str:
        return f"(attribute_exists({self.name('pk')}) AND {self.not_expired(now)})"

    def anything(self) -> str:
        pk = self.name("pk")
        return f"(attribute_not_exists({pk}) OR attribute_exists({pk}))"


def _condition_expression(condition: Condition | None, expr: _Expr, now: int) -> str | None:
    if condition is None:
        return None
    parts: list[str] = []
    if condition.exists is False:
        parts.append(expr.absent(now))
    if must_exist(condition):
        parts.append(expr.live(now))
    for name, expected in condition.equals.items():
        placeholder = expr.name(name)
        comparison = f"{placeholder} = {expr.value(expected)}"
        if expected is None:  # spelled out: some emulators let a missing attribute equal NULL
            comparison = f"attribute_exists({placeholder}) AND {comparison}"
        parts.append(f"({comparison})")
    return " AND ".join(parts) if parts else None


@dataclass(frozen=True)
class _UpdatePlan:
    """An Update rewritten so no attribute appears twice (DynamoDB forbids overlapping paths),
    with the SQLite adapter's order: remove, then set, then add."""

    set: dict[str, Any]
    remove: list[str]
    add: dict[str, int | float]

    @classmethod
    def of(cls, op: Update) -> _UpdatePlan:
        validate_update_keys(op)
        # The stored item is not known here, so validate_item cannot run on the result: check
        # what the update writes into index keys instead.
        for name, value in op.set.items():
            if name in INDEX_KEY_ATTRIBUTES:
                validate_index_key(name, value)
        for name, amount in op.add.items():
            if name in INDEX_KEY_ATTRIBUTES:
                raise ValueError(f"cannot add a number to the index key {quoted(name)}")
            if not isinstance(amount, int | float) or isinstance(amount, bool):
                raise TypeError(f"`add` needs numbers, got {name}={quoted(amount)}")
        sets = dict(op.set)
        adds: dict[str, int | float] = {}
        removed = set(op.remove)
        for name, amount in op.add.items():
            if name in sets:
                sets[name] = sets[name] + amount
            elif name in removed:
                sets[name] = 0 + amount
            else:
                adds[name] = amount
        removes = [name for name in dict.fromkeys(op.remove) if name not in sets]
        return cls(set=sets, remove=removes, add=adds)

    def expression(self, expr: _Expr) -> str | None:
        clauses: list[str] = []
        if self.set:
            assignments = ", ".join(f"{expr.name(n)} = {expr.value(v)}" for n, v in self.set.items())
            clauses.append(f"SET {assignments}")
        if self.remove:
            clauses.append("REMOVE " + ", ".join(expr.name(n) for n in self.remove))
        if self.add:
            additions = ", ".join(f"{expr.name(n)} {expr.value(v)}" for n, v in self.add.items())
            clauses.append(f"ADD {additions}")
        return " ".join(clauses) if clauses else None

    def expression_or_noop(self, expr: _Expr) -> str:
        """The UpdateExpression; with no changes, one that only creates an absent item
        (a transaction's Update needs an expression, and moto needs one everywhere)."""
        return self.expression(expr) or f"REMOVE {expr.name(_NOOP_ATTRIBUTE)}"

    def fresh_item(self, key: Key) -> Item:
        """The item the update produces when no (live) item exists."""
        item: Item = {"pk": key[0], "sk": key[1]}
        item.update(self.set)
        for name, amount in self.add.items():
            item[name] = 0 + amount
        return item


def _with_condition(request: dict[str, Any], condition: Condition | None) -> dict[str, Any]:
    """`request` plus the ConditionExpression (and its names/values) when there is a condition."""
    expr = _Expr()
    expression = _condition_expression(condition, expr, clock())
    if expression is not None:
        request["ConditionExpression"] = expression
        request.update(expr.params())
    return request


def _update_condition(condition: Condition | None, expr: _Expr, now: int) -> str | None:
    """An Update's condition plus the guard that sends expired items to the fresh-item path."""
    if must_exist(condition):
        return _condition_expression(condition, expr, now)  # already requires a live item
    if condition is not None and condition.exists is False:
        return expr.strictly_absent()  # an expired item is handled as "fresh"
    return expr.not_expired(now)


def _may_start_fresh(condition: Condition | None) -> bool:
    return not must_exist(condition)


def _prefix_upper_bound(prefix: str) -> str | None:
    """The smallest string above every string that starts with `prefix` (None: no such string).

    DynamoDB orders strings by UTF-8 bytes, i.e. by code point, so bumping the last code point
    below U+10FFFF (skipping the surrogates, which UTF-8 cannot hold) gives the bound."""
    chars = list(prefix)
    while chars:
        code = ord(chars[-1]) + 1
        if code <= 0x10FFFF:
            chars[-1] = chr(0xE000 if 0xD800 <= code <= 0xDFFF else code)
            return "".join(chars)
        chars.pop()
    return None


# -- errors ---------------------------------------------------------------------------------


def _error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _translate(exc: Exception) -> Exception:
    if isinstance(exc, ParamValidationError):
        return ValueError(str(exc))
    if isinstance(exc, BotoCoreError):
        return StoreUnavailable(f"DynamoDB unreachable: {exc}")
    if isinstance(exc, ClientError):
        code = _error_code(exc)
        message = str(exc.response.get("Error", {}).get("Message", exc))
        if code == "ConditionalCheckFailedException":
            return ConditionFailed(index=0)
        if code == "ValidationException":
            return ValueError(message)
        if code in _UNAVAILABLE_CODES:
            return StoreUnavailable(f"DynamoDB {code}: {message}")
        return StoreError(f"DynamoDB {code}: {message}")
    return exc


def _is_condition_failure(exc: ClientError) -> bool:
    return _error_code(exc) == "ConditionalCheckFailedException"


def _backoff(attempt: int, base: float = 0.05, cap: float = 2.0) -> None:
    time.sleep(random.uniform(0, min(cap, base * 2**attempt)))


# -- the adapter ----------------------------------------------------------------------------


class DynamoDBItemStore:
    """ItemStore over one DynamoDB table shaped like `table.table_definition`."""

    def __init__(
        self,
        table_name: str,
        *,
        client: DynamoDBClient | None = None,
        endpoint_url: str | None = None,
        region: str | None = None,
    ) -> None:
        self.table_name = table_name
        if client is None:
            client = boto3.session.Session().client(
                "dynamodb",
                endpoint_url=endpoint_url,
                region_name=region,
                config=_default_config(),
            )
        self._client: DynamoDBClient = client

    def _call(self, fn: Callable[..., T], **kwargs: Any) -> T:
        try:
            return fn(**kwargs)
        except (ClientError, BotoCoreError) as exc:
            raise _translate(exc) from exc

    # -- table management ----------------------------------------------------------------

    def create_table_if_missing(self, timeout: float = 300.0) -> bool:
        """Create the table (and enable TTL on `ttl`) unless it exists; wait until ACTIVE.

        Returns whether this call created it."""
        created = False
        try:
            self._client.describe_table(TableName=self.table_name)
        except ClientError as exc:
            if _error_code(exc) != "ResourceNotFoundException":
                raise _translate(exc) from exc
            try:
                self._client.create_table(**table_definition(self.table_name))
                created = True
            except ClientError as create_exc:
                if _error_code(create_exc) != "ResourceInUseException":  # created meanwhile
                    raise _translate(create_exc) from create_exc
        except BotoCoreError as exc:
            raise _translate(exc) from exc
        self._wait_active(timeout)
        if not created:
            self._add_missing_indexes(timeout)
        self._enable_ttl()
        return created

    def _add_missing_indexes(self, timeout: float) -> None:
        """A table made before an index was added to `table_definition` (GSI3, change records by
        actor) gets it, one index per UpdateTable as DynamoDB allows; DynamoDB fills it from the
        items that carry its keys. On AWS the template adds it (CloudFormation)."""
        wanted = table_definition(self.table_name)
        table = self._call(self._client.describe_table, TableName=self.table_name)["Table"]
        present = {index["IndexName"] for index in table.get("GlobalSecondaryIndexes", [])}
        for index in wanted["GlobalSecondaryIndexes"]:
            if index["IndexName"] in present:
                continue
            self._call(
                self._client.update_table,
                TableName=self.table_name,
                AttributeDefinitions=wanted["AttributeDefinitions"],
                GlobalSecondaryIndexUpdates=[{"Create": index}],
            )
            self._wait_active(timeout)

    def _wait_active(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        delay = 0.05
        while True:
            table = self._call(self._client.describe_table, TableName=self.table_name)["Table"]
            statuses = [table.get("TableStatus")]
            statuses += [gsi.get("IndexStatus") for gsi in table.get("GlobalSecondaryIndexes", [])]
            if all(status in (None, "ACTIVE") for status in statuses):
                return
            if time.monotonic() > deadline:
                raise StoreUnavailable(f"table {self.table_name} not ACTIVE after {timeout:.0f} s")
            time.sleep(delay)
            delay = min(delay * 2, 2.0)

    def _enable_ttl(self) -> None:
        try:
            described = self._client.describe_time_to_live(TableName=self.table_name)
            status = described.get("TimeToLiveDescription", {}).get("TimeToLiveStatus")
            if status in ("ENABLED", "ENABLING"):
                return
            self._client.update_time_to_live(
                TableName=self.table_name,
                TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE},
            )
        except (ClientError, BotoCoreError) as exc:
            # Emulators may lack the TTL API; reads hide expired items regardless.
            logger.info("could not enable TTL", extra={"table": self.table_name, "error": str(exc)})

    # -- reads ---------------------------------------------------------------------------

    def get(self, key: Key) -> Item | None:
        if not valid_key(key):  # no such item can exist, and DynamoDB would reject the request
            return None
        response = self._call(self._client.get_item, TableName=self.table_name, Key=_key_dict(key), ConsistentRead=True)
        raw = response.get("Item")
        if raw is None:
            return None
        item = _deserialize_item(raw)
        return None if expired(item, clock()) else item

    def _get_raw(self, key: Key) -> Item | None:
        """The stored item, expired or not."""
        response = self._call(self._client.get_item, TableName=self.table_name, Key=_key_dict(key), ConsistentRead=True)
        raw = response.get("Item")
        return _deserialize_item(raw) if raw is not None else None

    def batch_get(self, keys: Sequence[Key]) -> list[Item]:
        unique = list(dict.fromkeys(keys))
        readable = [key for key in unique if valid_key(key)]
        found: dict[Key, Item] = {}
        for begin in range(0, len(readable), _BATCH_GET_CHUNK):
            self._batch_get_chunk(readable[begin : begin + _BATCH_GET_CHUNK], found)
        now = clock()
        return [found[key] for key in unique if key in found and not expired(found[key], now)]

    def _batch_get_chunk(self, keys: Sequence[Key], found: dict[Key, Item]) -> None:
        request: dict[str, Any] = {self.table_name: {"Keys": [_key_dict(key) for key in keys], "ConsistentRead": True}}
        idle_rounds = 0
        while request:
            response = self._call(self._client.batch_get_item, RequestItems=request)
            items = response.get("Responses", {}).get(self.table_name, [])
            for raw in items:
                item = _deserialize_item(raw)
                found[(item["pk"], item["sk"])] = item
            request = dict(response.get("UnprocessedKeys") or {})
            if not request:
                return
            idle_rounds = 0 if items else idle_rounds + 1
            if idle_rounds >= _BATCH_GET_MAX_IDLE_ROUNDS:
                raise StoreUnavailable("DynamoDB kept returning UnprocessedKeys (throttled)")
            _backoff(idle_rounds)

    def query(
        self,
        partition: str,
        *,
        index: str | None = None,
        prefix: str | None = None,
        start: str | None = None,
        end: str | None = None,
        descending: bool = False,
        limit: int | None = None,
        after: Cursor | None = None,
        keys_only: bool = False,
    ) -> QueryPage:
        pk_attr, sk_attr = ("pk", "sk") if index is None else INDEXES[index]
        if limit is not None and limit <= 0:
            return QueryPage(items=[])
        if not partition or end == "":
            return QueryPage(items=[])  # no key can be empty / sort below ""
        expr = _Expr()
        key_condition = self._key_condition(expr, pk_attr, sk_attr, partition, prefix, start, end)
        if key_condition is None:
            return QueryPage(items=[])

        def wanted(item: Item) -> bool:
            sort_key = item.get(sk_attr)
            if not isinstance(sort_key, str):
                return False
            if prefix is not None and not sort_key.startswith(prefix):
                return False
            if start is not None and sort_key < start:
                return False
            return not (end is not None and sort_key >= end)

        request: dict[str, Any] = {
            "TableName": self.table_name,
            "KeyConditionExpression": key_condition,
            "ScanIndexForward": not descending,
            **expr.params(),
        }
        if index is None:
            request["ConsistentRead"] = True
        else:
            request["IndexName"] = index
        if keys_only:
            # The keys, plus the TTL the expiry filter below reads (dropped again after it).
            shown = ["pk", "sk", *(() if index is None else (pk_attr, sk_attr)), TTL_ATTRIBUTE]
            request["ProjectionExpression"] = ", ".join(expr.name(attribute) for attribute in shown)
            request.update(expr.params())
        if after is not None:
            request["ExclusiveStartKey"] = {name: {"S": value} for name, value in after.items()}

        now = clock()
        want = None if limit is None else limit + 1  # one more tells whether a next page exists
        items: list[Item] = []
        dropped = 0
        while True:
            if want is not None:
                remaining = want - len(items)
                request["Limit"] = min(_MAX_QUERY_PAGE, max(remaining, 2 * dropped))
            response = self._call(self._client.query, **request)
            for raw in response.get("Items", []):
                item = _deserialize_item(raw)
                if wanted(item) and not expired(item, now):
                    items.append({k: v for k, v in item.items() if k != TTL_ATTRIBUTE} if keys_only else item)
                else:
                    dropped += 1
            if want is not None and len(items) >= want:
                break
            last_key = response.get("LastEvaluatedKey")
            if not last_key:
                break
            request["ExclusiveStartKey"] = last_key

        next_key: Cursor | None = None
        if limit is not None and len(items) > limit:
            items = items[:limit]
            last = items[-1]
            next_key = {"pk": last["pk"], "sk": last["sk"]}
            if index is not None:
                next_key[pk_attr] = last[pk_attr]
                next_key[sk_attr] = last[sk_attr]
        return QueryPage(items=items, next_key=next_key)

    @staticmethod
    def _key_condition(
        expr: _Expr,
        pk_attr: str,
        sk_attr: str,
        partition: str,
        prefix: str | None,
        start: str | None,
        end: str | None,
    ) -> str | None:
        """The narrowest KeyConditionExpression for the request (None: nothing can match).

        DynamoDB allows one sort-key condition, and BETWEEN is inclusive: whatever it cannot
        express exactly (an exclusive upper bound next to a lower one, a prefix next to a
        range) is also filtered client-side by `query`."""
        condition = f"{expr.name(pk_attr)} = {expr.value(partition)}"
        prefix = prefix or None  # every string starts with ""
        start = start or None  # every string is >= ""
        if prefix is not None and start is None and end is None:
            return f"{condition} AND begins_with({expr.name(sk_attr)}, {expr.value(prefix)})"
        lower, upper = start, end  # inclusive, exclusive
        if prefix is not None:
            lower = prefix if lower is None else max(lower, prefix)
            prefix_end = _prefix_upper_bound(prefix)
            if prefix_end is not None:
                upper = prefix_end if upper is None else min(upper, prefix_end)
        if lower is not None and upper is not None:
            if lower >= upper:
                return None
            between = f"BETWEEN {expr.value(lower)} AND {expr.value(upper)}"
            return f"{condition} AND {expr.name(sk_attr)} {between}"
        if lower is not None:
            return f"{condition} AND {expr.name(sk_attr)} >= {expr.value(lower)}"
        if upper is not None:
            return f"{condition} AND {expr.name(sk_attr)} < {expr.value(upper)}"
        return condition

    # -- writes --------------------------------------------------------------------------

    def put(self, item: Item, condition: Condition | None = None) -> None:
        validate_item(item)
        request: dict[str, Any] = {"TableName": self.table_name, "Item": _serialize_item(item)}
        self._call(self._client.put_item, **_with_condition(request, condition))

    def delete(self, key: Key, condition: Condition | None = None) -> None:
        validate_key(key)
        request: dict[str, Any] = {"TableName": self.table_name, "Key": _key_dict(key)}
        self._call(self._client.delete_item, **_with_condition(request, condition))

    def update(self, op: Update) -> Item:
        validate_key(op.key)
        plan = _UpdatePlan.of(op)
        for _ in range(_MAX_WRITE_ROUNDS):
            now = clock()
            expr = _Expr()
            request: dict[str, Any] = {
                "TableName": self.table_name,
                "Key": _key_dict(op.key),
                "ReturnValues": "ALL_NEW",
            }
            request["UpdateExpression"] = plan.expression_or_noop(expr)
            condition = _update_condition(op.condition, expr, now)
            if condition is not None:
                request["ConditionExpression"] = condition
            request.update(expr.params())
            try:
                response = self._client.update_item(**request)
                return _deserialize_item(response.get("Attributes", {}))
            except ClientError as exc:
                if not _is_condition_failure(exc):
                    raise _translate(exc) from exc
                if not _may_start_fresh(op.condition):
                    raise ConditionFailed(index=0) from exc
            except BotoCoreError as exc:
                raise _translate(exc) from exc
            # The guard failed: the item is expired (start fresh), or it changed meanwhile.
            verdict = self._expired_verdict(op, clock())
            if verdict == "failed":
                raise ConditionFailed(index=0)
            if verdict == "expired":
                fresh = plan.fresh_item(op.key)
                try:
                    self._put_over_expired(fresh)
                except ConditionFailed:
                    continue  # someone wrote a live item meanwhile: go again
                return _deserialize_item(_serialize_item(fresh))
        raise StoreUnavailable("update kept racing with concurrent writes; giving up")

    def _expired_verdict(self, op: Update, now: int) -> str:
        """After an Update's guard failed: 'expired' (start fresh), 'failed' (the caller's own
        condition does not hold) or 'retry' (the item changed in between)."""
        current = self._get_raw(op.key)
        if current is not None and expired(current, now):
            return "expired"
        exists_false = op.condition is not None and op.condition.exists is False
        if current is not None and exists_false:
            return "failed"
        return "retry"

    def _put_over_expired(self, item: Item) -> None:
        expr = _Expr()
        self._call(
            self._client.put_item,
            TableName=self.table_name,
            Item=_serialize_item(item),
            ConditionExpression=expr.absent(clock()),
            **expr.params(),
        )

    def transact(self, ops: Sequence[WriteOp]) -> None:
        validate_transaction(ops)
        if not ops:
            return
        plans: dict[int, _UpdatePlan] = {}
        for position, op in enumerate(ops):
            if isinstance(op, Put):
                validate_item(op.item)
            else:
                validate_key(op.key)
            if isinstance(op, Update):
                plans[position] = _UpdatePlan.of(op)

        fresh: set[int] = set()  # Updates to run as "replace the expired item" Puts
        conflicts = 0
        for _ in range(_MAX_WRITE_ROUNDS + _MAX_CONFLICT_RETRIES):
            now = clock()
            items = [self._transact_item(op, i, now, plans, i in fresh) for i, op in enumerate(ops)]
            try:
                self._client.transact_write_items(
                    TransactItems=items,  # type: ignore[arg-type]
                    ClientRequestToken=str(uuid.uuid4()),
                )
                return
            except ClientError as exc:
                if _error_code(exc) != "TransactionCanceledException":
                    raise _translate(exc) from exc
                reasons = exc.response.get("CancellationReasons", [])
                outcome = self._after_cancellation(ops, reasons, fresh)
                if outcome == "conflict":
                    conflicts += 1
                    if conflicts > _MAX_CONFLICT_RETRIES:
                        raise StoreUnavailable(f"transaction kept conflicting: {reasons}") from exc
                    _backoff(conflicts)
                elif outcome != "retry":
                    raise StoreError(f"transaction cancelled: {reasons}") from exc
            except BotoCoreError as exc:
                raise _translate(exc) from exc
        raise StoreUnavailable("transaction kept racing with concurrent writes; giving up")

    def _after_cancellation(self, ops: Sequence[WriteOp], reasons: Sequence[Mapping[str, Any]], fresh: set[int]) -> str:
        """Decide what a TransactionCanceledException means: raise ConditionFailed for the first
        op whose own condition failed, or return 'retry' (some Updates met expired items and
        now go the fresh-item way, added to `fresh`), 'conflict' or 'unknown'."""
        now = clock()
        failed = [i for i, r in enumerate(reasons) if r.get("Code") == "ConditionalCheckFailed"]
        for position in failed:
            op = ops[position]
            if position in fresh:  # the expired item was replaced meanwhile: update it normally
                fresh.discard(position)
                continue
            if not (isinstance(op, Update) and _may_start_fresh(op.condition)):
                raise ConditionFailed(index=position)
            verdict = self._expired_verdict(op, now)
            if verdict == "failed":
                raise ConditionFailed(index=position)
            if verdict == "expired":
                fresh.add(position)
        if failed:
            return "retry"
        codes = {str(r.get("Code")) for r in reasons} - {"None"}
        for position, reason in enumerate(reasons):
            if reason.get("Code") == "ValidationError":
                raise ValueError(f"transaction op {position}: {reason.get('Message')}")
        if codes & _RETRYABLE_CANCELLATIONS:
            return "conflict"
        return "unknown"

    def _transact_item(
        self, op: WriteOp, position: int, now: int, plans: Mapping[int, _UpdatePlan], fresh: bool
    ) -> dict[str, Any]:
        expr = _Expr()
        body: dict[str, Any] = {"TableName": self.table_name}
        if isinstance(op, Update) and fresh:
            body["Item"] = _serialize_item(plans[position].fresh_item(op.key))
            body["ConditionExpression"] = expr.absent(now)
            body.update(expr.params())
            return {"Put": body}
        if isinstance(op, Put):
            kind = "Put"
            body["Item"] = _serialize_item(op.item)
            condition = _condition_expression(op.condition, expr, now)
        elif isinstance(op, Delete):
            kind = "Delete"
            body["Key"] = _key_dict(op.key)
            condition = _condition_expression(op.condition, expr, now)
        elif isinstance(op, Check):
            kind = "ConditionCheck"
            body["Key"] = _key_dict(op.key)
            condition = _condition_expression(op.condition, expr, now) or expr.anything()
        else:
            kind = "Update"
            body["Key"] = _key_dict(op.key)
            body["UpdateExpression"] = plans[position].expression_or_noop(expr)
            condition = _update_condition(op.condition, expr, now)
        if condition is not None:
            body["ConditionExpression"] = condition
        body.update(expr.params())
        return {kind: body}

    def close(self) -> None:
        """Nothing to release: the boto3 client holds no per-store resources worth closing."""


__all__ = ["DynamoDBItemStore"]
