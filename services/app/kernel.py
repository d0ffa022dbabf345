"""The one command kernel every stream goes through, games and tournaments
alike: load -> fold -> decide -> append with the expected version
-> publish, raising the domain errors of services/app/errors.py.

A stream's folded copy (a game's Table, a tournament's Loaded) is what the
kernel works on: it has an id, a version, a lock, and folds in what a commit
wrote (`fold_in`). Use cases say how to decide and how to catch the copy up;
the kernel owns the loop around them:

- decide under the copy's lock, on the copy as it is (no read when it is
  current: the append's version check is the backstop);
- an engine's refusal (RuleError) may come from a copy that is behind: one
  catch-up, and the refusal stands only if nothing new arrived (a refusal
  costs a query, an accepted command on a current copy none);
- a VersionConflict means another process wrote first: catch up and decide
  again, a few times (or, for commands that another process may equally
  well have carried out, such as a timer, give way);
- a failed write is `storage_unavailable` (nothing was written)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import msgspec

from engines.core import RuleError
from services.app.errors import ServiceError, Unavailable, refused
from services.app.ports.events import EventLog, VersionConflict
from services.app.ports.notices import Notice, Notices
from services.infra.outages import OUTAGES

log = logging.getLogger("hanamichi.kernel")


def event_tag(event: Any) -> str:
    """The stored type of an event: its msgspec tag (stored; never renamed)."""
    return type(event).__struct_config__.tag


class Decision(msgspec.Struct, frozen=True):
    """What deciding a command came to. `events` empty: nothing to write
    (`result` says why, e.g. the stored outcome of a retried command)."""

    events: list
    command_id: str | None = None  # recorded with the events, so a retry finds its outcome
    outcome: Any = None  # stored with the command id (a msgspec Struct)
    seat: int | None = None  # command ids are per seat (None: the server's own)
    state_after: Any = None  # the state the events lead to, when the decider folded them already
    result: Any = None  # what the use case returns when nothing is written
    # Set by the kernel once committed: the hashes the store linked the events
    # with (engines/chain.py), so the copy knows its chain head without a query.
    hashes: list[str] = []


class Folded(Protocol):
    """A process's folded copy of one stream."""

    # Read-only here: a table has them as properties.
    @property
    def stream_id(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def lock(self) -> Any: ...

    def fold_in(self, first: int, decision: Decision) -> None: ...


class Kernel:
    """Appends decisions to streams and publishes them. `committed(stream,
    decision)` runs after each commit, under the stream's lock (a service's
    own follow-ups: on_commit subscribers, the lobby row)."""

    def __init__(
        self, store: EventLog, publisher: Notices, committed: Callable[[Any, Decision], None] | None = None
    ) -> None:
        self.store = store
        self.publisher = publisher
        self.committed = committed
        self.commits = 0

    async def append(self, stream: Folded, decision: Decision) -> int:
        """Append (expecting the copy's version), fold in, publish; the
        caller holds the stream's lock. Returns the first version written."""
        return (await self.commit(stream, decision))[0]

    async def commit(self, stream: Folded, decision: Decision) -> tuple[int, Decision]:
        """`append`, returning also the decision as committed (with its hashes)."""
        encode = msgspec.json.encode
        encoded = [(event_tag(e), encode(e)) for e in decision.events]
        command = (decision.command_id, encode(decision.outcome)) if decision.command_id is not None else None
        first = stream.version + 1
        try:
            appended = await self.store.append_chained(stream.stream_id, first - 1, encoded, command, decision.seat)
        except VersionConflict:
            raise
        except Exception as exc:
            if not OUTAGES.failed(exc, "event appends; nothing was written"):
                log.error("append failed for %s: %s", stream.stream_id, exc)
            raise Unavailable("storage_unavailable", "the event log is unavailable; nothing was written") from None
        if appended.hashes:
            decision = msgspec.structs.replace(decision, hashes=appended.hashes)
        stream.fold_in(first, decision)
        self.commits += 1
        self.publisher.publish(Notice(stream.stream_id, first, first + len(encoded) - 1))
        if self.committed is not None:
            self.committed(stream, decision)
        return first, decision

    async def run(
        self,
        stream: Folded,
        decide: Callable[[], Awaitable[Decision]],
        catch_up: Callable[[], Awaitable[None]],
        moved_on: Callable[[], ServiceError],
        attempts: int = 3,
        give_way: bool = False,
        refusal: Callable[[], dict] = dict,
    ) -> Decision | None:
        """One command: `decide()` under the stream's lock, then append.
        `catch_up()` brings the copy up to PostgreSQL (after a conflict, or
        before a refusal stands). After `attempts` conflicts, `moved_on()` is
        raised; with `give_way`, the first conflict ends the command instead
        (returns None: another process did it). `refusal()` is what a
        refused command's error carries besides code and message."""
        rechecked = False
        for _attempt in range(attempts):
            async with stream.lock:
                try:
                    decision = await decide()
                except RuleError as err:
                    if not rechecked:
                        rechecked, seen = True, stream.version
                        await catch_up()
                        if stream.version != seen:
                            continue
                    raise refused(err, **refusal()) from None
                if not decision.events:
                    return decision
                try:
                    _first, decision = await self.commit(stream, decision)
                except VersionConflict:
                    if give_way:
                        return None
                    await catch_up()
                    continue
            return decision
        raise moved_on()
