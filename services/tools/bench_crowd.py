"""The crowd of `bench spectators`: N raw-socket SSE clients spread
over K processes, so that the clients' own event loop is not what the
figures measure (one Python process reading 2,000 sockets after every event
took longer than the server's fan-out).

Each client is an asyncio Protocol on a plain socket: no HTTP library, no
JSON decoding; it stamps every read with the clock and finds the `id:` and
`event:` lines of the complete messages in it. A process writes, per
client, whether it was cut (a `reconnect` event) and every (version,
arrival) pair, as doubles to a file the bench reads back.

Protocol with the bench (stdin/stdout lines): the process prints
`connected OK FAILED` once every connection is open or has failed, then
reads until `stop` (or EOF), writes its file and prints `done`."""

from __future__ import annotations

import asyncio
import os
import re
import resource
import sys
import tempfile
import time
from array import array
from pathlib import Path
from typing import cast

from services.tools.children import piped

# Messages end with a blank line; what comes before is complete. In chunked
# responses the size lines fall between messages (the server frames whole
# messages), so they never split an `id:`/`event:` pair.
_END = b"\r\n\r\n"
_FIELDS = re.compile(rb"(?:id: (\d+)\r\n)?event: (\w+)")


def raise_fd_limit() -> int:
    """`ulimit -n` up to the hard limit (10,000 spectators need 10,000 fds at
    the server and as many among the clients); children inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class _Client(asyncio.Protocol):
    __slots__ = ("request", "transport", "tail", "head", "seen", "cut", "closed", "ok")

    def __init__(self, request: bytes) -> None:
        self.request = request
        self.transport: asyncio.Transport | None = None
        self.tail = b""
        self.head = False
        self.seen = array("d")  # version, arrival, version, arrival, ...
        self.cut = False
        self.ok = True
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A TCP connection's (uvloop's transports are not asyncio.Transport
        # subclasses, nor are the tests' stand-ins): typed, not checked.
        self.transport = cast(asyncio.Transport, transport)
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        transport = self.transport
        assert transport is not None  # data comes after connection_made
        now = time.time()
        buf = self.tail + data
        end = buf.rfind(_END)
        if end < 0:
            self.tail = buf
            return
        self.tail = buf[end + 4 :]
        whole = buf[: end + 4]
        if not self.head:
            self.head = True
            if not whole.startswith(b"HTTP/1.1 200"):
                self.ok = False
                transport.close()
                return
        seen = self.seen
        for version, event in _FIELDS.findall(whole):
            if event in (b"game", b"tick"):
                seen.append(float(version))
                seen.append(now)
            elif event == b"reconnect":
                self.cut = True
            elif event == b"end":
                transport.close()

    def connection_lost(self, exc) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


async def _crowd(host: str, port: int, path: str, count: int, out: str) -> None:
    loop = asyncio.get_running_loop()
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode()
    clients: list[_Client] = []
    failed = 0
    gate = asyncio.Semaphore(100)  # a burst of 10,000 SYNs would overflow the listen backlog

    async def connect() -> None:
        nonlocal failed
        async with gate:
            try:
                _, client = await asyncio.wait_for(loop.create_connection(lambda: _Client(request), host, port), 30)
                clients.append(client)
            except (TimeoutError, OSError):
                failed += 1

    await asyncio.gather(*(connect() for _ in range(count)))
    print(f"connected {len(clients)} {failed}", flush=True)
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while (line := await reader.readline()) and line.strip() != b"stop":
        pass
    rows = array("d")
    for c in clients:
        rows.append(float(len(c.seen) // 2))
        rows.append(1.0 if c.cut else (0.0 if c.ok else -1.0))
        rows.extend(c.seen)
        if c.transport is not None:
            c.transport.abort()
    with open(out, "wb") as f:
        rows.tofile(f)
    print("done", flush=True)


class Crowd:
    """The bench's side: K crowd processes holding N spectators between them."""

    def __init__(self, host: str, port: int, path: str, clients: int, processes: int) -> None:
        self.where = (host, port, path)
        self.shares = [clients // processes + (1 if k < clients % processes else 0) for k in range(processes)]
        self.files = [tempfile.mktemp(prefix="hanamichi-crowd-", suffix=".bin") for _ in self.shares]
        self.procs: list[asyncio.subprocess.Process] = []

    async def connect(self, timeout: float = 90) -> tuple[int, int]:
        """Start the processes; (connected, failed) once all have connected."""
        host, port, path = self.where
        root = Path(__file__).resolve().parents[2]
        for share, out in zip(self.shares, self.files, strict=True):
            self.procs.append(
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "services.tools.bench_crowd",
                    host,
                    str(port),
                    path,
                    str(share),
                    out,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    cwd=root,
                )
            )
        lines = await asyncio.wait_for(asyncio.gather(*(piped(p.stdout).readline() for p in self.procs)), timeout)
        counts = [line.split() for line in lines]
        return sum(int(c[1]) for c in counts if len(c) == 3), sum(
            int(c[2]) if len(c) == 3 else s for c, s in zip(counts, self.shares, strict=True)
        )

    async def stop(self) -> list:
        """Stop them; every client's (cut, [(version, arrival), ...])."""
        for p in self.procs:
            if p.returncode is None:
                piped(p.stdin).write(b"stop\n")
                await piped(p.stdin).drain()
        await asyncio.wait_for(asyncio.gather(*(piped(p.stdout).readline() for p in self.procs)), 60)
        rows = []
        for out in self.files:
            if os.path.exists(out):
                rows.extend(read_rows(out))
        await self.close()
        return rows

    async def close(self) -> None:
        for p in self.procs:
            if p.returncode is None:
                p.kill()
            await p.wait()
        for out in self.files:
            if os.path.exists(out):
                os.unlink(out)


def read_rows(path: str):
    """(cut, [(version, arrival), ...]) of each client in a crowd's file; cut
    is 1 for a `reconnect`, -1 for a refused stream, else 0."""
    data = array("d")
    with open(path, "rb") as f:
        data.frombytes(f.read())
    i = 0
    while i < len(data):
        n, cut = int(data[i]), int(data[i + 1])
        pairs = data[i + 2 : i + 2 + 2 * n]
        yield cut, list(zip(map(int, pairs[0::2]), pairs[1::2], strict=False))
        i += 2 + 2 * n


if __name__ == "__main__":
    raise_fd_limit()
    h, p, pth, n, o = sys.argv[1:6]
    import uvloop  # the server's own loop (uvicorn's): the clients read as fast as it writes

    uvloop.run(_crowd(h, int(p), pth, int(n), o))
