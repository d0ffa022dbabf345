"""The export of a finished game with its chain key: what `GET .../export`
serves and `GET .../verify` checks (the same bytes)."""

from __future__ import annotations

from services.app.games import queries
from services.app.games.tables import Table
from services.app.ports import EventLog


async def exported(store: EventLog, table: Table) -> bytes:
    """The export (queries.export refuses a game in progress or under
    embargo), with the stream's chain key on its last line. The key is read
    only for a disclosed game: while the game runs, or its deal is still
    played at other tables, it is what keeps the hashes of hidden cards from
    being tried one by one (engines/chain.py)."""
    key = await store.chain_key(table.game_id) if table.disclosed else None
    return queries.export(table, key)
