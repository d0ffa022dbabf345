"""Bot agents: registration, endpoint safety, signatures and the time bank.

An agent is a player of kind 'agent' owned by a human player. A push agent
has an HTTPS endpoint the workers call (workers/agent_calls.py); a pull
agent reads its own SSE stream and acts with its bot token. Protocol:
docs/agents.md."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import os
import secrets
import socket
import time
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

import msgspec

from engines.core import OptionsError
from engines.registry import get_game
from engines.timecontrol import TimeControl
from services.app.errors import BadRequest, Conflict, Forbidden, NotFound, Unprocessable
from services.app.games.policy import STRIKE_LIMIT
from services.app.players import Player, token_hash

SIGNATURE_HEADER = "X-Hanamichi-Signature"
TIMESTAMP_HEADER = "X-Hanamichi-Timestamp"


def _flag(name: str) -> bool:
    return os.environ.get(name, "") in ("1", "true", "yes")


@dataclass(frozen=True)
class AgentSettings:
    """From the environment (read once per process)."""

    allow_http: bool = False  # HANAMICHI_ALLOW_HTTP_AGENTS=1
    allow_private: bool = False  # HANAMICHI_ALLOW_PRIVATE_AGENTS=1
    move_ms: int = 5_000  # tables without a time control (casual games, sparring)
    bank_ms: int = 30_000
    strike_limit: int = STRIKE_LIMIT  # consecutive moves played for a seat before a house bot takes it
    max_response_bytes: int = 64 * 1024
    rate_limit: int = 120  # requests per window for an agent's token (moves in its own games are free)
    rate_window_s: int = 60
    backstop_grace_ms: int = 5_000  # a call's deadline job fires this long after its budget

    @classmethod
    def from_env(cls) -> "AgentSettings":
        env = os.environ
        default = {"move_ms": int(env.get("HANAMICHI_AGENT_MOVE_MS", "5000")),
                   "bank_ms": int(env.get("HANAMICHI_AGENT_BANK_MS", "30000"))}
        try:  # the same bounds as every table's time control, checked at start-up
            msgspec.convert(default, TimeControl)
        except msgspec.ValidationError as err:
            raise ValueError(f"HANAMICHI_AGENT_MOVE_MS / HANAMICHI_AGENT_BANK_MS: {err}") from None
        return cls(
            allow_http=_flag("HANAMICHI_ALLOW_HTTP_AGENTS"),
            allow_private=_flag("HANAMICHI_ALLOW_PRIVATE_AGENTS"),
            move_ms=int(env.get("HANAMICHI_AGENT_MOVE_MS", "5000")),
            bank_ms=int(env.get("HANAMICHI_AGENT_BANK_MS", "30000")),
            strike_limit=int(env.get("HANAMICHI_AGENT_STRIKES", str(STRIKE_LIMIT))),
            rate_limit=int(env.get("HANAMICHI_AGENT_RATE_LIMIT", "120")),
            rate_window_s=int(env.get("HANAMICHI_AGENT_RATE_WINDOW_S", "60")),
        )

    def time_control(self, table_tc: dict | None) -> tuple[int, int]:
        """(move_ms, bank_ms) for a table: its own, else the agent defaults."""
        if table_tc:
            return int(table_tc.get("move_ms", self.move_ms)), int(table_tc.get("bank_ms", 0))
        return self.move_ms, self.bank_ms


@dataclass(frozen=True)
class Agent:
    agent_id: str
    owner_id: str
    name: str
    games: tuple[str, ...]
    mode: str  # 'push', 'pull'
    endpoint: str | None
    secret: str | None
    status: str  # 'active', 'paused', 'deleted'
    created_at: float

    def public(self) -> dict:
        return {
            "agent_id": self.agent_id, "name": self.name, "games": list(self.games), "mode": self.mode,
            "endpoint": self.endpoint, "status": self.status, "created_ms": int(self.created_at * 1000),
        }


def _agent(row) -> Agent:
    return Agent(
        str(row["agent_id"]), str(row["owner_id"]), row["name"], tuple(row["games"]), row["mode"],
        row["endpoint"], row["secret"], row["status"], row["created_at"].timestamp(),
    )


# --- signatures ---------------------------------------------------------------

def sign(secret: str, timestamp: str, body: bytes) -> str:
    """`sha256=<hex>` of HMAC-SHA256(secret, "<timestamp>." + body)."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def signed_headers(secret: str, body: bytes, now_s: float | None = None) -> dict[str, str]:
    ts = str(int(now_s if now_s is not None else time.time()))
    return {SIGNATURE_HEADER: sign(secret, ts, body), TIMESTAMP_HEADER: ts, "Content-Type": "application/json"}


# --- endpoint safety (no server-side request forgery) -----------------------------

class EndpointRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Target:
    """Where to connect: the endpoint with its host pinned to an address
    checked just now (so a DNS answer cannot change between check and use)."""

    url: str  # the endpoint with the host replaced by the address
    host_header: str
    sni: str  # the name TLS checks the certificate against
    address: str


def parse_endpoint(endpoint: str, allow_http: bool):
    if not isinstance(endpoint, str) or not 1 <= len(endpoint) <= 2000 or not endpoint.isprintable():
        raise EndpointRefused("bad_endpoint", "endpoint is a URL of at most 2000 printable characters")
    parts = urlsplit(endpoint)
    allowed = "https:// or http://" if allow_http else "https://"
    if parts.scheme and parts.scheme not in ("https", "http"):
        # Say what is wrong (issue 12): ftp:// is not refused for lacking https.
        raise EndpointRefused("bad_endpoint", f"unsupported scheme {parts.scheme}://; an endpoint is an {allowed} URL")
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise EndpointRefused("bad_endpoint", f"endpoint must be an absolute {allowed} URL")
    if parts.scheme == "http" and not allow_http:
        raise EndpointRefused("endpoint_not_allowed", "endpoint must use https")
    if parts.username or parts.password:
        raise EndpointRefused("bad_endpoint", "endpoint must not carry credentials")
    if parts.fragment:
        raise EndpointRefused("bad_endpoint", "endpoint must not have a #fragment")
    try:
        explicit = parts.port
    except ValueError:
        raise EndpointRefused("bad_endpoint", "endpoint has an invalid port") from None
    # Port 0 is no port: `parts.port or default` would quietly turn it into 443.
    if explicit == 0:
        raise EndpointRefused("bad_endpoint", "endpoint port must be 1 to 65535")
    port = explicit if explicit is not None else (443 if parts.scheme == "https" else 80)
    return parts, parts.hostname, port


# IPv6 prefixes that carry an IPv4 address in their last 32 bits: judged by
# that IPv4 address (NAT64 with a public IPv4 is how IPv6-only hosts reach
# the IPv4 internet, so it is allowed; around 127.0.0.1 it is loopback).
_EMBEDS_IPV4_LOW32 = (
    ipaddress.ip_network("64:ff9b::/96"),  # NAT64, well-known prefix
    ipaddress.ip_network("::ffff:0:0/96"),  # IPv4-mapped
    ipaddress.ip_network("::/96"),  # IPv4-compatible (deprecated)
)
# Tunnels that route to an IPv4 host through relays we do not control: no
# agent needs them, and they can wrap any IPv4 address (6to4 around
# 127.0.0.1 is 2002:7f00:1::), so they are refused whatever they wrap.
_TUNNELS = (
    ipaddress.ip_network("2002::/16"),  # 6to4
    ipaddress.ip_network("2001::/32"),  # Teredo
    ipaddress.ip_network("64:ff9b:1::/48"),  # NAT64, local use (RFC 8215)
)


def address_allowed(address: str, allow_private: bool) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if any(ip in net for net in _TUNNELS) and not allow_private:
            return False
        if ip != ipaddress.IPv6Address("::") and ip != ipaddress.IPv6Address("::1"):
            for net in _EMBEDS_IPV4_LOW32:
                if ip in net:
                    ip = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
                    break
    if ip.is_multicast or ip.is_unspecified:
        return False
    if allow_private:
        return True
    return not (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved or not ip.is_global)


# Name -> (addresses, monotonic expiry): a name is resolved again at most
# every RESOLVE_TTL_S; every call still checks the addresses and connects to
# the one it checked, so a DNS answer that changes cannot slip past the check.
RESOLVE_TTL_S = 10.0
_resolved: dict[tuple[str, int], tuple[list[str], float]] = {}


async def _addresses(host: str, port: int) -> list[str]:
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        pass
    cached = _resolved.get((host, port))
    if cached is not None and cached[1] > time.monotonic():
        return cached[0]
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise EndpointRefused("endpoint_unresolvable", f"cannot resolve {host}") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if len(_resolved) > 10_000:
        _resolved.clear()
    _resolved[(host, port)] = (addresses, time.monotonic() + RESOLVE_TTL_S)
    return addresses


async def resolve_endpoint(endpoint: str, allow_http: bool, allow_private: bool) -> Target:
    """Check an endpoint and pin it to one allowed address; refuses when any
    address the name resolves to is not allowed."""
    parts, host, port = parse_endpoint(endpoint, allow_http)
    addresses = await _addresses(host, port)
    if not addresses:
        raise EndpointRefused("endpoint_unresolvable", f"cannot resolve {host}")
    for address in addresses:
        if not address_allowed(address, allow_private):
            # Never name the address: a DNS answer from inside our network
            # is not the caller's to learn.
            raise EndpointRefused("endpoint_not_allowed", f"the address of {host} is not public")
    address = addresses[0]
    netloc_host = f"[{address}]" if ":" in address else address
    url = parts._replace(netloc=f"{netloc_host}:{port}").geturl()
    return Target(url, host if parts.port is None else f"{host}:{port}", host, address)


# --- the registry -------------------------------------------------------------------

class AgentService:
    def __init__(self, pool, players, settings: AgentSettings) -> None:
        self.pool = pool
        self.players = players
        self.settings = settings
        self._modes: dict[str, str | None] = {}  # player id -> 'push'/'pull' (never changes)
        # Bank time charged for a move being committed, before its row is
        # written: (game id, seat) -> ms. The seat's next turn may be asked
        # for by that very commit.
        self._held: dict[tuple[str, int], int] = {}

    async def register(self, owner: Player, name: str, games: list[str], endpoint: str | None,
                       mode: str | None) -> tuple[Agent, str]:
        if owner.kind != "human":
            raise Forbidden("owner_must_be_human", "agents are registered with a person's token")
        name = (name or "").strip()
        if not 1 <= len(name) <= 40 or not name.isprintable():
            raise BadRequest("bad_name", "a name is 1 to 40 printable characters")
        if not games or len(games) > 20:
            raise BadRequest("bad_games", "games lists 1 to 20 game names")
        for game in games:
            try:
                get_game(game)
            except OptionsError as err:
                raise Unprocessable(err.code, err.message) from None
        mode = mode or ("push" if endpoint else None)
        if mode == "push":
            if not endpoint:
                raise BadRequest("bad_endpoint", "a push agent needs an endpoint")
            try:
                await resolve_endpoint(endpoint, self.settings.allow_http, self.settings.allow_private)
            except EndpointRefused as err:
                raise Unprocessable(err.code, err.message) from None
            secret = "whsec_" + secrets.token_urlsafe(32)
        elif mode == "pull":
            if endpoint:
                raise BadRequest("bad_mode", "a pull agent has no endpoint")
            secret = None
        else:
            raise BadRequest("bad_mode", "send an endpoint (push) or mode: \"pull\"")
        token = "hm_" + secrets.token_urlsafe(32)
        agent_id = str(uuid.uuid4())
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO players (player_id, name, kind, token_hash) VALUES ($1::text::uuid, $2, 'agent', $3)",
                agent_id, name, token_hash(token),
            )
            row = await conn.fetchrow(
                "INSERT INTO agents (agent_id, owner_id, name, games, mode, endpoint, secret)"
                " VALUES ($1::text::uuid, $2::text::uuid, $3, $4, $5, $6, $7) RETURNING *",
                agent_id, owner.player_id, name, list(dict.fromkeys(games)), mode, endpoint, secret,
            )
        return _agent(row), token

    async def get(self, agent_id: str) -> Agent | None:
        try:
            uuid.UUID(agent_id)
        except ValueError:
            return None
        row = await self.pool.fetchrow("SELECT * FROM agents WHERE agent_id = $1::text::uuid", agent_id)
        return _agent(row) if row else None

    async def owned(self, owner: Player, agent_id: str) -> Agent:
        agent = await self.get(agent_id)
        if agent is None or agent.status == "deleted" or agent.owner_id != owner.player_id:
            raise NotFound("agent_not_found", f"you have no agent {agent_id}")
        return agent

    async def of_owner(self, owner: Player) -> list[Agent]:
        rows = await self.pool.fetch(
            "SELECT * FROM agents WHERE owner_id = $1::text::uuid AND status <> 'deleted' ORDER BY created_at",
            owner.player_id,
        )
        return [_agent(r) for r in rows]

    async def set_status(self, owner: Player, agent_id: str, status: str) -> Agent:
        agent = await self.owned(owner, agent_id)
        row = await self.pool.fetchrow(
            "UPDATE agents SET status = $2 WHERE agent_id = $1::text::uuid RETURNING *", agent.agent_id, status
        )
        return _agent(row)

    async def delete(self, owner: Player, agent_id: str) -> None:
        """The token stops working (its hash is replaced) and the agent is no
        longer called: its seats in games in progress fail as `unreachable`
        and pass to a house bot after the strike limit. Games already played
        keep naming it."""
        agent = await self.owned(owner, agent_id)
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("UPDATE agents SET status = 'deleted' WHERE agent_id = $1::text::uuid", agent.agent_id)
            await conn.execute(
                "UPDATE players SET token_hash = $2 WHERE player_id = $1::text::uuid",
                agent.agent_id, secrets.token_bytes(32),
            )
        self.players.forget_player(agent.agent_id)

    async def require_active(self, player: Player) -> Agent:
        agent = await self.get(player.player_id)
        if agent is None or agent.status == "deleted":
            raise Forbidden("not_an_agent", "use an agent's bot token")
        return agent

    async def mode_of(self, player_id: str) -> str | None:
        """'push' or 'pull' for an agent's player id (cached: it never changes)."""
        if player_id not in self._modes:
            mode = await self.pool.fetchval("SELECT mode FROM agents WHERE agent_id = $1::text::uuid", player_id)
            self._modes[player_id] = mode
        return self._modes[player_id]

    def check_can_play(self, agent: Agent, game: str) -> None:
        """The one rule for an agent taking a new seat (issue 11, item 6):
        paused means no new seat anywhere, and an agent plays only the games
        it declared. Called by the owner's routes (sparring, tournament entry)
        and by the agent's own (casual seats, tournament registration)."""
        if agent.status != "active":
            raise Conflict("agent_paused", "this agent is paused; resume it first")
        if game not in agent.games:
            raise Unprocessable("game_not_declared", f"this agent declared {', '.join(agent.games)}, not {game}")

    async def check_new_seat(self, player: Player, game: str) -> None:
        """A seat asked for with a player's own token: people pass, an agent
        (its bot token) must be allowed to play `game` now."""
        if player.kind != "agent":
            return
        agent = await self.get(player.player_id)
        if agent is None or agent.status == "deleted":
            raise Forbidden("not_an_agent", "this agent was deleted")
        self.check_can_play(agent, game)

    # --- time bank and answer times (agent_turns) ---------------------------------

    async def for_turn(self, agent_id: str, game_id: str, seat: int) -> tuple[Agent | None, int]:
        """The agent and the bank time its seat has used in a game (one query)."""
        row = await self.pool.fetchrow(
            "SELECT a.*, (SELECT coalesce(sum(overdraft_ms), 0) FROM agent_turns t"
            " WHERE t.game_id = $2::text::uuid AND t.seat = $3) AS bank_used"
            " FROM agents a WHERE a.agent_id = $1::text::uuid",
            agent_id, game_id, seat,
        )
        held = self._held.get((game_id, seat), 0)
        return (_agent(row), int(row["bank_used"]) + held) if row else (None, 0)

    def hold_charge(self, game_id: str, seat: int, ms: int) -> None:
        self._held[(game_id, seat)] = self._held.get((game_id, seat), 0) + ms

    def release_charge(self, game_id: str, seat: int, ms: int) -> None:
        left = self._held.get((game_id, seat), 0) - ms
        if left > 0:
            self._held[(game_id, seat)] = left
        else:
            self._held.pop((game_id, seat), None)

    async def bank_left(self, game_id: str, seat: int, bank_ms: int) -> int:
        used = await self.pool.fetchval(
            "SELECT coalesce(sum(overdraft_ms), 0) FROM agent_turns WHERE game_id = $1::text::uuid AND seat = $2",
            game_id, seat,
        )
        return max(0, bank_ms - int(used) - self._held.get((game_id, seat), 0))

    async def charge_pull_move(self, game_id: str, seat: int, upto_version: int, answered_ms: float,
                               move_ms: int, bank_ms: int) -> None:
        """A pull agent moved: its open turn is closed, and the time beyond
        the move's own limit is taken from the seat's bank."""
        row = await self.pool.fetchrow(
            "SELECT version, sent_ms FROM agent_turns WHERE game_id = $1::text::uuid AND seat = $2"
            " AND outcome = 'pending' AND version <= $3 ORDER BY version DESC LIMIT 1",
            game_id, seat, upto_version,
        )
        if row is None:
            return
        # From the turn's hand-over (sent_ms: a Kabuki masks placer's comes
        # when the stop window ends, item 19); a Stop made before it costs nothing.
        used = max(0, int(answered_ms - row["sent_ms"]))
        left = await self.bank_left(game_id, seat, bank_ms)
        await self.close_turn(game_id, row["version"], seat, "ok", used, min(left, max(0, used - move_ms)), answered_ms)

    async def note_refusal(self, game_id: str, agent_id: str, detail: str) -> None:
        """A pull agent's move was refused: kept on its open turn, so that a
        deadline that follows strikes it as `illegal_action` with this detail."""
        await self.pool.execute(
            "UPDATE agent_turns SET detail = $3 WHERE game_id = $1::text::uuid AND agent_id = $2::text::uuid"
            " AND outcome = 'pending'",
            game_id, agent_id, detail[:500],
        )

    async def open_turn_detail(self, game_id: str, version: int, seat: int) -> str:
        """The refusal noted on a still open turn ('' when none)."""
        return await self.pool.fetchval(
            "SELECT detail FROM agent_turns WHERE game_id = $1::text::uuid AND version = $2 AND seat = $3"
            " AND outcome = 'pending'",
            game_id, version, seat,
        ) or ""

    async def close_turn(self, game_id: str, version: int, seat: int, outcome: str, used_ms: int,
                         overdraft_ms: int, answered_ms: float | None = None, detail: str | None = None) -> None:
        """Settle a turn left open (a pull agent's, or a push call whose worker died)."""
        await self.pool.execute(
            "UPDATE agent_turns SET outcome = $4, used_ms = $5, overdraft_ms = $6, answered_ms = $7,"
            " done_ms = extract(epoch FROM clock_timestamp()) * 1000, detail = coalesce($8, detail)"
            " WHERE game_id = $1::text::uuid AND version = $2 AND seat = $3 AND outcome = 'pending'",
            game_id, version, seat, outcome, min(used_ms, 2**31 - 1), overdraft_ms, answered_ms, detail,
        )

    async def record_turn(self, game_id: str, version: int, seat: int, agent_id: str, committed_ms: float,
                          sent_ms: float, answered_ms: float | None, done_ms: float | None, used_ms: int,
                          overdraft_ms: int, outcome: str, detail: str = "", answer: str = "") -> None:
        # Accounting, not the game's record: no need to wait for the disk
        # (a crash loses at most the last turns' timings, never a move).
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SET LOCAL synchronous_commit TO OFF")
            await conn.execute(
                "INSERT INTO agent_turns (game_id, version, seat, agent_id, committed_ms, sent_ms, answered_ms, done_ms,"
                " used_ms, overdraft_ms, outcome, detail, answer) VALUES ($1::text::uuid, $2, $3, $4::text::uuid, $5, $6, $7,"
                " $8, $9, $10, $11, $12, $13) ON CONFLICT (game_id, version, seat) DO UPDATE SET done_ms = EXCLUDED.done_ms,"
                " outcome = EXCLUDED.outcome, detail = EXCLUDED.detail, answer = EXCLUDED.answer",
                game_id, version, seat, agent_id, committed_ms, sent_ms, answered_ms, done_ms, used_ms, overdraft_ms,
                outcome, detail[:500], answer,
            )
