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


# Spectator counts (issue 15), right with several API processes: each process
# keeps its own counts in a hash of its own that expires unless refreshed, so
# a process that dies stops counting within WATCHERS_TTL_S; the registry says
# which processes' hashes to sum (score: when the entry lapses, in ms).
WATCHERS_PROCESSES = "hanamichi:watchers:processes"
WATCHERS_TTL_S = 15


def watchers_of_process(process_id: str) -> str:
    """Hash game_id -> how many spectator streams this process serves."""
    return f"hanamichi:watchers:process:{process_id}"
