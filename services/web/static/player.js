// A player's page (/players/{id}): rating history as an SVG chart we draw,
// recent games with results and replay links, tournaments played.
import { api, ApiError, describe } from "./api.js";
import { h, fmtDate, ordinal, ratingEl, title } from "./watch-ui.js";
import { t } from "./i18n.js";

const root = document.getElementById("player");
const playerId = root.dataset.playerId;
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const gameStatus = (s) => ({ open: t("player.st.open"), playing: t("player.st.playing"), finished: t("player.st.finished") })[s] || s;
const tnStatus = (s) => ({ registering: t("tn.status.registering"), running: t("tn.status.running"), finished: t("tn.status.finished"), cancelled: t("tn.status.cancelled") })[s] || s;

function svg(tag, attrs = {}, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const kid of kids) el.append(kid);
  return el;
}

/** The rating after each rated game (the API's rating_before/after, on the
 * scale every page shows), with a ± σ band and μ − 3σ, which leaderboards
 * rank by, on the same scale (`perMu` points per μ point). */
export function ratingChart(game, history, perMu) {
  const W = 600, H = 220, L = 44, R = 12, T = 12, B = 28;
  const at = (rating, sigma) => ({ rating, spread: sigma * perMu });
  const pts = [at(history[0].rating_before, history[0].sigma_before), ...history.map((c) => at(c.rating_after, c.sigma_after))];
  const cautious = (p) => p.rating - 3 * p.spread;
  const lo = Math.min(...pts.map(cautious)), hi = Math.max(...pts.map((p) => p.rating + p.spread));
  const x = (i) => L + (i * (W - L - R)) / Math.max(1, pts.length - 1);
  const y = (v) => T + ((hi - v) * (H - T - B)) / Math.max(1e-9, hi - lo);
  const line = (f) => pts.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(f(p)).toFixed(1)}`).join(" ");
  const band = `${line((p) => p.rating + p.spread)} ${pts.map((p, i) => [i, p]).reverse().map(([i, p]) => `L${x(i).toFixed(1)},${y(p.rating - p.spread).toFixed(1)}`).join(" ")} Z`;
  const ticks = [lo, (lo + hi) / 2, hi].map((v) => svg("g", {},
    svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid-line" }),
    svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" }, v.toFixed(0))));
  const last = pts[pts.length - 1];
  return svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img",
    "aria-label": t("player.chart_label", { game: title(game), n: history.length, from: pts[0].rating, to: last.rating }) },
    ...ticks,
    svg("path", { d: band, class: "band" }),
    svg("path", { d: line((p) => p.rating), class: "rating-line" }),
    svg("path", { d: line(cautious), class: "ordinal" }),
    ...pts.map((p, i) => svg("circle", { cx: x(i), cy: y(p.rating), r: 3, class: "rating-dot" })),
    svg("text", { x: L, y: H - 8, class: "axis" }, t("player.axis")));
}

async function ratings() {
  try {
    const r = await api(`/api/v1/players/${encodeURIComponent(playerId)}/ratings`);
    const byGame = new Map();
    for (const c of r.history) (byGame.get(c.game) || byGame.set(c.game, []).get(c.game)).push(c);
    $("p-charts").replaceChildren(...[...byGame].map(([game, hist]) => {
      const now = r.ratings.find((x) => x.game === game);
      return h("figure", { class: "rating" }, h("figcaption", {}, h("a", { href: `/leaderboards/${game}` }, title(game)),
        now ? [` · ${t("lb.rating")} `, ratingEl(now)] : ""), ratingChart(game, hist, r.points_per_mu),
        h("p", { class: "hint" }, t("player.legend")));
    }));
  } catch (err) {
    $("p-charts").replaceChildren(h("p", { class: "hint" }, err instanceof ApiError && err.status === 404 ? t("player.no_rated") : describe(err)));
  }
}

async function games() {
  const g = await api(`/api/v1/players/${encodeURIComponent(playerId)}/games?limit=30`);
  $("p-title").textContent = g.name;
  document.title = `${g.name} · Hanamichi`;
  $("p-status").textContent = g.kind === "agent" ? t("player.agent") : "";
  $("p-games").replaceChildren(g.games.length ? h("table", { class: "grid" },
    h("thead", {}, h("tr", {}, [t("tn.f.game"), t("player.when"), t("player.status"), t("tn.col.place"), t("tn.col.score"), ""].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, g.games.map((x) => h("tr", {},
      h("th", { scope: "row" }, title(x.game), x.ranked ? h("span", { class: "badge ranked" }, t("live.ranked")) : null),
      h("td", {}, fmtDate(x.finished_at_ms || x.created_at_ms)), h("td", {}, gameStatus(x.status)),
      h("td", {}, x.place ? `${ordinal(x.place)}${x.forfeited ? " " + t("player.forfeit") : ""}` : ""), h("td", {}, x.score ?? ""),
      h("td", {}, x.status === "finished" ? h("a", { href: `/games/${x.game_id}/replay?at=0` }, t("replay.title"))
        : h("a", { href: `/games/${x.game_id}` }, x.status === "playing" ? t("live.watch") : t("player.open"))))))) : h("p", { class: "hint" }, t("player.no_games")));
  $("p-tournaments").replaceChildren(...g.tournaments.map((tn) => h("li", {},
    h("a", { href: `/tournaments/${tn.tournament_id}` }, `${title(tn.game)}, ${fmtDate(tn.start_ms)}`), ` (${tnStatus(tn.status)})`)));
  if (!g.tournaments.length) $("p-tournaments").replaceChildren(h("li", { class: "hint" }, t("player.none")));
  return g;
}

// How the player finishes ranked games, and (on one's own page) the end of
// a cooldown from ranked play (services/app/fairplay.py).
async function completion() {
  const p = await api(`/api/v1/players/${encodeURIComponent(playerId)}`);
  const lines = [];
  if (p.completion_rate !== null) lines.push(t("player.completion", { rate: Math.round(p.completion_rate * 100), n: p.ranked_games }));
  if (p.ranked_cooldown_until_ms) {
    const ends = new Date(p.ranked_cooldown_until_ms).toLocaleTimeString(document.documentElement.lang, { hour: "2-digit", minute: "2-digit" });
    lines.push(t("player.cooldown", { time: ends }));
  }
  $("p-completion").textContent = lines.join(" ");
}

completion().catch(() => {});

// Ratings come from ranked games: without one among the recent games (and
// fewer than a full page of them) there is nothing to ask, and the 404 the
// API would answer is a console error in the browser.
games().then((g) => {
  if (g.games.some((x) => x.ranked) || g.games.length >= 30) ratings();
  else $("p-charts").replaceChildren(h("p", { class: "hint" }, t("player.no_rated")));
}).catch((err) => { $("p-status").textContent = describe(err); ratings(); });
