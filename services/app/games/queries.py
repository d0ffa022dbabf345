"""Reads of one live table, as a viewer may see them: events redacted for a
seat or a spectator, a history page, a replayed view at any version, the
export of a finished game. Pure over the table (no IO): the embargo and the
GEN-1 history rules apply here, once for every route that reads."""

from __future__ import annotations

from typing import Any

import msgspec

from engines import chain
from services.app.errors import BadRequest, Conflict, Forbidden
from services.app.games import embargo
from services.app.games.events import GameFinished, TableEvent
from services.app.games.tables import Table, engine_events
from services.app.kernel import event_tag
from services.app.players import Player
from services.app.upcast import game_finished_named


def finished_record(table: Table) -> GameFinished | None:
    """The table's hm.game_finished, once it is over."""
    return next((e for e in reversed(table.events) if isinstance(e, GameFinished)), None) if table.over else None


def result_shown(table: Table) -> dict:
    """The game's result plus the table's ranking: `forfeited` seats (handed
    to a house bot after their strikes) and `table_places`, forfeits last."""
    record = finished_record(table)
    result = msgspec.to_builtins(table.game.result(table.state))
    result["forfeited"] = list(record.forfeited) if record else []
    result["table_places"] = list(record.ranking) if record else result["places"]
    return result


def named(table: Table, event: Any) -> Any:
    """An event as read out: an hm.game_finished names its seats as the
    table's seats are named now (services/app/upcast.py), whatever the
    stored event carried."""
    if isinstance(event, GameFinished):
        return game_finished_named(event, {h.seat: h.name for h in table.seats if h is not None})
    return event


def redacted(table: Table, viewer: int | None, first: int, events: list) -> list[dict]:
    """Events from version `first` as `viewer` may see them (None: spectator).
    After the game every event is public in full (docs/rules/general.md)."""
    game, out = table.game, []
    public = table.disclosed
    for offset, event in enumerate(events):
        seen = named(table, event) if public or isinstance(event, TableEvent) else game.redact(event, viewer)
        if seen is not None:
            out.append({"version": first + offset, "event": seen})
    return out


def events_after(table: Table, viewer: int | None, after: int) -> list[dict]:
    if after < 0:
        raise BadRequest("bad_version", "after is a version, 0 or more")
    embargo.check(table, viewer)  # duplicate tournaments
    # GEN-1: a history, with what was public only at its moment blanked.
    return linked(table, redacted(table, viewer, after + 1, table.history(table.visible_version)[after:]))


def linked(table: Table, items: list[dict]) -> list[dict]:
    """Read-out events with each one's `prev_hash` and `hash` (engines/chain.py):
    keyed, so they reveal nothing of a hidden card; null for a game stored
    before the log was chained."""
    for item in items:
        version = item["version"]
        item["prev_hash"] = _prev_hash(table, version)
        item["hash"] = table.chain_head(version)
    return items


def _prev_hash(table: Table, version: int) -> str | None:
    if table.chain_head(version) is None:
        return None
    return table.chain_head(version - 1) if version > 1 else chain.GENESIS


def replay_view(table: Table, player: Player | None, at: int | None, seat: int | None) -> tuple[int, Any]:
    # Any seat, any version, with or without a token: the embargo applies to each.
    embargo.check(table, table.seat_of(player.player_id if player else None), seat=seat)
    at = table.visible_version if at is None else at
    if not 0 <= at <= table.visible_version:
        raise BadRequest("bad_version", f"at is a version from 0 to {table.visible_version}")
    if seat is not None:
        if not 0 <= seat < table.players:
            raise BadRequest("bad_seat", f"seats are numbered 0 to {table.players - 1}")
        if not table.over and table.seat_of(player.player_id if player else None) != seat:
            raise Forbidden("not_your_seat", "a seat's view of a game in progress is for its player only")
    if at == 0:
        return at, None
    state = table.game.fold(engine_events(table.events[:at]))
    visible = table.visible_version
    now = table.state if visible == table.version else table.game.fold(engine_events(table.events[:visible]))
    return at, table.game.past_view(state, seat, now)  # GEN-1: blanked once the moment has passed


def export(table: Table, chain_key: str | None = None) -> bytes:
    """One `{version, type, event, prev_hash, hash}` line per event. The last
    line also reveals the stream's `chain_key` (the caller reads it from the
    log, and only a disclosed game is exported), so anyone can recompute
    every link (engines/chain.py); a game stored before the chain has none."""
    if not table.over:
        raise Conflict("game_in_progress", "the log is exported once the game has ended")
    embargo.check(table, None, whole=True)  # also what verify reads
    lines = []
    last = len(table.events)
    for i, e in enumerate(table.events, start=1):
        record = {"version": i, "type": event_tag(e), "event": named(table, e)}
        if table.chain_head(i) is not None:
            record["prev_hash"] = _prev_hash(table, i)
            record["hash"] = table.chain_head(i)
            if i == last and chain_key is not None:
                record["chain_key"] = chain_key
        lines.append(msgspec.json.encode(record))
    return b"\n".join(lines) + b"\n"
