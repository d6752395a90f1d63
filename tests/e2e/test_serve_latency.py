"""`mesq serve` answers a keep-alive request without waiting for the client's delayed ACK: its
accepted sockets have Nagle off, as every asyncio TCP server's do. (Its listening socket was
created with proto 0, so asyncio left Nagle on, and a response written in two parts waited for
the client's delayed ACK: ~40 ms on every request on Linux, 15x a plain Starlette route.)"""

from __future__ import annotations

import statistics
import time

import httpx

#: Linux delays an ACK by at least 40 ms; a healthy loopback /healthz takes a few ms even on a
#: busy machine, so the median sits far below this.
DELAYED_ACK_SECONDS = 0.040


def test_keep_alive_requests_do_not_wait_for_a_delayed_ack(live_server):
    samples = []
    with httpx.Client(base_url=live_server.base_url, timeout=10) as client:
        for _ in range(3):
            assert client.get("/healthz").status_code == 200  # the connection is open and warm
        for _ in range(15):
            start = time.perf_counter()
            assert client.get("/healthz").status_code == 200
            samples.append(time.perf_counter() - start)
    assert statistics.median(samples) < DELAYED_ACK_SECONDS * 0.75, samples
