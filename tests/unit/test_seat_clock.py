"""Every seat's clock comes from one place (services/app/seatclock.py): the
same time control gives a person, a push agent and a pull agent the same
effective clock, at a casual table, a tournament's and a sparring series',
as each of them stores its time control; the defaults are Settings'; and a
slow move costs a person's bank what it costs an agent's."""

from __future__ import annotations

import msgspec
import pytest

from engines.core import Chance
from engines.registry import get_game
from engines.timecontrol import UNSTATED_TIME_CONTROL
from engines.tournament.events import Settings as TournamentSettings
from services.app.games.clocks import people_due, person_overdraft, rules_at, seat_clocks
from services.app.games.tables import LobbyRecord, Outcome, Table, decode_outcomes
from services.app.seatclock import ClockDefaults, SeatClockRules, bank_left, overdraft, seat_clock_rules
from services.app.seats import SeatHolder
from services.config import Settings, clock_defaults
from services.http.routes.agents import NewSparring
from services.http.routes.games import NewGame

GAME = "kabuki-tricks"  # one seat acts at a time, no timer: a turn opens at its commit
BEGAN_MS = 1_800_000_000_000  # the commit that made it the seat's turn
DEFAULTS = ClockDefaults(agent_move_ms=4_000, agent_bank_ms=20_000, strike_limit=5)


def stored_time_control(where: str, time_control: dict | None) -> dict | None:
    """The table's time control as the path that creates it stores it in `games`."""
    if where == "table":  # POST /api/v1/games
        data = msgspec.convert({"game": GAME, "players": 4, "time_control": time_control}, NewGame)
        return msgspec.to_builtins(data.time_control) if data.time_control else None
    if where == "tournament":  # tn.created as the log decodes it, then each round's tables
        created = {"game": GAME, "start_ms": 0} | ({"time_control": time_control} if time_control else {})
        settings = msgspec.json.decode(msgspec.json.encode(created), type=TournamentSettings)
        return msgspec.to_builtins(settings.time_control)
    if where == "sparring":  # POST /api/v1/agents/{id}/sparring
        sparring = msgspec.convert({"game": GAME, "time_control": time_control}, NewSparring)
        return msgspec.to_builtins(sparring.time_control) if sparring.time_control else None
    raise AssertionError(where)


HOLDERS = {
    "person": SeatHolder(0, "p-person", None, "Ada", "human"),
    # Push or pull is the agent's mode, which no clock reads: the same seat kind.
    "push agent": SeatHolder(0, "p-push", None, "pusher", "agent"),
    "pull agent": SeatHolder(0, "p-pull", None, "puller", "agent"),
}


def dealt(time_control: dict | None, awaited_by: SeatHolder) -> Table:
    """A dealt table whose awaited seat `awaited_by` holds; house bots elsewhere."""
    game = get_game(GAME)
    seats: list[SeatHolder | None] = [SeatHolder(s, None, "random", "random bot", "bot") for s in range(4)]
    table = Table(LobbyRecord("g-1", game, 4, game.make_options({}), False, 7, "playing", None, seats, time_control))
    table.apply(1, game.new_game(4, table.record.options, Chance(7)))
    (seat,) = game.waiting_for(table.state)
    seats[seat] = SeatHolder(seat, awaited_by.player_id, None, awaited_by.name, awaited_by.kind)
    return table


class Log:
    """The one read a clock makes of the log: when the table reached its version."""

    async def recorded_ms(self, stream_id: str, version: int) -> int:
        return BEGAN_MS


class Agents:
    """An agent's bank as agent_turns would give it: `used` of it gone."""

    def __init__(self, used: int = 0) -> None:
        self.used = used

    async def bank_left(self, game_id: str, seat: int, bank_ms: int) -> int:
        return bank_left(bank_ms, self.used)


def awaited(table: Table) -> int:
    (seat,) = table.game.waiting_for(table.state)
    return seat


@pytest.mark.parametrize("where", ["table", "tournament", "sparring"])
async def test_one_time_control_gives_every_seat_kind_the_same_clock(where):
    stored = stored_time_control(where, {"move_ms": 1_500, "bank_ms": 6_000})
    rules, shown = {}, {}
    for kind, holder in HOLDERS.items():
        table = dealt(stored, holder)
        rules[kind] = rules_at(table, awaited(table), DEFAULTS)
        shown[kind] = await seat_clocks(Log(), Agents(), table, DEFAULTS)
    assert set(rules.values()) == {SeatClockRules(move_ms=1_500, bank_ms=6_000, strike_limit=DEFAULTS.strike_limit)}
    # GET /api/v1/games/{id}: the same deadline and bank, whoever holds the seat.
    assert len({msgspec.json.encode(clocks) for clocks in shown.values()}) == 1, shown
    [clock] = shown["person"]
    assert (clock.deadline_ms, clock.bank_ms) == (BEGAN_MS + 1_500, 6_000)


def test_house_bots_are_never_timed():
    table = dealt({"move_ms": 1_500, "bank_ms": 6_000}, HOLDERS["person"])
    bots = [s for s in range(4) if s != awaited(table)]
    assert [rules_at(table, s, DEFAULTS) for s in bots] == [None] * 3
    assert seat_clock_rules({"move_ms": 1_500}, "bot", DEFAULTS) is None


def test_without_a_time_control_agents_get_the_defaults_and_people_play_untimed():
    for where in ("table", "sparring"):
        assert stored_time_control(where, None) is None
        for kind, holder in HOLDERS.items():
            table = dealt(None, holder)
            expected = None if kind == "person" else SeatClockRules(4_000, 20_000, 5)
            assert rules_at(table, awaited(table), DEFAULTS) == expected, (where, kind)
    # A tournament always has one: the stored default, whoever plays.
    assert stored_time_control("tournament", None) == {"move_ms": 30_000, "bank_ms": 120_000}
    assert msgspec.to_builtins(UNSTATED_TIME_CONTROL) == {"move_ms": 30_000, "bank_ms": 120_000}
    # A recorded time control from before banks: no bank, and a move time even without move_ms.
    assert seat_clock_rules({"move_ms": 2_000}, "human", DEFAULTS) == SeatClockRules(2_000, 0, 5)
    assert seat_clock_rules({}, "agent", DEFAULTS) == SeatClockRules(UNSTATED_TIME_CONTROL.move_ms, 0, 5)


def test_the_defaults_are_read_once_into_settings():
    assert Settings().clock == ClockDefaults() == clock_defaults({})
    env = {"HANAMICHI_AGENT_MOVE_MS": "4000", "HANAMICHI_AGENT_BANK_MS": "20000", "HANAMICHI_AGENT_STRIKES": "5"}
    assert clock_defaults(env) == DEFAULTS
    with pytest.raises(ValueError, match="HANAMICHI_AGENT_MOVE_MS"):
        clock_defaults({"HANAMICHI_AGENT_MOVE_MS": "5"})  # below every time control's bounds


def test_overdraft_takes_the_time_past_the_move_and_never_more_than_is_left():
    assert overdraft(900, 1_000, 2_000) == 0  # within the move's own time
    assert overdraft(1_500, 1_000, 2_000) == 500
    assert overdraft(5_000, 1_000, 2_000) == 2_000  # later than both: all that was left
    assert overdraft(10, 1_000, 700, timed_out=True) == 700  # a push call that timed out
    assert bank_left(2_000, 2_500) == 0
    assert SeatClockRules(1_000, 2_000, 3).budget_ms(1_200) == 2_200


async def test_a_slow_move_costs_a_person_what_it_costs_an_agent():
    stored = stored_time_control("table", {"move_ms": 1_000, "bank_ms": 2_000})
    table = dealt(stored, HOLDERS["person"])
    seat = awaited(table)
    rules = rules_at(table, seat, DEFAULTS)
    assert rules is not None
    person = await person_overdraft(Log(), table, seat, BEGAN_MS + 1_500, DEFAULTS)
    agent = overdraft(1_500, rules.move_ms, bank_left(rules.bank_ms, 0))  # a pull agent's charge
    assert person == agent == 500
    # The person's deadline job is due once the move and the whole bank are gone.
    assert people_due(table, BEGAN_MS, DEFAULTS) == {seat: BEGAN_MS + 3_000}


async def test_a_persons_bank_is_what_their_command_outcomes_recorded():
    table = dealt({"move_ms": 1_000, "bank_ms": 2_000}, HOLDERS["person"])
    seat = awaited(table)
    other = (seat + 1) % 4
    # Outcomes as stored: one from before banks (no field), two draws of the
    # seat, one of another seat.
    table.take_commands(
        decode_outcomes(
            {
                (seat, "old"): b'{"version":5,"first":5,"seat":%d}' % seat,
                (seat, "m1"): msgspec.json.encode(Outcome(6, 6, seat, bank_drawn_ms=300)),
                (other, "m2"): msgspec.json.encode(Outcome(7, 7, other, bank_drawn_ms=900)),
                (seat, "auto"): msgspec.json.encode(Outcome(8, 8, seat, bank_drawn_ms=400)),
            }
        )
    )
    assert table.bank_drawn(seat) == 700
    [clock] = await seat_clocks(Log(), Agents(), table, DEFAULTS)
    assert clock.bank_ms == 1_300
    # With nothing left a slow move costs nothing more, and the deadline is the move's.
    table.take_commands({(seat, "m3"): Outcome(9, 9, seat, bank_drawn_ms=1_300)})
    assert await person_overdraft(Log(), table, seat, BEGAN_MS + 5_000, DEFAULTS) == 0
    assert people_due(table, BEGAN_MS, DEFAULTS) == {seat: BEGAN_MS + 1_000}
    # An outcome without a draw is stored as before banks existed.
    assert msgspec.json.encode(Outcome(5, 5, seat)) == b'{"version":5,"first":5,"seat":%d}' % seat


async def test_an_agent_seat_shows_the_bank_its_turns_left():
    table = dealt({"move_ms": 1_000, "bank_ms": 2_000}, HOLDERS["pull agent"])
    [clock] = await seat_clocks(Log(), Agents(used=1_200), table, DEFAULTS)
    assert (clock.deadline_ms, clock.bank_ms) == (BEGAN_MS + 1_000, 800)
