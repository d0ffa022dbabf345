"""Kabuki rulings KM-1..KM-7 (docs/rules/kabuki-masks.md) and the rulebook's example."""

from __future__ import annotations

import random

import pytest

from engines.core import Chance, OptionsError, RuleError
from engines.kabuki_masks import GAME
from engines.kabuki_masks.actions import Place, Stop
from engines.kabuki_masks.events import GameEnded, Placed, Revealed, RoundEnded, RoundStarted, Started, Stopped
from engines.kabuki_masks.view import all_cards
from engines.playout import Playout
from tests.engines.kabuki_masks.km_helpers import IN_ORDER, Table, types


def refused(table: Table, seat: int, action, now_ms: int = 10**9) -> str:
    with pytest.raises(RuleError) as err:
        table.act(seat, action, now_ms)
    assert err.value.message
    return err.value.code


# --- setup and chance --------------------------------------------------------


@pytest.mark.parametrize(("players", "tokens"), [(2, 5), (3, 5), (4, 5), (5, 4), (6, 4)])
def test_tokens_per_round_by_player_count(players, tokens):
    table = Table(players)
    assert table.view(None).tokens == (tokens,) * players


def test_start_draws_every_round_deck_up_front_and_keeps_it_private():
    events = GAME.new_game(3, GAME.make_options({}), Chance(seed=5))
    started = events[0]
    assert isinstance(started, Started) and started.seed == 5
    assert [sorted(deck) for deck in started.decks] == [IN_ORDER] * 3
    for viewer in (None, 0, 1, 2):
        public = GAME.redact(started, viewer)
        assert public.seed is None and public.decks == ()
    # the same seed gives the same decks (duplicate tables), another seed others
    assert GAME.new_game(3, GAME.make_options({}), Chance(seed=5))[0] == started
    assert GAME.new_game(3, GAME.make_options({}), Chance(seed=6))[0].decks != started.decks


def test_bad_options_are_clear_errors():
    for raw in ({"stop_window_ms": -1}, {"bot_memory": "sometimes"}, {"bot_memory": "1.5"}, {"bot_memory": 2.0}):
        with pytest.raises(OptionsError) as err:
            GAME.make_options(raw)
        assert err.value.code == "bad_option"
    assert GAME.make_options({"stop_window_ms": 0, "bot_memory": "0.3"}).stop_window_ms == 0


# --- KM-1 ----------------------------------------------------------------------


def test_km1_top_card_is_revealed_to_everyone_then_placed_on_a_pile():
    table = Table(3, first=1)
    # the first card is shown in every view, the placer's and everyone else's
    for viewer in (None, 0, 1, 2):
        view = table.view(viewer)
        assert view.revealed == 0 and view.placer == 1 and view.deck_count == 49
    assert refused(table, 0, Place(0)) == "not_your_turn"
    assert refused(table, 1, Place(4)) == "bad_pile"
    events = table.place(1, 2, now_ms=100)
    assert events == [Placed(seat=1, pile=2, card=0, placement=1, placed_at_ms=100), Revealed(seat=2, card=1)]
    view = table.view(None)
    assert view.tops == (None, None, 0, None) and view.revealed == 1 and view.placer == 2


def test_km1_only_each_piles_top_card_is_visible():
    table = Table(2)
    table.place(0, 0)
    table.place(1, 0)
    table.place(0, 0)
    for viewer in (None, 0, 1):
        view = table.view(viewer)
        assert view.tops == (2, None, None, None) and view.pile_sizes == (3, 0, 0, 0)
        assert GAME.revealed_cards(view) == {2, 3}  # the top and the revealed next card


# --- KM-2 ----------------------------------------------------------------------


def test_km2_first_stop_wins_later_calls_rejected():
    table = Table(4)
    table.place(0, 0)
    table.place(1, 0)  # card 1 on card 0: same mask
    events = table.stop(3, placement=2)
    assert isinstance(events[0], Stopped) and events[0].caller == 3
    assert refused(table, 2, Stop(2)) == "already_called"
    assert refused(table, 2, Stop()) == "already_called"
    assert table.view(2).can_stop is None


def test_km2_placer_cannot_stop_own_placement_but_everyone_else_may():
    table = Table(4)
    table.place(0, 0)
    assert refused(table, 0, Stop()) == "own_placement"
    assert GAME.to_act(table.state) == {1, 2, 3}  # seat 1 also places next
    for seat in (1, 2, 3):
        assert Stop(1) in GAME.legal_actions(table.state, seat)
        assert table.view(seat).can_stop == 1
    assert GAME.legal_actions(table.state, 0) == []


def test_km2_stop_only_on_the_latest_placement_until_the_next_is_placed():
    table = Table(4)
    assert refused(table, 1, Stop()) == "no_placement"  # nothing placed yet
    table.place(0, 0)
    table.place(1, 1)
    # a call meant for placement 1 that arrives after placement 2 is refused,
    # not applied to the wrong card
    assert refused(table, 3, Stop(1)) == "no_placement"
    assert refused(table, 3, Stop(7)) == "no_placement"
    assert table.stop(3)[0].placement == 2  # no number: the latest


# --- KM-3 ----------------------------------------------------------------------


def test_km3_next_placement_refused_until_the_stop_window_has_passed():
    table = Table(3, stop_window_ms=2000)
    assert table.view(0).may_place_at_ms is None  # the round's first card: any time
    table.place(0, 0, now_ms=5_000)
    assert table.state.last_at_ms == 5_000
    assert table.view(1).may_place_at_ms == 7_000
    assert GAME.next_timer(table.state) == 7_000
    assert refused(table, 1, Place(1), now_ms=6_999) == "too_early"
    # a Stop is not held back by the window (nothing beneath: a wrong call)
    assert table.stop(2, now_ms=5_001)[0].at_ms == 5_001
    assert table.place(1, 1, now_ms=7_000)[0].placed_at_ms == 7_000


def test_place_is_offered_only_once_the_window_has_passed_km3():
    """legal_actions at a time lists Place only when decide would accept it
    then (a client that was offered it too early got 540 `too_early` refusals
    in one game)."""
    table = Table(3, stop_window_ms=2000)
    assert set(GAME.legal_actions(table.state, 0, 0)) == {Place(p) for p in range(4)}  # first card: any time
    table.place(0, 0, now_ms=5_000)
    assert GAME.legal_actions(table.state, 1, 6_999) == [Stop(1)]  # may still call Stop, not place
    assert refused(table, 1, Place(2), now_ms=6_999) == "too_early"
    assert GAME.legal_actions(table.state, 1, 7_000) == [Stop(1), *(Place(p) for p in range(4))]
    assert table.view(1).may_place_at_ms == 7_000  # the view says when
    # without a time: what the rules allow once every wait is over
    assert Place(0) in GAME.legal_actions(table.state, 1)


def test_km3_zero_window_for_bot_tables():
    table = Table(2, stop_window_ms=0)
    table.place(0, 0, now_ms=10)
    assert table.place(1, 0, now_ms=10)[0].placement == 2


# --- KM-4 ----------------------------------------------------------------------


def test_km4_each_matching_covered_card_moves_a_token_to_the_caller():
    table = Table(3)
    table.place(0, 0)  # card 0, mask 0
    table.place(1, 0)  # card 1, mask 0
    table.place(2, 1)
    table.place(0, 0)  # card 3, mask 0 on pile 0: two masks 0 beneath
    (stopped,) = table.stop(2)
    assert stopped.cards == (0, 1, 3) and stopped.matches == 2 and stopped.moved == 2 and stopped.returned == 0
    assert table.view(None).tokens == (3, 5, 7)


def test_km4_no_match_caller_returns_a_token_to_the_box():
    table = Table(3)
    table.place(0, 0)
    table.place(1, 0)
    table.stop(2)  # first stop: a match, for the setup
    table.place(2, 1)  # card 2 on the empty pile 1: nothing beneath
    (stopped,) = table.stop(0)
    assert stopped.matches == 0 and stopped.returned == 1 and stopped.moved == 0
    assert table.view(None).tokens == (4, 4, 6)
    assert sum(table.view(None).tokens) == 14  # one token went back to the box


def test_km4_placer_gives_only_the_tokens_they_have_and_km5_losing_the_last_ends_the_round():
    first = [5, 10, 15, 20, 25, 0, 30, 1, 35, 2]
    deck = first + [c for c in range(50) if c not in first]
    table = Table(2, decks=(deck, deck, deck))
    for seat, pile, wrong_stop in [
        (0, 0, True), (1, 1, False), (0, 2, True), (1, 3, False), (0, 0, True),
        (1, 1, False), (0, 2, True), (1, 1, False), (0, 3, False),
    ]:  # fmt: skip
        table.place(seat, pile)
        if wrong_stop:
            assert table.stop(1)[0].returned == 1  # nothing beneath matches
    assert table.view(None).tokens == (5, 1)
    table.place(1, 1)  # card 2 (mask 0) on 10, 0, 1: two matches, one token left
    stopped, ended, *next_round = table.stop(0)
    assert stopped.matches == 2 and stopped.moved == 1
    assert types(next_round) == ["km.round_started", "km.revealed"]  # in the same step
    assert ended == RoundEnded(round=1, ended_by=1, reason="last_token", tokens=(6, 0), at_ms=ended.at_ms)


def test_km4_rulebook_example_only_matches_of_the_top_count():
    # "Tom places a blue mask on pile #4; Lisa calls Stop and finds a matching
    # blue mask, and two green masks too, but the top was blue: Tom loses no
    # extra tokens." Tom = seat 0, Lisa = seat 1; blue = mask 0, green = mask 1.
    deck = [5, 0, 6, 10, 1] + [c for c in range(50) if c not in (5, 0, 6, 10, 1)]
    table = Table(2, decks=(deck, deck, deck))
    table.place(0, 3)  # green
    table.place(1, 3)  # blue
    table.place(0, 3)  # green
    table.place(1, 0)  # elsewhere
    table.place(0, 3)  # Tom's blue on pile #4
    (stopped,) = table.stop(1)
    assert stopped.cards == (5, 0, 6, 1) and stopped.matches == 1 and stopped.moved == 1
    assert table.view(None).tokens == (4, 6)


def test_km4_stop_reveals_the_pile_to_everyone_then_hides_it_again():
    table = Table(3)
    table.place(0, 0)
    table.place(1, 0)
    table.place(2, 0)
    events = table.stop(0)
    for viewer in (None, 0, 1, 2):
        assert GAME.revealed_cards(GAME.redact(events[0], viewer)) == {0, 1, 2}
        assert GAME.revealed_cards(table.view(viewer)) == {2, 3}  # top of pile 0, revealed card 3


# --- KM-5 ----------------------------------------------------------------------


def test_km5_caller_losing_the_last_token_ends_the_round_and_starts_the_next():
    deck = [0, 5, 10, 15, 20, 25, 30, 35, 40, 45] + [c for c in range(50) if c % 5]
    table = Table(2, decks=(deck, deck, deck))
    for placement in range(9):
        seat = placement % 2
        table.place(seat, placement % 4)  # ten different masks: never a match
        if seat == 0:
            events = table.stop(1)
    # The next round starts in the same step, with no timer.
    assert types(events) == ["km.stopped", "km.round_ended", "km.round_started", "km.revealed"]
    assert events[1].ended_by == 1 and events[1].reason == "last_token" and events[1].tokens == (5, 0)
    assert GAME.next_timer(table.state) is None
    assert table.view(None).placer == 1 and table.view(None).round == 2


def test_km5_empty_deck_round_ends_when_the_last_stop_window_has_passed():
    table = Table(3, first=2, stop_window_ms=1000)
    now = 0
    for placement in range(50):
        now += 1000
        table.place(table.state.placer, (placement * 3 // 50 + placement) % 4, now_ms=now)
    assert table.view(None).deck_count == 0 and table.state.placer is None
    last_placer = table.state.last_seat
    assert GAME.to_act(table.state) == frozenset({0, 1, 2}) - {last_placer}  # may still call Stop
    assert GAME.awaited(table.state) == frozenset()
    assert GAME.next_timer(table.state) == now + 1000
    assert table.timer(now + 999) == []
    events = table.timer(now + 1000)
    # The next round follows the round end by itself, in the same step.
    assert types(events) == ["km.round_ended", "km.round_started", "km.revealed"]
    assert events[0].reason == "deck_empty" and events[0].ended_by == last_placer
    assert events[1] == RoundStarted(round=2, first_seat=last_placer, tokens=5)
    assert GAME.next_timer(table.state) is None and table.timer(now + 1000) == []


def test_km5_stop_on_the_last_card_is_taken_until_the_round_end_is_logged_and_ends_it():
    table = Table(2, stop_window_ms=0)
    for placement in range(50):
        table.place(table.state.placer, placement % 4, now_ms=placement)
    # card 49 (mask 9) went on pile 1, onto card 45 (mask 9), placed by seat 1
    assert table.state.last_seat == 1 and table.state.piles[1][-2:] == (45, 49)
    # KM-5a: a 0 ms window (bot tables) bounds the chance by the round end in
    # the log, not by time: the drivers ask every bot before they log it.
    assert GAME.legal_actions(table.state, 0, 10**6) == [Stop(50)]
    events = table.stop(0, now_ms=10**6)  # long after the window, but no round end logged yet
    assert types(events) == ["km.stopped", "km.round_ended", "km.round_started", "km.revealed"]
    assert events[0].moved == 1
    assert events[1] == RoundEnded(round=1, ended_by=1, reason="deck_empty", tokens=(6, 4), at_ms=10**6)
    assert events[2:] == [RoundStarted(round=2, first_seat=1, tokens=5), Revealed(1, 0)]  # same step


def _to_the_last_card(window_ms: int) -> tuple[Table, int]:
    """Two players, IN_ORDER decks: 50 placements, one a window apart from
    1,000 ms on; card 49 (mask 9) ends on card 45 (mask 9), placed by seat 1.
    Returns the table and the last placement's time."""
    table = Table(2, stop_window_ms=window_ms)
    for placement in range(50):
        now = 1_000 + placement * window_ms
        table.place(table.state.placer, placement % 4, now_ms=now)
    assert table.state.placer is None and table.state.last_seat == 1
    return table, now


def test_km5a_a_stop_after_the_last_cards_window_is_too_late_though_no_round_end_is_logged():
    # The case once accepted: the window closed at 101,000 ms, a Stop came at 104,000.
    table, placed_at = _to_the_last_card(2000)
    assert placed_at == 99_000
    assert GAME.next_timer(table.state) == 101_000
    assert not any(isinstance(e, RoundEnded) for e in table.log)  # the round end is not logged yet
    assert refused(table, 0, Stop(), now_ms=104_000) == "too_late"
    assert refused(table, 0, Stop(50), now_ms=101_001) == "too_late"
    assert GAME.legal_actions(table.state, 0, 101_001) == []  # not offered either
    # the round still ends by its timer, and the log holds no Stop
    assert types(table.timer(104_000)) == ["km.round_ended", "km.round_started", "km.revealed"]
    assert not any(isinstance(e, Stopped) for e in table.log)


def test_km5a_a_stop_within_the_last_cards_window_is_taken_up_to_its_last_ms():
    table, placed_at = _to_the_last_card(2000)
    assert GAME.legal_actions(table.state, 0, 101_000) == [Stop(50)]
    events = table.stop(0, now_ms=101_000)  # the window's last ms (it lasts 2000 ms from 99,000)
    assert types(events) == ["km.stopped", "km.round_ended", "km.round_started", "km.revealed"]
    assert events[0].moved == 1


def test_km5a_an_earlier_card_may_be_challenged_until_the_next_is_placed():
    # KM-2 still holds for every card but the last: its chance has no clock.
    table = Table(3, stop_window_ms=2000)
    table.place(0, 0, now_ms=1_000)
    assert GAME.legal_actions(table.state, 2, 60_000) == [Stop(1)]
    assert table.stop(2, now_ms=60_000)[0].placement == 1


class _AskedBot:
    """Records every time it may call Stop; never calls; places on pile 0..3 in turn."""

    blind = True
    observes = False

    def __init__(self, seat: int, asked: list) -> None:
        self.seat, self.asked = seat, asked

    def observe(self, event) -> None:
        pass

    def act(self, view, legal, rng):
        if legal and type(legal[0]) is Stop:
            self.asked.append((legal[0].placement, self.seat))
        places = [a for a in legal if type(a) is Place]
        return places[len(self.asked) % len(places)] if places else None


@pytest.mark.parametrize("players", [2, 4])
def test_km5a_every_bot_is_asked_on_the_last_card_at_a_zero_window_table(players):
    """With stop_window_ms 0 the round-ending timer is due at once: the
    playout asks every seat but the placer before it applies it (before, the
    timer came first and the last card was never challenged)."""
    asked: list = []
    playout = Playout(GAME, players, GAME.make_options({"stop_window_ms": 0}), 3, ["random"] * players)
    playout.bots = [_AskedBot(seat, asked) for seat in range(players)]
    playout.run()
    lasts = [
        e for i, e in enumerate(playout.log) if isinstance(e, Placed) and isinstance(playout.log[i + 1], RoundEnded)
    ]
    assert len(lasts) == 3  # nobody calls Stop: every round ends on its deck's last card
    for last in lasts:
        assert sorted(seat for number, seat in asked if number == last.placement) == [
            s for s in range(players) if s != last.seat
        ]


def test_km5a_heuristic_bots_challenge_a_known_match_on_the_last_card_at_a_zero_window_table():
    # IN_ORDER decks: the 5th copy of mask 9 (card 49) must go on a pile that
    # already shows a mask 9, and the other perfect-memory bot knows it.
    fixed = {f"round-{r}": IN_ORDER for r in (1, 2, 3)} | {"first-player": [0]}
    playout = Playout(
        GAME, 2, GAME.make_options({"stop_window_ms": 0}), 1, ["heuristic"] * 2, chance=Chance(seed=1, fixed=fixed)
    )
    playout.run()
    ends = [i for i, e in enumerate(playout.log) if isinstance(e, RoundEnded)]
    for i in ends:
        stopped = playout.log[i - 1]
        assert isinstance(stopped, Stopped) and stopped.cards[-1] == 49 and stopped.matches >= 1
        assert playout.log[i].reason == "deck_empty"


# --- KM-6 ----------------------------------------------------------------------


def test_km6_score_is_the_sum_of_tokens_over_three_rounds_ties_share_the_win():
    table = Table(2, stop_window_ms=0)
    banked = []
    for _round_number in (1, 2, 3):
        table.place(table.state.placer, 0)
        table.place(table.state.placer, 0)  # cards 0, 1: same mask, 1 match
        table.stop(table.state.last_seat ^ 1)
        while table.state.placer is not None:
            table.place(table.state.placer, 1 + table.state.placements % 3)
        table.timer(10**9)  # the round ends; the next starts in the same step
        banked.append(next(e for e in reversed(table.log) if isinstance(e, RoundEnded)).tokens)
    final = table.log[-1]
    assert isinstance(final, GameEnded) and final.seed == 99
    expected = tuple(sum(tokens[s] for tokens in banked) for s in (0, 1))
    assert final.scores == expected
    result = GAME.result(table.state)
    assert result.scores == list(map(float, expected))
    if expected[0] == expected[1]:
        assert result.winners == [0, 1] and result.places == [1, 1]
    else:
        assert result.winners == [expected.index(max(expected))]


def test_km6_tied_scores_share_first_place():
    table = Table(2, stop_window_ms=0)
    for _ in range(3):  # nobody ever calls Stop: 5 + 5 + 5 each
        while table.state.placer is not None:
            table.place(table.state.placer, table.state.placements % 4)
        table.timer(10**9)
        if not table.state.over:
            table.timer(10**9)
    assert table.log[-1] == GameEnded(seed=99, scores=(15, 15), winners=(0, 1))
    assert GAME.result(table.state).places == [1, 1]


# --- KM-7 ----------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4, 6])
def test_km7_covered_cards_appear_in_no_view_until_the_game_ends(players):
    def check(before, seat, action, events, state):
        covered = {card for pile in state.piles for card in pile[:-1]}
        for viewer in (None, *range(players)):
            shown = GAME.revealed_cards(GAME.view(state, viewer))
            if state.over:
                assert shown == set(all_cards(state))  # the full view
            else:
                assert not shown & covered
            for event in events:  # only a Stop's own event shows a covered card
                if not isinstance(event, Stopped) and not state.over:
                    assert not GAME.revealed_cards(GAME.redact(event, viewer)) & covered

    options = GAME.make_options({"stop_window_ms": 0})
    for seed in range(3):
        Playout(GAME, players, options, seed, ["random"] * players, hook=check).run()


# --- turn model ----------------------------------------------------------------


def test_to_act_lists_placer_and_possible_callers_awaited_only_the_placer():
    table = Table(4, first=2)
    assert GAME.to_act(table.state) == {2} and GAME.awaited(table.state) == {2}
    table.place(2, 0)
    assert GAME.to_act(table.state) == {0, 1, 3} and GAME.waiting_for(table.state) == {3}
    table.stop(0)
    assert GAME.to_act(table.state) == {3}


def test_random_playouts_conserve_cards_and_end_after_three_rounds():
    rng = random.Random(1)
    for seed in range(5):
        players = rng.randint(2, 6)
        playout = Playout(GAME, players, GAME.make_options({}), seed, ["random"] * players)
        state = playout.run()
        assert state.over and state.round == 3
        assert sum(isinstance(e, RoundEnded) for e in playout.log) == 3
        assert sorted(all_cards(state)) == IN_ORDER


def test_actions_decode_from_json_shapes():
    assert GAME.decode_action({"type": "place", "pile": 3}) == Place(3)
    assert GAME.decode_action({"type": "stop", "placement": 17}) == Stop(17)
    assert GAME.decode_action({"type": "stop"}) == Stop(None)
    with pytest.raises(RuleError) as err:
        GAME.decode_action({"type": "peek", "pile": 0})
    assert err.value.code == "bad_action"
