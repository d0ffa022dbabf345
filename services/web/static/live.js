// "Live now" (/live): tables in play, the most watched first, each with a
// miniature of its public view; refreshed every few seconds.
import { api, describe } from "./api.js";
import { h, gameModule, contextFor, drawBoard, title } from "./watch-ui.js";
import { t } from "./i18n.js";

const list = document.getElementById("live-tables");
const status = document.getElementById("live-status");

async function render() {
  try {
    const live = await api("/api/v1/live?limit=24");
    const items = await Promise.all(live.tables.map(async (tb) => {
      const mod = await gameModule(tb.game);
      const ctx = contextFor(tb, mod);
      const seats = tb.seats.map((s, i) => h("li", {}, ctx.name(i), s.kind && s.kind !== "human" ? h("span", { class: `badge ${s.kind}` }, t(`tn.kind.${s.kind}`)) : null));
      return h("li", { class: "table-card live-card", "data-game-id": tb.game_id },
        h("h3", {}, h("a", { href: `/games/${tb.game_id}` }, `${title(tb.game)}`), tb.ranked ? h("span", { class: "badge ranked" }, t("live.ranked")) : null),
        h("p", { class: "meta" }, h("span", { class: "watchers" }, t("live.watching", { n: tb.spectators ?? "?" })), ` · ${t("live.move", { n: tb.version })}`,
          tb.tournament_id ? [" · ", h("a", { href: `/tournaments/${tb.tournament_id}` }, t("live.tournament"))] : null),
        h("ol", { class: "seats" }, seats),
        h("div", { class: "miniature", "aria-hidden": "true" }, drawBoard(mod, tb.view, tb, ctx)),
        h("p", { class: "actions" }, h("a", { class: "button", href: `/games/${tb.game_id}` }, t("live.watch"))));
    }));
    list.replaceChildren(...items);
    status.textContent = live.tables.length ? t(live.tables.length === 1 ? "live.one" : "live.many", { n: live.tables.length }) : t("live.none");
  } catch (err) {
    status.textContent = describe(err);
  }
}

render();
setInterval(render, 5000);
