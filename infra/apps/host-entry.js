// Test hosts only (tests/web/test_mcp_apps_browser.py; never shipped): the official SDK's host side,
// AppBridge, bundled by infra/apps_bundle.py under .cache/ as the global `McpExtAppsHost`.
export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
