// The app side of MCP Apps that every ui://mesq view carries (bundled by infra/apps_bundle.py into
// mesq/mcp/views/ext-apps.js as the global `McpExtApps`): the official SDK's App, which speaks the
// host's postMessage JSON-RPC (ui/initialize, tool input/result, host context, size-changed,
// tools/call and resources/read through the host), and its PostMessageTransport.
import "./jitless.js";

export { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps";
