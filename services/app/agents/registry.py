"""Bot agents: registration, their seats and the time bank (endpoint safety
in endpoints.py, signatures in signing.py, settings in settings.py).

An agent is a player of kind 'agent' owned by a human player. A push agent
has an HTTPS endpoint the workers call (services/app/agents/calls.py); a pull
agent reads its own SSE stream and acts with its bot token. Protocol:
docs/agents.md."""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from engines.core import OptionsError
from engines.registry import get_game
from services.app import seatclock
from services.app.agents.endpoints import EndpointRefused, resolve_endpoint
from services.app.agents.secrets import SecretBox, new_secret, still_valid
from services.app.agents.settings import AgentSettings
from services.app.caps import CapPolicy
from services.app.errors import BadRequest, Conflict, Forbidden, NotFound, Unprocessable
from services.app.players import Player, Players, check_name, insert_player, token_hash
from services.app.ports.agents import AgentRow, AgentStore, NewAgent, TurnRecord
from services.app.ports.transactions import Transactions
from services.app.seatclock import ClockDefaults, SeatClockRules


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
    # The secret before the last rotation, while its grace period lasts:
    # calls are then signed with both (docs/agents.md, "Rotating the secret").
    previous_secret: str | None = None

    def public(self) -> dict:
        return {
            "agent_id": self.agent_id,
            "name": self.name,
            "games": list(self.games),
            "mode": self.mode,
            "endpoint": self.endpoint,
            "status": self.status,
            "created_ms": int(self.created_at * 1000),
        }


def _agent(row: AgentRow, box: SecretBox) -> Agent:
    return Agent(
        row.agent_id,
        row.owner_id,
        row.name,
        tuple(row.games),
        row.mode,
        row.endpoint,
        box.open(row.sealed_secret),
        row.status,
        row.created_at.timestamp(),
        box.open(row.previous_sealed_secret) if still_valid(row.previous_secret_until) else None,
    )


class AgentService:
    def __init__(
        self,
        store: AgentStore,
        players: Players,
        transactions: Transactions,
        settings: AgentSettings,
        box: SecretBox,
        caps: CapPolicy | None = None,
        clock: ClockDefaults | None = None,
    ) -> None:
        self.store = store  # agents, their turns and sparring (services/app/ports/agents.py)
        self.transactions = transactions
        self.caps = caps or CapPolicy()  # what one account may hold at once (agents, their sparring)
        self.players = players
        self.settings = settings
        self.clock = clock or ClockDefaults()  # every seat's clock (services/app/seatclock.py)
        self.box = box
        self._modes: dict[str, str | None] = {}  # player id -> 'push'/'pull' (never changes)
        # Bank time charged for a move being committed, before its row is
        # written: (game id, seat) -> ms. The seat's next turn may be asked
        # for by that very commit.
        self._held: dict[tuple[str, int], int] = {}

    async def register(
        self, owner: Player, name: str, games: list[str], endpoint: str | None, mode: str | None
    ) -> tuple[Agent, str]:
        if owner.kind != "human":
            raise Forbidden("owner_must_be_human", "agents are registered with a person's token")
        name = check_name(name)
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
            secret = new_secret()
        elif mode == "pull":
            if endpoint:
                raise BadRequest("bad_mode", "a pull agent has no endpoint")
            secret = None
        else:
            raise BadRequest("bad_mode", 'send an endpoint (push) or mode: "pull"')
        token = "hm_" + secrets.token_urlsafe(32)
        agent_id = str(uuid.uuid4())
        async with self.transactions.transaction() as tx:
            await self.caps.check_agent(tx, owner.player_id)
            await insert_player(self.players.store, tx, agent_id, name, "agent", token_hash(token))
            row = await self.store.insert_agent(
                NewAgent(
                    agent_id,
                    owner.player_id,
                    name,
                    list(dict.fromkeys(games)),
                    mode,
                    endpoint,
                    self.box.seal(secret) if secret else None,
                ),
                tx,
            )
        return _agent(row, self.box), token

    async def get(self, agent_id: str) -> Agent | None:
        try:
            uuid.UUID(agent_id)
        except ValueError:
            return None
        row = await self.store.agent(agent_id)
        return _agent(row, self.box) if row else None

    async def owned(self, owner: Player, agent_id: str) -> Agent:
        agent = await self.get(agent_id)
        if agent is None or agent.status == "deleted" or agent.owner_id != owner.player_id:
            raise NotFound("agent_not_found", f"you have no agent {agent_id}")
        return agent

    async def of_owner(self, owner: Player) -> list[Agent]:
        return [_agent(r, self.box) for r in await self.store.agents_of(owner.player_id)]

    async def set_status(self, owner: Player, agent_id: str, status: str) -> Agent:
        agent = await self.owned(owner, agent_id)
        row = await self.store.set_status(agent.agent_id, status)
        if row is None:
            raise NotFound("agent_not_found", f"you have no agent {agent_id}")
        return _agent(row, self.box)

    async def reissue_token(self, owner: Player, agent_id: str) -> str:
        """A new bot token, shown once; the old one stops working in every
        process before this returns (Players.revoke)."""
        agent = await self.owned(owner, agent_id)
        token = "hm_" + secrets.token_urlsafe(32)
        await self.players.store.set_token(agent.agent_id, token_hash(token))
        await self.players.revoke(agent.agent_id)
        return token

    async def rotate_secret(self, owner: Player, agent_id: str) -> tuple[str, datetime]:
        """A new signing secret for a push agent, shown once. Until the
        returned time the old one signs calls too (a second signature
        header), so that the agent can switch without refusing a turn."""
        agent = await self.owned(owner, agent_id)
        if agent.mode != "push":
            raise Conflict("not_a_push_agent", "only a push agent has a signing secret")
        secret = new_secret()
        until = datetime.now(UTC) + timedelta(seconds=self.settings.secret_grace_s)
        # A secret this key cannot open (the key changed) has nothing to keep.
        previous = self.box.seal(agent.secret) if agent.secret else None
        await self.store.set_secrets(agent.agent_id, self.box.seal(secret), previous, until if previous else None)
        return secret, until

    async def delete(self, owner: Player, agent_id: str) -> None:
        """The token stops working (its hash is replaced) and the agent is no
        longer called: its seats in games in progress fail as `unreachable`
        and pass to a house bot after the strike limit. Games already played
        keep naming it."""
        agent = await self.owned(owner, agent_id)
        async with self.transactions.transaction() as tx:
            await self.store.set_status(agent.agent_id, "deleted", tx)
            await self.players.store.set_token(agent.agent_id, secrets.token_bytes(32), tx)
        await self.players.revoke(agent.agent_id)

    async def require_active(self, player: Player) -> Agent:
        agent = await self.get(player.player_id)
        if agent is None or agent.status == "deleted":
            raise Forbidden("not_an_agent", "use an agent's bot token")
        return agent

    async def mode_of(self, player_id: str) -> str | None:
        """'push' or 'pull' for an agent's player id (cached: it never changes)."""
        if player_id not in self._modes:
            self._modes[player_id] = await self.store.mode(player_id)
        return self._modes[player_id]

    def check_can_play(self, agent: Agent, game: str) -> None:
        """The one rule for an agent taking a new seat:
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
        found = await self.store.for_turn(agent_id, game_id, seat)
        if found is None:
            return None, 0
        row, bank_used = found
        return _agent(row, self.box), bank_used + self._held.get((game_id, seat), 0)

    def hold_charge(self, game_id: str, seat: int, ms: int) -> None:
        self._held[(game_id, seat)] = self._held.get((game_id, seat), 0) + ms

    def release_charge(self, game_id: str, seat: int, ms: int) -> None:
        left = self._held.get((game_id, seat), 0) - ms
        if left > 0:
            self._held[(game_id, seat)] = left
        else:
            self._held.pop((game_id, seat), None)

    async def bank_left(self, game_id: str, seat: int, bank_ms: int) -> int:
        used = await self.store.bank_used(game_id, seat)
        return seatclock.bank_left(bank_ms, used + self._held.get((game_id, seat), 0))

    async def charge_pull_move(
        self, game_id: str, seat: int, upto_version: int, answered_ms: float, rules: SeatClockRules
    ) -> None:
        """A pull agent moved: its open turn is closed, and the time beyond
        the move's own limit is taken from the seat's bank."""
        turn = await self.store.open_turn(game_id, seat, upto_version)
        if turn is None:
            return
        # From the turn's hand-over (sent_ms: a Kabuki masks placer's comes
        # when the stop window ends); a Stop made before it costs nothing.
        used = max(0, int(answered_ms - turn.sent_ms))
        left = await self.bank_left(game_id, seat, rules.bank_ms)
        await self.close_turn(
            game_id, turn.version, seat, "ok", used, seatclock.overdraft(used, rules.move_ms, left), answered_ms
        )

    async def note_refusal(self, game_id: str, agent_id: str, detail: str) -> None:
        """A pull agent's move was refused: kept on its open turn, so that a
        deadline that follows strikes it as `illegal_action` with this detail."""
        await self.store.note_refusal(game_id, agent_id, detail[:500])

    async def open_turn_detail(self, game_id: str, version: int, seat: int) -> str:
        """The refusal noted on a still open turn ('' when none)."""
        return await self.store.open_turn_detail(game_id, version, seat) or ""

    async def close_turn(
        self,
        game_id: str,
        version: int,
        seat: int,
        outcome: str,
        used_ms: int,
        overdraft_ms: int,
        answered_ms: float | None = None,
        detail: str | None = None,
    ) -> None:
        """Settle a turn left open (a pull agent's, or a push call whose worker died)."""
        await self.store.close_turn(
            game_id, version, seat, outcome, min(used_ms, 2**31 - 1), overdraft_ms, answered_ms, detail
        )

    async def record_turn(
        self,
        game_id: str,
        version: int,
        seat: int,
        agent_id: str,
        committed_ms: float,
        sent_ms: float,
        answered_ms: float | None,
        done_ms: float | None,
        used_ms: int,
        overdraft_ms: int,
        outcome: str,
        detail: str = "",
        answer: str = "",
    ) -> None:
        # Accounting, not the game's record: the store need not wait for the
        # disk (a crash loses at most the last turns' timings, never a move).
        await self.store.record_turn(
            TurnRecord(
                game_id,
                version,
                seat,
                agent_id,
                committed_ms,
                sent_ms,
                answered_ms,
                done_ms,
                used_ms,
                overdraft_ms,
                outcome,
                detail[:500],
                answer,
            )
        )
