"""The message bus: one way in for every command, one list of subscribers
for every commit.

`handle(command)` runs the one handler registered for the command's type
and returns what it returns; `committed(stream, events)` runs every commit
subscriber, in order, under the stream's lock (the kernel's hook calls it
after each commit). Both tables are written in services/bootstrap.py, the
one place that says which handler answers which command and who follows
commits."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

Handler = Callable[[Any], Awaitable[Any]]
Subscriber = Callable[[Any, list], None]


class MessageBus:
    def __init__(self, handlers: Mapping[type, Handler], subscribers: Sequence[Subscriber] = ()) -> None:
        self.handlers = dict(handlers)
        self.subscribers = list(subscribers)

    async def handle(self, command: Any) -> Any:
        handler = self.handlers.get(type(command))
        if handler is None:
            raise LookupError(f"no handler for {type(command).__name__}")
        return await handler(command)

    def committed(self, stream: Any, events: list) -> None:
        for subscriber in self.subscribers:
            subscriber(stream, events)
