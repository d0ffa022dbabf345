"""The service's rules for a seat that does not move in time, in one home:
how long a move may take when a recorded time control says
nothing, and after how many moves played for a seat in a row a house bot
takes it over. Deadlines, agent calls and the agents' settings read them here."""

from __future__ import annotations

# Consecutive moves the service plays for a seat (timeouts, failed agent
# calls) before a house bot takes the seat over. Agents' own limit
# (HANAMICHI_AGENT_STRIKES) defaults to it.
STRIKE_LIMIT = 3

# Time per move of a timed table whose recorded time control lacks move_ms.
DEFAULT_MOVE_MS = 30_000


def move_ms(time_control: dict) -> int:
    """A timed table's time per move."""
    return int(time_control.get("move_ms", DEFAULT_MOVE_MS))
