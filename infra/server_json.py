"""Write the repository's `server.json` (the MCP Registry's description of MeSQ) from
`mesq/http/server_card.py`, so it repeats what the server says of itself. `--check` exits
non-zero when the file is stale (tests/mcp/test_server_card.py runs the same comparison).

    .venv/bin/python infra/server_json.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mesq.http.server_card import registry_server_json_text

SERVER_JSON = Path(__file__).resolve().parents[1] / "server.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report whether server.json is current")
    args = parser.parse_args()
    wanted = registry_server_json_text()
    current = SERVER_JSON.read_text(encoding="utf-8") if SERVER_JSON.exists() else ""
    if args.check:
        if current != wanted:
            print("server.json is stale: run .venv/bin/python infra/server_json.py", file=sys.stderr)
            return 1
        return 0
    SERVER_JSON.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
