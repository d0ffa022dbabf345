"""What the collusion screening's log adapter speaks in: a finished game's
stream, every event with its version. Defined in infra (an adapter may not
import the application layer) and named by the port,
services/app/ports/integrity.py."""

from __future__ import annotations

import msgspec


class LogEvent(msgspec.Struct, frozen=True):
    """One stored event: its version in the game's stream, its type tag and its JSON."""

    version: int
    type: str
    data: bytes


class FinishedLog(msgspec.Struct, frozen=True):
    """A finished game's whole stream, in version order (its last engine
    events and `hm.game_finished` included)."""

    game_id: str
    events: list[LogEvent]
