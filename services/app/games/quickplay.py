"""Play now: a person asks for a game (and a player count) and is seated at
a ranked table within seconds, with the people waiting for the same game,
paired by rating where the pool allows, and house bots at the seats nobody
takes once the longest waiting person has waited `fill_after_s` (or at
once, when someone asks for bots now).

Pairing by rating: the longest waiting person is seated with those whose
rating (mu) is within a window that widens with the wait (8 at first, 2
more each second), nearest first; when the wait ends, with whoever waits.

The pool is PostgreSQL's (`QuickPlayPool`), so every API process reads one
pool, and each decision is taken under the pool's lock: a person waiting in
two tabs holds one ticket and is seated once. A group's tickets are seated
in the decision's transaction; its table is created after the commit, by
that call or, if it died, by the next read of one of its tickets
(create_seated is idempotent by game id)."""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

import msgspec

from engines.core import OptionsError
from engines.registry import get_game
from services.app.errors import Conflict, Forbidden, NotFound, Unprocessable
from services.app.games.catalog import DEFAULT_BOT
from services.app.games.seating import checked_client_seed
from services.app.games.service import GameService
from services.app.players import Player
from services.app.ports import RatingStore, Transactions
from services.app.ports.quickplay import NewTicket, QuickPlayPool, SeatedTicket, TicketRow
from services.app.ratings.projection import Rating
from services.app.seats import SeatHolder


@dataclass(frozen=True)
class QuickPlaySettings:
    """HANAMICHI_QUICK_PLAY_FILL_S, _MOVE_MS, _BANK_MS (services/config.py)."""

    fill_after_s: float = 10.0
    # Every Play now table is timed, so nobody waits at it for someone gone.
    move_ms: int = 30_000
    bank_ms: int = 120_000
    # People are paired when their ratings (mu) are this close, a window that
    # widens the longer someone waits; once the wait ends, anyone waiting.
    rating_window: float = 8.0
    window_per_s: float = 2.0

    def window(self, waited_s: float) -> float:
        return self.rating_window + self.window_per_s * waited_s


class QuickPlayTicket(msgspec.Struct):
    """A person's place in a Play now pool: `waiting` until `status` is
    `seated` (then `game_id` and `seat` say where), or `withdrawn`."""

    ticket_id: str
    game: str
    players: int
    status: str
    waiting: int  # people waiting in this pool now
    fill_at_ms: int | None  # when house bots take the empty seats, if nobody comes (waiting only)
    game_id: str | None = None
    seat: int | None = None


class WaitingPool(msgspec.Struct):
    """How many people wait for one game and player count."""

    game: str
    players: int
    waiting: int


class QuickPlayPools(msgspec.Struct):
    pools: list[WaitingPool]


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


class QuickPlay:
    def __init__(
        self,
        pool: QuickPlayPool,
        ratings: RatingStore,
        games: GameService,
        transactions: Transactions,
        settings: QuickPlaySettings | None = None,
    ) -> None:
        self.pool = pool
        self.ratings = ratings
        self.games = games
        self.transactions = transactions
        self.settings = settings or QuickPlaySettings()

    async def join(
        self, player: Player, game: str, players: int, bots_now: bool = False, client_seed: str | None = None
    ) -> QuickPlayTicket:
        if player.kind != "human":
            raise Forbidden("people_only", "Play now seats people; agents enter tournaments or sparring")
        try:
            engine = get_game(game)
            engine.check_players(players)
        except OptionsError as err:
            raise Unprocessable(err.code, err.message) from None
        kept = await self.ratings.ratings_of(engine.name, [player.player_id])
        rating = kept[0].mu if kept else Rating(player.player_id, "human", player.name).mu
        checked_client_seed(client_seed)
        new = NewTicket(str(uuid.uuid4()), player.player_id, engine.name, players, rating, bots_now, client_seed)
        async with self.transactions.transaction() as tx:
            await self.pool.lock(engine.name, players, tx)
            row = await self.pool.join(new, tx)
        await self.match(engine.name, players, bots_for=row.ticket.ticket_id if bots_now else None)
        return await self.read(player, row.ticket.ticket_id)

    async def read(self, player: Player, ticket_id: str) -> QuickPlayTicket:
        """The ticket as it stands; a waiting one is matched first (its wait
        may be over), a seated one's table made sure of."""
        row = await self._own(player, ticket_id)
        if row.status == "waiting":
            await self.match(row.ticket.game, row.ticket.players)
            row = await self._own(player, ticket_id)
        if row.status == "seated" and row.game_id is not None:
            status, _ = await self.games.lobby.seats(row.game_id)
            if status is None:  # the deciding call died before it created the table
                await self._create(row.game_id, row.ticket.game, row.ticket.players, await self._group(row))
        return await self._answer(row)

    async def withdraw(self, player: Player, ticket_id: str) -> QuickPlayTicket:
        row = await self._own(player, ticket_id)
        async with self.transactions.transaction() as tx:
            await self.pool.lock(row.ticket.game, row.ticket.players, tx)
            await self.pool.withdraw(ticket_id, tx)
        row = await self._own(player, ticket_id)
        if row.status == "seated":
            raise Conflict("already_seated", "you were seated already: leave the game instead", game_id=row.game_id)
        return await self._answer(row)

    async def forget(self, player_id: str) -> None:
        """A deleted account's waiting tickets leave their pools."""
        await self.pool.withdraw_player(player_id)

    async def pools(self) -> QuickPlayPools:
        counts = await self.pool.counts()
        return QuickPlayPools([WaitingPool(g, p, n) for (g, p), n in sorted(counts.items())])

    async def fill_due(self) -> int:
        """Match every pool with someone waiting (the worker's sweep): a
        person whose page has closed is still seated when their wait ends."""
        created = 0
        for game, players in await self.pool.counts():
            created += len(await self.match(game, players))
        return created

    async def match(self, game: str, players: int, bots_for: str | None = None) -> list[str]:
        """Seat whoever can be seated now; the game ids of the new tables."""
        groups: list[list[TicketRow]] = []
        async with self.transactions.transaction() as tx:
            await self.pool.lock(game, players, tx)
            waiting = await self.pool.waiting(game, players, tx)
            while (group := self._paired(waiting, players)) is not None:
                groups.append(group)
                waiting = [r for r in waiting if r not in group]
            if waiting and self._fill_now(waiting, bots_for):
                groups.append(self._nearest(waiting[0], waiting[1:], players))
            tables = []
            for group in groups:
                game_id = str(uuid.uuid4())
                order = secrets.SystemRandom().sample(range(players), len(group))  # nobody chooses a seat
                seated = [SeatedTicket(r.ticket.ticket_id, seat) for r, seat in zip(group, order, strict=True)]
                await self.pool.seat(game_id, seated, tx)
                tables.append((game_id, [(s.seat, r.ticket) for s, r in zip(seated, group, strict=True)]))
        for game_id, people in tables:
            await self._create(game_id, game, players, people)
        return [game_id for game_id, _ in tables]

    def _fill_now(self, waiting: list[TicketRow], bots_for: str | None) -> bool:
        longest = (datetime.now(UTC) - waiting[0].created_at).total_seconds()
        return (
            longest >= self.settings.fill_after_s
            or any(r.ticket.bots_now for r in waiting)
            or any(r.ticket.ticket_id == bots_for for r in waiting)
        )

    def _paired(self, waiting: list[TicketRow], players: int) -> list[TicketRow] | None:
        """A full table of people, the longest waiting first: each with those
        within its rating window (which widens as it waits), nearest first."""
        now = datetime.now(UTC)
        for anchor in waiting:
            window = self.settings.window(max(0.0, (now - anchor.created_at).total_seconds()))
            near = [r for r in waiting if r is not anchor and abs(r.ticket.rating - anchor.ticket.rating) <= window]
            if len(near) >= players - 1:
                return self._nearest(anchor, near, players)
        return None

    @staticmethod
    def _nearest(anchor: TicketRow, others: list[TicketRow], players: int) -> list[TicketRow]:
        return [anchor, *sorted(others, key=lambda r: abs(r.ticket.rating - anchor.ticket.rating))[: players - 1]]

    async def _create(self, game_id: str, game: str, players: int, people: list[tuple[int, NewTicket]]) -> None:
        engine = get_game(game)
        bot = DEFAULT_BOT if DEFAULT_BOT in engine.bots else next(iter(engine.bots))
        by_seat = dict(people)
        seats = [
            SeatHolder(seat, by_seat[seat].player_id, None, "", "human")
            if seat in by_seat
            else SeatHolder(seat, None, bot, f"{bot} bot", "bot")
            for seat in range(players)
        ]
        clock = {"move_ms": self.settings.move_ms, "bank_ms": self.settings.bank_ms}
        client_seeds = {seat: t.client_seed for seat, t in people if t.client_seed is not None}
        await self.games.create_seated(
            game_id,
            engine.name,
            {},
            True,
            secrets.randbits(62),
            seats,
            time_control=clock,
            client_seeds=client_seeds,
        )

    async def _group(self, row: TicketRow) -> list[tuple[int, NewTicket]]:
        """Who a seated ticket's table seats: every ticket seated there (the
        ticket rows say so; the table does not exist yet)."""
        seated = await self.pool.seated_at(row.game_id) if row.game_id else []
        return [(r.seat, r.ticket) for r in seated if r.seat is not None]

    async def _own(self, player: Player, ticket_id: str) -> TicketRow:
        row = await self.pool.ticket(ticket_id)
        if row is None or row.ticket.player_id != player.player_id:  # another's ticket is not shown to be one
            raise NotFound("ticket_not_found", f"you hold no Play now ticket {ticket_id}")
        return row

    async def _answer(self, row: TicketRow) -> QuickPlayTicket:
        t = row.ticket
        waiting = (await self.pool.counts()).get((t.game, t.players), 0)
        fill_at = None
        if row.status == "waiting":
            # Bots come when the longest waiting person's wait ends.
            queue = await self.pool.waiting(t.game, t.players)
            longest = queue[0].created_at if queue else row.created_at
            fill_at = _ms(longest) + int(self.settings.fill_after_s * 1000)
        return QuickPlayTicket(t.ticket_id, t.game, t.players, row.status, waiting, fill_at, row.game_id, row.seat)
