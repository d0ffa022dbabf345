"""decide(): registration, start with bot fill, results (idempotent), rounds
to the final ranking; the stream folds and round-trips through JSON."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from engines.core import OptionsError, RuleError, deal_seed
from engines.tournament import (
    AnyEvent,
    Cancel,
    Cancelled,
    Create,
    Entrant,
    Finished,
    RecordResult,
    Register,
    RoundEnded,
    RoundPaired,
    Start,
    Started,
    TableFinished,
    Withdraw,
    decide,
    decode_command,
    fold,
    make_settings,
    next_settings,
    standings,
)
from engines.tournament.pairing import meetings
from engines.tournament.rules import fill_target
from engines.tournament.standings import derive
from tests.engines.tournament.tournament_helpers import START, Run, people, settings, tournament


def code_of(run: Run, command, now_ms: int = START) -> str:
    with pytest.raises(RuleError) as info:
        run.do(command, now_ms)
    return info.value.code


# --- registration ---------------------------------------------------------------


def test_register_and_withdraw():
    run = Run(settings())
    a, b = people(2)
    assert run.do(Register(entrant=a), 5)[0].entrant == a
    assert code_of(run, Register(entrant=a), 6) == "already_registered"
    run.do(Register(entrant=b), 6)
    assert [e.id for e in run.state.registered] == ["p00", "p01"]
    run.do(Withdraw(entrant="p00"), 7)
    assert [e.id for e in run.state.registered] == ["p01"]
    assert code_of(run, Withdraw(entrant="p00"), 8) == "not_registered"
    run.do(Register(entrant=a), 9)  # may come back
    assert [e.id for e in run.state.registered] == ["p01", "p00"]


def test_registration_window():
    run = Run(settings(opens_ms=50, closes_ms=90))
    e = people(1)[0]
    assert code_of(run, Register(entrant=e), 49) == "registration_closed"
    assert code_of(run, Register(entrant=e), 90) == "registration_closed"
    run.do(Register(entrant=e), 50)
    # closes at the start when no close is given
    run2 = Run(settings())
    assert code_of(run2, Register(entrant=e), START) == "registration_closed"


def test_tournament_full():
    run = Run(settings(max_entrants=4))
    run.register(people(4))
    assert code_of(run, Register(entrant=Entrant(id="late", name="Late")), 20) == "tournament_full"


@pytest.mark.parametrize(
    "policy, allowed",
    [("fill", {"human", "agent"}), ("none", {"human", "agent"}), ("bots_only", {"agent", "bot"})],
)
def test_bot_policy_decides_who_may_register(policy, allowed):
    run = Run(settings(bots=policy))
    for kind in ("human", "agent", "bot"):
        entrant = Entrant(id=kind, name=kind, kind=kind)
        if kind in allowed:
            run.do(Register(entrant=entrant), 10)
        else:
            assert code_of(run, Register(entrant=entrant), 10) == "kind_not_allowed"


def test_no_registration_or_withdrawal_after_start():
    run = Run(settings())
    run.register(people(4))
    run.start()
    assert code_of(run, Register(entrant=Entrant(id="x", name="x")), START) == "already_started"
    assert code_of(run, Withdraw(entrant="p00")) == "already_started"
    assert code_of(run, Start()) == "already_started"


# --- start -----------------------------------------------------------------------


def test_start_too_early():
    run = Run(settings())
    run.register(people(4))
    assert code_of(run, Start(), START - 1) == "too_early"


def test_fill_with_bots_to_a_multiple_of_the_table_size():
    run = Run(settings())
    run.register(people(10))
    started, paired = run.start()
    assert isinstance(started, Started) and isinstance(paired, RoundPaired)
    bots = [e for e in started.entrants if e.kind == "bot"]
    assert len(started.entrants) == 12 and len(bots) == 2
    assert len({e.id for e in started.entrants}) == 12
    assert len(paired.tables) == 3 and all(len(t.seats) == 4 for t in paired.tables)


def test_fill_to_a_fixed_count_and_up_to_min_entrants():
    s = settings(fill_to=16)
    assert fill_target(s, 10) == 16
    assert fill_target(s, 17) == 17
    assert fill_target(settings(min_entrants=8), 1) == 8
    assert fill_target(settings(max_entrants=10), 9) == 10
    run = Run(s)
    run.register(people(5))
    run.start()
    assert len(run.state.entrants) == 16


def test_bot_ids_never_clash_with_registered_ones():
    run = Run(settings(bots="fill"))
    run.register([Entrant(id="bot-1", name="sneaky")])
    run.start()
    assert sorted(e.id for e in run.state.entrants) == ["bot-1", "bot-2", "bot-3", "bot-4"]


def test_too_few_without_fill_cancels_with_a_reason():
    run = Run(settings(bots="none", min_entrants=6))
    run.register(people(5))
    (cancelled,) = run.start()
    assert isinstance(cancelled, Cancelled) and cancelled.reason == "too_few_entrants"
    assert run.state.status == "cancelled"
    assert code_of(run, Start()) == "tournament_cancelled"


def test_nobody_registered_cancels_even_with_fill():
    run = Run(settings())
    (cancelled,) = run.start()
    assert cancelled.reason == "no_entrants"


def test_uneven_field_without_fill_uses_smaller_tables():
    run = Run(settings(bots="none", min_table_size=3))
    run.register(people(10))
    run.start()
    assert sorted(len(t.seats) for t in run.state.tables) == [3, 3, 4]
    assert run.state.byes == ()


def test_byes_score_bye_points():
    run = Run(settings(bots="none", table_size=2, rounds=1))
    run.register(people(5))
    run.start()
    (bye,) = run.state.byes
    run.play_out(0)
    line = next(p for p in run.state.ranking if p.entrant == bye)
    assert line.points == 0.5 and line.byes == 1 and line.games == 0


# --- results --------------------------------------------------------------------


def started_run(n=8, **overrides) -> Run:
    run = Run(settings(**overrides))
    run.register(people(n))
    run.start()
    return run


def test_table_result_is_idempotent():
    run = started_run()
    table = run.state.tables[0]
    command = run.result(table, random.Random(1))
    (finished,) = run.do(command)
    assert isinstance(finished, TableFinished)
    before = run.state
    assert run.do(command) == []
    assert run.do(RecordResult(round=1, table=table.table, game_id="other", places=(1, 1, 1, 1), scores=(0,) * 4)) == []
    assert run.state == before


def test_result_for_an_earlier_round_is_still_idempotent():
    run = started_run()
    rng = random.Random(2)
    first = [run.result(t, rng) for t in run.state.tables]
    for c in first:
        run.do(c)
    assert run.state.round == 2
    assert run.do(first[0]) == []


def test_unknown_table_and_bad_results():
    run = started_run()
    assert (
        code_of(run, RecordResult(round=1, table=9, game_id="g", places=(1, 2, 3, 4), scores=(0,) * 4))
        == "unknown_table"
    )
    assert (
        code_of(run, RecordResult(round=2, table=1, game_id="g", places=(1, 2, 3, 4), scores=(0,) * 4))
        == "unknown_table"
    )
    assert code_of(run, RecordResult(round=1, table=1, game_id="g", places=(1, 2, 3), scores=(0,) * 3)) == "bad_result"
    assert (
        code_of(run, RecordResult(round=1, table=1, game_id="g", places=(1, 2, 3, 5), scores=(0,) * 4)) == "bad_result"
    )
    pending = Run(settings())
    assert code_of(pending, RecordResult(round=1, table=1, game_id="g", places=(1,), scores=(0,))) == "not_started"


def test_last_table_ends_the_round_and_pairs_the_next():
    run = started_run()
    rng = random.Random(3)
    t1, t2 = run.state.tables
    assert len(run.do(run.result(t1, rng))) == 1
    events = run.do(run.result(t2, rng))
    assert [type(e) for e in events] == [TableFinished, RoundEnded, RoundPaired]
    assert events[2].round == 2


def test_last_round_finishes_with_the_ranking():
    run = started_run(rounds=1)
    rng = random.Random(3)
    events = []
    for t in run.state.tables:
        events = run.do(run.result(t, rng))
    assert [type(e) for e in events] == [TableFinished, RoundEnded, Finished]
    assert run.state.status == "finished"
    assert events[-1].ranking == standings(run.state)
    assert code_of(run, Cancel()) == "tournament_over"


def test_cancel_a_running_tournament():
    run = started_run()
    (c,) = run.do(Cancel(reason="by_organiser", message="server move"))
    assert run.state.status == "cancelled" and run.state.cancelled == c
    assert (
        code_of(run, RecordResult(round=1, table=1, game_id="g", places=(1, 2, 3, 4), scores=(0,) * 4))
        == "tournament_cancelled"
    )


def test_create_twice_and_commands_before_create():
    run = Run(settings())
    assert code_of(run, Create(settings=settings())) == "already_created"
    with pytest.raises(RuleError) as info:
        decide(None, Start(), 0)
    assert info.value.code == "no_tournament"


# --- whole tournaments -------------------------------------------------------------


def test_sixteen_entrant_three_round_swiss_to_a_final_ranking():
    run = tournament(16, seed=5, rounds=3)
    state = run.state
    assert state.status == "finished" and len(state.history) == 3
    for record in state.history:
        seated = sorted(e for t in record.tables for e in t.seats)
        assert seated == sorted(e.id for e in state.entrants)
        assert all(len(t.seats) == 4 for t in record.tables)
    assert max(meetings([t.seats for r in state.history for t in r.tables]).values()) == 1
    ranking = state.ranking
    assert sorted(p.entrant for p in ranking) == sorted(e.id for e in state.entrants)
    assert all(p.games == 3 for p in ranking)
    # points are the table-finish points actually scored
    total = sum(p.points for p in ranking)
    assert total == pytest.approx(3 * 4 * 7)  # 3 rounds x 4 tables x (4+2+1+0)
    assert [p.points for p in ranking] == sorted((p.points for p in ranking), reverse=True)
    assert isinstance(run.events[-1], Finished)


@hsettings(max_examples=25, deadline=None)
@given(
    st.integers(2, 24),
    st.sampled_from(["swiss", "round-robin", "knockout"]),
    st.integers(2, 5),
    st.booleans(),
    st.integers(0, 10_000),
)
def test_any_tournament_runs_to_the_end_deterministically(n, fmt, k, duplicate, seed):
    overrides = dict(format=fmt, table_size=k, min_table_size=max(2, k - 1), bots="none", settings_seed=seed)
    if fmt == "swiss":
        overrides["duplicate"] = duplicate
    if n < max(2, k - 1):
        return
    run = tournament(n, seed=seed, **overrides)
    again = tournament(n, seed=seed, **overrides)
    assert run.events == again.events, "same seed and inputs, same stream"
    assert run.state.status == "finished"
    assert fold(run.events) == run.state
    for record in run.state.history:
        field = sorted(e for t in record.tables for e in t.seats) + list(record.byes)
        assert len(field) == len(set(field))
        if fmt != "knockout":
            assert sorted(field) == sorted(e.id for e in run.state.entrants)
    encoded = msgspec.json.encode(run.events)
    assert msgspec.json.decode(encoded, type=list[AnyEvent]) == run.events


def test_events_round_trip_through_json_with_stable_tags():
    run = tournament(10, seed=1, duplicate=True)
    raw = msgspec.json.decode(msgspec.json.encode(run.events))
    assert [e["type"] for e in raw[:3]] == ["tn.created", "tn.registered", "tn.registered"]
    assert {e["type"] for e in raw} == {
        "tn.created",
        "tn.registered",
        "tn.started",
        "tn.round_paired",
        "tn.table_finished",
        "tn.round_ended",
        "tn.finished",
    }
    assert msgspec.json.decode(msgspec.json.encode(run.events), type=list[AnyEvent]) == run.events
    assert fold(msgspec.json.decode(msgspec.json.encode(run.events), type=list[AnyEvent])) == run.state


def test_fold_equals_the_incremental_state_at_every_prefix():
    run = tournament(12, seed=8, duplicate=True)
    state = None
    for i, event in enumerate(run.events):
        state = fold([event], state)
        assert state == fold(run.events[: i + 1])
    assert state == run.state


def test_different_seeds_seat_differently():
    a = tournament(16, seed=0, rounds=1, settings_seed=1)
    b = tournament(16, seed=0, rounds=1, settings_seed=2)
    assert a.state.history[0].tables != b.state.history[0].tables


# --- settings ---------------------------------------------------------------------


def test_settings_validation_codes():
    for bad in (
        dict(format="swiss", rounds=0),
        dict(duplicate=True, format="knockout"),
        dict(table_size=4, min_table_size=5),
        dict(format="knockout", advance=4),
        dict(max_entrants=3),
        dict(points={4: (3, 2, 1)}),
        dict(closes_ms=START + 1),
        dict(every_minutes=0),
        dict(fill_to=100),
    ):
        with pytest.raises(OptionsError) as info:
            settings(**bad).validate()
        assert info.value.code == "bad_tournament"
    settings().validate()


def test_make_settings_checks_the_game():
    from engines.kabuki_tricks import GAME

    raw = {"game": "kabuki-tricks", "start_ms": 5, "rounds": 2, "table_size": 6}
    with pytest.raises(OptionsError):
        make_settings(raw, GAME)  # Kabuki Tricks seats at most 5
    with pytest.raises(OptionsError):
        make_settings({**raw, "table_size": 4, "options": {"nope": 1}}, GAME)
    s = make_settings({**raw, "table_size": 4, "points": {"4": [5, 3, 1, 0]}}, GAME)
    assert s.points == {4: (5, 3, 1, 0)}
    with pytest.raises(OptionsError):
        make_settings({**raw, "table_size": 4, "colour": "red"})


def test_recurrence_shifts_every_time_and_takes_a_new_seed():
    s = settings(every_minutes=60, opens_ms=1000, closes_ms=START)
    nxt = next_settings(s, seed=42)
    assert (nxt.start_ms, nxt.opens_ms, nxt.closes_ms, nxt.seed) == (
        START + 3_600_000,
        3_601_000,
        START + 3_600_000,
        42,
    )
    assert next_settings(settings(), seed=1) is None


def test_commands_decode_from_json_shapes():
    c = decode_command(
        {"type": "tn.record_result", "round": 1, "table": 2, "game_id": "g", "places": [1, 2], "scores": [3, 1]}
    )
    assert c == RecordResult(round=1, table=2, game_id="g", places=(1, 2), scores=(3.0, 1.0))
    with pytest.raises(RuleError) as info:
        decode_command({"type": "tn.nope"})
    assert info.value.code == "bad_command"


def test_a_stream_recorded_under_older_bounds_still_folds():
    """Tournaments once accepted `move_ms` 0 (requests are bounded now): a
    stored `tn.created` with it must still decode and fold."""
    from engines.tournament import AnyEvent, evolve

    raw = (
        b'{"type":"tn.created","tournament_id":"t-old","settings":{"game":"kabuki-tricks",'
        b'"start_ms":1000,"rounds":1,"time_control":{"move_ms":0}}}'
    )
    try:
        event = msgspec.json.decode(raw, type=AnyEvent)
    except msgspec.ValidationError as error:  # the shape changed: rebuild it from the encoder
        pytest.fail(f"a stored tn.created no longer decodes: {error}")
    assert event.settings.time_control.move_ms == 0
    assert evolve(None, event).settings.time_control.move_ms == 0


def test_fill_bot_defaults_to_heuristic_is_one_of_the_games_bots_and_old_logs_decode():
    """`fill_bot` chooses the house bot that fills seats; stored
    `tn.created` events from before the field decode with the default."""
    from engines.registry import get_game

    game = get_game("kabuki-tricks")
    base = {"game": "kabuki-tricks", "start_ms": START, "rounds": 1}
    assert make_settings(base, game).fill_bot == "heuristic"
    assert make_settings({**base, "fill_bot": "expert"}, game).fill_bot == "expert"
    with pytest.raises(OptionsError) as err:
        make_settings({**base, "fill_bot": "memory"}, game)  # Kabuki masks' bot, not this game's
    assert err.value.code == "bad_tournament" and "fill_bot" in err.value.message
    old = msgspec.json.encode({"type": "tn.created", "settings": base, "at_ms": 1})
    assert "fill_bot" not in old.decode()
    event = msgspec.json.decode(old, type=AnyEvent)
    assert event.settings.fill_bot == "heuristic"


def _paired_with_client_seeds(seeds: dict[str, str], salt: str = "ab" * 32, **overrides) -> list:
    run = Run(settings(salt=salt, **overrides))
    for entrant in people(8):
        run.do(Register(entrant=entrant, client_seed=seeds.get(entrant.id, "")), 10)
    run.start()
    return list(run.created.tables)


def test_client_seeds_are_mixed_into_every_tables_deal_seed() -> None:
    # docs/fairness.md, "Client seeds": each table's seed is deal_seed(the
    # tournament's derived seed, its seats' client seeds in seat order).
    seeds = {"p00": "first", "p05": "sixth"}
    mixed = _paired_with_client_seeds(seeds)
    plain = _paired_with_client_seeds(seeds, salt="")  # the same pairing, no mixing
    for table, unmixed in zip(mixed, plain, strict=True):
        assert table.seats == unmixed.seats
        assert table.deal_seed == deal_seed(unmixed.deal_seed, [seeds.get(e, "") for e in table.seats])
    other = _paired_with_client_seeds({**seeds, "p00": "changed"})
    changed = {t.table for t in mixed if "p00" in t.seats}
    assert {t.table for t in mixed if t.deal_seed != next(o for o in other if o.table == t.table).deal_seed} == changed


def test_a_duplicate_group_mixes_every_client_seed_of_the_group_and_still_shares_one_deal() -> None:
    tables = _paired_with_client_seeds({"p01": "x", "p06": "y"}, duplicate=True)
    by_group: dict[int | None, set[int]] = {}
    for t in tables:
        by_group.setdefault(t.group, set()).add(t.deal_seed)
    assert all(len(seeds) == 1 for seeds in by_group.values())
    unmixed = _paired_with_client_seeds({}, duplicate=True)
    assert [t.deal_seed for t in tables] != [t.deal_seed for t in unmixed]


def test_a_tournament_without_a_salt_deals_from_its_seed_alone() -> None:
    tables = _paired_with_client_seeds({"p00": "ignored"}, salt="")
    assert [t.deal_seed for t in tables] == [derive(7, "deal", 1, t.table) for t in tables]


def test_a_client_seed_must_be_printable_ascii() -> None:
    run = Run(settings(salt="ab" * 32))
    with pytest.raises(RuleError) as err:
        run.do(Register(entrant=people(1)[0], client_seed="\u00e9"), 10)
    assert err.value.code == "bad_client_seed"
