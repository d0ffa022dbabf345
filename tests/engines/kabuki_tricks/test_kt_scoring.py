"""Phase 4 scoring, the advanced variants and the game result (KT-3, KT-8,
KT-9, KT-12, KT-14; the Italian edition's complete scoring example)."""

from __future__ import annotations

from msgspec.structs import replace

from engines.kabuki_tricks import GAME
from engines.kabuki_tricks.cards import JOKER
from engines.kabuki_tricks.events import GameEnded, RoundEnded
from engines.kabuki_tricks.rules import score_round
from engines.kabuki_tricks.state import OVER
from engines.playout import play_game
from tests.engines.kabuki_tricks.kt_helpers import ORANGE, B, G, P, c, end_state

ANG, BETH, CHAD, DALILA, ELIOT = range(5)


def italian_example():
    """Ang 1 trick, predicted 1, final suit matches; Beth 3 of 3, no match; Chad
    1 trick, predicted 2, match; Dalila 2 of 2 beside a stronger actor than
    Chad's, match; Eliot kept the Joker and won 0 tricks."""
    return end_state(
        5,
        finals=[c("3G"), c("5O"), c("2O"), c("9P"), JOKER + ELIOT],
        tricks=[1, 3, 1, 2, 0],
        predictions=[1, 3, 2, 2, None],
        placed={G: ANG, P: DALILA, ORANGE: CHAD, B: BETH},
        order=(G, P, ORANGE, B),
    )


def test_italian_scoring_example_fixture():
    ended = score_round(italian_example())
    assert [line.total for line in ended.lines] == [4, 5, 2, 5, 5]
    ang, beth, chad, dalila, eliot = ended.lines
    assert (ang.tricks, ang.prediction, ang.suit, ang.joker) == (1, 2, 1, 0)
    assert (beth.tricks, beth.prediction, beth.suit) == (3, 2, 0)
    assert (chad.tricks, chad.prediction, chad.suit) == (1, 0, 1)
    assert (dalila.tricks, dalila.prediction, dalila.suit) == (2, 2, 1)
    assert (eliot.tricks, eliot.prediction, eliot.joker) == (0, 0, 5)
    assert ended.predictions == (1, 3, 2, 2, None) and ended.actors == (G, B, ORANGE, P, None)


def test_kt8_tie_group_counts_wrong_cards_strongest_actor_scores_2():
    # Chad (2, orange) and Dalila (2, purple) share a value: Dalila's actor is
    # stronger. If Dalila is wrong and Chad right, Chad still scores only 1.
    s = end_state(
        4,
        finals=[c("1G"), c("2G"), c("3G"), c("4G")],
        tricks=[3, 1, 2, 1],
        predictions=[None, None, 2, 2],
        placed={P: 3, ORANGE: 2},
        order=(G, P, ORANGE, B),
    )
    assert [line.prediction for line in score_round(s).lines] == [0, 0, 1, 0]
    # the end order decides: with orange moved above purple, Chad's card is the strongest
    s = replace(s, order=(0, 2, 1, 3))
    assert [line.prediction for line in score_round(s).lines] == [0, 0, 2, 0]


def test_kt8_unique_value_correct_scores_2():
    s = end_state(
        3, finals=[c("1G"), c("2G"), c("3G")], tricks=[1, 3, 3], predictions=[1, 3, None], placed={B: 0, G: 1}
    )
    assert [line.prediction for line in score_round(s).lines] == [2, 2, 0]


def test_kt9_suit_bonus_even_when_prediction_wrong():
    s = end_state(3, finals=[c("4B"), c("2G"), c("3G")], tricks=[3, 2, 2], predictions=[1, None, None], placed={B: 0})
    line = score_round(s).lines[0]
    assert (line.prediction, line.suit, line.total) == (0, 1, 4)


def test_kt3_kept_joker_scores_5_only_with_zero_tricks_and_has_no_prediction():
    s = end_state(3, finals=[JOKER, JOKER + 1, c("3G")], tricks=[0, 1, 6], predictions=[None, None, None], placed={})
    lines = score_round(s).lines
    assert (lines[0].joker, lines[0].total) == (5, 5)
    assert (lines[1].joker, lines[1].total) == (0, 1)


def test_kt14_failed_predictions_option():
    kwargs = dict(
        finals=[c("1G"), c("2P"), JOKER + 2], tricks=[2, 5, 0], predictions=[1, 2, None], placed={ORANGE: 0, B: 1}
    )
    off = score_round(end_state(3, **kwargs))
    on = score_round(end_state(3, options={"failed_predictions": True}, **kwargs))
    assert [x.failed for x in off.lines] == [0, 0, 0]
    assert [x.failed for x in on.lines] == [-1, -1, 0]  # the kept Joker is exempt (KT-3)
    assert [x.total for x in on.lines] == [x.total - 1 for x in off.lines[:2]] + [off.lines[2].total]


def test_kt14_toxic_number_rulebook_example_ang_and_beth_penalised():
    kwargs = dict(finals=[c("8G"), c("8P"), c("3B"), JOKER + 3], tricks=[2, 2, 3, 0], predictions=[None] * 4, placed={})
    on = score_round(end_state(4, options={"toxic_number": True}, **kwargs))
    assert [x.toxic for x in on.lines] == [-1, -1, 0, 0]
    assert [x.toxic for x in score_round(end_state(4, **kwargs)).lines] == [0, 0, 0, 0]
    low = score_round(end_state(4, options={"toxic_number": True}, high=False, **kwargs))
    assert [x.toxic for x in low.lines] == [0, 0, -1, 0]  # under Low the 3 is strongest


def test_kt12_tie_break_strongest_final_card_then_shared_for_jokers():
    s = end_state(4, finals=[c("2G"), c("8B"), c("5O"), JOKER + 3], tricks=[0] * 4, predictions=[None] * 4, placed={})
    s = replace(s, scores=(10, 10, 10, 3), phase=OVER)
    result = GAME.result(s)
    assert result.winners == [0]  # green beats the others despite the low number
    assert result.places == [1, 3, 2, 4]
    jokers = replace(s, hands=((JOKER,), (JOKER + 1,), (c("5O"),), (JOKER + 3,)), scores=(10, 10, 4, 3))
    assert GAME.result(jokers).winners == [0, 1]


def test_round_end_reveals_and_game_end_carries_seed_and_result():
    playout = play_game(GAME, 4, GAME.make_options({}), seed=21, bots=["random"] * 4)
    ends = [e for e in playout.log if isinstance(e, RoundEnded)]
    assert len(ends) == 4
    for e in ends:
        assert sum(e.tricks) == 7 and all(f is not None for f in e.finals)
        assert all(line.total == line.tricks + line.prediction + line.suit + line.joker for line in e.lines)
    final = playout.log[-1]
    assert isinstance(final, GameEnded) and final.seed == 21
    result = GAME.result(playout.state)
    assert list(final.scores) == [int(x) for x in result.scores]
    assert list(final.winners) == result.winners and list(final.places) == result.places
    totals = [sum(e.lines[s].total for e in ends) for s in range(4)]
    assert totals == list(final.scores)


def test_everything_is_deterministic_given_the_seed():
    a = play_game(GAME, 5, GAME.make_options({}), seed=8, bots=["heuristic"] + ["random"] * 4)
    b = play_game(GAME, 5, GAME.make_options({}), seed=8, bots=["heuristic"] + ["random"] * 4)
    assert a.log == b.log and a.state == b.state
    c2 = play_game(GAME, 5, GAME.make_options({}), seed=9, bots=["heuristic"] + ["random"] * 4)
    assert c2.log != a.log
