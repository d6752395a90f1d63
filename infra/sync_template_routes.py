"""Keep template.yaml's REST routes in step with the OpenAPI document.

The ApiFunction's HttpApi events between the BEGIN/END markers are generated from the spec (one
event per operation, named after its operationId), so a new operation can never ship without a
route and no route is written by hand twice. `--check` exits non-zero when the template is stale
(the template test runs it); without it the block is rewritten in place.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mesq.kernel.spec import load_spec

TEMPLATE = Path(__file__).resolve().parents[1] / "template.yaml"
BEGIN = "        # BEGIN generated REST routes (infra/sync_template_routes.py)\n"
END = "        # END generated REST routes\n"
_INDENT = " " * 8


def _event_name(operation_id: str) -> str:
    return "".join(part.capitalize() for part in operation_id.split("_"))


def generated_block() -> str:
    lines = [BEGIN]
    spec = load_spec()
    # JSON operations and raw (bytes) ones alike (a raw read declares its HEAD as an operation).
    operations = sorted([*spec.operations.values(), *spec.raw_operations.values()], key=lambda op: (op.path, op.method))
    for operation in operations:
        lines += [
            f"{_INDENT}{_event_name(operation.operation_id)}:\n",
            f"{_INDENT}  Type: HttpApi\n",
            f"{_INDENT}  Properties:\n",
            f"{_INDENT}    ApiId: !Ref HttpApi\n",
            f"{_INDENT}    Path: {operation.path}\n",
            f"{_INDENT}    Method: {operation.method}\n",
        ]
    lines.append(END)
    return "".join(lines)


def synced(text: str) -> str:
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{TEMPLATE.name}: the generated-routes markers are missing")
    return text[:start] + generated_block() + text[end + len(END) :]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if template.yaml is out of date")
    args = parser.parse_args(argv)
    text = TEMPLATE.read_text(encoding="utf-8")
    wanted = synced(text)
    if args.check:
        if wanted != text:
            print("template.yaml routes are stale: run `python infra/sync_template_routes.py`", file=sys.stderr)
            return 1
        return 0
    if wanted != text:
        TEMPLATE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
