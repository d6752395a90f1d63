"""MCP figures: the size of `tools/list` per toolset (o200k_base tokens of the JSON-RPC result,
see bench/footprint.py) and, without `--json`, the in-process per-request cost of /mcp next to
the REST route that runs the same operation.

    python bench/mcp_tool_list_size.py          # table
    python bench/mcp_tool_list_size.py --json   # last line: {"memo": tokens, "default": ..., "all": ...}
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

ALL_SCOPES = "memo:read,memo:write,todo:read,todo:write,reading:read"
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}
TOOLSET_PATHS = {"memo": "/mcp/x/memo", "memo_readonly": "/mcp/x/memo/readonly", "default": "/mcp", "all": "/mcp/x/all"}


def modern(method: str, params: dict[str, Any] | None = None, name: str | None = None) -> tuple[dict, dict]:
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Mcp-Protocol-Version": MODERN,
        "Mcp-Method": method,
    }
    if name:
        headers["Mcp-Name"] = name
    return headers, {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**(params or {}), "_meta": META}}


def median_ms(fn: Callable[[], Any], runs: int) -> float:
    for _ in range(3):
        fn()  # warm up
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    as_json = "--json" in sys.argv[1:]
    started = time.perf_counter()
    from bench.footprint import count_tokens
    from starlette.testclient import TestClient

    from mesq.auth.tokens import create_token
    from mesq.auth.users import create_user
    from mesq.mcp import default_catalog
    from mesq.runtime.server import create_local_app
    from mesq.wiring.config import Settings
    from mesq.wiring.services import build_services

    imported = time.perf_counter()
    default_catalog()
    built = time.perf_counter()

    with tempfile.TemporaryDirectory() as data:
        # Latency is measured here, not limits: the rate limiter would stop the sampling loop.
        services = build_services(Settings(data_dir=Path(data), rate_limit_profile="off"))
        user = create_user(services.items, "bench", "correct horse battery")
        token, _ = create_token(services.items, user["id"], name="bench", scopes=ALL_SCOPES)
        auth = {"Authorization": f"Bearer {token}"}
        # A loopback Host: the Host check (mesq/http/hosts.py) serves it without configuration.
        with TestClient(create_local_app(services), base_url="http://127.0.0.1") as client:
            sizes: dict[str, int] = {}
            counts: dict[str, int] = {}
            for label, path in TOOLSET_PATHS.items():
                headers, body = modern("tools/list")
                response = client.post(path, headers={**auth, **headers}, json=body)
                response.raise_for_status()
                sizes[label] = count_tokens(response.json()["result"])
                counts[label] = len(response.json()["result"]["tools"])
            if as_json:
                print(json.dumps({"memo": sizes["memo"], "default": sizes["default"], "all": sizes["all"]}))
                return

            for content in ("bench #a", "more #b/c", "third #a/d"):
                client.post("/api/toolkit/memo", headers=auth, json={"content": content}).raise_for_status()

            def mcp(method: str, params: dict[str, Any] | None = None, name: str | None = None) -> Callable[[], Any]:
                headers, body = modern(method, params, name)
                return lambda: client.post("/mcp", headers={**auth, **headers}, json=body).raise_for_status()

            runs = 60
            rest = median_ms(lambda: client.get("/api/toolkit/memo/tags", headers=auth).raise_for_status(), runs)
            rows = [
                ("REST GET /api/toolkit/memo/tags (baseline)", rest),
                ("MCP tools/call list_tags", median_ms(mcp("tools/call", {"name": "list_tags"}, "list_tags"), runs)),
                ("MCP tools/call list_memos", median_ms(mcp("tools/call", {"name": "list_memos"}, "list_memos"), runs)),
                ("MCP tools/list (all)", median_ms(mcp("tools/list"), runs)),
                ("MCP server/discover", median_ms(mcp("server/discover"), runs)),
            ]
        services.items.close()

    import_ms, build_ms = (imported - started) * 1000, (built - imported) * 1000
    print(f"import mesq.runtime.server + SDK: {import_ms:.0f} ms; catalog build: {build_ms:.1f} ms")
    print("tools/list size (modern era, o200k_base tokens of the result)")
    for label, size in sizes.items():
        print(f"  {label:<14} {counts[label]:>3} tools  {size:>7,} tokens")
    print(f"in-process request latency, median of {runs} (TestClient, SQLite)")
    for label, ms in rows:
        print(f"  {label:<44} {ms:6.2f} ms  {ms / rest:4.1f}x")


if __name__ == "__main__":
    main()
