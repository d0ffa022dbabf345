"""The tournaments' copies: each tournament is a stream folded by the pure
engine in engines.tournament; a copy is kept per process and brought up to
date from the log before a decision. One command is decided on the copy
through the command kernel (services/app/kernel.py: append with the expected
version, catch up and decide again after a conflict, publish), and what its
events ask for is handed to `after` (TournamentService's: statuses, the
embargo's end, a round's tables)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

import engines.tournament as tn
from services.app.errors import Conflict, NotFound
from services.app.kernel import Decision, Kernel
from services.app.ports import EventLog
from services.app.ports.notices import Notices

_decoder = msgspec.json.Decoder(tn.AnyEvent)


@dataclass
class Loaded:
    tournament_id: str
    version: int = 0
    state: Any = None
    events: list = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def stream_id(self) -> str:
        return self.tournament_id

    def apply(self, first: int, events: list) -> None:
        """Fold in events from version `first`, skipping any a concurrent
        reader already brought in from PostgreSQL."""
        for version, event in enumerate(events, start=first):
            if version == self.version + 1:
                self.state = tn.evolve(self.state, event)
                self.events.append(event)
                self.version = version

    def fold_in(self, first: int, decision: Decision) -> None:
        self.apply(first, decision.events)  # the kernel's call, after a commit of this process


After = Callable[[Loaded, list], Awaitable[None]]


class TournamentCopies:
    def __init__(self, store: EventLog, notices: Notices) -> None:
        self.store = store
        self.kernel = Kernel(store, notices)
        self._loaded: dict[str, Loaded] = {}
        self.after: list[After] = []  # run in order with the events of every decision that wrote some

    async def load(self, tournament_id: str) -> Loaded:
        loaded = self._loaded.get(tournament_id)
        if loaded is None:
            try:
                uuid.UUID(tournament_id)
            except ValueError:
                raise NotFound("tournament_not_found", f"there is no tournament {tournament_id}") from None
            loaded = self._loaded.setdefault(tournament_id, Loaded(tournament_id))
        await self.refresh(loaded)
        if loaded.state is None:
            raise NotFound("tournament_not_found", f"there is no tournament {tournament_id}")
        return loaded

    async def refresh(self, loaded: Loaded) -> None:
        stored = await self.store.read(loaded.tournament_id, after=loaded.version)
        if stored:
            loaded.apply(stored[0].version, [_decoder.decode(s.data) for s in stored])

    async def command(self, tournament_id: str, command, now: int, loaded: Loaded | None = None) -> list:
        """Decide and append one command; returns the events it wrote.
        `loaded`: the caller's copy, current as far as it knows (not read
        again; a copy left behind by another process costs one conflict)."""
        if loaded is None:
            loaded = self._loaded.setdefault(tournament_id, Loaded(tournament_id))
            await self.refresh(loaded)
        copy = loaded

        async def decide() -> Decision:
            if copy.state is None and not isinstance(command, tn.Create):
                self._loaded.pop(tournament_id, None)
                raise NotFound("tournament_not_found", f"there is no tournament {tournament_id}")
            return Decision(tn.decide(copy.state, command, now))

        decision = await self.kernel.run(
            copy,
            decide,
            catch_up=lambda: self.refresh(copy),
            attempts=5,
            moved_on=lambda: Conflict("version_conflict", "the tournament moved on; try again"),
        )
        assert decision is not None  # only a run that gives way ends without a decision
        if not decision.events:
            return []
        for after in self.after:
            await after(copy, decision.events)
        return decision.events
