"""Every Redis key and stream name, arq job name and job id, and the
command-id prefixes the server writes: in one place, since all of them are
stored or queued and must never change across an upgrade."""

# One stream for every committed game event, read once per process and fanned
# out in memory to that process's SSE clients. Approximate trim: PostgreSQL is
# the source of truth, and a client that falls behind the trim is refilled
# from it.
FANOUT_STREAM = "hanamichi:fanout"
FANOUT_MAXLEN = 100_000

# Fields of a fan-out entry.
F_STREAM = "s"  # stream id (a game id)
F_FIRST = "f"  # first version in the entry
F_LAST = "l"  # last version in the entry

# arq's queue (tournament starts, deadlines, agent calls).
ARQ_QUEUE = "hanamichi:arq"


# Fan-out stream id of the lobby's notices: a table was created, seated,
# cancelled or left, or a Play now pool changed (no data: each process reads
# the lobby from PostgreSQL; services/http/lobby_stream.py).
LOBBY_STREAM = "lobby"


def player_stream(player_id: str) -> str:
    """Fan-out stream id of one player's (an agent's) own notices."""
    return f"player:{player_id}"


def rate_key(player_id: str, window: int) -> str:
    return f"hanamichi:rate:{player_id}:{window}"


# Sign-in attempts per window (services/app/signin.py): per name (the sha256
# of its name_key, so any input makes a short key) and per client address.
def signin_name_key(name_digest: str) -> str:
    return f"hanamichi:signin:name:{name_digest}"


def signin_address_key(address: str) -> str:
    return f"hanamichi:signin:addr:{address}"


# Spectator counts, right with several API processes: each process
# keeps its own counts in a hash of its own that expires unless refreshed, so
# a process that dies stops counting within WATCHERS_TTL_S; the registry says
# which processes' hashes to sum (score: when the entry lapses, in ms).
WATCHERS_PROCESSES = "hanamichi:watchers:processes"
WATCHERS_TTL_S = 15


def watchers_of_process(process_id: str) -> str:
    """Hash game_id -> how many spectator streams this process serves."""
    return f"hanamichi:watchers:process:{process_id}"


# Each player's revocation generation (services/infra/revocations.py): a
# process trusts a cached credential only while it is unchanged. Renewed by
# every change; a key that lapses only makes the processes re-read PostgreSQL.
REVOCATION_TTL_S = 24 * 3600


def revocation_key(player_id: str) -> str:
    return f"hanamichi:revoked:{player_id}"


# One driver at a time for a table's house bots (services/app/games/housebots.py):
# a lease (services/infra/leases.py) its driver takes with SET NX PX, renews
# while it drives and releases at the end. A driver that dies stops renewing:
# within DRIVER_LEASE_MS its table is free for the sweep of another process.
DRIVER_LEASE_MS = 5_000


def driver_lease_key(game_id: str) -> str:
    return f"hanamichi:driver:{game_id}"


# --- arq jobs: names (the worker's function names, workers/jobs.py) and ids.
# Both are stored in Redis with queued jobs: never rename them.
JOB_START_TOURNAMENT = "start_tournament"
JOB_RECORD_TABLE = "record_table"
JOB_MOVE_DEADLINE = "move_deadline"
JOB_AGENT_DEADLINE = "agent_deadline"
JOB_CALL_AGENT = "call_agent"
JOB_ANALYSE_GAME = "analyse_game"  # the next queued post-game analysis (services/app/analyses.py)


def start_job_id(tournament_id: str) -> str:
    return f"start:{tournament_id}"


def record_job_id(game_id: str) -> str:
    return f"record:{game_id}"


def deadline_job_id(game_id: str, version: int, seat: int) -> str:
    return f"deadline:{game_id}:{version}:{seat}"


def agent_job_id(game_id: str, version: int, seat: int) -> str:
    return f"agent:{game_id}:{version}:{seat}"


def chance_job_id(game_id: str, version: int, seat: int) -> str:
    return f"chance:{game_id}:{version}:{seat}"


def analyse_job_id(tag: str) -> str:
    """`analyse:<game id>` (a request), `analyse:sweep:<5 s slot>`, `analyse:next:<n>:<ms>` (the job again)."""
    return f"analyse:{tag}"


def retry_job_id(job_id: str, retry: str | None) -> str:
    return f"{job_id}:{retry}" if retry else job_id


def swept_retry(second: int) -> str:
    """The sweep's tag for a deadline it re-arms, `<job id>:swept:<second>`:
    the first id may sit behind arq's in-progress lease of a killed worker."""
    return f"swept:{second}"


# --- Command ids the server writes itself (stored in the command table).
# A client may not use these prefixes, or it could take a house bot's or an
# agent's future command id and stall its seat.
AUTO_PREFIX = "auto:"  # a move the service plays for a seat (deadline, failed agent)
BOT_PREFIX = "bot:"  # a house bot's move
AGENT_PREFIX = "agent:"  # a push agent's answer
TIMER_PREFIX = "timer:"  # a game's own timer firing
START_PREFIX = "start:"  # the deal
LEAVE_PREFIX = "leave:"  # a seat handed to a house bot as its player's account is deleted
SERVER_PREFIXES = (AUTO_PREFIX, BOT_PREFIX, AGENT_PREFIX, TIMER_PREFIX, START_PREFIX, LEAVE_PREFIX)


def bot_command_id(seat: int, version: int) -> str:
    return f"{BOT_PREFIX}{seat}:{version}"


def agent_command_id(seat: int, version: int, chance: bool = False) -> str:
    return f"{AGENT_PREFIX}{seat}:{version}" + (":chance" if chance else "")


def auto_command_id(seat: int, version: int) -> str:
    return f"{AUTO_PREFIX}{seat}:{version}"


def leave_command_id(seat: int) -> str:
    return f"{LEAVE_PREFIX}{seat}"


def timer_command_id(version: int) -> str:
    return f"{TIMER_PREFIX}{version}"
