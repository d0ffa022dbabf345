// "Live now" (/live): tables in play, the most watched first, each with a
// miniature of its public view; refreshed every few seconds.
import { api, describe } from "./api.js";
import { h, gameModule, contextFor, drawBoard, title } from "./watch-ui.js";

const list = document.getElementById("live-tables");
const status = document.getElementById("live-status");

async function render() {
  try {
    const live = await api("/api/v1/live?limit=24");
    const items = await Promise.all(live.tables.map(async (t) => {
      const mod = await gameModule(t.game);
      const ctx = contextFor(t, mod);
      const seats = t.seats.map((s, i) => h("li", {}, ctx.name(i), s.kind && s.kind !== "human" ? h("span", { class: `badge ${s.kind}` }, s.kind) : null));
      return h("li", { class: "table-card live-card", "data-game-id": t.game_id },
        h("h3", {}, h("a", { href: `/games/${t.game_id}` }, `${title(t.game)}`), t.ranked ? h("span", { class: "badge ranked" }, "ranked") : null),
        h("p", { class: "meta" }, h("span", { class: "watchers" }, `${t.spectators ?? "?"} watching`), ` · move ${t.version}`,
          t.tournament_id ? [" · ", h("a", { href: `/tournaments/${t.tournament_id}` }, "tournament")] : null),
        h("ol", { class: "seats" }, seats),
        h("div", { class: "miniature", "aria-hidden": "true" }, drawBoard(mod, t.view, t, ctx)),
        h("p", { class: "actions" }, h("a", { class: "button", href: `/games/${t.game_id}` }, "Watch")));
    }));
    list.replaceChildren(...items);
    status.textContent = live.tables.length ? `${live.tables.length} ${live.tables.length === 1 ? "table" : "tables"} in play` : "No table is in play right now.";
  } catch (err) {
    status.textContent = describe(err);
  }
}

render();
setInterval(render, 5000);
