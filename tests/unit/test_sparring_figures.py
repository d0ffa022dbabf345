"""A sparring report's figures count a forfeited game as what it is: last
place, no win, no score of the agent's own (the house bot's points after a
hand-over are not the agent's), and no duplicate difference; it is counted
apart. So an agent that fails every call never looks better than one that
plays, however well the house bot then plays its seat."""

from __future__ import annotations

from services.app.agents.sparring_report import headline


def _game(score: float, table_place: int, won: bool, forfeited: bool, difference: float | None = None) -> dict:
    entry = {"status": "finished", "score": score, "table_place": table_place, "won": won, "forfeited": forfeited}
    if difference is not None:
        entry["difference"] = difference
    return entry


def test_forfeited_games_are_last_never_won_and_outside_the_score_mean() -> None:
    # The house bot "won" two of the three forfeited games with high scores.
    failing = [_game(14.0, 3, False, True), _game(12.0, 3, False, True), _game(9.0, 3, False, True)]
    figures = headline(failing)
    assert figures["forfeited"] == 3 and figures["finished"] == 3
    assert figures["mean_score"] is None, "no score of its own"
    assert figures["mean_place"] == 3.0 and figures["wins"] == 0
    playing = [_game(6.0, 2, False, False), _game(8.0, 1, True, False), _game(5.0, 3, False, False)]
    honest = headline(playing)
    assert honest["mean_place"] < figures["mean_place"] and honest["wins"] > figures["wins"]
    assert honest["mean_score"] == round((6 + 8 + 5) / 3, 3) and honest["forfeited"] == 0


def test_a_mixed_series_keeps_its_forfeits_apart_and_out_of_the_duplicate_difference() -> None:
    results = [
        _game(7.0, 1, True, False, difference=2.0),
        _game(13.0, 3, False, True, difference=None),  # no difference: the cards were not the agent's to play
        _game(4.0, 2, False, False, difference=-1.0),
        {"status": "playing"},
    ]
    figures = headline(results)
    assert figures["finished"] == 3 and figures["forfeited"] == 1
    assert figures["mean_score"] == 5.5 and figures["wins"] == 1
    assert figures["mean_place"] == round((1 + 3 + 2) / 3, 3)
    assert figures["differences"] == [2.0, -1.0]
