"""The one home where stored events of an older shape are read in the
current one, and where names are joined to ids at read time.

The log is immutable, and since account deletion existed no event carries a
name: a seat, an entrant, a rated player is an id, and the name shown is the
players table's at the time of reading. Events written before that carry
the name the player had then (`hm.game_finished` seats, a tournament's
entrants): every read replaces it by the current one, so a deleted player
shows as its pseudonym (docs/privacy.md) wherever the old name was, and a
name nowhere.

A deleted player keeps its id (a random UUID that nothing links to the
person once the row is scrubbed) and gets a pseudonym derived from that id:
stable, the same in every game, export and standings, never derived from
the name."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from services.app.games.events import GameFinished
from services.app.ports import PlayerNames

PSEUDONYM_PREFIX = "deleted player "
# Keys that hold a player's id beside a `name` in the shapes we read out:
# seats of hm.game_finished (`player_id`), tournament entrants (`id`),
# standings rows (`entrant`), ratings (`rated_id`).
_ID_KEYS = ("player_id", "id", "entrant", "rated_id")


def pseudonym(player_id: str) -> str:
    """A deleted player's name: from its id, never from what it was called."""
    return PSEUDONYM_PREFIX + hashlib.sha256(player_id.encode()).hexdigest()[:12]


def is_pseudonym(name: str) -> bool:
    """Names of this shape are refused at registration: nobody may pass for
    a deleted player."""
    return name.strip().casefold().startswith(PSEUDONYM_PREFIX.strip())


def game_finished_named(event: GameFinished, names: Mapping[int, str | None]) -> GameFinished:
    """An hm.game_finished with each person's or agent's seat named as the
    table's seat is now (`names`: seat -> name, read from the players
    table); a house bot's seat keeps its bot name. Old events carried the
    names at the time; new ones carry none."""
    seats = [s if s.kind == "bot" else msgspec.structs.replace(s, name=names.get(s.seat, s.name)) for s in event.seats]
    return msgspec.structs.replace(event, seats=seats)


def renamed(value: Any, names: Mapping[str, str]) -> Any:
    """`value` (builtins: dicts, lists) with every `name` next to a known
    player id replaced by that player's current name."""
    if isinstance(value, list | tuple):  # to_builtins keeps a struct's tuples
        return [renamed(v, names) for v in value]
    if isinstance(value, dict):
        out = {k: renamed(v, names) for k, v in value.items()}
        if "name" in out:
            for key in _ID_KEYS:
                ident = out.get(key)
                if isinstance(ident, str) and ident in names:
                    out["name"] = names[ident]
                    break
        return out
    return value


def _ids(value: Any, found: set[str]) -> set[str]:
    if isinstance(value, list | tuple):
        for v in value:
            _ids(v, found)
    elif isinstance(value, dict):
        if "name" in value:
            found.update(v for k in _ID_KEYS if isinstance(v := value.get(k), str) and len(v) == 36)
        for v in value.values():
            _ids(v, found)
    return found


async def current_names(names: PlayerNames, ids: Iterable[str]) -> dict[str, str]:
    """player id -> name now (a deleted player's is its pseudonym)."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    return await names.current_names(wanted)


async def with_current_names(names: PlayerNames, value: Any) -> Any:
    """`value` (a read's builtins) with the names of the players it names
    joined from the players table now."""
    return renamed(value, await current_names(names, _ids(value, set())))
