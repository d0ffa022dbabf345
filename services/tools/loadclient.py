"""A minimal keep-alive HTTP/1.1 client for load generation.

httpx tops out at a few hundred requests/s from one process (ENVIRONMENT.md);
the bench needs thousands, so it speaks just enough HTTP/1.1 to our own
server: JSON bodies, Content-Length or chunked responses, and SSE."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgspec


class HttpConnection:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    @property
    def _in(self) -> asyncio.StreamReader:
        if self.reader is None:
            raise ConnectionError("not connected")
        return self.reader

    @property
    def _out(self) -> asyncio.StreamWriter:
        if self.writer is None:
            raise ConnectionError("not connected")
        return self.writer

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any, dict]:
        try:
            return await self._request(method, path, body, token)
        except (ConnectionError, asyncio.IncompleteReadError):
            # The server closed a kept-alive connection that sat idle past its
            # keep-alive timeout (a seat waiting for its turn): what any HTTP
            # client does, once, on a new connection. Our writes carry command
            # ids, so a repeated POST is answered from the stored outcome.
            self.close()
            return await self._request(method, path, body, token)

    async def _request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any, dict]:
        if self.writer is None:
            await self._connect()
        payload = msgspec.json.encode(body) if body is not None else b""
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}", "Connection: keep-alive"]
        if token:
            head.append(f"Authorization: Bearer {token}")
        if body is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
        self._out.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        status, headers = await self._read_head()
        if headers.get("transfer-encoding") == "chunked":
            data = await self._read_chunked()
        else:
            data = await self._in.readexactly(int(headers.get("content-length", "0")))
        return status, (msgspec.json.decode(data) if data else None), headers

    async def _read_head(self) -> tuple[int, dict]:
        line = await self._in.readline()
        if not line:
            raise ConnectionError("server closed the connection")
        status = int(line.split(b" ", 2)[1])
        headers = {}
        while True:
            line = await self._in.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            key, _, value = line.decode().partition(":")
            headers[key.strip().lower()] = value.strip()
        return status, headers

    async def _read_chunked(self) -> bytes:
        out = bytearray()
        while True:
            size = int((await self._in.readline()).strip(), 16)
            if size == 0:
                await self._in.readline()
                return bytes(out)
            out += await self._in.readexactly(size)
            await self._in.readline()

    async def sse(self, path: str, token: str | None = None, last_event_id: str | None = None):
        """Yield (event, id, data) of a Server-Sent Events response; with
        `last_event_id`, resume after it as a browser reconnecting does."""
        if self.writer is None:
            await self._connect()
        head = [f"GET {path} HTTP/1.1", f"Host: {self.host}", "Accept: text/event-stream"]
        if token:
            head.append(f"Authorization: Bearer {token}")
        if last_event_id is not None:
            head.append(f"Last-Event-ID: {last_event_id}")
        self._out.write(("\r\n".join(head) + "\r\n\r\n").encode())
        status, headers = await self._read_head()
        if status != 200:
            raise ConnectionError(f"stream refused: {status}")
        chunked = headers.get("transfer-encoding") == "chunked"
        buffer = b""
        while True:
            if chunked:
                size = int((await self._in.readline()).strip(), 16)
                if size == 0:
                    return
                buffer += await self._in.readexactly(size)
                await self._in.readline()
            else:
                chunk = await self._in.read(65536)
                if not chunk:
                    return
                buffer += chunk
            buffer = buffer.replace(b"\r\n", b"\n")
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                fields: dict[str, str] = {}
                for line in block.decode().split("\n"):
                    if line.startswith(":"):
                        continue
                    key, _, value = line.partition(":")
                    fields[key] = value[1:] if value.startswith(" ") else value
                if "data" in fields:
                    yield fields.get("event"), fields.get("id"), json.loads(fields["data"])

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
