"""Endpoint safety for push agents (the SSRF guard): an endpoint must be
HTTPS (unless allowed otherwise) and resolve to public addresses only, checked
at registration and again at every call (DNS may change in between)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit


class EndpointRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Target:
    """Where to connect: the endpoint with its host pinned to an address
    checked just now (so a DNS answer cannot change between check and use)."""

    url: str  # the endpoint with the host replaced by the address
    host_header: str
    sni: str  # the name TLS checks the certificate against
    address: str


def parse_endpoint(endpoint: str, allow_http: bool):
    if not isinstance(endpoint, str) or not 1 <= len(endpoint) <= 2000 or not endpoint.isprintable():
        raise EndpointRefused("bad_endpoint", "endpoint is a URL of at most 2000 printable characters")
    parts = urlsplit(endpoint)
    allowed = "https:// or http://" if allow_http else "https://"
    if parts.scheme and parts.scheme not in ("https", "http"):
        # Say what is wrong: ftp:// is not refused for lacking https.
        raise EndpointRefused("bad_endpoint", f"unsupported scheme {parts.scheme}://; an endpoint is an {allowed} URL")
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise EndpointRefused("bad_endpoint", f"endpoint must be an absolute {allowed} URL")
    if parts.scheme == "http" and not allow_http:
        raise EndpointRefused("endpoint_not_allowed", "endpoint must use https")
    if parts.username or parts.password:
        raise EndpointRefused("bad_endpoint", "endpoint must not carry credentials")
    if parts.fragment:
        raise EndpointRefused("bad_endpoint", "endpoint must not have a #fragment")
    try:
        explicit = parts.port
    except ValueError:
        raise EndpointRefused("bad_endpoint", "endpoint has an invalid port") from None
    # Port 0 is no port: `parts.port or default` would quietly turn it into 443.
    if explicit == 0:
        raise EndpointRefused("bad_endpoint", "endpoint port must be 1 to 65535")
    port = explicit if explicit is not None else (443 if parts.scheme == "https" else 80)
    return parts, parts.hostname, port


# IPv6 prefixes that carry an IPv4 address in their last 32 bits: judged by
# that IPv4 address (NAT64 with a public IPv4 is how IPv6-only hosts reach
# the IPv4 internet, so it is allowed; around 127.0.0.1 it is loopback).
_EMBEDS_IPV4_LOW32 = (
    ipaddress.ip_network("64:ff9b::/96"),  # NAT64, well-known prefix
    ipaddress.ip_network("::ffff:0:0/96"),  # IPv4-mapped
    ipaddress.ip_network("::/96"),  # IPv4-compatible (deprecated)
)
# Tunnels that route to an IPv4 host through relays we do not control: no
# agent needs them, and they can wrap any IPv4 address (6to4 around
# 127.0.0.1 is 2002:7f00:1::), so they are refused whatever they wrap.
_TUNNELS = (
    ipaddress.ip_network("2002::/16"),  # 6to4
    ipaddress.ip_network("2001::/32"),  # Teredo
    ipaddress.ip_network("64:ff9b:1::/48"),  # NAT64, local use (RFC 8215)
)


def address_allowed(address: str, allow_private: bool) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if any(ip in net for net in _TUNNELS) and not allow_private:
            return False
        if ip != ipaddress.IPv6Address("::") and ip != ipaddress.IPv6Address("::1"):
            for net in _EMBEDS_IPV4_LOW32:
                if ip in net:
                    ip = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
                    break
    if ip.is_multicast or ip.is_unspecified:
        return False
    if allow_private:
        return True
    return not (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved or not ip.is_global)


# Name -> (addresses, monotonic expiry): a name is resolved again at most
# every RESOLVE_TTL_S; every call still checks the addresses and connects to
# the one it checked, so a DNS answer that changes cannot slip past the check.
RESOLVE_TTL_S = 10.0
_resolved: dict[tuple[str, int], tuple[list[str], float]] = {}


async def _addresses(host: str, port: int) -> list[str]:
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        pass
    cached = _resolved.get((host, port))
    if cached is not None and cached[1] > time.monotonic():
        return cached[0]
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise EndpointRefused("endpoint_unresolvable", f"cannot resolve {host}") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))  # the host of (host, port, ...)
    if len(_resolved) > 10_000:
        _resolved.clear()
    _resolved[(host, port)] = (addresses, time.monotonic() + RESOLVE_TTL_S)
    return addresses


async def resolve_endpoint(endpoint: str, allow_http: bool, allow_private: bool) -> Target:
    """Check an endpoint and pin it to one allowed address; refuses when any
    address the name resolves to is not allowed."""
    parts, host, port = parse_endpoint(endpoint, allow_http)
    addresses = await _addresses(host, port)
    if not addresses:
        raise EndpointRefused("endpoint_unresolvable", f"cannot resolve {host}")
    for address in addresses:
        if not address_allowed(address, allow_private):
            # Never name the address: a DNS answer from inside our network
            # is not the caller's to learn.
            raise EndpointRefused("endpoint_not_allowed", f"the address of {host} is not public")
    address = addresses[0]
    netloc_host = f"[{address}]" if ":" in address else address
    url = parts._replace(netloc=f"{netloc_host}:{port}").geturl()
    return Target(url, host if parts.port is None else f"{host}:{port}", host, address)


# --- the registry -------------------------------------------------------------------
