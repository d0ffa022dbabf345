"""KT-11: what each viewer sees, in views and redacted events."""

from __future__ import annotations

import pytest

from engines.core import Chance, OptionsError
from engines.kabuki_tricks import GAME
from engines.kabuki_tricks.cards import player_card
from engines.kabuki_tricks.events import Dealt, JokerPlayed, RoundEnded, Started
from engines.kabuki_tricks.rules import start
from engines.playout import Playout
from tests.engines.kabuki_tricks.kt_helpers import B, Table, c


def test_kt11_start_event_hides_seed_and_decks_from_everyone():
    (started,) = start(4, GAME.make_options({}), Chance(seed=77))
    assert started.seed == 77 and len(started.decks) == 4
    for viewer in (None, 0, 3):
        public = GAME.redact(started, viewer)
        assert isinstance(public, Started) and public.seed is None and public.decks == ()
        assert not GAME.revealed_cards(public)


def test_kt11_deal_shows_each_seat_only_its_hand():
    table = Table(2, dealer=0)
    (dealt,) = table.deal()
    mine = GAME.redact(dealt, 1)
    assert isinstance(mine, Dealt) and mine.hands[1] == dealt.hands[1] and mine.hands[0] == ()
    assert mine.dummy == () and mine.discard == ()  # the dummy pile is face-down (KT-13)
    assert GAME.redact(dealt, None).hands == ((), ())


def test_kt11_player_card_position_public_value_private():
    table = Table(3, hands={0: [c("5G")]}, dealer=0)
    table.deal()
    table.direct()
    table.play(0, "5G")
    (event,) = table.joker(1, actor=B, prediction=3)
    assert GAME.redact(event, 1).prediction == 3
    for viewer in (None, 0, 2):
        seen = GAME.redact(event, viewer)
        assert isinstance(seen, JokerPlayed) and seen.prediction is None and seen.actor == B
        view = GAME.view(table.state, viewer)
        assert view.seats[1].actor == B and view.seats[1].prediction is None
        assert player_card(1, 3) in GAME.hidden_cards(table.state, viewer)
    own = GAME.view(table.state, 1)
    assert own.seats[1].prediction == 3 and player_card(1, 3) not in GAME.hidden_cards(table.state, 1)


def test_kt11_views_show_played_cards_and_counts_not_hands_or_discard():
    table = Table(4, hands={0: [c("5G")]}, dealer=0)
    table.deal()
    table.direct()
    table.play(0, "5G")
    spectator = GAME.view(table.state, None)
    assert spectator.hand == () and spectator.hands == () and spectator.discard == ()
    assert spectator.trick == ((0, c("5G")),)
    assert [s.hand_size for s in spectator.seats] == [7, 8, 8, 8]
    seat2 = GAME.view(table.state, 2)
    assert seat2.hand == table.state.hands[2]
    hidden = GAME.hidden_cards(table.state, 2)
    assert set(table.state.discard) <= hidden and set(table.state.hands[1][:-1]) <= hidden
    assert not GAME.revealed_cards(seat2) & hidden


def test_kt11_round_end_reveals_predictions_final_cards_and_piles_publicly():
    playout = Playout(GAME, 3, GAME.make_options({}), 4, ["random"] * 3)
    while playout.state.last_round is None:
        playout.step()
    ended = playout.state.last_round
    assert isinstance(ended, RoundEnded)
    assert GAME.redact(ended, None) == ended
    view = GAME.view(playout.state, None)
    assert view.phase == "deal" and view.last_round == ended
    assert len(ended.discard) == 7 and sum(len(t) for seat in ended.won for t in seat) == 7 * 3
    assert not GAME.hidden_cards(playout.state, None)
    playout.step()  # the next deal: last round's cards are dealt again, so the reveal leaves the view
    assert GAME.view(playout.state, 0).last_round is None


def test_after_game_over_every_view_is_full():
    playout = Playout(GAME, 4, GAME.make_options({}), 5, ["random"] * 4)
    playout.run()
    view = GAME.view(playout.state, None)
    assert view.full and view.seed == 5 and len(view.hands) == 4 and view.turn is None
    assert all(sv.prediction is not None for sv in view.seats if sv.actor is not None)


def test_options_defaults_and_validation():
    options = GAME.make_options({})
    assert (options.second_after_dummy_win, options.failed_predictions, options.toxic_number) == (
        "higher_human",
        False,
        False,
    )
    for bad in ({"second_after_dummy_win": "dealer"}, {"toxic_number": "yes"}, {"colour": 1}):
        with pytest.raises(OptionsError) as err:
            GAME.make_options(bad)
        assert err.value.code == "bad_option"
    with pytest.raises(OptionsError):
        GAME.check_players(1)
