"""Which network addresses a request the service makes on a user's behalf may reach: the OAuth
client metadata fetch (`http/cimd.py`) and reminder webhooks (`reminders/transport.py`) go to
URLs somebody else chose, so they must never reach the deployment's own network (SSRF). The
host is resolved once and every address checked here; the caller connects to the address it
checked (the clients themselves are in mesq/adapters/outbound.py). Each such request also runs
under a total deadline (`anyio.fail_after`, around the whole exchange, not per socket
operation), so a peer that trickles bytes cannot hold the server's capacity.

`ipaddress.is_global` alone is not enough on Python 3.11: it calls the IPv6 forms that embed an
IPv4 address (NAT64, 6to4, IPv4-compatible) global even when the embedded address is loopback or
private, so every embedded IPv4 address (those, IPv4-mapped, Teredo) is checked too.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from typing import Any

_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (and would route to)."""
    embedded: list[ipaddress.IPv4Address] = []
    if address.ipv4_mapped is not None:
        embedded.append(address.ipv4_mapped)
    if address.sixtofour is not None:
        embedded.append(address.sixtofour)
    if address.teredo is not None:
        embedded.extend(address.teredo)  # (server, client)
    if any(address in network for network in _NAT64) or address in _IPV4_COMPATIBLE:
        embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return embedded


def is_public_address(address: IPAddress) -> bool:
    """A unicast address on the public internet, including whatever IPv4 address it embeds."""
    if not address.is_global or address.is_multicast:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        return all(is_public_address(inner) for inner in embedded_ipv4(address))
    return True


class UnsafeTarget(Exception):
    """A host that cannot be reached safely: `unresolvable`, or not public."""

    def __init__(self, message: str, *, unresolvable: bool) -> None:
        super().__init__(message)
        self.unresolvable = unresolvable


def _checked(host: str, infos: list[Any], require_public: bool) -> str:
    addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
    if not addresses:
        raise UnsafeTarget(f"cannot resolve {host}", unresolvable=True)
    if require_public and not all(is_public_address(address) for address in addresses):
        raise UnsafeTarget(f"{host} resolves to a non-public address", unresolvable=False)
    return str(addresses[0])


def resolve_checked(host: str, port: int, *, require_public: bool = True) -> str:
    """The one address to connect to for `host`: resolved once, every address checked public
    first (unless `require_public` is off: tests, local development), so the caller connects to
    what was checked (a second resolution could land elsewhere: DNS rebinding)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise UnsafeTarget(f"cannot resolve {host}", unresolvable=True) from None
    return _checked(host, infos, require_public)


async def resolve_checked_async(host: str, port: int, *, require_public: bool = True) -> str:
    """`resolve_checked` on the running loop (its resolver thread, not the request pool), so a
    caller's deadline covers the lookup too."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise UnsafeTarget(f"cannot resolve {host}", unresolvable=True) from None
    return _checked(host, infos, require_public)
