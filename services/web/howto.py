""" "How to play" texts, in our own words, each with the rulings
(../shared/RULES.md ids) that decide what the rulebook leaves open."""

from __future__ import annotations

from html import escape

from services.web.i18n import text

# (title, summary paragraphs, [(ruling id, what it settles)])
_PAGES: dict[str, tuple[str, list[str], list[tuple[str, str]]]] = {
    "kabuki-tricks": (
        "Kabuki Tricks",
        [
            "Trick-taking for 2 to 5 players over several rounds. Four actors stand in a row, and their order "
            "decides which suit is strongest; a High/Low card decides whether high or low numbers win within a suit.",
            "The dealer is the Director: after seeing their hand they may turn High/Low and reorder the actors. "
            "Anyone may lead any number card; there is no duty to follow suit.",
            "Each player holds one Joker. Playing it lets you place one of your prediction cards (1, 2 or 3 tricks) "
            "beside an actor, and then either flip High/Low, swap two neighbouring actors, "
            "or leave things as they are.",
            "Score for correct predictions, for ending the round with the card you kept, and watch the penalties of "
            "the advanced variants if the table uses them.",
        ],
        [
            ("KT-1", "prediction cards are worth 1, 2 and 3; nobody predicts 0"),
            ("KT-2", "at most one prediction per round, placed only when you play your Joker"),
            ("KT-3", "never playing the Joker: it is your final card, +5 if you took no trick"),
            ("KT-4", "no Joker lead, one Joker per trick, allowed even when you could follow, also in trick 7"),
            ("KT-5", "the strongest suit by actor order wins, then the best number by High/Low; a Joker never wins"),
            ("KT-6", "the Joker's extra: flip High/Low, or swap two adjacent actors, or nothing"),
            ("KT-7", "the fifth Joker of a 5-player round has no free actor: no placement"),
            ("KT-8", "prediction ties: the card beside the strongest actor scores 2, others 1"),
            ("KT-9", "+1 when your final card's suit matches the actor your prediction sits beside"),
            ("KT-10", "the Director may leave the configuration unchanged"),
            (
                "KT-11",
                "public: trick counts, where predictions sit, every played card; hidden: hands, prediction values",
            ),
            ("KT-12", "game ties go to the strongest final card of the last round"),
            ("KT-13", "two players: a dummy leads every trick from a face-down pile"),
            ("KT-14", "advanced variants (off by default): failed predictions, toxic number"),
        ],
    ),
    "cahoots": (
        "Cahoots",
        [
            "Three or four players, eleven tricks. Everyone plays two cards per trick, in two laps, with no duty "
            "to follow. The suits' totals on the table decide which suits win.",
            "Each player has a secret-looking but public identity card naming three of the five suits. When a "
            "suit you hold wins, you share in the points.",
            "After the cards are down, each player in turn takes a card from the table and keeps it (into the "
            "hand) or kills it; in the second pass each does the opposite with another card.",
        ],
        [
            ("CH-1", "the four identity cards and their suits; with 3 players one stays out"),
            ("CH-2", "a random dealer starts; the start player moves left after every trick"),
            ("CH-3", "two laps of one card each, no following rules"),
            ("CH-4", "keep/kill in two passes; all choices are public"),
            ("CH-5", "the players with most winning suits split the 4 points"),
            ("CH-6", "with 3 players a reserve card joins the killed cards each trick"),
            ("CH-7", "the last trick's keep/kill needs no choices in base scoring"),
            ("CH-8", "option: face-value scoring"),
            ("CH-9", "public: played cards, keep/kill choices, identity cards, scores; hidden: hands, the reserve"),
        ],
    ),
    "tezuma-trick": (
        "Tezuma Trick",
        [
            "Three or four players. Before each hand everyone drafts three things: a bid (how many tricks you aim "
            "for), a pain suit (its cards in your won tricks cost you) and an ability you may use.",
            "You must follow the led suit. Trumps win only when played off-suit; the highest number of the led "
            "suit wins otherwise.",
            "Abilities bend one trick: declare them with the card they change. Hit your bid, avoid your pain suit.",
        ],
        [
            ("TT-1", "the default set of 8 bid cards"),
            ("TT-2", "-1 per pain-suit card you won; a hand never scores below 0"),
            ("TT-3", "bids and abilities are dealt face up once per game"),
            ("TT-4", "the draft runs in snake order, one card of each type"),
            ("TT-5", "the start player leads the first trick"),
            ("TT-6", "the first effective Trump wins, else the highest of the led suit"),
            ("TT-7", "an ability is declared with its card; Paper Egg before playing; one use per trick"),
            ("TT-8", "the leader may not use Butterfly Dance, Paper Egg, Linking Ring or Cup and Ball"),
            ("TT-9", "Fire Breathing: two number cards of one suit count as one"),
            ("TT-10", "Five-Color Sand: you play no card and win the trick"),
            ("TT-11", "Sword Walking beats first-played priority"),
            ("TT-12", "Water Trick makes the trick's Trumps ineffective"),
            ("TT-13", "Chicks and Pail Dance together: the later one decides the next leader"),
            ("TT-14", "public: drafted cards, ability uses, played cards, trick counts"),
            ("TT-15", "abilities that name a card need such a card"),
        ],
    ),
    "kabuki-masks": (
        "Kabuki, the mask memory game",
        [
            "Two to six players. On your turn the top card of the deck is shown to everyone and you place it on "
            "one of four piles; only each pile's top card stays visible.",
            "Anyone but the placer may call Stop! on that placement until the next card goes down. The pile is "
            "revealed: each card beneath that matches the top one moves a token from the placer to the caller. "
            "No match, and the caller loses a token.",
            "Remember what went where. Three rounds; your score is the tokens you hold at each round's end.",
        ],
        [
            ("KM-1", "the card is shown to everyone, then placed; only pile tops are visible"),
            ("KM-2", "anyone but the placer may call Stop; the first call in the log wins"),
            ("KM-3", "the next placement waits for the stop window (stop_window_ms)"),
            ("KM-4", "matches move tokens to the caller; no match costs the caller one"),
            ("KM-5", "a round ends on a last token lost or an empty deck"),
            ("KM-5a", "the last placement's Stop chance lasts the stop window; later is too late"),
            ("KM-6", "3 rounds; tokens summed; ties share the win"),
            ("KM-7", "covered cards are not shown again until a Stop or the end"),
        ],
    ),
}


def howto_keys() -> list[str]:
    """The glossary keys of the other languages' texts (static/i18n/*.json):
    howto.<game>.p<n> per paragraph, ruling.<id> per ruling. English is
    _PAGES itself."""
    keys = []
    for game, (_title, paragraphs, rulings) in _PAGES.items():
        keys += [f"howto.{game}.p{n}" for n in range(1, len(paragraphs) + 1)]
        keys += [f"ruling.{i}" for i, _t in rulings]
    return keys


def how_to_play(game: str, lang: str = "en") -> str | None:
    """The page's article HTML in `lang`, or None for an unknown
    game. The game's name is the glossary's (game.<id>): the rulebook's own
    where one exists in that language."""
    page = _PAGES.get(game)
    if page is None:
        return None
    title, paragraphs, rulings = page
    if lang != "en":
        paragraphs = [text(lang, f"howto.{game}.p{n}") for n in range(1, len(paragraphs) + 1)]
        rulings = [(i, text(lang, f"ruling.{i}")) for i, _t in rulings]
        title = text(lang, f"game.{game}")
    body = "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
    rules = "".join(f"<li><strong>{escape(i)}</strong> {escape(t)}</li>" for i, t in rulings)
    return (
        f"<h1>{escape(text(lang, 'howto.title', game=title))}</h1>{body}"
        f'<section aria-labelledby="rulings-h"><h2 id="rulings-h">{escape(text(lang, "howto.rulings"))}</h2>'
        f'<p>{escape(text(lang, "howto.rulings_intro"))}</p><ul class="rulings">{rules}</ul></section>'
    )
