"""Every Redis key and stream name, in one place (arq's habit)."""

# One stream for every committed game event, read once per process and fanned
# out in memory to that process's SSE clients. Approximate trim: PostgreSQL is
# the source of truth, and a client that falls behind the trim is refilled
# from it.
FANOUT_STREAM = "hanamichi:fanout"
FANOUT_MAXLEN = 100_000

# Fields of a fan-out entry.
F_STREAM = "s"    # stream id (a game id)
F_FIRST = "f"     # first version in the entry
F_LAST = "l"      # last version in the entry

# arq's queue (tournament starts, deadlines, agent calls).
ARQ_QUEUE = "hanamichi:arq"


def tournament_channel(tournament_id: str) -> str:
    return f"hanamichi:tournament:{tournament_id}"


def player_stream(player_id: str) -> str:
    """Fan-out stream id of one player's (an agent's) own notices."""
    return f"player:{player_id}"


def rate_key(player_id: str, window: int) -> str:
    return f"hanamichi:rate:{player_id}:{window}"
