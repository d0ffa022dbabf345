"""Who holds a seat: the value every feature that seats someone shares
(the lobby's tables, tournaments' rounds, sparring series), so none of
them reaches into another's table internals for it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SeatHolder:
    seat: int
    player_id: str | None
    bot: str | None
    name: str
    kind: str  # 'human', 'agent', 'bot'
