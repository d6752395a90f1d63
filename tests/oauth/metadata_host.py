"""A client's metadata host on loopback, for Client ID Metadata Documents: what an https URL such as
`https://claude.ai/oauth/mcp-oauth-client-metadata` serves in production (MeSQ admits loopback
http client_ids only with `MESQ_OAUTH_CIMD_ALLOW_LOOPBACK`, tests and local development)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.oauth.helpers import REDIRECT_URI


class MetadataHost:
    """A client's metadata host on loopback: serves one document per path, counts the requests,
    and can be stopped (its port then refuses connections) and started again on the same port."""

    def __init__(self) -> None:
        self.documents: dict[str, tuple[int, dict[str, str], bytes]] = {}
        self.requests = 0
        self._httpd: ThreadingHTTPServer | None = None
        self.port = 0
        self.start()

    def start(self) -> None:
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host.requests += 1
                status, headers, body = host.documents.get(self.path, (404, {}, b""))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self._httpd.server_address[1]
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()
        self._httpd = None

    def url(self, path: str = "/client.json") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def serve(self, path: str = "/client.json", cache_control: str | None = None, **changes: Any) -> str:
        url = self.url(path)
        document = {"client_id": url, "client_name": "Doc Agent", "redirect_uris": [REDIRECT_URI], **changes}
        headers = {"Content-Type": "application/json"}
        if cache_control is not None:
            headers["Cache-Control"] = cache_control
        self.documents[path] = (200, headers, json.dumps(document).encode())
        return url
