"""The `turn` events of a seat's own SSE stream: when to tell the seat that
it may act, with exactly the actions `decide` would accept now.

Legal actions can change with time alone: a Kabuki masks placer may call Stop
at once but place only once the stop window has passed (KM-3; a client
offered `place` too early once got 540 `too_early` refusals in one game). So a
stream tells the seat again when its list changes at the same version, and
wakes itself at the game's next timer to look: one local notice per table and
due time in this process (no Redis, no event data)."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec

from services.app.games.clocks import opens_at
from services.app.games.service import now_ms
from services.app.games.tables import Table
from services.infra.fanout import Hub, Notice

# game_id -> the due time (ms) a wake-up is armed for, in this process.
_armed: dict[str, int] = {}


def _wake(hub: Hub, game_id: str, version: int, due: int) -> None:
    if _armed.get(game_id) == due:
        del _armed[game_id]
    hub.deliver(Notice(game_id, version, version))  # a nudge: no new version


def _arm(hub: Hub, game_id: str, version: int, due: int, now: int) -> None:
    if _armed.get(game_id) == due:
        return
    _armed[game_id] = due
    # A few ms late rather than early: the loop's clock is monotonic, `due` is wall time.
    asyncio.get_running_loop().call_later((due - now) / 1000 + 0.005, _wake, hub, game_id, version, due)


class TurnTeller:
    """One per seat stream: `turn(table, seat, version)` gives the legal
    actions to send as a `turn` event, or None when the seat was told them
    already at this version (or has nothing it may do now)."""

    __slots__ = ("hub", "told")

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.told: tuple[int, bytes] | None = None

    def turn(self, table: Table, seat: int, version: int) -> list[Any] | None:
        game, state = table.game, table.state
        now = now_ms()
        due = game.next_timer(state)
        if due is not None and due > now:
            _arm(self.hub, table.game_id, version, due, now)
        legal = game.legal_actions(state, seat, now) if seat in game.to_act(state) else []
        told = (version, msgspec.json.encode(legal))
        if not legal or told == self.told:
            return None
        self.told = told
        return legal


def legal_now(table: Table, seat: int) -> list[Any]:
    """A seat's legal actions by this server's clock (what GET /games/{id} lists)."""
    return table.game.legal_actions(table.state, seat, now_ms())


def chance_now(table: Table, seat: int, now: int) -> list[Any]:
    """What a seat that is not (yet) handed a turn may do now, at its own
    choice: a Kabuki masks Stop during the window (KM-2). [] when nothing."""
    game, state = table.game, table.state
    if seat not in game.to_act(state):
        return []
    return game.legal_actions(state, seat, now)


def agent_turn(hub: Hub, table: Table, seat: int) -> tuple[bool, list[Any]]:
    """For an agent's own stream: (its turn is open now, the optional actions
    it may take now instead). A turn that time alone will open (a placer in
    the stop window) wakes this process's streams of the table then."""
    now = now_ms()
    opens = None
    if seat in table.game.waiting_for(table.state):
        opens = opens_at(table, seat, now)
        if opens > now:
            _arm(hub, table.game_id, table.version, opens, now)
    if opens == now:
        return True, []
    return False, chance_now(table, seat, now)
