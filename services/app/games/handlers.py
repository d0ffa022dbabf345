"""The games' command handlers: one plain function per command of
services/app/commands.py, each `handle(command, games)` over the game
service (its copies, the kernel and the lobby's transaction are the unit of
work), or over Play now's pool (`quick_play`). services/bootstrap.py lists
which handler answers which command and gives each the services its
parameters name."""

from __future__ import annotations

from services.app.commands import (
    CancelTable,
    CreateSeatedTable,
    CreateTable,
    FireTimer,
    HandSeatToBot,
    JoinQuickPlay,
    LeaveTable,
    PlayAgain,
    PlayDefaultMove,
    PlaySeatMove,
    SeatBot,
    SendClientSeed,
    SubmitAction,
    TakeSeat,
    WithdrawQuickPlay,
)
from services.app.fairplay import FairPlay
from services.app.games import leaving, rematch
from services.app.games.moves import ActionAccepted
from services.app.games.quickplay import QuickPlay, QuickPlayTicket
from services.app.games.service import GameService
from services.app.games.tables import Outcome, Table


async def create_table(cmd: CreateTable, games: GameService, fair_play: FairPlay) -> Table:
    if cmd.ranked:
        await fair_play.check_ranked(cmd.player.player_id)
    return await games.create_game(
        cmd.player, cmd.game, cmd.players, cmd.options, cmd.ranked, cmd.time_control, cmd.bot_delay_ms
    )


async def create_seated_table(cmd: CreateSeatedTable, games: GameService) -> Table:
    return await games.create_seated(
        cmd.game_id,
        cmd.game,
        cmd.options,
        cmd.ranked,
        cmd.seed,
        cmd.seats,
        tournament_id=cmd.tournament_id,
        time_control=cmd.time_control,
        embargoed=cmd.embargoed,
    )


async def take_seat(cmd: TakeSeat, games: GameService, fair_play: FairPlay) -> Table:
    if (await games.load(cmd.game_id)).record.ranked:
        await fair_play.check_ranked(cmd.player.player_id)
    return await games.take_seat(cmd.player, cmd.game_id, cmd.seat, cmd.client_seed)


async def send_client_seed(cmd: SendClientSeed, games: GameService) -> tuple[Table, str]:
    return await games.send_client_seed(cmd.player, cmd.game_id, cmd.client_seed)


async def seat_bot(cmd: SeatBot, games: GameService) -> Table:
    return await games.seat_bot(cmd.player, cmd.game_id, cmd.seat, cmd.bot)


async def leave_table(cmd: LeaveTable, games: GameService) -> Table:
    return await leaving.leave_table(games, cmd.player, cmd.game_id)


async def cancel_table(cmd: CancelTable, games: GameService) -> Table:
    return await leaving.cancel_table(games, cmd.player, cmd.game_id)


async def play_again(cmd: PlayAgain, games: GameService, fair_play: FairPlay) -> Table:
    if (await games.load(cmd.game_id)).record.ranked:
        await fair_play.check_ranked(cmd.player.player_id)
    return await rematch.play_again(games.seating, cmd.player, cmd.game_id)


async def submit_action(cmd: SubmitAction, games: GameService) -> ActionAccepted:
    return await games.submit(cmd.game_id, cmd.player, cmd.action, cmd.command_id, cmd.expected_version)


async def play_seat_move(cmd: PlaySeatMove, games: GameService) -> tuple[Table, Outcome, list]:
    return await games.act(cmd.game_id, cmd.seat, cmd.action, cmd.command_id, received_ms=cmd.received_ms)


async def play_default_move(cmd: PlayDefaultMove, games: GameService) -> bool:
    return await games.play_for_seat(
        cmd.game_id, cmd.seat, cmd.reason, cmd.due_version, cmd.detail, strike_limit=cmd.strike_limit
    )


async def fire_timer(cmd: FireTimer, games: GameService) -> None:
    await games.on_timer(cmd.game_id, cmd.at_version)


async def hand_seat_to_bot(cmd: HandSeatToBot, games: GameService) -> None:
    await leaving.hand_to_bot(games, cmd.game_id, cmd.seat, cmd.reason)


async def join_quick_play(cmd: JoinQuickPlay, quick_play: QuickPlay, fair_play: FairPlay) -> QuickPlayTicket:
    await fair_play.check_ranked(cmd.player.player_id)  # Play now's tables are ranked
    return await quick_play.join(cmd.player, cmd.game, cmd.players, cmd.bots_now, cmd.client_seed)


async def withdraw_quick_play(cmd: WithdrawQuickPlay, quick_play: QuickPlay) -> QuickPlayTicket:
    return await quick_play.withdraw(cmd.player, cmd.ticket_id)
