"""The bot author's page: register an agent (its token and
secret shown once), pause, resume, delete; run a sparring series and read
its report with the answer-time distribution as an SVG chart we draw
(agents.js) and strikes by reason. A client of the agent routes only."""

from __future__ import annotations

from litestar import Request, Response, get

from engines.registry import available
from services.web.i18n import lang_of, translator
from services.web.pages import shell


@get("/agents", include_in_schema=False, sync_to_thread=False)
def agents_page(request: Request) -> Response[str]:
    _ = translator(lang_of(request))
    games = "".join(
        f'<p class="field inline"><input type="checkbox" id="g-{g}" name="games"'
        f' value="{g}"{" checked" if i == 0 else ""}>'
        f'<label for="g-{g}">{_("game." + g)}</label></p>'
        for i, g in enumerate(available())
    )
    options = "".join(f'<option value="{g}">{_("game." + g)}</option>' for g in available())
    main = f"""
<h1>{_("nav.agents")}</h1>
<p class="hint">{_("agents.intro")}</p>
<p id="agents-signed-out" hidden>{_("agents.signed_out")} <a href="/signin?next=/agents">{_("nav.signin")}</a></p>
<div id="agents" hidden>
  <section class="panel" aria-labelledby="register-h">
    <h2 id="register-h">{_("agents.register")}</h2>
    <form id="register-form" aria-labelledby="register-h" class="form-grid" novalidate>
      <p class="field"><label for="a-name">{_("agents.name")}</label><input id="a-name" name="name" maxlength="40"
        required></p>
      <fieldset class="field"><legend>{_("agents.games")}</legend>{games}</fieldset>
      <p class="field"><label for="a-mode">{_("agents.mode")}</label><select id="a-mode" name="mode">
        <option value="pull">{_("agents.mode_pull")}</option><option
          value="push">{_("agents.mode_push")}</option></select></p>
      <p class="field"><label for="a-endpoint">{_("agents.endpoint")}</label><input id="a-endpoint" name="endpoint"
        type="url" placeholder="https://"></p>
      <p><button type="submit">{_("agents.register_button")}</button></p>
      <p class="error" role="alert" id="register-error"></p>
    </form>
    <div id="created" class="token-out" hidden role="region" aria-label="{_("agents.once")}">
      <p class="status" id="created-text"></p>
      <p><strong>{_("agents.once")}</strong></p>
      <p><label for="created-token">{_("agents.token")}</label> <input id="created-token" readonly></p>
      <p id="created-secret-row" hidden><label for="created-secret">{_("agents.secret")}</label> <input
        id="created-secret" readonly></p>
    </div>
  </section>
  <section aria-labelledby="list-h"><h2 id="list-h">{_("agents.list")}</h2><ul id="agent-list" class="tables"
    data-empty="{_("common.none_right_now")}"></ul>
    <p class="status" role="status" id="agents-status"></p></section>
  <template id="sparring-games">{options}</template>
</div>
"""
    return shell(_("nav.agents"), main, ("agents.js",), ("watch.css",), page="agents", request=request)


ROUTES = [agents_page]
