// The replay viewer (/games/{id}/replay?at=N&seat=K): any finished game move
// by move from any seat's eyes or the public one (while a game runs, only
// your own seat: the API's rule). The board comes from GET .../replay at
// each step; the move list from GET .../events; the URL always says where
// you are, so a position can be shared.
import { api, describe as errorText } from "./api.js";
import { h, gameModule, contextFor, drawBoard, cardName, cardEl, title } from "./watch-ui.js";
import { t } from "./i18n.js";
import { mountAnalysis } from "./replay-analysis.js";

const root = document.getElementById("replay");
const gameId = root.dataset.gameId;
const $ = (id) => document.getElementById(id);
const status = $("replay-status");
const slider = $("position");
const seatSelect = $("seat");
const jump = $("jump");
const playButton = $("play");

let info = null, mod = null, ctx = null, events = [], max = 0, at = 0, seat = null, timer = null, drawing = 0, analysis = null;

function readUrl() {
  const q = new URLSearchParams(location.search);
  const n = Number(q.get("at"));
  const k = q.get("seat");
  return { at: Number.isInteger(n) && n >= 0 ? n : null, seat: k === null || k === "" ? null : Number(k) };
}

function urlAt(n) {
  const q = new URLSearchParams();
  q.set("at", String(n));
  if (seat !== null) q.set("seat", String(seat));
  return `${location.pathname}?${q}`;
}

function writeUrl() {
  history.replaceState(null, "", urlAt(at));
}

function lines(e) {
  const text = mod && mod.describe ? mod.describe(e, ctx, info) : null;
  if (text === null || text === undefined) {
    if (e.type === "hm.game_finished") return [t("table.over")];
    if (e.type === "hm.move_played_for_seat") return [t("replay.played_for", { name: ctx.name(e.seat), reason: t(`agents.reason.${e.reason}`) })];
    if (e.type === "hm.seat_handed_to_bot") return [t("reason.handed", { name: ctx.name(e.seat) })];
    if (e.type === "hm.deal_seeded") {
      const sent = (e.client_seeds || []).filter((x) => x).length;
      return [t("replay.deal_seeded", { commitment: String(e.commitment || "").slice(0, 12), n: sent })];
    }
    return [e.type];
  }
  return [text].flat();
}

/** A card of the hand, drawn by the game's module (named in the page's
 * language); else from its English name ("7 of purple"): rank and suit. */
function handCard(c) {
  if (mod && mod.handCard) return mod.handCard(ctx, c);
  const name = cardName(mod, c);
  const m = /^(.+?) of (\w+)$/.exec(name);
  if (!m) return cardEl({ name, suit: "joker", rank: name.slice(0, 2), mark: "★" });
  return cardEl({ name, suit: m[2].toLowerCase(), rank: m[1], mark: m[2][0].toUpperCase() });
}

/** The seat's own cards: `view.hand` in most games, Tezuma Trick keeps them
 * in `view.seats[seat].hand`; Kabuki masks have no hand at all. */
function handOf(v) {
  if (!v) return [];
  if (Array.isArray(v.hand)) return v.hand;
  const own = seat !== null && Array.isArray(v.seats) ? v.seats[seat] : null;
  return own && Array.isArray(own.hand) ? own.hand : [];
}

async function go(n, { focus = false } = {}) {
  at = Math.max(0, Math.min(max, n));
  slider.value = String(at);
  $("position-text").textContent = `${at} / ${max}`;
  writeUrl();
  for (const li of document.querySelectorAll("#move-list li")) {
    const v = Number(li.dataset.version);
    li.classList.toggle("future", v > at);
    if (v === at) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
  }
  if (analysis) analysis.show(at);
  const current = document.querySelector('#move-list li[aria-current="step"]');
  if (current) current.scrollIntoView({ block: "nearest" });
  const ticket = ++drawing;
  try {
    const q = seat === null ? `at=${at}` : `at=${at}&seat=${seat}`;
    const replay = await api(`/api/v1/games/${encodeURIComponent(gameId)}/replay?${q}`);
    if (ticket !== drawing) return; // a later step was asked for meanwhile
    const board = $("board");
    board.replaceChildren(...drawBoard(mod, replay.view, info, ctx));
    board.dataset.at = String(replay.at);
    const hand = handOf(replay.view);
    $("hand").replaceChildren(...(hand.length ? hand.map((c) => handCard(c))
      : [h("p", { class: "hint" }, seat === null ? t("replay.hidden_hands") : t("replay.no_cards"))]));
    $("hand").dataset.at = String(replay.at);
    status.textContent = seat === null ? t("replay.status_public", { at, max }) : t("replay.status_seat", { at, max, name: ctx.name(seat) });
  } catch (err) {
    if (ticket === drawing) status.textContent = errorText(err);
  }
  if (focus) slider.focus();
}

function stop() {
  clearInterval(timer);
  timer = null;
  playButton.textContent = t("replay.play");
  playButton.setAttribute("aria-pressed", "false");
}

function play() {
  if (timer) return stop();
  if (at >= max) go(0);
  playButton.textContent = t("replay.pause");
  playButton.setAttribute("aria-pressed", "true");
  timer = setInterval(() => (at >= max ? stop() : go(at + 1)), Number($("speed").value));
}

function buildJumps() {
  // Rounds start with a deal (Tezuma Trick's hands: tt.hand_dealt), tricks end
  // when won or scored: every game names them so.
  const opts = [h("option", { value: "" }, t("replay.round_or_trick"))];
  let round = 0, trick = 0;
  events.forEach((item) => {
    const type = item.event.type; // not `t`: that is the glossary's
    if (/[._](dealt|round_started)$/.test(type)) { round += 1; trick = 0; opts.push(h("option", { value: item.version }, t("common.round_n", { n: round }))); }
    if (/\.(trick_won|trick_scored)$/.test(type)) { trick += 1; opts.push(h("option", { value: item.version }, t("replay.round_trick", { round: Math.max(round, 1), trick }))); }
  });
  jump.replaceChildren(...opts);
}

async function fairness() {
  const box = $("fairness");
  if (info.status !== "finished") return;
  try {
    const v = await api(`/api/v1/games/${encodeURIComponent(gameId)}/verify`);
    const first = events.length ? events[0].event : {};
    // The seed goes up to 2^62, past a JSON number's exact range in JavaScript:
    // read it as text from the export's last lines.
    const exported = await fetch(`/api/v1/games/${encodeURIComponent(gameId)}/export`).then((r) => r.text());
    const seeds = [...exported.matchAll(/"seed":\s*(\d+)/g)], salts = [...exported.matchAll(/"salt":\s*"([0-9a-f]+)"/g)];
    const revealed = seeds.length && salts.length ? { seed: seeds[seeds.length - 1][1], salt: salts[salts.length - 1][1] } : null;
    const mark = (ok) => h("strong", { class: ok ? "ok" : "bad" }, ok ? t("replay.yes") : t("replay.no"));
    box.replaceChildren(h("dl", { class: "rules" },
      h("dt", {}, t("replay.commitment")), h("dd", {}, h("code", {}, first.commitment || "?")),
      h("dt", {}, t("replay.seed")), h("dd", {}, h("code", {}, revealed ? revealed.seed : "?")),
      h("dt", {}, t("replay.salt")), h("dd", {}, h("code", {}, revealed ? revealed.salt : "?")),
      h("dt", {}, t("replay.commitment_ok")), h("dd", {}, mark(v.commitment_ok)),
      h("dt", {}, t("replay.deals_ok")), h("dd", {}, mark(v.deals_ok)),
      h("dt", {}, t("replay.replay_ok")), h("dd", {}, mark(v.replay_ok))),
      ...(v.problems && v.problems.length ? [h("ul", {}, v.problems.map((p) => h("li", {}, p)))] : []));
  } catch (err) {
    box.replaceChildren(h("p", { class: "error" }, errorText(err)));
  }
}

async function start() {
  try {
    info = await api(`/api/v1/games/${encodeURIComponent(gameId)}`);
  } catch (err) {
    status.textContent = errorText(err);
    return;
  }
  mod = await gameModule(info.game);
  ctx = contextFor(info, mod);
  $("replay-title").textContent = t("replay.heading", { game: title(info.game) });
  document.title = `${t("replay.heading", { game: title(info.game) })} · Hanamichi`;
  max = info.version;
  const wanted = readUrl();
  seat = wanted.seat !== null ? wanted.seat : (info.status !== "finished" ? info.your_seat : null);
  // While a game runs, a seat's eyes are its player's only (the API's rule):
  // offer no seat the server would then refuse.
  const open = (i) => info.status === "finished" || i === info.your_seat;
  seatSelect.replaceChildren(h("option", { value: "" }, t("replay.public")),
    ...info.seats.map((s, i) => (open(i) ? h("option", { value: i }, ctx.name(i)) : null)).filter(Boolean));
  if (seat !== null && !open(seat)) seat = null;
  seatSelect.value = seat === null ? "" : String(seat);
  try {
    events = (await api(`/api/v1/games/${encodeURIComponent(gameId)}/events?after=0`)).events;
  } catch (err) {
    status.textContent = errorText(err);
  }
  $("move-list").replaceChildren(...events.map((item) =>
    h("li", { "data-version": item.version }, h("button", { type: "button", class: "link", onclick: () => go(item.version) }, `${item.version}.`), " ",
      lines(item.event).join(" "))));
  buildJumps();
  slider.max = String(max);
  $("export").href = `/api/v1/games/${encodeURIComponent(gameId)}/export`;
  $("export").setAttribute("download", `game-${gameId}.ndjson`);
  $("export").hidden = info.status !== "finished";
  analysis = mountAnalysis({ gameId, info, mod, ctx, go: (n) => go(n), link: urlAt });
  await go(wanted.at === null ? 0 : wanted.at);
  fairness();
}

$("first").addEventListener("click", () => go(0));
$("back").addEventListener("click", () => go(at - 1));
$("forward").addEventListener("click", () => go(at + 1));
$("last").addEventListener("click", () => go(max));
playButton.addEventListener("click", play);
$("speed").addEventListener("change", () => { if (timer) { stop(); play(); } });
slider.addEventListener("input", () => go(Number(slider.value)));
seatSelect.addEventListener("change", () => { seat = seatSelect.value === "" ? null : Number(seatSelect.value); go(at); });
jump.addEventListener("change", () => { if (jump.value !== "") go(Number(jump.value)); });
document.addEventListener("keydown", (e) => {
  // The slider steps by itself with the arrows; a select or a field keeps its keys.
  if (e.target === slider || e.target instanceof HTMLSelectElement || e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
  if (e.key === "ArrowRight") { e.preventDefault(); go(at + 1); }
  if (e.key === "ArrowLeft") { e.preventDefault(); go(at - 1); }
  if (e.key === "Home") { e.preventDefault(); go(0); }
  if (e.key === "End") { e.preventDefault(); go(max); }
});

start();
