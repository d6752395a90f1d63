"""Write `search_tools`' shipped tool vectors (layers/core/mesq/mcp/code/tool_vectors.npz): every
tool's texts (the whole: name, title, summary, argument names, enum values; the title; the
Chinese title; its phrasings in tool_phrasings.yaml) embedded by the bundled model.
Run after a catalog or phrasing change; tests/mcp/test_search_tools_held_out.py fails while the
file is stale.

    python infra/tool_vectors.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "layers" / "core"))

from mesq.adapters.models.local_models import BundledEmbedder
from mesq.mcp.code.search import summary
from mesq.mcp.code.tool_vectors import SHIPPED, write
from mesq.mcp.service import default_catalog


def main() -> None:
    tools = [tool for tool in default_catalog().tools.values() if tool.toolset != "code"]
    write(tools, {tool.name: summary(tool) for tool in tools}, BundledEmbedder())
    print(f"wrote the vectors of {len(tools)} tools to {SHIPPED}")


if __name__ == "__main__":
    main()
