"""What anyone may read of a tournament as it goes: its standings and its
public events as they are committed. A duplicate round in play shows no
table's result yet (services/app/games/embargo.py); both reads go through it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing

import msgspec

import engines.tournament as tn
from services.app.games import embargo
from services.app.tournaments.service import Loaded, TournamentService
from services.app.upcast import with_current_names

_DONE = ("finished", "cancelled")


def standings(loaded: Loaded) -> dict:
    """The standings as shown now, with the current round's tables that have
    no result shown yet (`in_play`)."""
    shown = embargo.tournament_view(loaded.state, loaded.events)
    names = {e.id: {"name": e.name, "kind": e.kind} for e in shown.entrants or shown.registered}
    rows = shown.ranking or (tn.standings(shown) if shown.entrants else ())
    running = shown.status == "running" and not shown.round_over
    return {
        "status": shown.status,
        "round": shown.round,
        "final": shown.status == "finished",
        "standings": [{**msgspec.to_builtins(p), **names.get(p.entrant, {})} for p in rows],
        "in_play": [t.table for t in shown.tables if t.table not in shown.results] if running else [],
    }


def events_after(service: TournamentService, loaded: Loaded, after: int) -> dict:
    """The public events after version `after`, and the version shown (a
    duplicate round's results wait for its end)."""
    return {
        "version": embargo.tournament_upto(loaded.state, loaded.events),
        "events": service.public_events(loaded, after),
    }


class Ended(msgspec.Struct, frozen=True):
    """The tournament is over: the last item of `follow`."""

    status: str  # finished | cancelled
    version: int  # the last event's version sent


async def follow(
    service: TournamentService, hub, tournament_id: str, after: int, keepalive_s: float
) -> AsyncIterator[dict | Ended | None]:
    """The public events after version `after`, as they are committed, then
    `Ended`; None when `keepalive_s` passed with nothing to send. Loads the
    tournament first, so an unknown one is refused (404) before any item."""
    await service.load(tournament_id)
    return _events(service, hub, tournament_id, after, keepalive_s)


async def _events(service: TournamentService, hub, tournament_id: str, sent: int, keepalive_s: float):
    async with aclosing(hub.watch(tournament_id, keepalive_s)) as notices:
        async for notice in notices:
            if notice is None:
                yield None
                continue
            current = await service.load(tournament_id)
            for item in service.public_events(current, sent):
                sent = item["version"]
                yield await with_current_names(service.names, item)
            if current.state.status in _DONE:
                yield Ended(current.state.status, sent)
                return
