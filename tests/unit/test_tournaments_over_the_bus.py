"""Tournaments' rules of the service layer, through the message bus on the
memory adapters (tests/unit/memory_service.py): registration, the start
job, each round's tables created with their seats, a bye, results recorded
by the record job, the next round paired, the standings at the end.
tests/service/test_tournaments.py plays the same over real processes."""

from __future__ import annotations

import asyncio

import pytest

from services.app.commands import (
    CreateTournament,
    PlayAgain,
    RecordTable,
    RegisterEntrant,
    StartTournament,
    SubmitAction,
    WithdrawEntrant,
)
from services.app.errors import ServiceError
from services.app.players import Player
from services.app.tournaments.copies import Loaded
from services.app.tournaments.rounds import table_game_id
from services.infra import keys as K
from tests.unit.memory_service import MemoryService, first_legal

pytestmark = pytest.mark.asyncio(loop_scope="function")

GAME = "kabuki-tricks"


def _settings(service: MemoryService, **changes) -> dict:
    """Two swiss rounds of 4-seat tables (3 at the least), house bots
    filling the field to 5, starting in a minute of the service's clock."""
    return {
        "game": GAME,
        "start_ms": service.clock() + 60_000,
        "table_size": 4,
        "min_table_size": 3,
        "format": "swiss",
        "rounds": 2,
        "bots": "fill",
        "fill_to": 5,
        "min_entrants": 2,
    } | changes


async def _run_jobs(service: MemoryService) -> int:
    """What a worker does with the due tournament jobs; the number run."""
    ran = 0
    for job in service.jobs.take_due():
        if job.job == K.JOB_START_TOURNAMENT:
            await service.bus.handle(StartTournament(*job.args))
        elif job.job == K.JOB_RECORD_TABLE:
            await service.bus.handle(RecordTable(*job.args))
        else:
            continue  # a person's move deadline: they move in time here
        ran += 1
    return ran


async def _play_people(service: MemoryService, loaded: Loaded, people: dict[str, Player]) -> None:
    """The people play their tables of the current round to the end, the
    house bots their own seats."""
    for table_id in _round_games(loaded):
        table = await service.games.tables.get(table_id)
        while not table.over:
            waiting = sorted(table.game.waiting_for(table.state))
            person = next((p for p in people.values() if table.seat_of(p.player_id) in waiting), None)
            if person is None:
                await service.next_commit(table_id)  # a house bot's move
                continue
            seat = table.seat_of(person.player_id)
            assert seat is not None
            await service.bus.handle(SubmitAction(person, table_id, first_legal(table, seat), f"m{table.version}"))


def _round_games(loaded: Loaded) -> list[str]:
    state = loaded.state
    return [table_game_id(loaded.tournament_id, state.round, t.table) for t in state.tables]


async def _queued(service: MemoryService, job: str, count: int) -> None:
    for _ in range(1000):
        if sum(queued.job == job for queued in service.jobs.queued.values()) >= count:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{job} was not queued {count} times")


async def _start(service: MemoryService, tournament_id: str) -> Loaded:
    loaded = await service.tournaments.load(tournament_id)
    assert await _run_jobs(service) == 0  # the start job is not due yet
    # A second past the start: the job was queued at a clock read a moment
    # after the one its delay was computed from, so it falls due just after start_ms.
    service.clock.advance(loaded.state.settings.start_ms - service.clock() + 1000)
    assert await _run_jobs(service) == 1
    return await service.tournaments.load(tournament_id)


async def test_rounds_seat_the_field_give_a_bye_and_record_every_table(service: MemoryService) -> None:
    owner = await service.player()
    people = {name: await service.player() for name in ("ann", "bob")}
    created = await service.bus.handle(CreateTournament(owner, _settings(service)))
    tid = created.tournament_id
    service.clock.advance(59_000)  # registration stays open until the start
    for person in people.values():
        await service.bus.handle(RegisterEntrant(person, tid))
    loaded = await _start(service, tid)
    state = loaded.state
    assert state.status == "running" and state.round == 1 and len(state.entrants) == 5
    # 5 entrants at tables of 4 (3 at the least): one table of 4 and one bye.
    assert [len(t.seats) for t in state.tables] == [4] and len(state.byes) == 1
    seated = {entrant for t in state.tables for entrant in t.seats}
    assert seated | set(state.byes) == {e.id for e in state.entrants}
    # Each table of the round is a game in the lobby, its seats held as the pairing says.
    for table_id, paired in zip(_round_games(loaded), state.tables, strict=True):
        _, rows = await service.stores.lobby.seats(table_id)
        holders = {row.seat: (row.player_id or f"bot:{row.bot}") for row in rows}
        for seat_no, entrant_id in enumerate(paired.seats):
            entrant = state.entrant(entrant_id)
            assert entrant is not None
            expected = entrant.id if entrant.kind != "bot" else "bot:heuristic"
            assert holders[seat_no] == expected
    round_one_bye = state.byes[0]

    for round_no in (1, 2):
        await _play_people(service, loaded, people)
        # The last commit of each table queues its record job (from a task it spawns).
        await _queued(service, K.JOB_RECORD_TABLE, len(loaded.state.tables))
        assert await _run_jobs(service) == len(loaded.state.tables)
        loaded = await service.tournaments.load(tid)
        if round_no == 1:
            assert loaded.state.round == 2 and loaded.state.history[0].round == 1
            # The bye goes to someone who has not had one while anyone else has not.
            assert loaded.state.byes and loaded.state.byes[0] != round_one_bye
    assert loaded.state.status == "finished"
    ranking = loaded.state.ranking
    assert sorted(p.entrant for p in ranking) == sorted(e.id for e in loaded.state.entrants)
    # Both rounds' byes scored bye points: nobody with a bye ends on nothing.
    byes = {round_one_bye, *loaded.state.history[1].byes}
    points = {p.entrant: p.points for p in ranking}
    assert all(points[e] > 0 for e in byes)
    # Recording a table twice (a retried job) writes nothing more.
    again = await service.bus.handle(RecordTable(_round_games(loaded)[0]))
    assert again == []
    # A tournament's finished table is not played again: the tournament seats its rounds.
    with pytest.raises(ServiceError) as rematch:
        await service.bus.handle(PlayAgain(people["ann"], _round_games(loaded)[0]))
    assert rematch.value.code == "tournament_table"


async def test_registration_rules_hold_before_the_start(service: MemoryService) -> None:
    owner, person = await service.player(), await service.player()
    created = await service.bus.handle(CreateTournament(owner, _settings(service, bots="none")))
    tid = created.tournament_id
    await service.bus.handle(RegisterEntrant(person, tid))
    with pytest.raises(ServiceError) as twice:
        await service.bus.handle(RegisterEntrant(person, tid))
    assert twice.value.code == "already_registered"
    await service.bus.handle(WithdrawEntrant(person, tid))
    loaded = await service.tournaments.load(tid)
    assert not loaded.state.is_registered(person.player_id)
    # Before its time the start job (run early, as after a clock step) refuses and is queued again.
    assert await service.bus.handle(StartTournament(tid)) == []
    assert (await service.tournaments.load(tid)).state.status == "registering"
    assert any(job.job == K.JOB_START_TOURNAMENT for job in service.jobs.queued.values())
