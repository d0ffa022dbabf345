// Leaderboards per game (/leaderboards/{game}): people, agents and house bots
// apart, ranked by μ − 3σ, each rating shown as 1500-scale with "?" while
// provisional (GET /api/v1/leaderboards/{game}).
import { api, describe } from "./api.js";
import { h, ratingEl } from "./watch-ui.js";
import { t } from "./i18n.js";

const root = document.getElementById("leaderboard");
const game = root.dataset.game;

// Six columns are wider than a phone (360 px): the table scrolls inside its
// own box rather than widening the page. The box is a Tab stop (a keyboard
// can scroll it) named by its section's heading, so a screen reader says
// what it is when focus lands there.
function board(rows, linked, labelledby) {
  if (!rows.length) return h("p", { class: "hint" }, t("lb.nobody"));
  return h("div", { class: "table-scroll", tabindex: "0", role: "group", "aria-labelledby": labelledby }, h("table", { class: "grid" },
    h("thead", {}, h("tr", {}, ["#", t("field.name"), t("lb.rating"), "μ ± σ", t("lb.games"), t("lb.forfeits")].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows.map((r, i) => h("tr", { class: r.provisional ? "provisional" : "" },
      h("td", {}, String(i + 1)),
      h("th", { scope: "row" }, linked ? h("a", { href: `/players/${r.rated_id}` }, r.name) : r.name),
      h("td", {}, ratingEl(r)), h("td", {}, `${r.mu.toFixed(1)} ± ${r.sigma.toFixed(1)}`),
      h("td", {}, String(r.games)), h("td", {}, String(r.forfeits ?? 0)))))));
}

api(`/api/v1/leaderboards/${encodeURIComponent(game)}`).then((lb) => {
  document.getElementById("lb-players").replaceChildren(board(lb.players, true, "people-h"));
  document.getElementById("lb-agents").replaceChildren(board(lb.agents, true, "agents-h"));
  document.getElementById("lb-bots").replaceChildren(board(lb.bots, false, "bots-h"));
}).catch((err) => { document.getElementById("lb-status").textContent = describe(err); });
