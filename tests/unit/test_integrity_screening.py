"""Collusion screening (services/app/integrity): the feeding measure of
each game on real engine positions, the statistics on made-up chances, the
replay of a stored log into the same chances as the game played in
process, and the admin route's token check."""

from __future__ import annotations

import random

import msgspec
import pytest

from engines.cahoots.actions import Play
from engines.cahoots.cards import IDENTITY_MASKS, SUIT_OF
from engines.registry import get_game
from services.app.errors import Forbidden, NotFound
from services.app.integrity.feeding import SCREENED_GAMES, Move, Opportunity, feeding_actions, opportunities
from services.app.integrity.reading import report_of
from services.app.integrity.replay import moves_from_log
from services.app.integrity.screening import Account, ScreenedGame, _tail, screen
from services.app.ports.integrity import FinishedLog, LogEvent
from services.http.routes.integrity import check_admin
from services.tools.integrity_validation import HOUSE, play


def _log(game, events) -> list[LogEvent]:
    tag = lambda e: type(e).__struct_config__.tag  # noqa: E731
    return [LogEvent(v, tag(e), msgspec.json.encode(e)) for v, e in enumerate(events, start=1)]


def _played(name: str, seed: int = 3) -> tuple[ScreenedGame, list]:
    """A game of honest house bots, its chances and its engine log."""
    from engines.playout import Playout

    game = get_game(name)
    options = game.make_options({})
    moves: list[Move] = []

    def record(before, seat, action, events, after) -> None:
        if seat is not None:
            moves.append(Move(len(playout.log) - len(events) + 1, seat, before, action, tuple(events)))

    playout = Playout(game, 4, options, seed, ["heuristic", "random", "heuristic", "random"], hook=record)
    playout.run()
    seats = tuple(Account(f"a{s}", "agent") for s in range(4))
    return ScreenedGame("g", name, seats, tuple(opportunities(game, moves))), playout.log


@pytest.mark.parametrize("name", SCREENED_GAMES)
def test_a_stored_log_replays_into_the_chances_the_game_had_in_process(name: str) -> None:
    screened, log = _played(name)
    assert screened.chances, name  # every game gives chances in a whole game
    replayed = opportunities(get_game(name), moves_from_log(get_game(name), _log(get_game(name), log)))
    assert replayed == list(screened.chances)
    for c in screened.chances:
        assert c.giver != c.receiver and 0 < c.share <= 1 and c.kind.startswith(name)


def test_a_service_move_is_nobody_s_choice() -> None:
    """A move the service played for a seat (its time ran out) gives no chance to that seat."""
    screened, log = _played("cahoots")
    game = get_game("cahoots")
    records = _log(game, log)
    first = next(c for c in screened.chances if c.giver == 0)
    at = first.version
    timeout = LogEvent(at, "hm.move_played_for_seat", b'{"seat":0,"reason":"timeout","strikes":1}')
    shifted = [r if r.version < at else LogEvent(r.version + 1, r.type, r.data) for r in records]
    shifted.insert(at - 1, timeout)
    moves = moves_from_log(game, shifted)
    assert [m.own for m in moves if m.version == at + 1] == [False]
    assert all(c.version != at + 1 for c in opportunities(game, moves))


def test_cahoots_feeding_is_playing_a_suit_of_the_receiver_not_of_the_giver() -> None:
    game = get_game("cahoots")
    from engines.playout import Playout

    playout = Playout(game, 4, game.make_options({}), 5, ["random"] * 4)
    while not game.to_act(playout.state) or not any(
        type(a) is Play for a in game.legal_actions(playout.state, next(iter(game.to_act(playout.state))))
    ):
        playout.step()
    state = playout.state
    assert state is not None
    (seat,) = game.to_act(state)
    receiver = (seat + 1) % 4
    feeding = feeding_actions(game, state, seat, receiver, game.legal_actions(state, seat))
    suits = IDENTITY_MASKS[state.identities[receiver]] & ~IDENTITY_MASKS[state.identities[seat]]
    hand = state.hands[seat]
    expected = [c for c in hand if suits >> SUIT_OF[c] & 1]
    assert sorted(a.card for a in feeding) == (sorted(expected) if len(expected) < len(hand) else [])


def _synthetic(pairs_rate: dict[tuple[int, int], float], games: int, seed: int) -> list[ScreenedGame]:
    """Tables of 4 accounts out of 8 and a house bot; each ordered pair
    feeds at its rate (0.3 unless given) on half-share chances."""
    rng = random.Random(seed)
    pool = [*range(8), None]
    out = []
    for number in range(games):
        seated = rng.sample(pool, 4)
        chances = []
        for giver in range(4):
            for receiver in range(4):
                if giver == receiver:
                    continue
                pair = (seated[giver], seated[receiver])
                for k in range(6):
                    fed = rng.random() < pairs_rate.get(pair, 0.3)  # type: ignore[arg-type,unused-ignore]
                    chances.append(Opportunity(giver, receiver, "test:kind", fed, 10 * number + k, 0.5))
        seats = tuple(None if a is None else Account(f"acc{a}", "agent", f"name{a}") for a in seated)
        out.append(ScreenedGame(f"game{number}", "test", seats, tuple(chances)))
    return out


def test_the_feeding_pair_is_flagged_with_its_evidence_and_no_honest_pair() -> None:
    report = screen(_synthetic({(2, 5): 0.6}, 300, seed=1))
    flagged = [(p.giver, p.receiver) for p in report.pairs if p.flagged]
    assert flagged == [("acc2", "acc5")]
    top = report.pairs[0]
    assert (top.giver_name, top.receiver_name) == ("name2", "name5") and top.z > 5
    assert top.evidence and all(e.game_id.startswith("game") for e in top.evidence)
    # House bots are the reference, never suspects; every pair of 8 accounts is screened both ways.
    assert report.pairs_screened == 56 and all(p.giver and p.receiver for p in report.pairs)
    assert report.baselines[0].kind == "test:kind" and 0.3 < report.baselines[0].rate < 0.32


def test_honest_population_flags_nobody_and_rare_pairs_are_not_screened() -> None:
    report = screen(_synthetic({}, 300, seed=2))
    assert report.pairs_flagged == 0 and report.pairs_screened == 56
    few = screen(_synthetic({}, 12, seed=2), min_shared_games=10)
    assert all(p.shared_games >= 10 for p in few.pairs) and few.pairs_screened < 56


def test_the_tail_is_the_binomial_one() -> None:
    # 10 trials at 0.5: P(X >= 8) = 56 / 1024.
    assert _tail([0.5] * 10, 8) == pytest.approx(56 / 1024)
    assert _tail([0.5] * 10, 0) == 1.0
    # Large variance: the normal tail with a continuity correction, close to the exact one.
    assert _tail([0.5] * 400, 220) == pytest.approx(0.0257, abs=0.003)


def test_the_report_reads_a_finished_log_with_its_seats() -> None:
    """What `hanamichi integrity` and the admin route run on each stored game."""
    _, log = _played("kabuki-tricks")
    game = get_game("kabuki-tricks")
    records = _log(game, log)
    seats = [
        {"seat": 0, "kind": "agent", "player_id": "p0", "name": "Ann"},
        {"seat": 1, "kind": "bot", "bot": "random"},
        {"seat": 2, "kind": "human", "player_id": "p2", "name": "Cy"},
        {"seat": 3, "kind": "agent", "player_id": "p3", "name": "Di"},
    ]
    result = msgspec.to_builtins(game.result(game.fold(log)))
    finished = {"type": "hm.game_finished", "game": "kabuki-tricks", "ranked": False, "seats": seats, "result": result}
    records.append(LogEvent(len(records) + 1, "hm.game_finished", msgspec.json.encode(finished)))
    report = report_of([FinishedLog(f"g{i}", records) for i in range(3)], min_shared_games=3)
    assert (report.games, report.accounts, report.skipped) == (3, 3, 0)
    assert {p.giver for p in report.pairs} == {"p0", "p2", "p3"} and report.pairs_screened == 6
    broken = report_of([FinishedLog("x", records[:-1])])  # no hm.game_finished: not a finished game
    assert (broken.games, broken.skipped) == (0, 1)


def test_the_admin_route_needs_the_configured_token() -> None:
    with pytest.raises(NotFound) as none:
        check_admin(None, "Bearer anything")
    assert none.value.code == "admin_disabled"
    for wrong in (None, "", "Bearer nope", "Basic s3cret", "s3cret"):
        with pytest.raises(Forbidden) as refused:
            check_admin("s3cret", wrong)
        assert refused.value.code == "admin_token_refused"
    check_admin("s3cret", "Bearer s3cret")


def test_a_planted_feeder_plays_its_feeding_moves() -> None:
    """The validation's colluder feeds whenever it can (feed_rate 1)."""
    game = get_game("kabuki-tricks")
    screened = play(game, ["planted-feeder", "planted-partner", HOUSE, "random-1"], 11, 1.0, "t")
    mine = [c for c in screened.chances if c.giver == 0 and c.receiver == 1]
    assert mine and all(c.fed for c in mine)
    assert screened.seats[2] is None
