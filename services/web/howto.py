""" "How to play" texts, in our own words, each with the rulings that decide
what the rulebook leaves open. docs/rules/ is the one written source of the
rules: the tests check these pages against it (the same rulings, by id, on
every page and in every language) and against the engines.

What a page states as a rule of play is data here, not prose: the player
counts come from the engine, whether one must follow suit is `FOLLOW`, and
Tezuma Trick's abilities (their uses) and default Bid cards are read from its
engine. A test plays each page's follow rule against its engine, so that the
page and the game cannot say two things."""

from __future__ import annotations

from html import escape

from engines.registry import get_game
from engines.tezuma_trick.cards import ABILITY_NAMES, ABILITY_USES, DEFAULT_BID_CARDS
from services.web.i18n import text

# Whether a card of the led suit must be played when held: "must" or "free";
# games without tricks are absent.
FOLLOW = {"kabuki-tricks": "must", "cahoots": "free", "tezuma-trick": "must"}

# English texts; the other languages' are static/i18n/*.json under the keys
# howto_keys() lists. Per game: (title, summary paragraphs, rulings).
_PAGES: dict[str, tuple[str, list[str], list[tuple[str, str]]]] = {
    "kabuki-tricks": (
        "Kabuki Tricks",
        [
            "Trick-taking over several rounds. Four actors stand in a row, and their order decides which suit is "
            "strongest; a High/Low card decides whether high or low numbers win within a suit.",
            "The dealer is the Director: after seeing their hand they may turn High/Low and reorder the actors. "
            "The dealer leads the first trick with any number card; the winner of a trick leads the next.",
            "The card of the strongest suit in the trick wins, then the best number by High/Low; the led suit has "
            "no special rank. Example: green is the strongest actor and purple is led; a green 1 played by someone "
            "without purple beats every purple card.",
            "Each player holds one Joker, which never wins a trick. You may play it instead of a number card, even "
            "when you hold the led suit, but never to lead and only if nobody has played a Joker in this trick. "
            "Playing it places one of your prediction cards (1, 2 or 3 tricks) beside a free actor; then you may "
            "flip High/Low or swap two neighbouring actors.",
            "After seven tricks: 1 point per trick, 2 for a correct prediction (1 if a card of the same number sits "
            "beside a stronger actor), 1 if your last card has your actor's suit, and 5 if your last card is the "
            "Joker and you took no trick.",
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
            "Eleven tricks. Everyone plays two cards per trick, in two laps. The numbers of each suit on the table "
            "are added up, and the suit with the highest total wins; suits tied for it all win.",
            "Each player has a public identity card naming three of the six suits. When a suit on your card wins, "
            "you share in the trick's 4 points. Example: hearts win and are on two identity cards, so each of those "
            "two players scores 2.",
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
            "Before each hand everyone drafts three cards: a bid (which numbers of tricks pay), a pain suit (its "
            "cards in your won tricks cost you) and an ability you may use a few times.",
            "Every suit has three Trumps without a number. A Trump played off-suit is effective: the first "
            "effective Trump wins the trick. Otherwise the highest number of the led suit wins; a Trump of the led "
            "suit counts 0. Example: fans are led with the 6; a player without fans plays a Trump of masks and "
            "wins, even over a fan 9.",
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
            "On your turn the top card of the deck is shown to everyone and you place it on one of four piles; "
            "only each pile's top card stays visible.",
            "Anyone but the placer may call Stop! on that placement until the next card goes down. The pile is "
            "revealed: each card beneath that matches the top one moves a token from the placer to the caller. "
            "No match, and the caller loses a token. Example: two foxes lie under the fox just placed, so the "
            "placer hands the caller two tokens.",
            "Remember what went where. Three rounds; your score is the tokens you hold at each round's end.",
        ],
        [
            ("KM-1", "the card is shown to everyone, then placed; only pile tops are visible"),
            ("KM-2", "anyone but the placer may call Stop; the first call in the log wins"),
            ("KM-3", "the next placement waits for the Stop window, 2 seconds by default"),
            ("KM-4", "matches move tokens to the caller; no match costs the caller one"),
            ("KM-5", "a round ends on a last token lost or an empty deck"),
            ("KM-5a", "the last placement's Stop chance lasts the Stop window; later is too late"),
            ("KM-6", "3 rounds; tokens summed; ties share the win"),
            ("KM-7", "covered cards are not shown again until a Stop or the end"),
        ],
    ),
}

# Tezuma Trick's own sections: what each ability does (with an example), and
# how a hand scores. The abilities' names and uses, and the Bid cards, are the
# engine's (tt.ability.<name> in the glossary; ABILITY_USES; DEFAULT_BID_CARDS).
_TT_ABILITIES = {
    "sword_walking": "You win the trick even though you were not the first to play an effective Trump, or when "
    "your card ties for the highest value. Example: someone plays an off-suit Trump first; you, also out of the led "
    "suit, play another Trump with Sword Walking and win.",
    "butterfly_dance": "Played with a Trump: it is effective even though it follows suit, and even against Water "
    "Trick. Not for the leader. Example: masks are led and your only mask is a Trump; with Butterfly Dance it wins "
    "like an off-suit Trump.",
    "linking_ring": "You may play a card of any suit even though you hold the led suit; a Trump played this way is "
    "effective. Not for the leader. Example: fans are led, you hold fans, but you play a Trump of umbrellas with "
    "Linking Ring: an effective Trump.",
    "cup_and_ball": "Your card counts as the led suit, and you may play it even though you hold the led suit; a "
    "Trump played this way counts 0. Not for the leader. Example: butterflies are led with the 7; your fan 9 with "
    "Cup and Ball counts as a butterfly 9 and wins.",
    "fire_breathing": "Play two number cards of one suit, both allowed by the follow rule: they count as one card "
    "with the sum of their numbers, and after the trick the lower one returns to your hand, for all to see. "
    "Example: umbrellas are led with the 8; your umbrella 3 and 6 make 9 and win; the 3 comes back.",
    "paper_egg": "Announce it at your turn, before playing: you then play last, after everyone else. Not for the "
    "leader. Example: you wait to see whether someone plays an off-suit Trump before choosing your card.",
    "water_trick": "For this trick every Trump is ineffective, those already played included (not one played with "
    "Butterfly Dance). Example: an off-suit Trump was winning; you follow with a 7 and Water Trick, and the highest "
    "card of the led suit now wins.",
    "chicks": "Whoever wins the trick, you lead the next one. Example: you throw a low card with Chicks, lose the "
    "trick, and still lead your strong suit next.",
    "pail_dance": "Whoever wins the trick, the player on your left leads the next one; when Chicks and Pail Dance "
    "are both used in a trick, the later one decides. Example: you use it so that your left neighbour, not the "
    "winner, leads next.",
    "horse_swallowing": "Add 2 to your card's number; a Trump that follows suit becomes worth 2. Example: masks are "
    "led with the 8; your mask 7 becomes a 9 and wins.",
    "many_umbrellas": "Played with a 4 or a 5: its number doubles, to 8 or 10. Example: fans are led with the 9; "
    "your fan 5 becomes a 10 and wins.",
    "five_color_sand": "Instead of playing a card you win the trick; the others still play, and nothing beats it, "
    "not even Sword Walking. Your spare card at the end of the hand does not count. If you lead, the player on "
    "your left leads instead. Example: you need one more trick for your bid and take this one without a card.",
}
_TT_SECTIONS = {
    "abilities": "Each ability can be used as often per hand as its card says, at most once per trick, and is "
    "announced with the card it changes. A use counts even if the trick ends the same. Where two values end up "
    "equal and highest, the first played wins, unless Sword Walking says otherwise.",
    "bids": "Five bid cards are on the table (four with 3 players), drawn from these eight. A bid card pays its "
    "points when your number of tricks is one it lists, and nothing otherwise.",
    "scoring": "After 12 tricks: the points of your bid card if you hit it, minus 1 for every card of your pain "
    "suit among the cards you won, Trumps included. A hand never scores below 0. Example: with the bid 4, 5 or 6 "
    "tricks for 5 points, you take 5 tricks holding three cards of your pain suit: 5 - 3 = 2 points. With 7 tricks "
    "you would score 0.",
}


def howto_keys() -> list[str]:
    """The glossary keys of the other languages' texts (static/i18n/*.json):
    howto.<game>.p<n> per paragraph, ruling.<id> per ruling, and Tezuma
    Trick's sections. English is _PAGES (and _TT_*) itself."""
    keys = []
    for game, (_title, paragraphs, rulings) in _PAGES.items():
        keys += [f"howto.{game}.p{n}" for n in range(1, len(paragraphs) + 1)]
        keys += [f"ruling.{i}" for i, _t in rulings]
    keys += [f"howto.tezuma-trick.ability.{name}" for name in _TT_ABILITIES]
    keys += [f"howto.tezuma-trick.{section}" for section in _TT_SECTIONS]
    return keys


def _own(lang: str, key: str, english: str) -> str:
    return english if lang == "en" else text(lang, key)


def _tricks(lang: str, counts: tuple[int, ...]) -> str:
    """A bid card's trick counts in words: "0", "2 or 3", "0, 1 or 2", "7 to 12"."""
    words = [str(n) for n in counts]
    if len(counts) > 3 and list(counts) == list(range(counts[0], counts[-1] + 1)):
        return text(lang, "howto.tt.range", low=counts[0], high=counts[-1])
    if len(words) == 1:
        return words[0]
    return text(lang, "howto.tt.or", first=", ".join(words[:-1]), last=words[-1])


def _plural(lang: str, key: str, n: int) -> str:
    return text(lang, f"{key}.{'one' if n == 1 else 'other'}", n=n)


def _bid_example(lang: str, counts: tuple[int, ...], points: int) -> str:
    hit = counts[-1] if len(counts) < 4 else counts[len(counts) // 2]
    miss = next(n for n in (counts[0] - 1, counts[-1] + 1, 0, 12) if 0 <= n <= 12 and n not in counts)
    return text(
        lang,
        "howto.tt.bid_example",
        hit=_plural(lang, "howto.tt.tricks", hit),
        points=_plural(lang, "unit.points", points),
        miss=_plural(lang, "howto.tt.tricks", miss),
    )


def _tezuma_sections(lang: str) -> str:
    abilities = "".join(
        f"<li><strong>{escape(text(lang, f'tt.ability.{name}'))}</strong> "
        f"({escape(_plural(lang, 'howto.tt.uses', uses))}). "
        f"{escape(_own(lang, f'howto.tezuma-trick.ability.{name}', _TT_ABILITIES[name]))}</li>"
        for name, uses in zip(ABILITY_NAMES, ABILITY_USES, strict=True)
    )
    bids = "".join(
        f"<tr><td>{escape(_tricks(lang, counts))}</td><td>{points}</td>"
        f"<td>{escape(_bid_example(lang, counts, points))}</td></tr>"
        for counts, points in DEFAULT_BID_CARDS
    )
    section = {name: escape(_own(lang, f"howto.tezuma-trick.{name}", t)) for name, t in _TT_SECTIONS.items()}
    return (
        f'<section aria-labelledby="abilities-h"><h2 id="abilities-h">{escape(text(lang, "howto.tt.abilities"))}'
        f'</h2><p>{section["abilities"]}</p><ul class="abilities">{abilities}</ul></section>'
        f'<section aria-labelledby="bids-h"><h2 id="bids-h">{escape(text(lang, "howto.tt.bids"))}</h2>'
        f'<p>{section["bids"]}</p><table class="bids"><thead><tr><th>{escape(text(lang, "howto.tt.col.tricks"))}'
        f"</th><th>{escape(text(lang, 'howto.tt.col.points'))}</th><th>{escape(text(lang, 'howto.tt.col.example'))}"
        f"</th></tr></thead><tbody>{bids}</tbody></table></section>"
        f'<section aria-labelledby="scoring-h"><h2 id="scoring-h">{escape(text(lang, "howto.tt.scoring"))}</h2>'
        f"<p>{section['scoring']}</p></section>"
    )


def how_to_play(game: str, lang: str = "en") -> str | None:
    """The page's article HTML in `lang`, or None for an unknown game. The
    game's name is the glossary's (game.<id>): the rulebook's own where one
    exists in that language."""
    page = _PAGES.get(game)
    if page is None:
        return None
    title, paragraphs, rulings = page
    if lang != "en":
        paragraphs = [text(lang, f"howto.{game}.p{n}") for n in range(1, len(paragraphs) + 1)]
        rulings = [(i, text(lang, f"ruling.{i}")) for i, _t in rulings]
        title = text(lang, f"game.{game}")
    engine = get_game(game)
    facts = [text(lang, "howto.players", low=engine.min_players, high=engine.max_players)]
    if game in FOLLOW:
        facts.append(text(lang, f"howto.follow.{FOLLOW[game]}"))
    body = f'<p class="facts">{escape(" ".join(facts))}</p>' + "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
    if game == "tezuma-trick":
        body += _tezuma_sections(lang)
    rules = "".join(f"<li><strong>{escape(i)}</strong> {escape(t)}</li>" for i, t in rulings)
    return (
        f"<h1>{escape(text(lang, 'howto.title', game=title))}</h1>{body}"
        f'<section aria-labelledby="rulings-h"><h2 id="rulings-h">{escape(text(lang, "howto.rulings"))}</h2>'
        f'<p>{escape(text(lang, "howto.rulings_intro"))}</p><ul class="rulings">{rules}</ul></section>'
    )
