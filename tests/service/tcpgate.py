"""A TCP gate in front of a real server, for outage tests that must never
stop the machine's shared PostgreSQL or Redis.

`close()` stops listening and cuts every connection through it, so the
service behind it sees exactly an outage: its open connections reset and a
new connect is refused (nothing listens on the port). `open()` listens again
on the same port. The gate runs its own event loop in a thread, so tests may
block (a child process starting) while it forwards."""

from __future__ import annotations

import asyncio
import threading


class TcpGate:
    def __init__(self, target: tuple, port: int) -> None:
        """`target`: ("tcp", host, port) or ("unix", socket path)."""
        self.target = target
        self.port = port
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.base_events.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    def _call(self, coro, timeout: float = 10):
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def start(self) -> TcpGate:
        self._thread.start()
        self.open()
        return self

    def open(self) -> None:
        self._call(self._open())

    def close(self) -> None:
        self._call(self._close())

    def stop(self) -> None:
        self.close()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    async def _open(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port, reuse_address=True)

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()  # a reset, as when the server dies
        self._writers.clear()

    async def _connect_upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """The connection to the server behind the gate; OSError when none
        answers. A subclass picks another upstream here (the round-robin
        balancer of test_multiprocess.py) and keeps the pipe below."""
        if self.target[0] == "unix":
            return await asyncio.open_unix_connection(self.target[1])
        return await asyncio.open_connection(*self.target[1:])

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await self._connect_upstream()
        except OSError:
            writer.transport.abort()
            return
        self._writers.update((writer, up_writer))

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                dst.transport.abort()
                self._writers.discard(dst)

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
