"""Code Mode (docs/MCP/code-mode.md): `search_tools` and `run_code`, a JavaScript sandbox whose
`mesq.<tool>(args)` calls take the tools/call path. See README.md."""
