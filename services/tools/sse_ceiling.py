"""The ceiling of `bench spectators` (services/tools/bench_spectators.py): a
bare asyncio SSE broadcaster, no framework, no Redis, no redaction, run as
its own process (`python -m services.tools.sse_ceiling PORT CLIENTS TICKS
INTERVAL_S`). It prints `ready`, waits for the clients, sends TICKS messages
INTERVAL_S apart to all of them, and prints the send time of each as JSON."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time


async def ceiling_server(port: int, clients: int, ticks: int, interval_s: float) -> None:
    from services.tools.bench_crowd import raise_fd_limit

    raise_fd_limit()
    writers: list[asyncio.StreamWriter] = []
    ready = asyncio.Event()

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\r\n")
        writers.append(writer)
        if len(writers) >= clients:
            ready.set()

    server = await asyncio.start_server(accept, "127.0.0.1", port, backlog=4096)
    print("ready", flush=True)
    with contextlib.suppress(TimeoutError):  # then the clients that could connect
        await asyncio.wait_for(ready.wait(), 60)
    sent: dict[int, float] = {}
    for version in range(1, ticks + 1):
        await asyncio.sleep(interval_s)
        message = f"id: {version}\r\nevent: tick\r\ndata: {{}}\r\n\r\n".encode()
        sent[version] = time.time()
        for w in writers:
            w.write(message)
    for w in writers:
        w.write(b"event: end\r\ndata: {}\r\n\r\n")
        w.close()
    server.close()
    print(json.dumps(sent), flush=True)


if __name__ == "__main__":
    port, clients, ticks, interval = sys.argv[1:5]
    import uvloop  # the loop uvicorn runs the server on: the ceiling differs from it by our code alone

    uvloop.run(ceiling_server(int(port), int(clients), int(ticks), float(interval)))
