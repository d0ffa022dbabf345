"""SIGTERM ends every SSE stream at once.

uvicorn, on SIGTERM, stops accepting connections and then waits for every
response in flight to finish before it runs the app's shutdown: an SSE
stream never finishes by itself, so one spectator used to hold the exit
forever. Neither uvicorn nor Litestar tells the app that a shutdown began,
so the lifespan wraps the signal handler the server installed: the signal
still reaches the server, and it also ends this process's streams (the
Hub's `end_streams`). Works for `hanamichi serve`, plain `uvicorn`, and each
process of `uvicorn --workers N`."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable


def end_streams_on_signal(end_streams: Callable[[], None]) -> None:
    """Call `end_streams` (in the running loop) on SIGTERM and SIGINT, then
    whatever handler was there before."""
    if threading.current_thread() is not threading.main_thread():
        return  # signals reach the main thread only; the server's timeout applies
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(sig)

        def handler(signum, frame, previous=previous) -> None:
            loop.call_soon_threadsafe(end_streams)
            if callable(previous):
                previous(signum, frame)
            elif previous == signal.SIG_DFL:  # nobody handles it: do what the default does
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)

        signal.signal(sig, handler)
