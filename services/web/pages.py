"""The web app's pages: small HTML shells rendered on the server;
our own ES modules in static/ fill them from the public API.

No page loads anything from another host (the Content-Security-Policy says
so to the browser too), and nothing is built at install time: the files
ship inside the package (pyproject package-data)."""

from __future__ import annotations

from html import escape
from pathlib import Path

from litestar import Request, Response, get
from litestar.static_files import create_static_files_router

from engines.registry import available
from services.web.howto import how_to_play
from services.web.i18n import COOKIE, LANGS, lang_of, switch, translator
from services.web.redirects import local_path

STATIC = Path(__file__).parent / "static"
ASSETS = "/assets"
# Our own scripts only; inline style attributes are allowed (cards are
# positioned with them), inline scripts and other hosts are not.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)


def shell(
    title: str,
    main: str,
    scripts: tuple[str, ...] = (),
    styles: tuple[str, ...] = (),
    page: str = "",
    request: Request | None = None,
) -> Response[str]:
    """A page: header with navigation (filled by nav.js) and the language
    switch, `main`, our modules. The language is the request's (i18n.py);
    the modules read it from <html lang> (i18n.js)."""
    lang = lang_of(request) if request is not None else "en"
    _ = translator(lang)
    here = "/"
    if request is not None:
        here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    links = "".join(f'<link rel="stylesheet" href="{ASSETS}/{s}">' for s in ("app.css", *styles))
    modules = "".join(f'<script type="module" src="{ASSETS}/{s}"></script>' for s in ("nav.js", *scripts))
    html = f"""<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} · Hanamichi</title>
<link rel="icon" href="{ASSETS}/icon.svg" type="image/svg+xml">
{links}
</head>
<body data-page="{escape(page)}">
<a class="skip" href="#main">{_("nav.skip")}</a>
<header class="site">
  <a class="brand" href="/">Hanamichi</a>
  <nav aria-label="{_("nav.main")}">
    <ul>
      <li><a href="/">{_("nav.lobby")}</a></li>
      <li><a href="/how-to-play/kabuki-tricks">{_("nav.howto")}</a></li>
      <li><a href="/live">{_("nav.live")}</a></li>
      <li><a href="/tournaments">{_("nav.tournaments")}</a></li>
      <li><a href="/leaderboards">{_("nav.leaderboards")}</a></li>
      <li><a href="/agents">{_("nav.agents")}</a></li>
    </ul>
  </nav>
  <div class="who" id="who" aria-live="polite"></div>
  {switch(lang, here)}
</header>
<main id="main" tabindex="-1">
{main}
</main>
{modules}
</body>
</html>
"""
    return Response(
        html,
        media_type="text/html",  # Litestar adds "; charset=utf-8" to text types
        headers={"Content-Security-Policy": CSP, "Cache-Control": "no-store"},
    )


def not_found(request: Request, main: str) -> Response[str]:
    """The 404 page of a game we do not have (how to play, leaderboards)."""
    response = shell(translator(lang_of(request))("page.not_found"), main, request=request)
    response.status_code = 404
    return response


def game_links(_, prefix: str, current: str | None = None) -> str:
    """A list item linking `prefix` + game for each game; `current` is marked for screen readers."""
    mark = ' aria-current="page"'
    return "".join(
        f'<li><a href="{prefix}{g}"{mark if g == current else ""}>{_("game." + g)}</a></li>' for g in available()
    )


def loading_main(_, region: str, data: str, value: str, ids: str, title: str, rest: str = "") -> str:
    """The main of a page about one thing (a table, a replay, a tournament, a
    player): the region carries the id its module reads (`data-<data>`),
    then a heading the module retitles and a status line until it has loaded."""
    return f"""
<div id="{region}" data-{data}="{escape(value)}">
  <h1 id="{ids}-title">{title}</h1>
  <p class="status" role="status" id="{ids}-status">{_("status.loading")}</p>
{rest}</div>
"""


def _field(label: str, name: str, kind: str = "text", autocomplete: str = "", extra: str = "") -> str:
    return (
        f'<p class="field"><label for="{name}">{label}</label>'
        f'<input id="{name}" name="{name}" type="{kind}" autocomplete="{autocomplete}" required {extra}></p>'
    )


@get("/", include_in_schema=False, sync_to_thread=False)
def lobby_page(request: Request) -> Response[str]:
    _ = translator(lang_of(request))
    main = f"""
<h1>{_("lobby.title")}</h1>
<section aria-labelledby="play-now-h" class="panel" id="play-now">
  <h2 id="play-now-h">{_("qp.title")}</h2>
  <p class="hint">{_("qp.intro")}</p>
  <p class="hint" id="play-now-signin" hidden><a href="/signin">{_("nav.signin")}</a> {_("qp.signin")}</p>
  <ul class="play-now" id="play-now-games" aria-labelledby="play-now-h" hidden></ul>
  <p class="status" role="status" id="play-now-status"></p>
</section>
<section aria-labelledby="new-table-h" class="panel" id="new-table">
  <h2 id="new-table-h">{_("lobby.new")}</h2>
  <p class="hint" id="new-table-signin" hidden><a href="/signin">{_("nav.signin")}</a> {_("lobby.to_open")}</p>
  <form id="new-table-form" aria-labelledby="new-table-h" hidden></form>
</section>
<section aria-labelledby="open-h"><h2 id="open-h">{_("lobby.open")}</h2><ul class="tables"
  data-empty="{_("common.none_right_now")}" id="tables-open" aria-labelledby="open-h"></ul></section>
<section aria-labelledby="playing-h"><h2 id="playing-h">{_("lobby.playing")}</h2><ul class="tables"
  data-empty="{_("common.none_right_now")}" id="tables-playing" aria-labelledby="playing-h"></ul></section>
<section aria-labelledby="finished-h"><h2 id="finished-h">{_("lobby.finished")}</h2><ul class="tables"
  data-empty="{_("common.none_right_now")}" id="tables-finished" aria-labelledby="finished-h"></ul></section>
<p class="status" role="status" id="lobby-status"></p>
"""
    return shell(_("lobby.title"), main, ("lobby.js", "quickplay.js"), page="lobby", request=request)


def _credentials_page(
    request: Request, _, page: str, title: str, subtitle: str, password: tuple[str, str], below: str, hint: str = ""
) -> Response[str]:
    """Sign up and sign in: one form (forms.js finds it as `<page>-form`) that
    differs in the password's autocomplete and bounds, a hint, and the link below.
    Its button is enabled by forms.js once the form is wired: a click or an
    Enter before then would submit the form natively, and a password must
    never travel in a URL (POST, even then)."""
    hint_line = f'  <p class="hint">{hint}</p>\n' if hint else ""
    main = f"""
<h1>{title}</h1>
<form id="{page}-form" class="panel narrow" aria-labelledby="{page}-h" method="post" novalidate>
  <h2 id="{page}-h" class="visually-hidden">{subtitle}</h2>
  {_field(_("field.name"), "name", autocomplete="username", extra='maxlength="40"')}
  {_field(_("field.password"), "password", "password", *password)}
{hint_line}  <p><button type="submit" disabled>{title}</button></p>
  <p class="error" role="alert" id="form-error"></p>
</form>
<p>{below}</p>
"""
    return shell(title, main, ("forms.js",), page=page, request=request)


@get("/signup", include_in_schema=False, sync_to_thread=False)
def signup_page(request: Request) -> Response[str]:
    _ = translator(lang_of(request))
    return _credentials_page(
        request,
        _,
        "signup",
        _("nav.signup"),
        _("signup.h"),
        ("new-password", 'minlength="8" maxlength="200"'),
        f'{_("signup.have")} <a href="/signin">{_("nav.signin")}</a>',
        hint=_("signup.hint"),
    )


@get("/signin", include_in_schema=False, sync_to_thread=False)
def signin_page(request: Request) -> Response[str]:
    _ = translator(lang_of(request))
    return _credentials_page(
        request,
        _,
        "signin",
        _("nav.signin"),
        _("signin.h"),
        ("current-password", 'maxlength="200"'),
        f'{_("signin.none")} <a href="/signup">{_("nav.signup")}</a>',
    )


@get("/account", include_in_schema=False, sync_to_thread=False)
def account_page(request: Request) -> Response[str]:
    _ = translator(lang_of(request))
    main = f"""
<h1>{_("account.title")}</h1>
<p id="account-signed-out" hidden>{_("account.signed_out")} <a href="/signin">{_("nav.signin")}</a></p>
<div id="account" hidden>
  <p>{_("account.signed_in_as")} <strong id="account-name"></strong>.</p>
  <section class="panel narrow" aria-labelledby="password-h">
    <h2 id="password-h">{_("field.password")}</h2>
    <form id="password-form" aria-labelledby="password-h" method="post" novalidate>
      {_field(_("account.current_password"), "current-password", "password", "current-password", 'maxlength="200"')}
      {_field(_("account.new_password"), "new-password", "password", "new-password", 'minlength="8" maxlength="200"')}
      <p><button type="submit">{_("account.save_password")}</button></p>
      <p class="status" role="status" id="password-status"></p>
    </form>
  </section>
  <section class="panel narrow" aria-labelledby="token-h">
    <h2 id="token-h">{_("account.token")}</h2>
    <p>{_("account.token_use")} <code>Authorization: Bearer &lt;token&gt;</code>.
    {_("account.token_once")}</p>
    <p><button type="button" id="rotate-token">{_("account.new_token")}</button></p>
    <p class="token-out" id="token-out" hidden><label for="token-value">{_("account.your_token")}</label>
      <input id="token-value" readonly></p>
    <p class="status" role="status" id="token-status"></p>
  </section>
  <section class="panel narrow" aria-labelledby="data-h">
    <h2 id="data-h">{_("account.your_data")}</h2>
    <p>{_("account.data_what")}</p>
    <p><a href="/api/v1/players/me/data" download>{_("account.download_data")}</a></p>
  </section>
  <section class="panel narrow" aria-labelledby="delete-h">
    <h2 id="delete-h">{_("account.delete_h")}</h2>
    <p>{_("account.delete_what")}</p>
    <form id="delete-form" aria-labelledby="delete-h" method="post" novalidate>
      {_field(_("account.delete_password"), "delete-password", "password", "current-password", 'maxlength="200"')}
      <p><button type="submit">{_("account.delete")}</button></p>
      <p class="status" role="status" id="delete-status"></p>
    </form>
  </section>
</div>
<p class="status" role="status" id="account-deleted" hidden>{_("account.deleted")}</p>
"""
    return shell(_("account.title"), main, ("account.js", "account_data.js"), page="account", request=request)


@get("/how-to-play/{game:str}", include_in_schema=False, sync_to_thread=False)
def how_to_play_page(game: str, request: Request) -> Response[str]:
    lang = lang_of(request)
    _ = translator(lang)
    text = how_to_play(game, lang)
    if text is None:
        games = game_links(_, "/how-to-play/")
        return not_found(request, f"<h1>{_('howto.no_game')}</h1><p>{_('howto.rules_for')}</p><ul>{games}</ul>")
    others = game_links(_, "/how-to-play/", game)
    main = (
        f'<nav aria-label="{_("nav.games")}" class="games-nav"><ul>{others}</ul></nav>'
        f'<article class="howto">{text}</article>'
    )
    return shell(_("howto.title", game=_("game." + game)), main, page="howto", request=request)


@get("/games/{game_id:str}", include_in_schema=False, sync_to_thread=False)
def table_page(game_id: str, request: Request) -> Response[str]:
    """A table: the page's code is table.js/table.css (the table's own
    module); this shell gives it the game id and the regions it fills."""
    _ = translator(lang_of(request))
    main = loading_main(_, "table", "game-id", game_id, "table", _("table.title"))
    return shell(_("table.title"), main, ("table.js",), ("table.css",), page="table", request=request)


@get("/lang/{code:str}", include_in_schema=False, sync_to_thread=False)
def set_language(code: str, next: str = "/") -> Response[str]:
    """The language switch: remember the choice for a year and go back to
    the page, on this site only (no open redirect)."""
    response = Response("", status_code=303, headers={"Location": local_path(next), "Cache-Control": "no-store"})
    if code in LANGS:
        response.set_cookie(COOKIE, code, max_age=365 * 86400, path="/", samesite="lax")
    return response


def static_router():
    """services/web/static/: our CSS and ES modules (package-data)."""
    return create_static_files_router(path=ASSETS, directories=[STATIC], include_in_schema=False, name="web-assets")


ROUTES = [lobby_page, signup_page, signin_page, account_page, how_to_play_page, table_page, set_language]
