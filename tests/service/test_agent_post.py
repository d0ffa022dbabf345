"""services/app/agents/post.py against a raw asyncio HTTP server whose every byte
the test writes: the pinned address with the original Host header, the
User-Agent, no env proxy, no redirects followed, the answer size cap (by
content-length and while streaming), the seat's budget as timeout, and for
https the original name as SNI with the certificate checked (the client moved
from httpx to aiohttp for its CPU cost; these pin what the switch had to keep)."""

from __future__ import annotations

import asyncio
import ssl
import subprocess
import time

import pytest

from services.app.agents import endpoints
from services.app.agents.post import agent_client, post_to_agent
from services.app.agents.settings import AgentSettings

pytestmark = pytest.mark.asyncio(loop_scope="session")

SETTINGS = AgentSettings(allow_http=True, allow_private=True, max_response_bytes=1000)


class Agent:
    """What an agent call reads of a registered agent: no secret rotation in
    progress, so no previous secret to sign with."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint, self.secret = endpoint, "whsec_test"
        self.previous_secret: str | None = None


def _reply(status: str, body: bytes, extra: str = "") -> bytes:
    return f"HTTP/1.1 {status}\r\ncontent-length: {len(body)}\r\n{extra}\r\n".encode() + body


CANNED = {
    "/ok": _reply("200 OK", b'{"action": {"type": "stop"}}'),
    "/redirect": _reply("302 Found", b"", "location: http://127.0.0.1:1/elsewhere\r\n"),
    "/big": _reply("200 OK", b"x" * 1001),
    # No content-length, 3 chunks of 400 bytes: the cap is found while reading.
    "/stream": b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
    + (b"190\r\n" + b"y" * 400 + b"\r\n") * 3
    + b"0\r\n\r\n",
}


async def _serve(seen: list[bytes]):
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0
        )
        seen.append(head + await reader.readexactly(length))
        path = head.split(b" ")[1].decode()
        if path == "/silent":
            await asyncio.sleep(5)
        reply = CANNED.get(path, _reply("404 Not Found", b""))
        if path == "/stream":  # the first chunk alone first: the turn log keeps what came before the cap
            writer.write(reply[: 47 + 405])
            await writer.drain()
            await asyncio.sleep(0.05)
            reply = reply[47 + 405 :]
        writer.write(reply)
        await writer.drain()
        writer.close()  # without `connection: close`: the next call finds its pooled connection dead

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def test_post_keeps_the_host_header_user_agent_and_refuses_redirects_big_answers_and_late_ones(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9/")  # would break the call were env proxies used
    seen: list[bytes] = []
    server, port = await _serve(seen)
    endpoints._resolved[("agent.test", port)] = (["127.0.0.1"], time.monotonic() + 60)
    http = agent_client()
    try:

        async def post(path: str, budget_ms: int = 2000):
            return await post_to_agent(
                http, SETTINGS, Agent(f"http://agent.test:{port}{path}"), b'{"v": 1}', budget_ms, "g:3:0"
            )

        reason, detail, action, _ms, head = await post("/ok")
        assert (reason, action, head) == (None, {"type": "stop"}, '{"action": {"type": "stop"}}')
        request = seen[-1].decode().lower()
        assert request.startswith("post /ok http/1.1\r\n")
        assert f"\r\nhost: agent.test:{port}\r\n" in request
        assert "\r\nuser-agent: hanamichi-agent-caller/1\r\n" in request
        assert "\r\nx-hanamichi-delivery: g:3:0\r\n" in request and "\r\ncontent-type: application/json\r\n" in request
        assert request.endswith('\r\n\r\n{"v": 1}')

        count = len(seen)
        assert (await post("/redirect"))[:2] == ("invalid_response", "HTTP 302: redirects are not followed")
        assert len(seen) == count + 1  # the Location was not asked for
        assert (await post("/missing"))[:2] == ("invalid_response", "HTTP 404")
        big = await post("/big")
        assert big[:2] == ("invalid_response", "answer larger than 1000 bytes") and big[4] == ""
        streamed = await post("/stream")
        assert streamed[:2] == ("invalid_response", "answer larger than 1000 bytes") and streamed[4].startswith(
            "y" * 200
        )
        assert (await post("/silent", budget_ms=50))[:2] == ("timeout", "no answer within 50 ms")
        server.close()
        await server.wait_closed()
        refused = await post("/ok")
        assert refused[0] == "unreachable" and refused[2] is None
    finally:
        await http.close()
        endpoints._resolved.pop(("agent.test", port), None)


async def test_https_sends_the_endpoint_name_as_sni_and_checks_the_certificate(tmp_path):
    """Connected to the pinned address, TLS still names the endpoint's host;
    a certificate nobody vouches for makes the agent unreachable."""
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=agent.test",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    names: list[str | None] = []
    context.sni_callback = lambda _sock, name, _ctx: names.append(name)
    server = await asyncio.start_server(lambda _r, w: w.close(), "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    endpoints._resolved[("agent.test", port)] = (["127.0.0.1"], time.monotonic() + 60)
    http = agent_client()
    try:
        reason, detail, *_ = await post_to_agent(
            http, SETTINGS, Agent(f"https://agent.test:{port}/turn"), b"{}", 2000, "g:1:0"
        )
        assert names == ["agent.test"]
        assert reason == "unreachable" and "certificate" in detail.lower()
    finally:
        await http.close()
        server.close()
        endpoints._resolved.pop(("agent.test", port), None)
