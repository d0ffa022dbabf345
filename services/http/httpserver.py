"""uvicorn's httptools protocol with the bounds uvicorn lacks.

- **Incomplete requests.** A request (its headers and its body) must arrive
  whole within HANAMICHI_REQUEST_TIMEOUT_S (default 10 s) of its first byte,
  and a new connection must start one within that time. Otherwise the
  connection gets 408 `request_timeout` and is closed. The bound is on the
  whole request, not on silence, so dripping a byte a second does not keep a
  connection open. Responses are not bounded: an SSE stream stays open with
  its keep-alive comments.
- **Idle keep-alive** connections close after uvicorn's `timeout_keep_alive`
  (`hanamichi serve` sets HANAMICHI_KEEPALIVE_S, default 5 s).
- **Connections per address** are capped at HANAMICHI_MAX_CONNECTIONS_PER_ADDRESS
  (0, the default, means no cap); past it a connection gets 429
  `too_many_connections`. Behind a proxy listed in HANAMICHI_TRUSTED_PROXIES
  (comma-separated addresses or networks), the address counted is the
  client's, from X-Forwarded-For (the nearest hop that is not a trusted
  proxy): otherwise everyone behind an ingress would share one address.
- **The scheme** (X-Forwarded-Proto) is believed from the same trusted
  proxies only (`forwarded_options`): the session cookies are Secure when
  the request reached the proxy over https.

Use: `uvicorn --http services.http.httpserver:GuardedHttpProtocol ...`, or
`hanamichi serve`, which does so."""

from __future__ import annotations

import asyncio
import ipaddress
from collections import Counter

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from services.config import ProcessSettings

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _networks(text: str) -> tuple[_Network, ...]:
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


def _within(address: str, networks: tuple[_Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in networks)


def forwarded_client(peer: str, headers: list[tuple[bytes, bytes]], trusted: tuple[_Network, ...]) -> str:
    """The address to count: the peer, or when the peer is a trusted proxy the
    nearest X-Forwarded-For hop that is not one (hops further left are the
    client's own claims, which anyone can forge)."""
    if not _within(peer, trusted):
        return peer
    hops = [
        h.strip()
        for name, value in headers
        if name == b"x-forwarded-for"
        for h in value.decode("latin-1").split(",")
        if h.strip()
    ]
    for hop in reversed(hops):
        if not _within(hop, trusted):
            return hop
    return hops[0] if hops else peer


def forwarded_options(trusted_proxies: str) -> dict[str, object]:
    """uvicorn's proxy settings (`hanamichi serve` passes them): the scheme
    (X-Forwarded-Proto, hence the cookies' Secure flag) and the client
    address (X-Forwarded-For) are taken from a request's headers only when
    its peer is one of HANAMICHI_TRUSTED_PROXIES, the same list the
    connection cap uses. Unset, no peer is trusted, not even uvicorn's
    default of loopback (FORWARDED_ALLOW_IPS is not read): a request sent
    straight to the process cannot claim to have come over TLS."""
    networks = [str(net) for net in _networks(trusted_proxies)]
    return {"proxy_headers": bool(networks), "forwarded_allow_ips": networks}


def client_address(scope) -> str:
    """The client's address of an ASGI request, as the connection cap counts
    it (the sign-in limits count the same one)."""
    peer = scope["client"][0] if scope.get("client") else ""
    return forwarded_client(peer, scope.get("headers", []), GuardedHttpProtocol.trusted_proxies)


def _response(status: bytes, code: str, message: str, extra: bytes = b"") -> bytes:
    body = f'{{"code":"{code}","message":"{message}"}}'.encode()
    return (
        b"HTTP/1.1 "
        + status
        + b"\r\ncontent-type: application/json\r\nconnection: close\r\n"
        + extra
        + b"content-length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


_TIMEOUT_408 = _response(b"408 Request Timeout", "request_timeout", "the request did not arrive in time")
_TOO_MANY_429 = _response(
    b"429 Too Many Requests",
    "too_many_connections",
    "too many open connections from your address",
    b"retry-after: 5\r\n",
)


# uvicorn builds the protocol by its dotted name, for each connection, with
# no Settings to hand: its bounds are the process's (services/config.py).
_BOUNDS = ProcessSettings.from_env()


class GuardedHttpProtocol(HttpToolsProtocol):
    request_timeout_s = _BOUNDS.request_timeout_s
    max_per_address = _BOUNDS.max_connections_per_address
    trusted_proxies = _networks(_BOUNDS.trusted_proxies)
    # Open connections per counted address, in this process.
    open_by_address: Counter = Counter()

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self._request_timer: asyncio.TimerHandle | None = None
        self._counted: str | None = None
        self._arm()  # a connection that never sends a request is an incomplete one
        peer = self.client[0] if self.client else ""
        if not _within(peer, self.trusted_proxies):
            self._count(peer)

    def connection_lost(self, exc) -> None:
        self._disarm()
        self._release()
        super().connection_lost(exc)

    # --- incomplete requests -------------------------------------------------

    def _arm(self) -> None:
        if self._request_timer is None:
            self._request_timer = self.loop.call_later(self.request_timeout_s, self._timed_out)

    def _disarm(self) -> None:
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None

    def _timed_out(self) -> None:
        self._request_timer = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete or not self.cycle.response_started:
            self.transport.write(_TIMEOUT_408)
        # A route waiting for the rest of the body hears a disconnect.
        self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()  # the next request on a kept-alive connection

    def on_body(self, body: bytes) -> None:
        if self.cycle is not None and not self.transport.is_closing():
            super().on_body(body)

    def on_message_complete(self) -> None:
        self._disarm()  # all of it arrived: the answer may take as long as it needs
        if self.cycle is not None and not self.transport.is_closing():  # not refused at the headers
            super().on_message_complete()

    # --- connections per address ---------------------------------------------

    def on_headers_complete(self) -> None:
        peer = self.client[0] if self.client else ""
        if self.max_per_address and _within(peer, self.trusted_proxies):
            client = forwarded_client(peer, self.headers, self.trusted_proxies)
            if client != self._counted:  # a proxy's connection may carry another client next
                self._release()
                if not self._count(client):
                    return
        super().on_headers_complete()
        if self.cycle is not None:
            # The spectators' fan-out writes the same bytes straight to each
            # stream's transport (services.http.broadcast).
            # ASGI types an extension's value as a dict; this one of our own
            # carries the cycle itself.
            self.scope.setdefault("extensions", {})["hanamichi.cycle"] = self.cycle  # type: ignore[assignment]

    def _count(self, address: str) -> bool:
        if not self.max_per_address:
            return True
        if self.open_by_address[address] >= self.max_per_address:
            self._disarm()
            self.transport.write(_TOO_MANY_429)
            self.transport.close()
            return False
        self.open_by_address[address] += 1
        self._counted = address
        return True

    def _release(self) -> None:
        if self._counted is not None:
            self.open_by_address[self._counted] -= 1
            if self.open_by_address[self._counted] <= 0:
                del self.open_by_address[self._counted]
            self._counted = None
