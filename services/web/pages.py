"""The web app's pages (issue 14): small HTML shells rendered on the server;
our own ES modules in static/ fill them from the public API.

No page loads anything from another host (the Content-Security-Policy says
so to the browser too), and nothing is built at install time: the files
ship inside the package (pyproject package-data)."""

from __future__ import annotations

from html import escape
from pathlib import Path

from litestar import Response, get
from litestar.static_files import create_static_files_router

from engines.registry import available, get_game
from services.web.howto import how_to_play

STATIC = Path(__file__).parent / "static"
ASSETS = "/assets"
# Our own scripts only; inline style attributes are allowed (cards are
# positioned with them), inline scripts and other hosts are not.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)


def shell(title: str, main: str, scripts: tuple[str, ...] = (), styles: tuple[str, ...] = (), page: str = "") -> Response[str]:
    """A page: header with navigation (filled by nav.js), `main`, our modules."""
    links = "".join(f'<link rel="stylesheet" href="{ASSETS}/{s}">' for s in ("app.css", *styles))
    modules = "".join(f'<script type="module" src="{ASSETS}/{s}"></script>' for s in ("nav.js", *scripts))
    html = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} · Hanamichi</title>
<link rel="icon" href="{ASSETS}/icon.svg" type="image/svg+xml">
{links}
</head>
<body data-page="{escape(page)}">
<a class="skip" href="#main">Skip to content</a>
<header class="site">
  <a class="brand" href="/">Hanamichi</a>
  <nav aria-label="Main">
    <ul>
      <li><a href="/">Lobby</a></li>
      <li><a href="/how-to-play/kabuki-tricks">How to play</a></li>
      <li><a href="/live">Live now</a></li>
      <li><a href="/tournaments">Tournaments</a></li>
      <li><a href="/leaderboards">Leaderboards</a></li>
    </ul>
  </nav>
  <div class="who" id="who" aria-live="polite"></div>
</header>
<main id="main" tabindex="-1">
{main}
</main>
{modules}
</body>
</html>
"""
    return Response(html, media_type="text/html; charset=utf-8", headers={"Content-Security-Policy": CSP, "Cache-Control": "no-store"})


def _field(label: str, name: str, kind: str = "text", autocomplete: str = "", extra: str = "") -> str:
    return (
        f'<p class="field"><label for="{name}">{label}</label>'
        f'<input id="{name}" name="{name}" type="{kind}" autocomplete="{autocomplete}" required {extra}></p>'
    )


@get("/", include_in_schema=False, sync_to_thread=False)
def lobby_page() -> Response[str]:
    main = """
<h1>Lobby</h1>
<section aria-labelledby="new-table-h" class="panel" id="new-table">
  <h2 id="new-table-h">New table</h2>
  <p class="hint" id="new-table-signin" hidden><a href="/signin">Sign in</a> to open a table.</p>
  <form id="new-table-form" aria-labelledby="new-table-h" hidden></form>
</section>
<section aria-labelledby="open-h"><h2 id="open-h">Open tables</h2><ul class="tables" id="tables-open" aria-labelledby="open-h"></ul></section>
<section aria-labelledby="playing-h"><h2 id="playing-h">Tables in play</h2><ul class="tables" id="tables-playing" aria-labelledby="playing-h"></ul></section>
<section aria-labelledby="finished-h"><h2 id="finished-h">Recently finished</h2><ul class="tables" id="tables-finished" aria-labelledby="finished-h"></ul></section>
<p class="status" role="status" id="lobby-status"></p>
"""
    return shell("Lobby", main, ("lobby.js",), page="lobby")


@get("/signup", include_in_schema=False, sync_to_thread=False)
def signup_page() -> Response[str]:
    main = f"""
<h1>Sign up</h1>
<form id="signup-form" class="panel narrow" aria-labelledby="signup-h" novalidate>
  <h2 id="signup-h" class="visually-hidden">Create an account</h2>
  {_field("Name", "name", autocomplete="username", extra='maxlength="40"')}
  {_field("Password", "password", "password", "new-password", 'minlength="8" maxlength="200"')}
  <p class="hint">8 characters or more. Names are unique, whatever their case.</p>
  <p><button type="submit">Sign up</button></p>
  <p class="error" role="alert" id="form-error"></p>
</form>
<p>Already have an account? <a href="/signin">Sign in</a></p>
"""
    return shell("Sign up", main, ("forms.js",), page="signup")


@get("/signin", include_in_schema=False, sync_to_thread=False)
def signin_page() -> Response[str]:
    main = f"""
<h1>Sign in</h1>
<form id="signin-form" class="panel narrow" aria-labelledby="signin-h" novalidate>
  <h2 id="signin-h" class="visually-hidden">Sign in to your account</h2>
  {_field("Name", "name", autocomplete="username", extra='maxlength="40"')}
  {_field("Password", "password", "password", "current-password", 'maxlength="200"')}
  <p><button type="submit">Sign in</button></p>
  <p class="error" role="alert" id="form-error"></p>
</form>
<p>No account yet? <a href="/signup">Sign up</a></p>
"""
    return shell("Sign in", main, ("forms.js",), page="signin")


@get("/account", include_in_schema=False, sync_to_thread=False)
def account_page() -> Response[str]:
    main = f"""
<h1>Account</h1>
<p id="account-signed-out" hidden>You are not signed in. <a href="/signin">Sign in</a></p>
<div id="account" hidden>
  <p>Signed in as <strong id="account-name"></strong>.</p>
  <section class="panel narrow" aria-labelledby="password-h">
    <h2 id="password-h">Password</h2>
    <form id="password-form" aria-labelledby="password-h" novalidate>
      {_field("New password", "new-password", "password", "new-password", 'minlength="8" maxlength="200"')}
      <p><button type="submit">Save password</button></p>
      <p class="status" role="status" id="password-status"></p>
    </form>
  </section>
  <section class="panel narrow" aria-labelledby="token-h">
    <h2 id="token-h">API token</h2>
    <p>Programs (bots, scripts) act for you with <code>Authorization: Bearer &lt;token&gt;</code>.
    A new token replaces the old one, which stops working. It is shown once: copy it.</p>
    <p><button type="button" id="rotate-token">New API token</button></p>
    <p class="token-out" id="token-out" hidden><label for="token-value">Your new token</label>
      <input id="token-value" readonly></p>
    <p class="status" role="status" id="token-status"></p>
  </section>
</div>
"""
    return shell("Account", main, ("account.js",), page="account")


@get("/how-to-play/{game:str}", include_in_schema=False, sync_to_thread=False)
def how_to_play_page(game: str) -> Response[str]:
    text = how_to_play(game)
    if text is None:
        games = "".join(f'<li><a href="/how-to-play/{g}">{escape(get_game(g).title)}</a></li>' for g in available())
        response = shell("Not found", f"<h1>No such game</h1><p>Rules are here for:</p><ul>{games}</ul>")
        response.status_code = 404
        return response
    current = ' aria-current="page"'
    others = "".join(
        f'<li><a href="/how-to-play/{g}"{current if g == game else ""}>{escape(get_game(g).title)}</a></li>'
        for g in available()
    )
    main = f'<nav aria-label="Games" class="games-nav"><ul>{others}</ul></nav><article class="howto">{text}</article>'
    return shell(f"How to play {get_game(game).title}", main, page="howto")


@get("/games/{game_id:str}", include_in_schema=False, sync_to_thread=False)
def table_page(game_id: str) -> Response[str]:
    """A table: the page's code is table.js/table.css (the table's own
    module); this shell gives it the game id and the regions it fills."""
    main = f"""
<div id="table" data-game-id="{escape(game_id)}">
  <h1 id="table-title">Table</h1>
  <p class="status" role="status" id="table-status">Loading…</p>
</div>
"""
    return shell("Table", main, ("table.js",), ("table.css",), page="table")


def static_router():
    """services/web/static/: our CSS and ES modules (package-data)."""
    return create_static_files_router(path=ASSETS, directories=[STATIC], include_in_schema=False, name="web-assets")


ROUTES = [lobby_page, signup_page, signin_page, account_page, how_to_play_page, table_page]
