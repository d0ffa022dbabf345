"""Pages for watching, replaying and following (issue 15): /live, the replay
viewer, tournaments, leaderboards and players. Shells like the others
(services/web/pages.py); our ES modules fill them from the public API."""

from __future__ import annotations

from html import escape

from litestar import Response, get

from engines.registry import available, get_game
from services.web.pages import shell

STYLES = ("watch.css",)


@get("/live", include_in_schema=False, sync_to_thread=False)
def live_page() -> Response[str]:
    main = """
<h1>Live now</h1>
<p class="hint">Tables in play, the most watched first. Open one to watch it live.</p>
<ul class="live" id="live-tables" aria-label="Tables in play"></ul>
<p class="status" role="status" id="live-status">Loading…</p>
"""
    return shell("Live now", main, ("live.js",), STYLES, page="live")


@get("/games/{game_id:str}/replay", include_in_schema=False, sync_to_thread=False)
def replay_page(game_id: str) -> Response[str]:
    main = f"""
<div id="replay" data-game-id="{escape(game_id)}">
  <h1 id="replay-title">Replay</h1>
  <p class="status" role="status" id="replay-status">Loading…</p>
  <section class="panel controls" aria-label="Replay controls">
    <div class="buttons">
      <button type="button" id="first" aria-label="First move">|◀</button>
      <button type="button" id="back" aria-label="Step back">◀</button>
      <button type="button" id="play" aria-pressed="false">Play</button>
      <button type="button" id="forward" aria-label="Step forward">▶</button>
      <button type="button" id="last" aria-label="Last move">▶|</button>
    </div>
    <p class="field inline"><label for="position">Move</label>
      <input type="range" id="position" min="0" max="0" value="0">
      <output id="position-text" for="position">0 / 0</output></p>
    <p class="field inline"><label for="speed">Speed</label>
      <select id="speed"><option value="2000">0.5×</option><option value="1000" selected>1×</option>
      <option value="500">2×</option><option value="250">4×</option></select>
      <label for="seat">Seen by</label><select id="seat"></select>
      <label for="jump">Jump to</label><select id="jump"></select></p>
  </section>
  <div class="replay-grid">
    <section class="panel" aria-labelledby="board-h"><h2 id="board-h">Board</h2><div id="board"></div>
      <h3>Hand</h3><div id="hand" class="hand" aria-label="Hand"></div></section>
    <section class="panel" aria-labelledby="moves-h"><h2 id="moves-h">Moves</h2><ol id="move-list" class="move-list"></ol></section>
  </div>
  <section class="panel" aria-labelledby="fair-h"><h2 id="fair-h">Fairness check</h2>
    <div id="fairness"><p class="hint">Shown once the game is over.</p></div>
    <p><a id="export" download>Download the export (NDJSON)</a></p></section>
</div>
"""
    return shell("Replay", main, ("replay.js",), ("table.css", *STYLES), page="replay")


@get("/tournaments", include_in_schema=False, sync_to_thread=False)
def tournaments_page() -> Response[str]:
    options = "".join(f'<option value="{g}">{escape(get_game(g).title)}</option>' for g in available())
    main = f"""
<h1>Tournaments</h1>
<section aria-labelledby="upcoming-h"><h2 id="upcoming-h">Upcoming</h2><ul class="tables" id="t-registering"></ul></section>
<section aria-labelledby="running-h"><h2 id="running-h">Running</h2><ul class="tables" id="t-running"></ul></section>
<section aria-labelledby="finished-h"><h2 id="finished-h">Finished</h2><ul class="tables" id="t-finished"></ul></section>
<section class="panel" aria-labelledby="create-h">
  <h2 id="create-h">Create a tournament</h2>
  <form id="create-form" aria-labelledby="create-h" class="form-grid">
    <p class="field"><label for="f-game">Game</label><select id="f-game" name="game">{options}</select></p>
    <p class="field"><label for="f-start">Start</label><input id="f-start" name="start" type="datetime-local" required></p>
    <p class="field"><label for="f-format">Format</label><select id="f-format" name="format">
      <option>swiss</option><option>round-robin</option><option>knockout</option></select></p>
    <p class="field"><label for="f-rounds">Rounds</label><input id="f-rounds" name="rounds" type="number" min="0" max="64" value="1"></p>
    <p class="field"><label for="f-table-size">Table size</label><input id="f-table-size" name="table_size" type="number" min="2" max="16" value="4"></p>
    <p class="field"><label for="f-min-table-size">Smallest table</label><input id="f-min-table-size" name="min_table_size" type="number" min="2" max="16"></p>
    <p class="field"><label for="f-min">Min entrants</label><input id="f-min" name="min_entrants" type="number" min="2" max="256" value="2"></p>
    <p class="field"><label for="f-max">Max entrants</label><input id="f-max" name="max_entrants" type="number" min="2" max="256" value="64"></p>
    <p class="field"><label for="f-bots">Bots</label><select id="f-bots" name="bots">
      <option value="fill">fill empty seats</option><option value="none">none</option><option value="bots_only">bots only</option></select></p>
    <p class="field"><label for="f-fill-to">Fill to</label><input id="f-fill-to" name="fill_to" type="number" min="2" max="256"></p>
    <p class="field"><label for="f-move">Time per move (s)</label><input id="f-move" name="move_s" type="number" min="0.1" step="0.1" value="30"></p>
    <p class="field"><label for="f-bank">Time bank (s)</label><input id="f-bank" name="bank_s" type="number" min="0" step="1" value="120"></p>
    <p class="field"><label for="f-every">Repeat every (minutes)</label><input id="f-every" name="every_minutes" type="number" min="1"></p>
    <p class="field"><label for="f-opens">Registration opens</label><input id="f-opens" name="opens" type="datetime-local"></p>
    <p class="field"><label for="f-closes">Registration closes</label><input id="f-closes" name="closes" type="datetime-local"></p>
    <p class="field"><label for="f-advance">Advance per table (knockout)</label><input id="f-advance" name="advance" type="number" min="1" max="15"></p>
    <p class="field"><label for="f-points">Points by place (e.g. 4: 3,2,1,0)</label><input id="f-points" name="points" placeholder="4: 3,2,1,0"></p>
    <p class="field"><label for="f-bye">Bye points</label><input id="f-bye" name="bye_points" type="number" step="0.5"></p>
    <p class="field inline"><input id="f-ranked" name="ranked" type="checkbox" checked><label for="f-ranked">Ranked</label></p>
    <p class="field inline"><input id="f-duplicate" name="duplicate" type="checkbox"><label for="f-duplicate">Duplicate (swiss)</label></p>
    <p class="field"><label for="f-options">Table options (JSON)</label><textarea id="f-options" name="options">{{}}</textarea></p>
    <p><button type="submit">Create tournament</button></p>
    <p class="error" role="alert" id="create-error"></p>
  </form>
</section>
"""
    return shell("Tournaments", main, ("tournaments.js",), STYLES, page="tournaments")


@get("/tournaments/{tournament_id:str}", include_in_schema=False, sync_to_thread=False)
def tournament_page(tournament_id: str) -> Response[str]:
    main = f"""
<div id="tournament" data-tournament-id="{escape(tournament_id)}">
  <h1 id="t-title">Tournament</h1>
  <p class="status" role="status" id="t-status">Loading…</p>
  <p id="t-actions" class="actions"></p>
  <p id="my-table" hidden></p>
  <section class="panel" aria-labelledby="rules-h"><h2 id="rules-h">Rules</h2><dl id="t-rules" class="rules"></dl></section>
  <section class="panel" aria-labelledby="entrants-h"><h2 id="entrants-h">Entrants</h2><ul id="t-entrants" class="entrants"></ul></section>
  <section class="panel" aria-labelledby="standings-h"><h2 id="standings-h">Standings</h2><div id="t-standings"></div></section>
  <section class="panel" aria-labelledby="rounds-h"><h2 id="rounds-h">Rounds</h2><div id="t-rounds"></div></section>
</div>
"""
    return shell("Tournament", main, ("tournament.js",), STYLES, page="tournament")


@get("/leaderboards", include_in_schema=False, sync_to_thread=False)
def leaderboards_index() -> Response[str]:
    return leaderboard_page.fn(available()[0])


@get("/leaderboards/{game:str}", include_in_schema=False, sync_to_thread=False)
def leaderboard_page(game: str) -> Response[str]:
    if game not in available():
        response = shell("Not found", "<h1>No such game</h1>")
        response.status_code = 404
        return response
    current = ' aria-current="page"'
    links = "".join(
        f'<li><a href="/leaderboards/{g}"{current if g == game else ""}>{escape(get_game(g).title)}</a></li>'
        for g in available()
    )
    main = f"""
<h1>Leaderboard: {escape(get_game(game).title)}</h1>
<nav aria-label="Games" class="games-nav"><ul>{links}</ul></nav>
<div id="leaderboard" data-game="{escape(game)}">
  <section aria-labelledby="people-h"><h2 id="people-h">People</h2><div id="lb-players"></div></section>
  <section aria-labelledby="agents-h"><h2 id="agents-h">Agents</h2><div id="lb-agents"></div></section>
  <section aria-labelledby="bots-h"><h2 id="bots-h">House bots</h2><div id="lb-bots"></div></section>
  <p class="hint">Rating = μ − 3σ (OpenSkill). <span class="badge">provisional</span> while σ is 5 or more.</p>
  <p class="status" role="status" id="lb-status"></p>
</div>
"""
    return shell(f"Leaderboard {get_game(game).title}", main, ("leaderboard.js",), STYLES, page="leaderboard")


@get("/players/{player_id:str}", include_in_schema=False, sync_to_thread=False)
def player_page(player_id: str) -> Response[str]:
    main = f"""
<div id="player" data-player-id="{escape(player_id)}">
  <h1 id="p-title">Player</h1>
  <p class="status" role="status" id="p-status">Loading…</p>
  <section class="panel" aria-labelledby="ratings-h"><h2 id="ratings-h">Rating history</h2><div id="p-charts"></div></section>
  <section class="panel" aria-labelledby="recent-h"><h2 id="recent-h">Recent games</h2><div id="p-games"></div></section>
  <section class="panel" aria-labelledby="ptourn-h"><h2 id="ptourn-h">Tournaments played</h2><ul id="p-tournaments"></ul></section>
</div>
"""
    return shell("Player", main, ("player.js",), STYLES, page="player")


ROUTES = [live_page, replay_page, tournaments_page, tournament_page, leaderboards_index, leaderboard_page, player_page]
