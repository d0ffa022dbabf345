"""Pages for watching, replaying and following: /live, the replay
viewer, tournaments, leaderboards and players. Shells like the others
(services/web/pages.py); our ES modules fill them from the public API."""

from __future__ import annotations

from html import escape

from litestar import Request, Response, get

from engines.registry import available
from services.web.i18n import lang_of, translator
from services.web.pages import game_links, loading_main, not_found, shell

STYLES = ("watch.css",)


@get("/live", include_in_schema=False, sync_to_thread=False)
def live_page(request: Request) -> Response[str]:
    _ = translator(lang_of(request))
    main = f"""
<h1>{_("nav.live")}</h1>
<p class="hint">{_("live.hint")}</p>
<ul class="live" id="live-tables" aria-label="{_("lobby.playing")}"></ul>
<p class="status" role="status" id="live-status">{_("status.loading")}</p>
"""
    # table.css: the miniatures draw each game's board as the table does.
    return shell(_("nav.live"), main, ("live.js",), ("table.css", *STYLES), page="live", request=request)


@get("/games/{game_id:str}/replay", include_in_schema=False, sync_to_thread=False)
def replay_page(game_id: str, request: Request) -> Response[str]:
    _ = translator(lang_of(request))
    rest = f"""  <section class="panel controls" aria-label="{_("replay.controls")}">
    <div class="buttons">
      <button type="button" id="first" aria-label="{_("replay.first")}">|◀</button>
      <button type="button" id="back" aria-label="{_("replay.back")}">◀</button>
      <button type="button" id="play" aria-pressed="false">{_("replay.play")}</button>
      <button type="button" id="forward" aria-label="{_("replay.forward")}">▶</button>
      <button type="button" id="last" aria-label="{_("replay.last")}">▶|</button>
    </div>
    <p class="field inline"><label for="position">{_("replay.move")}</label>
      <input type="range" id="position" min="0" max="0" value="0">
      <output id="position-text" for="position">0 / 0</output></p>
    <p class="field inline"><label for="speed">{_("replay.speed")}</label>
      <select id="speed"><option value="2000">0.5×</option><option value="1000" selected>1×</option>
      <option value="500">2×</option><option value="250">4×</option></select>
      <label for="seat">{_("replay.seen_by")}</label><select id="seat"></select>
      <label for="jump">{_("replay.jump")}</label><select id="jump"></select></p>
  </section>
  <div class="replay-grid">
    <section class="panel" aria-labelledby="board-h"><h2 id="board-h">{_("replay.board")}</h2><div id="board"></div>
      <h3>{_("replay.hand")}</h3><div id="hand" class="hand" aria-label="{_("replay.hand")}"></div></section>
    <section class="panel" aria-labelledby="moves-h"><h2 id="moves-h">{_("replay.moves")}</h2><ol id="move-list"
      class="move-list"></ol></section>
  </div>
  <section class="panel analysis" aria-labelledby="analysis-h"><h2 id="analysis-h">{_("an.title")}</h2>
    <div id="analysis"><p class="hint">{_("an.asking")}</p></div></section>
  <section class="panel" aria-labelledby="fair-h"><h2 id="fair-h">{_("replay.fairness")}</h2>
    <div id="fairness"><p class="hint">{_("replay.fair_later")}</p></div>
    <p><a id="export" download>{_("replay.export")}</a></p></section>
"""
    main = loading_main(_, "replay", "game-id", game_id, "replay", _("replay.title"), rest)
    return shell(_("replay.title"), main, ("replay.js",), ("table.css", *STYLES), page="replay", request=request)


@get("/tournaments", include_in_schema=False, sync_to_thread=False)
def tournaments_page(request: Request) -> Response[str]:
    _ = translator(lang_of(request))
    options = "".join(f'<option value="{g}">{_("game." + g)}</option>' for g in available())
    main = f"""
<h1>{_("nav.tournaments")}</h1>
<section aria-labelledby="upcoming-h"><h2 id="upcoming-h">{_("tn.upcoming")}</h2><ul class="tables"
  data-empty="{_("common.none_right_now")}" id="t-registering"></ul></section>
<section aria-labelledby="running-h"><h2 id="running-h">{_("tn.running")}</h2><ul class="tables"
  data-empty="{_("common.none_right_now")}" id="t-running"></ul></section>
<section aria-labelledby="finished-h"><h2 id="finished-h">{_("tn.finished")}</h2><ul class="tables"
  data-empty="{_("common.none_right_now")}" id="t-finished"></ul></section>
<section class="panel" aria-labelledby="create-h">
  <h2 id="create-h">{_("tn.create")}</h2>
  <form id="create-form" aria-labelledby="create-h" class="form-grid">
    <p class="field"><label for="f-game">{_("tn.f.game")}</label><select id="f-game" name="game">{options}</select></p>
    <p class="field"><label for="f-start">{_("tn.f.start")}</label><input id="f-start" name="start"
      type="datetime-local" required></p>
    <p class="field"><label for="f-format">{_("tn.f.format")}</label><select id="f-format" name="format">
      <option value="swiss">{_("tn.swiss")}</option><option value="round-robin">{_("tn.round-robin")}</option><option
        value="knockout">{_("tn.knockout")}</option></select></p>
    <p class="field"><label for="f-rounds">{_("tn.f.rounds")}</label><input id="f-rounds" name="rounds" type="number"
      min="0" max="64" value="1"></p>
    <p class="field"><label for="f-table-size">{_("tn.f.table_size")}</label><input id="f-table-size" name="table_size"
      type="number" min="2" max="16" value="4"></p>
    <p class="field"><label for="f-min-table-size">{_("tn.f.min_table_size")}</label><input id="f-min-table-size"
      name="min_table_size" type="number" min="2" max="16"></p>
    <p class="field"><label for="f-min">{_("tn.f.min")}</label><input id="f-min" name="min_entrants" type="number"
      min="2" max="256" value="2"></p>
    <p class="field"><label for="f-max">{_("tn.f.max")}</label><input id="f-max" name="max_entrants" type="number"
      min="2" max="256" value="64"></p>
    <p class="field"><label for="f-bots">{_("tn.f.bots")}</label><select id="f-bots" name="bots">
      <option value="fill">{_("tn.bots.fill")}</option><option value="none">{_("tn.bots.none")}</option><option
        value="bots_only">{_("tn.bots.only")}</option></select></p>
    <p class="field"><label for="f-fill-to">{_("tn.f.fill_to")}</label><input id="f-fill-to" name="fill_to"
      type="number" min="2" max="256"></p>
    <p class="field"><label for="f-move">{_("tn.f.move")}</label><input id="f-move" name="move_s" type="number"
      min="0.1" step="0.1" value="30"></p>
    <p class="field"><label for="f-bank">{_("tn.f.bank")}</label><input id="f-bank" name="bank_s" type="number" min="0"
      step="1" value="120"></p>
    <p class="field"><label for="f-every">{_("tn.f.every")}</label><input id="f-every" name="every_minutes"
      type="number" min="1"></p>
    <p class="field"><label for="f-opens">{_("tn.f.opens")}</label><input id="f-opens" name="opens"
      type="datetime-local"></p>
    <p class="field"><label for="f-closes">{_("tn.f.closes")}</label><input id="f-closes" name="closes"
      type="datetime-local"></p>
    <p class="field"><label for="f-advance">{_("tn.f.advance")}</label><input id="f-advance" name="advance"
      type="number" min="1" max="15"></p>
    <p class="field"><label for="f-points">{_("tn.f.points")}</label><input id="f-points" name="points"
      placeholder="4: 3,2,1,0"></p>
    <p class="field"><label for="f-bye">{_("tn.f.bye")}</label><input id="f-bye" name="bye_points" type="number"
      step="0.5"></p>
    <p class="field inline"><input id="f-ranked" name="ranked" type="checkbox" checked><label
      for="f-ranked">{_("tn.f.ranked")}</label></p>
    <p class="field inline"><input id="f-duplicate" name="duplicate" type="checkbox"><label
      for="f-duplicate">{_("tn.f.duplicate")}</label></p>
    <p class="field"><label for="f-options">{_("tn.f.options")}</label><textarea id="f-options"
      name="options">{{}}</textarea></p>
    <p><button type="submit">{_("tn.create_button")}</button></p>
    <p class="error" role="alert" id="create-error"></p>
  </form>
</section>
"""
    return shell(_("nav.tournaments"), main, ("tournaments.js",), STYLES, page="tournaments", request=request)


@get("/tournaments/{tournament_id:str}", include_in_schema=False, sync_to_thread=False)
def tournament_page(tournament_id: str, request: Request) -> Response[str]:
    _ = translator(lang_of(request))
    rest = f"""  <p id="t-actions" class="actions"></p>
  <p id="my-table" hidden></p>
  <section class="panel" aria-labelledby="rules-h"><h2 id="rules-h">{_("tn.rules")}</h2><dl id="t-rules"
    class="rules"></dl></section>
  <section class="panel" aria-labelledby="entrants-h"><h2 id="entrants-h">{_("tn.entrants")}</h2><ul id="t-entrants"
    class="entrants"></ul></section>
  <section class="panel" aria-labelledby="standings-h"><h2 id="standings-h">{_("tn.standings")}</h2><div
    id="t-standings"></div></section>
  <section class="panel" aria-labelledby="rounds-h"><h2 id="rounds-h">{_("tn.f.rounds")}</h2><div
    id="t-rounds"></div></section>
  <section class="panel" id="t-travellers-panel" aria-labelledby="travellers-h" hidden><h2
    id="travellers-h">{_("tn.trav.title")}</h2><p class="hint">{_("tn.trav.intro")}</p><div
    id="t-travellers"></div></section>
"""
    main = loading_main(_, "tournament", "tournament-id", tournament_id, "t", _("tn.title"), rest)
    return shell(_("tn.title"), main, ("tournament.js",), STYLES, page="tournament", request=request)


@get("/leaderboards", include_in_schema=False, sync_to_thread=False)
def leaderboards_index(request: Request) -> Response[str]:
    return _leaderboard(available()[0], request)


@get("/leaderboards/{game:str}", include_in_schema=False, sync_to_thread=False)
def leaderboard_page(game: str, request: Request) -> Response[str]:
    return _leaderboard(game, request)


def _leaderboard(game: str, request: Request) -> Response[str]:
    _ = translator(lang_of(request))
    if game not in available():
        return not_found(request, f"<h1>{_('howto.no_game')}</h1>")
    links = game_links(_, "/leaderboards/", game)
    main = f"""
<h1>{_("lb.title", game=_("game." + game))}</h1>
<nav aria-label="{_("nav.games")}" class="games-nav"><ul>{links}</ul></nav>
<div id="leaderboard" data-game="{escape(game)}">
  <section aria-labelledby="people-h"><h2 id="people-h">{_("lb.people")}</h2><div id="lb-players"></div></section>
  <section aria-labelledby="agents-h"><h2 id="agents-h">{_("lb.agents")}</h2><div id="lb-agents"></div></section>
  <section aria-labelledby="bots-h"><h2 id="bots-h">{_("lb.bots")}</h2><div id="lb-bots"></div></section>
  <p class="hint">{_("lb.scale")}</p>
  <p class="status" role="status" id="lb-status"></p>
</div>
"""
    return shell(
        _("lb.title", game=_("game." + game)), main, ("leaderboard.js",), STYLES, page="leaderboard", request=request
    )


@get("/players/{player_id:str}", include_in_schema=False, sync_to_thread=False)
def player_page(player_id: str, request: Request) -> Response[str]:
    _ = translator(lang_of(request))
    rest = f"""  <p id="p-completion" class="hint"></p>
  <section class="panel" aria-labelledby="ratings-h"><h2 id="ratings-h">{_("player.ratings")}</h2><div
      id="p-charts"></div></section>
  <section class="panel" aria-labelledby="recent-h"><h2 id="recent-h">{_("player.recent")}</h2><div
    id="p-games"></div></section>
  <section class="panel" aria-labelledby="ptourn-h"><h2 id="ptourn-h">{_("player.tournaments")}</h2><ul
    id="p-tournaments"></ul></section>
"""
    main = loading_main(_, "player", "player-id", player_id, "p", _("player.title"), rest)
    return shell(_("player.title"), main, ("player.js",), STYLES, page="player", request=request)


# The bot author's page rides along (app.py mounts this list).
from services.web.pages_agents import ROUTES as AGENT_PAGES  # noqa: E402

ROUTES = [
    *AGENT_PAGES,
    live_page,
    replay_page,
    tournaments_page,
    tournament_page,
    leaderboards_index,
    leaderboard_page,
    player_page,
]
