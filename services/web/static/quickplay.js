// Play now on the lobby (/): per game a player count and "Play now" (or
// "Bots now"); while the person waits, the ticket is read once a second
// (GET /api/v1/quick-play/{id}) until they are seated, then the table opens.
// "Stop waiting" withdraws the ticket. A ticket survives a reload of the
// page (sessionStorage), so the wait goes on where it was.
// How many wait comes with the lobby's stream (lobby.js, event hm:lobby);
// read every 2 s only while that stream is not open.
import { api, currentPlayer, describe, freshSeed, QUICK_PLAY_TICKET as KEPT } from "./api.js";
import { t, gameTitle } from "./i18n.js";

const POLL_MS = 1000;

const section = document.getElementById("play-now");
const list = document.getElementById("play-now-games");
const status = document.getElementById("play-now-status");
const player = await currentPlayer().catch(() => null);
const catalog = await api("/api/v1/games/catalog");
const counts = {};
let waiting = null; // { ticket_id, game, timer }

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  el.append(...children.filter((c) => c !== null && c !== undefined));
  return el;
}

const title = (game) => gameTitle(game) ?? catalog.find((g) => g.game === game)?.title ?? game;

function gameCard(spec) {
  const name = title(spec.game);
  const count = h("select", { id: `qp-players-${spec.game}`, name: "players" });
  for (let n = spec.min_players; n <= spec.max_players; n++) count.append(h("option", { value: String(n), text: String(n) }));
  count.value = String(Math.min(spec.max_players, Math.max(spec.min_players, 4)));
  const shown = h("span", { class: "qp-count", "data-game": spec.game });
  // Named by their text alone (the game's article names the game).
  const play = h("button", { type: "button", text: t("qp.play_now") });
  const now = h("button", { type: "button", class: "secondary", text: t("qp.bots_now") });
  play.addEventListener("click", () => join(spec.game, Number(count.value), false));
  now.addEventListener("click", () => join(spec.game, Number(count.value), true));
  const drawCount = () => {
    const n = counts[`${spec.game}/${count.value}`] ?? 0;
    shown.textContent = n ? t("qp.waiting_count", { n }) : "";
  };
  count.addEventListener("change", drawCount);
  shown.redraw = drawCount;
  return h("li", { class: "qp-game" },
    h("article", { "aria-label": name },
      h("h3", { text: name }),
      h("p", { class: "field inline" }, h("label", { for: count.id, text: t("qp.players") }), count, shown),
      h("div", { class: "actions" }, play, now)));
}

function setBusy(busy) {
  for (const button of list.querySelectorAll("button")) button.disabled = busy;
}

async function join(game, players, botsNow) {
  setBusy(true);
  try {
    follow(await api("/api/v1/quick-play", { method: "POST", body: { game, players, bots_now: botsNow, client_seed: freshSeed() } }));
  } catch (err) {
    status.textContent = describe(err);
    setBusy(false);
  }
}

function follow(ticket) {
  clearTimeout(waiting?.timer);
  if (ticket.status === "seated") {
    sessionStorage.removeItem(KEPT);
    status.textContent = t("qp.seated");
    window.location.assign(`/games/${ticket.game_id}`);
    return;
  }
  if (ticket.status !== "waiting") {
    sessionStorage.removeItem(KEPT);
    waiting = null;
    setBusy(false);
    return;
  }
  sessionStorage.setItem(KEPT, ticket.ticket_id);
  setBusy(true);
  const s = Math.max(0, Math.ceil((ticket.fill_at_ms - Date.now()) / 1000));
  const stop = h("button", { type: "button", class: "secondary", text: t("qp.stop") });
  stop.addEventListener("click", () => withdraw(ticket.ticket_id));
  status.replaceChildren(t("qp.searching", { game: title(ticket.game), n: ticket.waiting, s }), " ", stop);
  waiting = { ticket_id: ticket.ticket_id, timer: setTimeout(() => poll(ticket.ticket_id), POLL_MS) };
}

async function poll(ticketId) {
  try {
    follow(await api(`/api/v1/quick-play/${ticketId}`));
  } catch (err) {
    if (err.status === 404) {
      sessionStorage.removeItem(KEPT);
      setBusy(false);
      status.textContent = describe(err);
      return;
    }
    waiting = { ticket_id: ticketId, timer: setTimeout(() => poll(ticketId), POLL_MS) }; // the server is back soon
  }
}

async function withdraw(ticketId) {
  clearTimeout(waiting?.timer);
  try {
    await api(`/api/v1/quick-play/${ticketId}`, { method: "DELETE" });
    sessionStorage.removeItem(KEPT);
    waiting = null;
    setBusy(false);
    status.textContent = t("qp.stopped");
  } catch (err) {
    if (err.code === "already_seated") return poll(ticketId);
    status.textContent = describe(err);
  }
}

function showCounts(pools) {
  for (const key of Object.keys(counts)) delete counts[key];
  for (const pool of pools) counts[`${pool.game}/${pool.players}`] = pool.waiting;
  for (const shown of list.querySelectorAll(".qp-count")) shown.redraw();
}

async function refreshCounts() {
  try {
    const { pools } = await api("/api/v1/quick-play");
    showCounts(pools);
  } catch {
    // the lobby's own status says when the server cannot be reached
  }
}

if (!player) {
  document.getElementById("play-now-signin").hidden = false;
} else {
  list.replaceChildren(...catalog.map(gameCard));
  list.hidden = false;
  document.addEventListener("hm:lobby", (e) => showCounts(e.detail.quick_play.pools));
  await refreshCounts();
  setInterval(() => {
    if (document.visibilityState === "visible" && document.documentElement.dataset.lobbyStream !== "open") refreshCounts();
  }, 2000);
  const kept = sessionStorage.getItem(KEPT);
  if (kept) poll(kept);
}
section.dataset.ready = "1";
